// Turns a module plugin's `mod.ts` (or `mod.js`) and the files it imports from its folder into
// one ESM file the child can load. esbuild only parses here: no plugin code runs in the host.
// Imports are confined: a relative import must stay inside the plugin folder, a URL import
// (Deno's `https://…`) and a package import are refused with the importing file named; only
// Node's built-in modules stay external (the sandbox decides what they can reach).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Plugin } from 'esbuild';

export const MODULE_ENTRIES = ['mod.ts', 'mod.js'] as const;

/** The entry file of a module plugin folder, or null when it has none. */
export function moduleEntry(dir: string): string | null {
  for (const e of MODULE_ENTRIES) if (existsSync(join(dir, e))) return join(dir, e);
  return null;
}

export class ModuleCompileError extends Error {
  override name = 'ModuleCompileError';
}

const BUILTINS = new Set(builtinModules);

function confine(root: string): Plugin {
  return {
    name: 'confine-to-plugin-folder',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const spec = args.path;
        const from = relative(root, args.importer) || args.importer;
        if (spec.startsWith('node:') || BUILTINS.has(spec)) return { path: spec, external: true };
        if (/^[a-z][a-z0-9+.-]*:/i.test(spec)) return { errors: [{ text: `${from} imports ${JSON.stringify(spec)} from the network; copy the code into the plugin folder and import it relatively` }] };
        if (!spec.startsWith('.') && !isAbsolute(spec)) return { errors: [{ text: `${from} imports the package ${JSON.stringify(spec)}; module plugins may import only files inside their folder and Node's built-in modules` }] };
        const target = resolve(args.resolveDir, spec);
        let real = target;
        try {
          real = realpathSync(target);
        } catch {
          // esbuild reports the missing file itself (it tries the extensions).
        }
        const rel = relative(root, real);
        if (rel.startsWith('..') || isAbsolute(rel)) return { errors: [{ text: `${from} imports ${JSON.stringify(spec)}, which is outside the plugin folder (${real}); move it into the folder` }] };
        return undefined;
      });
    },
  };
}

type Esbuild = typeof import('esbuild');

/** esbuild when it is installed (a development dependency); null in an installed Gatehouse. */
async function loadEsbuild(): Promise<Esbuild | null> {
  try {
    return (await import('esbuild')) as Esbuild;
  } catch {
    return null;
  }
}

/**
 * Compiles the module into its own folder under `cacheDir` (named by content hash) and returns
 * the entry's path there: one bundle with esbuild when it is installed, else each file of the
 * folder the entry imports transpiled by TypeScript (a runtime dependency) with the same
 * confinement of imports.
 */
export async function compileModule(pluginDir: string, cacheDir: string, opts: { compiler?: 'auto' | 'typescript' } = {}): Promise<{ file: string; hash: string; inputs: string[] }> {
  const root = realpathSync(pluginDir);
  const entry = moduleEntry(root);
  if (!entry) throw new ModuleCompileError(`${pluginDir} has no mod.ts or mod.js; a module plugin's entry point is one of them`);
  const esbuild = opts.compiler === 'typescript' ? null : await loadEsbuild();
  const files = esbuild ? await bundle(esbuild, root, entry) : await transpileTree(root, entry);
  const hash = createHash('sha256');
  for (const f of files) hash.update(f.path).update('\0').update(f.text).update('\0');
  const digest = hash.digest('hex');
  const outDir = join(cacheDir, digest.slice(0, 32));
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  if (!existsSync(outDir)) {
    const tmp = `${outDir}.${process.pid}.tmp`;
    for (const f of files) {
      mkdirSync(dirname(join(tmp, f.path)), { recursive: true, mode: 0o700 });
      writeFileSync(join(tmp, f.path), f.text, { mode: 0o600 });
    }
    renameSync(tmp, outDir);
  }
  return { file: join(outDir, files[0]!.path), hash: digest, inputs: files.map((f) => f.source) };
}

