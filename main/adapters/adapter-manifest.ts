// Terminal adapter manifests: ptywright's shape, read unchanged from `manifest.toml`, or from
// `gatehouse.toml` with `kind = "adapter"` (or "macro", "matcher"). Every problem is data with
// the file, line and column an editor shows, as for the other plugin kinds; nothing here throws
// for a bad adapter, and an adapter with any error gets `manifest: null` and never runs.
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { SourceLocator, type PathSegment } from '../registry/manifest/source-locations.js';
import type { Problem } from '../registry/types.js';
import { ADAPTER_KINDS, ADAPTER_PERMISSIONS, type AdapterKind, type AdapterPermission } from './permissions.js';

/** The file names an adapter's manifest may have, in the order they are looked for. */
export const ADAPTER_MANIFEST_FILES = ['manifest.toml', 'gatehouse.toml'] as const;

/** An entry point larger than this is refused unread: an adapter is a page of Lua. */
export const MAX_ENTRYPOINT_BYTES = 1 << 20;

export interface AdapterLimits {
  /** Lua VM instructions one entry-point call may run (the count hook's budget). */
  ops: number;
  /** What the Lua state may allocate, in MiB. */
  memoryMb: number;
  /** Wall-clock backstop for one call, after which the worker is terminated. */
  timeoutMs: number;
}

export const DEFAULT_ADAPTER_LIMITS: AdapterLimits = { ops: 5_000_000, memoryMb: 16, timeoutMs: 2000 };
/** Bounds an adapter may ask for: [min, max] per limit. */
export const LIMIT_BOUNDS: Record<keyof AdapterLimits, [number, number]> = { ops: [1000, 1_000_000_000], memoryMb: [1, 256], timeoutMs: [10, 60_000] };
const LIMIT_KEYS: Record<string, keyof AdapterLimits> = { ops: 'ops', memory_mb: 'memoryMb', timeout_ms: 'timeoutMs' };

export interface AdapterManifest {
  name: string;
  kind: AdapterKind;
  version: string;
  runtime: 'lua';
  /** As written, relative to the folder. */
  entrypoint: string;
  permissions: AdapterPermission[];
  defaultTarget: { program: string; args: string[] } | null;
  limits: AdapterLimits;
}

export interface LoadedAdapter {
  manifest: AdapterManifest;
  /** The canonical folder and manifest file. */
  dir: string;
  manifestFile: string;
  /** The canonical entry point, inside `dir`. */
  entrypointPath: string;
}

const TOP_FIELDS = new Set(['name', 'kind', 'version', 'runtime', 'entrypoint', 'permissions', 'default_target', 'limits', 'description']);
// ptywright asks only for a non-empty name (its own adapters are named like "Claude-Code").
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

interface Pending {
  path: PathSegment[];
  code: string;
  message: string;
  severity?: 'error' | 'warning';
}

/** Which adapter manifest a folder has, or null when it has none (it may be another kind of plugin). */
export function findAdapterManifest(dir: string): string | null {
  if (existsSync(join(dir, 'manifest.toml'))) return 'manifest.toml';
  const g = join(dir, 'gatehouse.toml');
  if (!existsSync(g)) return null;
  try {
    const raw = parseToml(readFileSync(g, 'utf8')) as Record<string, unknown>;
    return typeof raw['kind'] === 'string' && (ADAPTER_KINDS as readonly string[]).includes(raw['kind']) ? 'gatehouse.toml' : null;
  } catch {
    return null;
  }
}

/**
 * Checks a manifest's fields. With `dir`, the entry point is also resolved and canonicalised
 * (it must be a file inside the folder); without it (plugin.validate_manifest over a bare
 * object) only the fields are checked.
 */
