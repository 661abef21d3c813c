// `gatehouse plugin build`: compiles an AssemblyScript plugin (the wasm-as scaffold's
// assembly/index.ts) into the module its manifest names, with the AssemblyScript compiler that
// ships with Gatehouse. Why Gatehouse's own: `npx asc` outside a project with the compiler
// installed fails ("could not determine executable"), and installing the compiler into the plugin
// folder puts a node_modules tree inside what is hashed, scanned and pinned (it fails the scan).
// Nothing is fetched: the build works offline, and the plugin folder gets only the module.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { jsChildCommand } from '../../../core/node-runtime.js';

/** The entry an AssemblyScript plugin is built from, relative to its folder. */
export const AS_ENTRY = 'assembly/index.ts';
/** The compiler's options: the stub runtime (no GC: one call, one fresh instance), optimized. */
export const AS_OPTIONS = ['--runtime', 'stub', '--optimize'] as const;

export class PluginBuildError extends Error {}

/** The compiler's command-line script inside Gatehouse's own dependencies. */
export function ascScript(): string {
  let pkg: string;
  try {
    pkg = createRequire(import.meta.url).resolve('assemblyscript/package.json');
  } catch {
    throw new PluginBuildError('the AssemblyScript compiler that ships with Gatehouse is missing (node_modules/assemblyscript); reinstall Gatehouse (npm install) and build again.');
  }
  return join(dirname(pkg), 'bin', 'asc.js');
}

/** The module path a wasm plugin's gatehouse.toml names (plugin.wasm when it names none). */
function moduleOf(dir: string): string {
  const file = join(dir, 'gatehouse.toml');
  if (!existsSync(file)) throw new PluginBuildError(`${dir} has no gatehouse.toml; \`gatehouse plugin build\` builds WebAssembly plugins made with \`gatehouse plugin new --lang wasm-as\`.`);
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new PluginBuildError(`${file} is not valid TOML (${(err as Error).message.split('\n')[0]}); fix it, then build again.`);
  }
  if (raw['kind'] !== 'wasm') throw new PluginBuildError(`${file}: kind is ${JSON.stringify(raw['kind'] ?? null)}, not "wasm"; only WebAssembly plugins are built (other kinds run their files as they are).`);
  const wasm = raw['wasm'] ?? 'plugin.wasm';
  if (typeof wasm !== 'string' || wasm === '' || isAbsolute(wasm) || wasm.split(/[\\/]/).includes('..')) {
    throw new PluginBuildError(`${file}: \`wasm\` must be a path inside the plugin folder, such as "plugin.wasm".`);
  }
  return wasm;
}

/** Builds the plugin in `dir`; the compiler's own messages go to this process's stdout/stderr. */
export function buildPlugin(dir: string): { module: string } {
  const out = moduleOf(dir);
  if (!existsSync(join(dir, AS_ENTRY))) throw new PluginBuildError(`${join(dir, AS_ENTRY)} does not exist; \`gatehouse plugin build\` compiles an AssemblyScript plugin from ${AS_ENTRY} (build other languages with their own toolchain into ${out}).`);
  let asc: { node: string; file: string };
  try {
    // A real Node: under Electron the app's binary cannot act as one (main/runner/js-child.ts).
    asc = jsChildCommand('the AssemblyScript compiler', ascScript());
  } catch (err) {
    throw new PluginBuildError((err as Error).message);
  }
  const r = spawnSync(asc.node, [asc.file, AS_ENTRY, '-o', out, ...AS_OPTIONS], { cwd: dir, stdio: 'inherit' });
  if (r.error) throw new PluginBuildError(`the AssemblyScript compiler could not start: ${r.error.message}`);
  if (r.status !== 0) throw new PluginBuildError(`the AssemblyScript compiler failed (exit ${r.status ?? r.signal}); fix the errors it printed above in ${AS_ENTRY}, then build again.`);
  return { module: out };
}
