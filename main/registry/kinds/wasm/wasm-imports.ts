// The Plugins view's table of a wasm plugin's imports next to what its manifest grants. Read
// from the raw manifest, so that an invalid plugin (an import not granted) shows it too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseManifestSource } from '../../manifest/load-manifest.js';
import { judgeImports, moduleAbi, type Grant } from '../../manifest/wasm-abi.js';
import { readPluginModule } from '../../manifest/wasm-checks.js';
import { readModuleInfo } from '../../manifest/wasm-module-info.js';
import type { PluginEntry } from '../../plugin-registry.js';

/** A wasm plugin's imports next to what its manifest grants (the Plugins view marks mismatches). */
export interface WasmImportsView {
  imports: { module: string; name: string; kind: string; grant: Grant | null; granted: boolean }[];
  /**
   * How the module runs: `extism` (exports called through the Extism kernel), `wasi` (a WASI
   * preview 1 command: JSON on stdin, result on stdout), `extism+wasi` (Extism with WASI beside it).
   */
  abi?: 'extism' | 'wasi' | 'extism+wasi' | 'agentzero';
  /** Why the module's imports could not be read (missing, too big, not a module), or null. */
  error: string | null;
}

export function wasmImportsOf(e: PluginEntry): WasmImportsView | null {
  let raw: Record<string, unknown> | null = null;
  if (e.manifestFile) {
    try {
      const parsed = parseManifestSource(e.manifestFile, readFileSync(join(e.dir, e.manifestFile), 'utf8')).raw;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
    } catch {
      raw = null;
    }
  }
  if (!raw || raw['kind'] !== 'wasm' || typeof raw['wasm'] !== 'string') return null;
  const perms = (raw['permissions'] && typeof raw['permissions'] === 'object' ? raw['permissions'] : {}) as Record<string, unknown>;
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const limits = (raw['limits'] && typeof raw['limits'] === 'object' ? raw['limits'] : {}) as Record<string, unknown>;
  const maxMb = typeof limits['max_module_mb'] === 'number' ? limits['max_module_mb'] : 50;
  const read = readPluginModule(e.dir, raw['wasm'], maxMb * 2 ** 20);
  if (!read.bytes) return { imports: [], error: read.problems[0]?.message ?? 'the module cannot be read' };
  try {
    const info = readModuleInfo(read.bytes);
    const verdicts = judgeImports(info.imports, { read: list(perms['read']), write: list(perms['write']), hosts: list(perms['hosts']), log: perms['log'] === true });
    const abi = moduleAbi(info.imports, info.exports);
    return { imports: verdicts.map((v) => ({ module: v.import.module, name: v.import.name, kind: v.import.kind, grant: v.grant, granted: v.granted })), abi: abi.agentzero ? 'agentzero' : abi.command ? 'wasi' : abi.wasi ? 'extism+wasi' : 'extism', error: null };
  } catch (err) {
    return { imports: [], error: (err as Error).message };
  }
}