export function validateAdapterManifest(raw: unknown, opts: { file: string; source?: string; dir?: string } = { file: 'manifest.toml' }): { manifest: AdapterManifest | null; problems: Problem[]; entrypointPath?: string } {
  const pending: Pending[] = [];
  const err = (path: PathSegment[], code: string, message: string) => pending.push({ path, code, message });
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    err([], 'manifest.type', 'The manifest must be a table of fields (name, kind, version, runtime, entrypoint, permissions).');
    return { manifest: null, problems: locate(pending, opts) };
  }
  const m = raw as Record<string, unknown>;
  for (const key of Object.keys(m)) if (!TOP_FIELDS.has(key)) err([key], 'manifest.unknown-field', `\`${key}\` is not an adapter manifest field; remove it (the fields are ${[...TOP_FIELDS].join(', ')}).`);

  const str = (key: string): string | null => {
    const v = m[key];
    if (v === undefined) return null;
    if (typeof v !== 'string') {
      err([key], 'manifest.type', `\`${key}\` must be a string; write ${key} = "…".`);
      return null;
    }
    return v;
  };
  const name = str('name');
  if (name === null || name.trim() === '') err(['name'], 'manifest.name', '`name` is missing or empty; give the adapter a name, e.g. name = "echo".');
  else if (!NAME.test(name)) err(['name'], 'manifest.name', `\`name\` = ${JSON.stringify(name)}: use 1-64 letters, digits, dots, dashes and underscores, starting with a letter or digit.`);
  const version = str('version');
  if (version === null || version.trim() === '') err(['version'], 'manifest.version', '`version` is missing or empty; write version = "0.1.0".');
  const kind = str('kind');
  if (kind === null) err(['kind'], 'manifest.kind', `\`kind\` is missing; write kind = "adapter" (or ${ADAPTER_KINDS.slice(1).join(', ')}).`);
  else if (!(ADAPTER_KINDS as readonly string[]).includes(kind)) err(['kind'], 'manifest.kind', `\`kind\` = ${JSON.stringify(kind)} is not an adapter kind; use one of ${ADAPTER_KINDS.join(', ')}.`);
  const runtime = str('runtime');
  const entrypoint = str('entrypoint');
  if (runtime === null) {
    if (entrypoint !== null) err(['entrypoint'], 'manifest.runtime', 'An `entrypoint` needs a runtime; add runtime = "lua".');
    // ptywright: a manifest with neither is valid (a built-in adapter's, whose code is native).
    // Gatehouse runs adapters written in Lua, so one it is to load needs both.
    else if (opts.dir !== undefined) err(['runtime'], 'manifest.runtime', '`runtime` is missing: Gatehouse runs adapters written in Lua, and this manifest names no code to run; write runtime = "lua" and entrypoint = "main.lua".');
  } else if (runtime === 'wasm') err(['runtime'], 'manifest.runtime', '`runtime` = "wasm" is reserved and not run by Gatehouse; write runtime = "lua".');
  else if (runtime !== 'lua') err(['runtime'], 'manifest.runtime', `\`runtime\` = ${JSON.stringify(runtime)} is not supported; write runtime = "lua".`);
  if (runtime !== null && (entrypoint === null || entrypoint.trim() === '')) err(['entrypoint'], 'manifest.entrypoint', '`entrypoint` is missing or empty; name the Lua file, e.g. entrypoint = "main.lua".');

  let entrypointPath: string | undefined;
  if (entrypoint !== null && entrypoint.trim() !== '') {
    const problem = entrypointProblem(entrypoint);
    if (problem) err(['entrypoint'], 'entrypoint.outside', problem);
    else if (opts.dir !== undefined) {
      const r = canonicalEntrypoint(opts.dir, entrypoint);
      if ('problem' in r) err(['entrypoint'], r.code, r.problem);
      else entrypointPath = r.path;
    }
  }

  const permissions: AdapterPermission[] = [];
  const perms = m['permissions'];
  if (perms === undefined) {
    // No permissions is valid: the adapter can then be listed but do nothing.
  } else if (!Array.isArray(perms)) err(['permissions'], 'manifest.type', '`permissions` must be a list of strings, e.g. permissions = ["screen.read"].');
  else {
    perms.forEach((p, i) => {
      if (typeof p !== 'string') err(['permissions', i], 'permission.type', `permissions[${i}] must be a string naming a permission (${ADAPTER_PERMISSIONS.join(', ')}).`);
      else if (!(ADAPTER_PERMISSIONS as readonly string[]).includes(p)) err(['permissions', i], 'permission.unknown', `${JSON.stringify(p)} is not a permission; use one of ${ADAPTER_PERMISSIONS.join(', ')}.`);
      else if (permissions.includes(p as AdapterPermission)) err(['permissions', i], 'permission.duplicate', `${JSON.stringify(p)} is listed twice; list each permission once.`);
      else permissions.push(p as AdapterPermission);
    });
  }

  let defaultTarget: AdapterManifest['defaultTarget'] = null;
  const dt = m['default_target'];
  if (dt !== undefined) {
    if (dt === null || typeof dt !== 'object' || Array.isArray(dt)) err(['default_target'], 'manifest.type', '`[default_target]` must be a table with `program` and `args`.');
    else {
      const t = dt as Record<string, unknown>;
      for (const key of Object.keys(t)) if (key !== 'program' && key !== 'args') err(['default_target', key], 'manifest.unknown-field', `\`default_target.${key}\` is not a field; [default_target] has program and args.`);
      const program = t['program'];
      const args = t['args'] ?? [];
      if (typeof program !== 'string' || program === '') err(['default_target', 'program'], 'default_target.program', '`default_target.program` must name the program to run, e.g. program = "/bin/sh".');
      if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) err(['default_target', 'args'], 'default_target.args', '`default_target.args` must be a list of strings.');
      else if (typeof program === 'string' && program !== '') defaultTarget = { program, args: args as string[] };
    }
  }

  const limits: AdapterLimits = { ...DEFAULT_ADAPTER_LIMITS };
  const lim = m['limits'];
  if (lim !== undefined) {
    if (lim === null || typeof lim !== 'object' || Array.isArray(lim)) err(['limits'], 'manifest.type', '`[limits]` must be a table with ops, memory_mb and timeout_ms.');
    else {
      for (const [key, v] of Object.entries(lim as Record<string, unknown>)) {
        const field = LIMIT_KEYS[key];
        if (!field) {
          err(['limits', key], 'manifest.unknown-field', `\`limits.${key}\` is not a limit; [limits] has ops, memory_mb and timeout_ms.`);
          continue;
        }
        const [min, max] = LIMIT_BOUNDS[field];
        const n = typeof v === 'bigint' ? Number(v) : v;
        if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) err(['limits', key], 'limits.range', `\`limits.${key}\` must be a whole number from ${min} to ${max}.`);
        else limits[field] = n;
      }
    }
  }

  const problems = locate(pending, opts);
  if (problems.some((p) => p.severity === 'error')) return { manifest: null, problems };
  return {
    manifest: { name: name!, kind: kind as AdapterKind, version: version!, runtime: 'lua', entrypoint: entrypoint!, permissions, defaultTarget, limits },
    problems,
    ...(entrypointPath ? { entrypointPath } : {}),
  };
}

