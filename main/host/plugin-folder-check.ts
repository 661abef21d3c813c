// `gatehouse plugin validate` and `scan` read a folder exactly as the running host does: a
// terminal adapter's folder as the adapter service reads it (readAdapter), every other kind as
// the registry reads it (readPluginFolder, which reads a mod.ts folder's exports in the sandboxed
// child and scans its systemPrompt and tool descriptions). One reading, one verdict: a command
// that judged a folder by other rules would pass what the host refuses, or refuse what it runs.
import { join } from 'node:path';
import { readAdapter } from '../adapters/adapter-folder.js';
import { summarise } from '../registry/scan/scan-plugin.js';
import { isAdapterFolder, nameRules, readPluginFolder, type RegistryDeps } from '../registry/plugin-registry.js';
import { BUILTIN_TOOLS } from '../registry/plugin-sources.js';
import type { Problem, ScanResult } from '../registry/types.js';
import { describeModule } from '../runner/module/describe-module.js';
import { detectSandbox } from '../runner/sandbox.js';

/** How the registry reads a module plugin's exports: in the sandboxed child, its compiled copy cached under the data folder. */
export function moduleDescriber(root: string): NonNullable<RegistryDeps['describeModule']> {
  return (dir) => describeModule(dir, { cacheDir: join(root, 'module-cache'), detection: detectSandbox() });
}

export interface FolderCheck {
  kind: 'adapter' | 'plugin';
  /** The manifest's name, or null when it could not be read. */
  name: string | null;
  manifestFile: string | null;
  valid: boolean;
  problems: Problem[];
  /** Null when the folder could not be read at all. */
  scan: ScanResult | null;
  manifest: unknown;
}

/** Validates and scans one plugin folder of any kind; `root` is the data folder (its module cache). */
export async function checkPluginFolder(dir: string, root: string): Promise<FolderCheck> {
  if (isAdapterFolder(dir)) {
    const r = readAdapter(dir);
    if (!r.adapter) return { kind: 'adapter', name: null, manifestFile: null, valid: false, problems: r.problems, scan: null, manifest: null };
    // An adapter fails on any weight-3 finding, as the adapter service quarantines it.
    const scan = summarise(r.findings, 1, { failAtWeight: 3, failAtTotal: Number.POSITIVE_INFINITY });
    return { kind: 'adapter', name: r.adapter.manifest.name, manifestFile: r.adapter.manifestFile, valid: !r.problems.some((p) => p.severity === 'error'), problems: r.problems, scan, manifest: r.adapter.manifest };
  }
  const r = await readPluginFolder(dir, { describeModule: moduleDescriber(root) });
  const m = r.loaded.manifest;
  const problems = [...r.problems, ...(m ? nameRules(m, r.loaded.manifestFile, BUILTIN_TOOLS).problems : [])];
  const valid = m !== null && !problems.some((p) => p.severity === 'error');
  return { kind: 'plugin', name: m?.name ?? null, manifestFile: r.loaded.manifestFile, valid, problems, scan: r.scan, manifest: m };
}
