// Discovery of a module plugin for the registry: a folder with a `mod.ts` (or `mod.js`) and no
// Gatehouse manifest. Its exports are read in the sandboxed child (the host never runs the
// module's top level) and turned into the registry's manifest: kind "module", one ToolSpec per
// tool definition, the manifest's classification, declaredEndpoints as permissions.hosts (so
// the console and the policy see where the plugin may go), and the module's own fields.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { denoUses } from '../../registry/scan/js-scan.js';
import { languagesOf } from '../../registry/scan/scan-file.js';
import type { LoadResult } from '../../registry/manifest/load-manifest.js';
import type { PluginManifest, Problem } from '../../registry/types.js';
import type { SandboxDetection } from '../sandbox.js';
import { moduleEntry } from './compile.js';
import { moduleKind } from '../../registry/kinds/module/index.js';
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
    kind: moduleKind.name,
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

const CODE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** Every use of Deno's global in the folder's code, as an error naming the file, line and API. */
function denoProblems(dir: string): Problem[] {
  const out: Problem[] = [];
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => CODE_FILE.test(f) && !f.split(sep).includes('node_modules')).sort().slice(0, 500);
  for (const rel of files) {
    let text: string;
    try {
      if (!statSync(join(dir, rel)).isFile()) continue;
      text = readFileSync(join(dir, rel), 'utf8');
    } catch {
      continue;
    }
    if (!text.includes('Deno')) continue;
    const lang = languagesOf(rel, text).find((l) => l.kind === 'js');
    if (!lang || lang.kind !== 'js') continue;
    const uses = denoUses(rel, text, lang.dialect);
    if (!uses.length) continue;
    const names = [...new Set(uses.map((u) => (u.member === null ? 'Deno' : `Deno.${u.member}`)))];
    const first = uses[0]!;
    out.push({ file: rel.split(sep).join('/'), line: first.line, column: first.column, severity: 'error', code: 'module.deno', message: `${names.join(', ')} ${names.length > 1 ? 'are' : 'is'} not available: Gatehouse runs module plugins on Node, not Deno, so the call would fail with "Deno is not defined". Use fetch (the host checks it against declaredEndpoints), context.log and context.config instead, or write the tool as a tool.toml plugin that declares the files and environment it needs.` });
  }
  return out;
}

/** Reads a module plugin folder into a manifest (or exact problems), in a sandboxed child that is stopped afterwards. */
export async function describeModule(dir: string, opts: { cacheDir: string; detection: SandboxDetection; home?: string }): Promise<LoadResult> {
  const entry = moduleEntry(dir);
  if (!entry) return { manifest: null, manifestFile: null, problems: [{ file: '.', severity: 'error', code: 'module.no-entry', message: `${dir} has no mod.ts or mod.js.` }] };
  const file = entry.slice(dir.length + 1);
  const p = new ModuleProcess({ pluginDir: dir, cacheDir: opts.cacheDir, detection: opts.detection, ...(opts.home ? { home: opts.home } : {}), fetch: { record: () => undefined } });
  try {
    const plugin = await p.load();
    // Deno's global does not exist where module plugins run (Node): refused here, where the
    // operator reads why, instead of "Deno is not defined" at the first call.
    const deno = denoProblems(dir);
    if (deno.length) return { manifest: null, manifestFile: file, problems: deno };
    return { manifest: moduleManifest(dir, plugin), manifestFile: file, problems: [] };
  } catch (err) {
    const e = err as ModuleLoadError;
    const problems: Problem[] = (e.problems ?? [e.message]).map((message) => ({ file, severity: 'error', code: `module.${e.failure ?? 'load-error'}`, message }));
    return { manifest: null, manifestFile: file, problems };
  } finally {
    await p.close();
  }
}
