// What the console and the CLI do with plugins: list, read and edit files, check unsaved text,
// scaffold, enable, approve changes and test-run. A plain class over the registry.
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { parseManifestSource, validateManifest } from './manifest/load-manifest.js';
import { scanFile, scanManifestText } from './scan/index.js';
import type { PluginEntry, PluginRegistry } from './plugin-registry.js';
import { RegistryError, runsTrusted } from './plugin-registry.js';
import type { TrustStore } from './trust-store.js';
import { scaffoldPlugin, type ScaffoldLang } from './scaffold.js';
import type { Finding, Problem } from './types.js';
import { kindInfo, kindProvider, providerForEntry, type KindInfo } from './kinds/index.js';
import { wasmImportsOf, type WasmImportsView } from './kinds/wasm/wasm-imports.js';

export const MAX_EDIT_FILE = 1 << 20;
const MANIFEST_NAMES = new Set(['tool.toml', 'gatehouse.toml', 'gatehouse.yaml', 'gatehouse.yml', 'gatehouse.json']);

export interface PluginSummary {
  name: string;
  /** A kind of the kind table (./kinds/); the host's list also carries terminal adapter folders (adapter, macro, matcher). */
  kind: string | null;
  /** What the console shows for the kind, so that it renders data instead of naming kinds. */
  kindInfo: KindInfo | null;
  description: string;
  version: string | null;
  dir: string;
  origin: 'home' | 'project' | 'cli';
  status: PluginEntry['status'];
  format: 'wraithrun' | 'gatehouse' | 'triggerfish' | 'ptywright' | null;
  toolNames: string[];
  errors: number;
  warnings: number;
  findingCount: number;
  scanPassed: boolean | null;
  scanWeight: number;
  notes: string[];
  reloadErrors: number;
  sandbox: 'strict' | 'none' | null;
  trusted: boolean;
}

export interface PluginDetail extends PluginSummary {
  manifestFile: string | null;
  manifest: unknown;
  problems: Problem[];
  findings: Finding[];
  files: { path: string; size: number; kind: 'f' | 'x' | 'l' }[];
  hash: string | null;
  trust: { hash: string; enabledAt: number; enabledBy: string; scanOverride: { reason: string; by: string; at: number } | null; trusted: { reason: string; by: string; at: number } | null } | null;
  changes: { path: string; change: string; diff: string | null }[];
  reloadProblems: Problem[];
  wasmImports?: WasmImportsView | null;
}

export { wasmImportsOf, type WasmImportsView };

export class PluginService {
  constructor(
    private readonly registry: PluginRegistry,
    private readonly trust: TrustStore,
    private readonly opts: { homePluginsDir: string; env?: NodeJS.ProcessEnv },
  ) {}

  list(): PluginSummary[] {
    return this.registry.list().map(summary);
  }

  detail(name: string): PluginDetail {
    const e = this.registry.require(name);
    return {
      ...summary(e),
      manifestFile: e.manifestFile,
      manifest: e.manifest,
      problems: e.problems,
      findings: e.scan?.findings ?? [],
      files: (e.digest?.files ?? []).map((f) => ({ path: f.path, size: f.size, kind: f.kind })),
      hash: e.digest?.hash ?? null,
      trust: e.trust
        ? {
            hash: e.trust.hash,
            enabledAt: e.trust.enabledAt,
            enabledBy: e.trust.enabledBy,
            scanOverride: e.trust.scanOverride,
            trusted: e.trust.trusted && e.trust.trusted.hash === e.trust.hash ? { reason: e.trust.trusted.reason, by: e.trust.trusted.by, at: e.trust.trusted.at } : null,
          }
        : null,
      changes: e.changes.map((c) => ({ ...c, diff: this.diffOf(e, c.path, c.change) })),
      wasmImports: wasmImportsOf(e),
      reloadProblems: e.reloadProblems,
    };
  }

  readFile(name: string, path: string): { path: string; content: string } {
    const full = this.safePath(this.registry.require(name).dir, path);
    const st = lstatSync(full);
    if (!st.isFile()) throw new RegistryError('state', `${path} is not a regular file.`);
    if (st.size > MAX_EDIT_FILE) throw new RegistryError('state', `${path} is ${st.size} bytes; the editor opens files up to ${MAX_EDIT_FILE} bytes.`);
    return { path, content: readFileSync(full, 'utf8') };
  }

