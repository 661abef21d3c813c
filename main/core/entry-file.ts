// Where the code of a worker thread or child process is: built by scripts/build.mjs as its own entry
// next to the bundle that runs this code (out/main for the CLI and Electron, out/bench one folder
// over). From the sources (vitest) there is no such file: the entry is bundled with esbuild on first
// use into node_modules/.cache, where its packages resolve. One place for the extraction worker,
// the WebAssembly worker and host process, and the module plugins' child.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EntrySpec {
  /** The entry's base name: `<name>.ts` beside the caller in the sources, `<name><ext>` in out/. */
  name: string;
  ext: '.cjs' | '.mjs';
  /** The caller's `import.meta.url` (undefined in the CommonJS Electron bundle). */
  callerUrl: string | undefined;
  /** What it is, for the error that says it is missing ("the extraction worker"). */
  what: string;
  /** From the sources: leave packages to be resolved at run time (false bundles them in). */
  packagesExternal: boolean;
}

const found = new Map<string, string>();

export function entryFile(spec: EntrySpec): string {
  const key = `${spec.name}${spec.ext}`;
  const known = found.get(key);
  if (known) return known;
  const here = callerFile(spec.callerUrl);
  const dir = dirname(here);
  const file = here.endsWith('.ts')
    ? buildFromSources(join(dir, `${spec.name}.ts`), spec)
    : [join(dir, key), join(dir, '..', 'main', key)].find((c) => existsSync(c));
  if (!file) throw new Error(`${spec.what} (${key}) is missing next to ${here}; run \`npm run build\``);
  found.set(key, file);
  return file;
}

function callerFile(url: string | undefined): string {
  if (typeof url === 'string') return fileURLToPath(url);
  // CommonJS bundle (Electron): esbuild defines import.meta.url as undefined there, and every
  // module of the bundle shares its __filename.
  if (typeof __filename === 'string') return __filename;
  throw new Error('cannot tell where Gatehouse is loaded from');
}

function buildFromSources(entry: string, spec: EntrySpec): string {
  const req = createRequire(entry);
  // The node_modules folder the sources' packages come from: the bundle there resolves them too.
  const pkg = req.resolve('esbuild');
  const root = pkg.slice(0, pkg.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  const esbuild = req('esbuild') as typeof import('esbuild');
  const cjs = spec.ext === '.cjs';
  const r = esbuild.buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: cjs ? 'cjs' : 'esm',
    ...(spec.packagesExternal ? { packages: 'external' as const } : {}),
    ...(cjs ? { define: { 'import.meta.url': 'undefined' } } : {}),
    write: false,
    logLevel: 'silent',
  });
  const file = r.outputFiles[0];
  if (!file) throw new Error(`esbuild produced nothing for ${spec.what}`);
  // Named by content: test processes running at once share one file and never see a half-written one.
  const out = join(root, '.cache', `gatehouse-${spec.name}`, `${spec.name}-${createHash('sha256').update(file.contents).digest('hex').slice(0, 16)}${spec.ext}`);
  if (!existsSync(out)) {
    mkdirSync(dirname(out), { recursive: true });
    const tmp = `${out}.${process.pid}.tmp`;
    writeFileSync(tmp, file.contents);
    renameSync(tmp, out);
  }
  return out;
}
