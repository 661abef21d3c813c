// Where the WebAssembly worker's code is: built as its own entry (wasm-worker.mjs, ESM: binaryen is ESM with top-level await, which require() cannot load) next to the
// bundle that runs this code (out/main for the CLI and Electron, out/bench one folder over).
// From the sources (vitest), it is bundled from wasm-worker.ts on first use into
// node_modules/.cache, where its packages (binaryen) resolve. The same scheme as the extraction
// worker (main/policy/extract/guarded-extract.ts).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const found = new Map<string, string>();

/** The worker thread's file (wasm-worker.ts). */
export function wasmWorkerFile(): string {
  // In the sandboxed child process the host names the file (the child's own bundle may have a
  // hashed name with no sibling to find).
  return process.env['GATEHOUSE_WASM_WORKER'] || entryFile('wasm-worker');
}

/** The child process's file (wasm-host-process.ts): the worker pool inside the sandbox. */
export function wasmHostProcessFile(): string {
  return entryFile('wasm-host-process');
}

function entryFile(name: string): string {
  const known = found.get(name);
  if (known) return known;
  const here = currentFile();
  const dir = dirname(here);
  let file: string | undefined;
  if (here.endsWith('.ts')) file = buildFromSources(join(dir, `${name}.ts`));
  else file = [join(dir, `${name}.mjs`), join(dir, '..', 'main', `${name}.mjs`)].find((c) => existsSync(c));
  if (!file) throw new Error(`the WebAssembly runner's ${name}.mjs is missing next to ${here}; run \`npm run build\``);
  found.set(name, file);
  return file;
}

function currentFile(): string {
  const url: unknown = import.meta.url;
  if (typeof url === 'string') return fileURLToPath(url);
  if (typeof __filename === 'string') return __filename;
  throw new Error('cannot tell where the WebAssembly runner is loaded from');
}

function buildFromSources(entry: string): string {
  const req = createRequire(entry);
  const pkg = req.resolve('esbuild');
  const root = pkg.slice(0, pkg.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  const esbuild = req('esbuild') as typeof import('esbuild');
  const r = esbuild.buildSync({ entryPoints: [entry], bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', write: false, logLevel: 'silent' });
  const file = r.outputFiles[0];
  if (!file) throw new Error('esbuild produced no WebAssembly worker');
  const out = join(root, '.cache', 'gatehouse-wasm-worker', `${basename(entry, '.ts')}-${createHash('sha256').update(file.contents).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(out)) {
    mkdirSync(dirname(out), { recursive: true });
    const tmp = `${out}.${process.pid}.tmp`;
    writeFileSync(tmp, file.contents);
    renameSync(tmp, out);
  }
  return out;
}
