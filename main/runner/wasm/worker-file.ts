// Where the WebAssembly worker's and host process's code is (ESM: binaryen is ESM with top-level
// await, which require() cannot load), built beside the bundle; from the sources, bundled on first
// use (main/core/entry-file.ts).
import { entryFile } from '../../core/entry-file.js';

/** The worker thread's file (wasm-worker.ts). */
export function wasmWorkerFile(): string {
  // In the sandboxed child process the host names the file (the child's own bundle may have a
  // hashed name with no sibling to find).
  return process.env['GATEHOUSE_WASM_WORKER'] || entryFile({ name: 'wasm-worker', ext: '.mjs', callerUrl: import.meta.url, what: 'the WebAssembly worker', packagesExternal: true });
}

/** The child process's file (wasm-host-process.ts): the worker pool inside the sandbox. */
export function wasmHostProcessFile(): string {
  return entryFile({ name: 'wasm-host-process', ext: '.mjs', callerUrl: import.meta.url, what: "the WebAssembly runner's host process", packagesExternal: true });
}
