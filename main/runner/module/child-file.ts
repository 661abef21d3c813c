// Where the module child's code is: built as its own entry (module-child.mjs) next to the bundle
// that runs this code (out/main, or out/bench one folder over). From the sources (vitest) it is
// bundled from module-child.ts on first use into node_modules/.cache, as the WebAssembly
// runner's process is (main/runner/wasm/worker-file.ts).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

export function moduleChildFile(): string {
  if (found) return found;
  const here = currentFile();
  const dir = dirname(here);
  let file: string | undefined;
  if (here.endsWith('.ts')) file = buildFromSources(join(dir, 'module-child.ts'));
  else file = [join(dir, 'module-child.mjs'), join(dir, '..', 'main', 'module-child.mjs')].find((c) => existsSync(c));
  if (!file) throw new Error(`the module runner's module-child.mjs is missing next to ${here}; run \`npm run build\``);
  found = file;
  return file;
}

function currentFile(): string {
  const url: unknown = import.meta.url;
  if (typeof url === 'string') return fileURLToPath(url);
  if (typeof __filename === 'string') return __filename;
  throw new Error('cannot tell where the module runner is loaded from');
}

function buildFromSources(entry: string): string {
  const req = createRequire(entry);
  const pkg = req.resolve('esbuild');
  const root = pkg.slice(0, pkg.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  const esbuild = req('esbuild') as typeof import('esbuild');
  const r = esbuild.buildSync({ entryPoints: [entry], bundle: true, platform: 'node', target: 'node20', format: 'esm', write: false, logLevel: 'silent' });
  const file = r.outputFiles[0];
  if (!file) throw new Error('esbuild produced no module child');
  const out = join(root, '.cache', 'gatehouse-module-child', `module-child-${createHash('sha256').update(file.contents).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(out)) {
    mkdirSync(dirname(out), { recursive: true });
    const tmp = `${out}.${process.pid}.tmp`;
    writeFileSync(tmp, file.contents);
    renameSync(tmp, out);
  }
  return out;
}