/** The string-level rules: relative, no `..`. */
function entrypointProblem(entrypoint: string): string | null {
  if (isAbsolute(entrypoint) || /^[A-Za-z]:[\\/]/.test(entrypoint) || entrypoint.startsWith('\\')) return `\`entrypoint\` = ${JSON.stringify(entrypoint)} is absolute; name a file inside the adapter's folder, e.g. "main.lua".`;
  if (entrypoint.split(/[\\/]/).includes('..')) return `\`entrypoint\` = ${JSON.stringify(entrypoint)} climbs out of the folder with ..; keep the file inside the adapter's folder.`;
  if (entrypoint.includes('\0')) return '`entrypoint` contains a NUL character; name a plain file.';
  return null;
}

/** After the string rules: resolved and canonicalised, it must still be a file inside the canonical folder (a symlink may not lead out). */
function canonicalEntrypoint(dir: string, entrypoint: string): { path: string } | { problem: string; code: string } {
  let realDir: string;
  let real: string;
  try {
    realDir = realpathSync(dir);
    real = realpathSync(resolve(dir, entrypoint));
  } catch {
    return { code: 'entrypoint.missing', problem: `\`entrypoint\` = ${JSON.stringify(entrypoint)} does not exist in the adapter's folder; create it or fix the name.` };
  }
  const rel = relative(realDir, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep)[0] === '..') {
    return { code: 'entrypoint.outside', problem: `\`entrypoint\` = ${JSON.stringify(entrypoint)} resolves to ${real}, outside the adapter's folder (a symlink leads out); put the file itself in the folder.` };
  }
  try {
    const st = statSync(real);
    if (!st.isFile()) return { code: 'entrypoint.not-file', problem: `\`entrypoint\` = ${JSON.stringify(entrypoint)} is not a file; name the Lua file.` };
    if (st.size > MAX_ENTRYPOINT_BYTES) return { code: 'entrypoint.too-large', problem: `\`entrypoint\` is ${st.size} bytes, more than the ${MAX_ENTRYPOINT_BYTES} an adapter may have.` };
  } catch {
    return { code: 'entrypoint.missing', problem: `\`entrypoint\` = ${JSON.stringify(entrypoint)} cannot be read.` };
  }
  return { path: real };
}

