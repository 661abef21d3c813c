// Turns a module plugin's `mod.ts` (or `mod.js`) and the files it imports from its folder into
// one ESM file the child can load. esbuild only parses here: no plugin code runs in the host.
// Imports are confined: a relative import must stay inside the plugin folder, a URL import
// (Deno's `https://…`) and a package import are refused with the importing file named; only
// Node's built-in modules stay external (the sandbox decides what they can reach).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';

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

/** Compiles the module into `cacheDir` (by content hash) and returns the file's path. */
export async function compileModule(pluginDir: string, cacheDir: string): Promise<{ file: string; hash: string; inputs: string[] }> {
  const root = realpathSync(pluginDir);
  const entry = moduleEntry(root);
  if (!entry) throw new ModuleCompileError(`${pluginDir} has no mod.ts or mod.js; a module plugin's entry point is one of them`);
  let r;
  try {
    r = await build({ entryPoints: [entry], absWorkingDir: root, bundle: true, platform: 'node', target: 'node20', format: 'esm', write: false, logLevel: 'silent', metafile: true, plugins: [confine(root)] });
  } catch (err) {
    const errors = (err as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors ?? [];
    const text = errors.map((e) => (e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ${e.text}` : e.text)).join('; ');
    throw new ModuleCompileError(`${relative(root, entry)} does not compile: ${text || (err as Error).message}`);
  }
  const out = r.outputFiles[0]!;
  const hash = createHash('sha256').update(out.contents).digest('hex');
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const file = join(cacheDir, `${hash.slice(0, 32)}.mjs`);
  if (!existsSync(file)) {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, out.contents, { mode: 0o600 });
    renameSync(tmp, file);
  }
  return { file, hash, inputs: Object.keys(r.metafile.inputs) };
}