  /** Saves a file. The watcher then reloads the plugin (or quarantines it if it was enabled). */
  writeFile(name: string, path: string, content: string): { path: string; bytes: number } {
    const e = this.registry.require(name);
    if (Buffer.byteLength(content) > MAX_EDIT_FILE) throw new RegistryError('state', `The file is over ${MAX_EDIT_FILE} bytes.`);
    const full = this.safePath(e.dir, path, true);
    writeFileSync(full, content);
    return { path, bytes: Buffer.byteLength(content) };
  }

  /**
   * Problems and findings for text that may not be saved yet: the editor calls this as the
   * author types. Manifests are parsed and validated; every file is scanned.
   */
  check(name: string, path: string, content: string): { problems: Problem[]; findings: Finding[] } {
    const e = this.registry.require(name);
    const findings = scanFile(path, content);
    // The kind's own live check (a module's syntax), by the plugin's kind or the file being a kind's entry point.
    const owner = [e.manifest ? kindProvider(e.manifest.kind) : undefined, providerForEntry(path)].find((p) => p?.checkSource);
    const live = owner?.checkSource?.(path, content);
    if (live) return { problems: live, findings };
    if (!MANIFEST_NAMES.has(path)) return { problems: [], findings };
    const parsed = parseManifestSource(path, content);
    if (parsed.problems.length) return { problems: parsed.problems, findings };
    const v = validateManifest(parsed.raw, { dir: e.dir, manifestFile: path, source: content });
    const poison = v.manifest ? scanManifestText(v.manifest, path, content) : [];
    return { problems: v.problems, findings: [...findings, ...poison] };
  }

  create(name: string, lang: ScaffoldLang): { name: string; dir: string; files: string[] } {
    mkdirSync(this.opts.homePluginsDir, { recursive: true });
    const r = scaffoldPlugin(this.opts.homePluginsDir, name, lang);
    return { name, ...r };
  }

  private diffOf(e: PluginEntry, path: string, change: string): string | null {
    if (change === 'mode') return null;
    const before = change === 'added' ? '' : this.trust.snapshotText(e.name, path);
    if (before === null) return null;
    let after = '';
    if (change !== 'removed') {
      try {
        const full = join(e.dir, path);
        if (lstatSync(full).size > 256 * 1024) return null;
        after = readFileSync(full, 'utf8');
      } catch {
        return null;
      }
    }
    return createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, 'approved', 'now', { context: 3 });
  }

  private safePath(dir: string, path: string, forWrite = false): string {
    return pathInFolder(dir, path, forWrite);
  }
}

/** A path inside a plugin folder, refusing anything that would leave it (terminal adapters' files use it too). */
export function pathInFolder(dir: string, path: string, forWrite = false): string {
  if (typeof path !== 'string' || path === '' || isAbsolute(path) || normalize(path).split(sep).includes('..')) {
    throw new RegistryError('state', `"${path}" is not a path inside the plugin folder.`);
  }
  const full = join(dir, path);
  const realDir = realpathSync(dir);
  const target = existsSync(full) ? realpathSync(full) : join(realpathSync(join(full, '..')), normalize(path).split(sep).pop()!);
  const rel = relative(realDir, target);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new RegistryError('state', `"${path}" leads outside the plugin folder.`);
  if (forWrite && existsSync(full) && lstatSync(full).isSymbolicLink()) throw new RegistryError('state', `"${path}" is a symlink; edit its target instead.`);
  return full;
}

export function summary(e: PluginEntry): PluginSummary {
  const m = e.manifest;
  return {
    name: e.name,
    kind: m?.kind ?? null,
    kindInfo: kindInfo(m?.kind),
    description: m?.description ?? '',
    version: m?.version ?? null,
    dir: e.dir,
    origin: e.origin,
    status: e.status,
    format: m?.format ?? null,
    toolNames: e.toolNames,
    errors: e.problems.filter((p) => p.severity === 'error').length,
    warnings: e.problems.filter((p) => p.severity === 'warning').length,
    findingCount: e.scan?.findings.length ?? 0,
    scanPassed: e.scan ? e.scan.passed : null,
    scanWeight: e.scan?.totalWeight ?? 0,
    notes: e.notes,
    reloadErrors: e.reloadProblems.length,
    sandbox: m?.sandbox ?? null,
    trusted: runsTrusted(e),
  };
}

/**
 * For a wasm plugin, its module's imports against the manifest's grants. Read from the raw
 * manifest when validation failed, since an ungranted import is exactly what makes it invalid.
 */