function locate(pending: Pending[], opts: { file: string; source?: string }): Problem[] {
  const locator = pending.length && opts.source !== undefined ? SourceLocator.for('toml', opts.source) : null;
  const problems: Problem[] = pending.map(({ path, severity, ...rest }) => {
    const pos = locator?.find(path);
    return { file: opts.file, ...(pos ? { line: pos.line, column: pos.column } : {}), ...(path.length ? { path: path.join('.') } : {}), severity: severity ?? 'error', ...rest };
  });
  // In the order of the file, as the editor's markers read.
  return problems.map((p, i) => ({ p, i })).sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.i - b.i).map(({ p }) => p);
}

/** Loads the adapter in a folder: its manifest (with positions), canonical entry point, or the problems. */
export function loadAdapter(dirOrManifest: string): { adapter: LoadedAdapter | null; problems: Problem[] } {
  let dir = dirOrManifest;
  let file: string | null;
  try {
    if (lstatSync(dirOrManifest).isFile()) {
      dir = resolve(dirOrManifest, '..');
      file = dirOrManifest.slice(dir.length + 1);
    } else file = findAdapterManifest(dir);
  } catch {
    return { adapter: null, problems: [{ file: '.', severity: 'error', code: 'manifest.read', message: `${dirOrManifest} does not exist; name an adapter folder or its manifest.toml.` }] };
  }
  if (!file) return { adapter: null, problems: [{ file: '.', severity: 'error', code: 'manifest.missing', message: `${dir} has no adapter manifest; add manifest.toml (or gatehouse.toml with kind = "adapter").` }] };
  let text: string;
  try {
    text = readFileSync(join(dir, file), 'utf8');
  } catch (e) {
    return { adapter: null, problems: [{ file, severity: 'error', code: 'manifest.read', message: `The manifest ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).` }] };
  }
  const parsed = parseAdapterToml(file, text);
  if ('problem' in parsed) return { adapter: null, problems: [parsed.problem] };
  const v = validateAdapterManifest(parsed.raw, { file, source: text, dir });
  if (!v.manifest || !v.entrypointPath) return { adapter: null, problems: v.problems };
  return { adapter: { manifest: v.manifest, dir: realpathSync(dir), manifestFile: file, entrypointPath: v.entrypointPath }, problems: v.problems };
}

function parseAdapterToml(file: string, text: string): { raw: unknown } | { problem: Problem } {
  try {
    return { raw: parseToml(text) };
  } catch (e) {
    const t = e instanceof TomlError ? e : null;
    const detail = ((e as Error).message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '').replace(/[.\s]+$/, '');
    return { problem: { file, line: t?.line ?? 1, column: t?.column ?? 1, severity: 'error', code: 'manifest.syntax', message: `TOML syntax error at line ${t?.line ?? 1}, column ${t?.column ?? 1}: ${detail}; fix the TOML there.` } };
  }
}

/** The problems of manifest text that may not be saved yet (the editor's live check), as loadAdapter would report them for the folder. */
export function checkAdapterManifestText(file: string, text: string, dir: string): Problem[] {
  const parsed = parseAdapterToml(file, text);
  if ('problem' in parsed) return [parsed.problem];
  return validateAdapterManifest(parsed.raw, { file, source: text, dir }).problems;
}
