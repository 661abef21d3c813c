// Where the module child's code is (module-child.mjs, built beside the bundle; from the sources,
// bundled on first use: main/core/entry-file.ts). Its packages are bundled in: the child runs in a
// sandbox that may not see node_modules.
import { entryFile } from '../../core/entry-file.js';

export function moduleChildFile(): string {
  return entryFile({ name: 'module-child', ext: '.mjs', callerUrl: import.meta.url, what: "the module runner's child", packagesExternal: false });
}
