// Discovery of a module plugin for the registry: a folder with a `mod.ts` (or `mod.js`) and no
// Gatehouse manifest. Its exports are read in the sandboxed child (the host never runs the
// module's top level) and turned into the registry's manifest: kind "module", one ToolSpec per
// tool definition, the manifest's classification, declaredEndpoints as permissions.hosts (so
// the console and the policy see where the plugin may go), and the module's own fields.
import { join } from 'node:path';
import type { LoadResult } from '../../registry/manifest/load-manifest.js';
import type { PluginManifest, Problem } from '../../registry/types.js';
import type { SandboxDetection } from '../sandbox.js';
import { moduleEntry } from './compile.js';
import { ModuleLoadError, ModuleProcess } from './module-process.js';
import type { ModulePlugin } from './module-exports.js';

/** Per-call timeout of a module tool (Triggerfish has none; Gatehouse's default for tools). */
export const MODULE_TIMEOUT_SECS = 30;

export function moduleManifest(dir: string, p: ModulePlugin): PluginManifest {
  const entry = moduleEntry(dir) ?? join(dir, 'mod.ts');
  const file = entry.slice(dir.length + 1);
  return {
    format: 'triggerfish',
    manifestFile: file,
    name: p.manifest.name,
    description: p.manifest.description,
    version: p.manifest.version,
    kind: 'module',
    command: '',
    args: [],
    platforms: [],
    timeoutSecs: MODULE_TIMEOUT_SECS,
    permissions: { read: [], write: [], hosts: p.manifest.declaredEndpoints.map((e) => new URL(e).host), env: [] },
    // As for every plugin, "none" runs unsandboxed only when the operator also trusts it: so
    // only a module whose manifest and operator both say trusted runs without the sandbox.
    sandbox: p.manifest.trust === 'trusted' ? 'none' : 'strict',
    classification: p.manifest.classification,
    pty: false,
    optional: false,
    config: null,
    tools: p.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: Object.fromEntries(Object.entries(t.inputSchema.properties).map(([k, v]) => [k, { type: v.type as never, required: t.inputSchema.required.includes(k), description: v.description ?? '' }])),
      inputSchema: t.inputSchema as PluginManifest['tools'][number]['inputSchema'],
      command: '',
      args: [],
    })),
    module: { entry: file, trust: p.manifest.trust, declaredEndpoints: p.manifest.declaredEndpoints, systemPrompt: p.systemPrompt, aliases: Object.fromEntries(p.tools.map((t) => [t.alias, t.qualified])) },
  };
}

/** Reads a module plugin folder into a manifest (or exact problems), in a sandboxed child that is stopped afterwards. */
export async function describeModule(dir: string, opts: { cacheDir: string; detection: SandboxDetection; home?: string }): Promise<LoadResult> {
  const entry = moduleEntry(dir);
  if (!entry) return { manifest: null, manifestFile: null, problems: [{ file: '.', severity: 'error', code: 'module.no-entry', message: `${dir} has no mod.ts or mod.js.` }] };
  const file = entry.slice(dir.length + 1);
  const p = new ModuleProcess({ pluginDir: dir, cacheDir: opts.cacheDir, detection: opts.detection, ...(opts.home ? { home: opts.home } : {}), fetch: { record: () => undefined } });
  try {
    return { manifest: moduleManifest(dir, await p.load()), manifestFile: file, problems: [] };
  } catch (err) {
    const e = err as ModuleLoadError;
    const problems: Problem[] = (e.problems ?? [e.message]).map((message) => ({ file, severity: 'error', code: `module.${e.failure ?? 'load-error'}`, message }));
    return { manifest: null, manifestFile: file, problems };
  } finally {
    await p.close();
  }
}
