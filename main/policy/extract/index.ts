export { extract, initExtractor, type ExtractOptions } from './extract.js';
export { expandHome, normalisePath, resolveSymlinks } from './paths.js';
export { parseShell } from './shell-parse.js';
export type { Script, Word } from './shell-ir.js';