type OutFile = { path: string; text: string; source: string };

async function bundle(esbuild: Esbuild, root: string, entry: string): Promise<OutFile[]> {
  let r;
  try {
    r = await esbuild.build({ entryPoints: [entry], absWorkingDir: root, bundle: true, platform: 'node', target: 'node20', format: 'esm', write: false, logLevel: 'silent', metafile: true, plugins: [confine(root)] });
  } catch (err) {
    const errors = (err as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors ?? [];
    const text = errors.map((e) => (e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ${e.text}` : e.text)).join('; ');
    throw new ModuleCompileError(`${relative(root, entry)} does not compile: ${text || (err as Error).message}`);
  }
  return [{ path: 'mod.mjs', text: r.outputFiles[0]!.text, source: relative(root, entry) }];
}

/** Where a relative import lands: the file itself or with .ts/.js/index added, inside the folder. */
function resolveImport(root: string, from: string, spec: string): string {
  const rel = relative(root, from);
  if (spec.startsWith('node:') || BUILTINS.has(spec)) return spec;
  if (/^[a-z][a-z0-9+.-]*:/i.test(spec)) throw new ModuleCompileError(`${rel} imports ${JSON.stringify(spec)} from the network; copy the code into the plugin folder and import it relatively`);
  if (!spec.startsWith('.') && !isAbsolute(spec)) throw new ModuleCompileError(`${rel} imports the package ${JSON.stringify(spec)}; module plugins may import only files inside their folder and Node's built-in modules`);
  const base = resolve(dirname(from), spec);
  const found = [base, `${base}.ts`, `${base}.js`, join(base, 'index.ts'), join(base, 'index.js')].find((c) => {
    try {
      return statSync(c).isFile();
    } catch {
      return false;
    }
  });
  if (!found) throw new ModuleCompileError(`${rel} imports ${JSON.stringify(spec)}, which does not exist in the plugin folder`);
  const real = realpathSync(found);
  const inside = relative(root, real);
  if (inside.startsWith('..') || isAbsolute(inside)) throw new ModuleCompileError(`${rel} imports ${JSON.stringify(spec)}, which is outside the plugin folder (${real}); move it into the folder`);
  return real;
}

const outName = (root: string, file: string) => relative(root, file).split(sep).join('/').replace(/\.(ts|js|mjs)$/, '') + '.mjs';

async function transpileTree(root: string, entry: string): Promise<OutFile[]> {
  const ts = (await import('typescript')).default;
  const out: OutFile[] = [];
  const seen = new Set<string>();
  const queue = [realpathSync(entry)];
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (seen.size > 500) throw new ModuleCompileError('the module imports more than 500 files; a module plugin is a small folder');
    const source = readFileSync(file, 'utf8');
    const specs = ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
    const map = new Map<string, string>();
    for (const spec of specs) {
      const target = resolveImport(root, file, spec);
      if (target === spec) continue;
      let relTarget = relative(dirname(outName(root, file)), outName(root, target)).split(sep).join('/');
      if (!relTarget.startsWith('.')) relTarget = `./${relTarget}`;
      map.set(spec, relTarget);
      queue.push(target);
    }
    const r = ts.transpileModule(source, { fileName: file, reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, isolatedModules: true } });
    const errors = (r.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (errors.length) throw new ModuleCompileError(`${relative(root, file)} does not compile: ${errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')).join('; ')}`);
    // Import specifiers point at the transpiled files (string literals only: that is all preProcessFile reports).
    const text = r.outputText.replace(/(\bfrom\s*|\bimport\s*\(?\s*)(["'])([^"'\n]+)\2/g, (m, pre: string, q: string, spec: string) => (map.has(spec) ? `${pre}${q}${map.get(spec)}${q}` : m));
    out.push({ path: outName(root, file), text, source: relative(root, file) });
  }
  return out;
}
