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
import { moduleSyntaxProblems } from './manifest/module-syntax.js';
import type { Finding, Problem } from './types.js';
import { readPluginModule } from './manifest/wasm-checks.js';
import { judgeImports, moduleAbi, type Grant } from './manifest/wasm-abi.js';
import { readModuleInfo } from './manifest/wasm-module-info.js';

export const MAX_EDIT_FILE = 1 << 20;
const MANIFEST_NAMES = new Set(['tool.toml', 'gatehouse.toml', 'gatehouse.yaml', 'gatehouse.yml', 'gatehouse.json']);

export interface PluginSummary {
  name: string;
  /** The registry's kinds; the host's list also carries terminal adapter folders (adapter, macro, matcher). */
  kind: 'tool' | 'checker' | 'mcp' | 'wasm' | 'module' | 'adapter' | 'macro' | 'matcher' | null;
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

/** A wasm plugin's imports next to what its manifest grants (the Plugins view marks mismatches). */
export interface WasmImportsView {
  imports: { module: string; name: string; kind: string; grant: Grant | null; granted: boolean }[];
  /**
   * How the module runs: `extism` (exports called through the Extism kernel), `wasi` (a WASI
   * preview 1 command: JSON on stdin, result on stdout), `extism+wasi` (Extism with WASI beside it).
   */
  abi?: 'extism' | 'wasi' | 'extism+wasi';
  /** Why the module's imports could not be read (missing, too big, not a module), or null. */
  error: string | null;
}

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
    // A module plugin's code: syntax errors as markers while the author types.
    if (e.manifest?.kind === 'module' || path === 'mod.ts' || path === 'mod.js') {
      if (/\.(ts|js|mjs)$/.test(path)) return { problems: moduleSyntaxProblems(path, content), findings };
    }
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
    return { imports: verdicts.map((v) => ({ module: v.import.module, name: v.import.name, kind: v.import.kind, grant: v.grant, granted: v.granted })), abi: abi.command ? 'wasi' : abi.wasi ? 'extism+wasi' : 'extism', error: null };
  } catch (err) {
    return { imports: [], error: (err as Error).message };
  }
}
