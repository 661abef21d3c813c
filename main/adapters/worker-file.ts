// Where the Lua worker's code is: built beside the bundle by scripts/build.mjs (out/main/lua-worker.mjs),
// or, from the sources under vitest, bundled on first use (main/core/entry-file.ts).
import { entryFile } from '../core/entry-file.js';

export function luaWorkerFile(): string {
  return entryFile({ name: 'lua-worker', ext: '.mjs', callerUrl: import.meta.url, what: 'the Lua adapter worker', packagesExternal: true });
}
