// Loading a plugin folder's manifest: find the one manifest file, parse it (TOML, YAML or JSON,
// with exact positions for syntax errors), validate it against the schema and the rules the
// schema cannot express (commands, platform, names), and normalize it into a PluginManifest.
//
// Every problem is data (a Problem with code, field path, line and column, one sentence); nothing
// here throws for a bad plugin. A plugin with any error gets `manifest: null` and must never run.
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { parseDocument } from 'yaml';
import { MAX_YAML_NESTING, tooDeepMessage, yamlTooDeep } from '../../yaml-nesting.js';
import { jsonTextTooDeep } from '../../json-depth.js';
import { DEFAULT_COMMAND_DENYLIST, PLATFORMS } from '../types.js';
import type { PluginManifest, Problem } from '../types.js';
import { checkCommand, commandBaseName } from './command-checks.js';
import { kindInfo, kindProvider } from '../kinds/index.js';
import { dotted, listWords } from './describe.js';
import { checkAgainstSchema, MANIFEST_DEFAULTS } from './manifest-schema.js';
import type { RawPluginManifest } from './manifest-schema.types.js';
import { nameFaults } from './names.js';
import { normalizeManifest } from './normalize.js';
import { schemaProblems } from './schema-problems.js';
import type { PendingProblem } from './schema-problems.js';
import { LineIndex } from '../../core/line-index.js';
import { JsonScanner, JsonSyntaxError, SourceLocator } from './source-locations.js';
import type { ManifestSyntax } from './source-locations.js';

export type { ManifestSyntax } from './source-locations.js';
export type ManifestFormat = 'wraithrun' | 'gatehouse';

/** Manifest file names, in the order they are looked for. */
export const MANIFEST_FILE_NAMES = ['tool.toml', 'gatehouse.toml', 'gatehouse.yaml', 'gatehouse.yml', 'gatehouse.json'] as const;

/** Larger manifests are refused unread: a manifest is a few hundred bytes. */
export const MAX_MANIFEST_BYTES = 1 << 20;

export interface ManifestFileInfo {
  /** File name relative to the plugin folder, e.g. "tool.toml". */
  file: string;
  /** Absolute path. */
  path: string;
  format: ManifestFormat;
  syntax: ManifestSyntax;
}

export interface ValidateContext {
  /** The plugin folder. */
  dir: string;
  /** The manifest's file name relative to the folder; its extension decides the syntax. */
  manifestFile: string;
  /** The manifest's text, to give problems a line and column. */
  source?: string;
  /** Extra command basenames to refuse, on top of DEFAULT_COMMAND_DENYLIST. */
  denylist?: readonly string[];
  /** The platform to check `platforms` against; default process.platform. */
  platform?: NodeJS.Platform;
}

export interface LoadOptions {
  denylist?: readonly string[];
  platform?: NodeJS.Platform;
}

export interface LoadResult {
  manifest: PluginManifest | null;
  problems: Problem[];
  /** The manifest's file name relative to the folder, or null when none (or more than one) was found. */
  manifestFile: string | null;
}

const FOLDER = '.';

export function syntaxOf(fileName: string): ManifestSyntax | null {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.toml')) return 'toml';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  if (lower.endsWith('.json')) return 'json';
  return null;
}

export function findManifestFile(dir: string): ManifestFileInfo | { problems: Problem[] } {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (err) {
    return { problems: [{ file: FOLDER, severity: 'error', code: 'manifest.read', message: `The plugin folder ${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check that it exists and that Gatehouse may read it.` }] };
  }
  const present = MANIFEST_FILE_NAMES.filter((n) => entries.includes(n));
  const [first, ...rest] = present;
  if (first === undefined) {
    return { problems: [{ file: FOLDER, severity: 'error', code: 'manifest.missing', message: `The folder ${basename(dir)} has no manifest; add tool.toml (WraithRun) or gatehouse.toml, gatehouse.yaml or gatehouse.json.` }] };
  }
  if (rest.length) {
    return {
      problems: [
        {
          file: first,
          severity: 'error',
          code: 'manifest.ambiguous',
          message: `The folder ${basename(dir)} has ${present.length} manifests, ${listWords(present, 'and')}, and Gatehouse will not guess which one counts; keep one and delete the other${present.length > 2 ? 's' : ''}.`,
        },
      ],
    };
  }
  return { file: first, path: join(dir, first), format: first === 'tool.toml' ? 'wraithrun' : 'gatehouse', syntax: syntaxOf(first) ?? 'toml' };
}

export function parseManifestSource(fileName: string, text: string): { raw: unknown; problems: Problem[] } {
  const file = fileName;
  const syntax = syntaxOf(fileName);
  if (!syntax) {
    return { raw: null, problems: [{ file, severity: 'error', code: 'manifest.format', message: `The file ${fileName} is not a manifest Gatehouse reads; name it tool.toml, gatehouse.toml, gatehouse.yaml or gatehouse.json.` }] };
  }
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const syntaxProblem = (line: number, column: number, detail: string): Problem => ({
    file,
    line,
    column,
    severity: 'error',
    code: 'manifest.syntax',
    message: `${syntax.toUpperCase()} syntax error at line ${line}, column ${column}: ${detail.replace(/[.\s]+$/, '')}; fix the ${syntax.toUpperCase()} there.`,
  });

  if (syntax === 'toml') {
    try {
      return { raw: parseToml(src), problems: [] };
    } catch (err) {
      const e = err as TomlError;
      const detail = firstLine(e.message).replace(/^Invalid TOML document:\s*/, '');
      if (err instanceof TomlError) return { raw: null, problems: [syntaxProblem(e.line, e.column, detail)] };
      return { raw: null, problems: [syntaxProblem(1, 1, detail)] };
    }
  }

  if (syntax === 'yaml') {
    // Measured first: a deeply nested text can crash the process in the parser (yaml-nesting.ts).
    const deep = yamlTooDeep(src);
    if (deep) {
      const pos = new LineIndex(src).position(deep.offset);
      return { raw: null, problems: [{ file, line: pos.line, column: pos.column, severity: 'error', code: 'manifest.too-deep', message: `${tooDeepMessage(`The manifest ${fileName}`)} (line ${pos.line}, column ${pos.column}).` }] };
    }
    const doc = parseDocument(src, { prettyErrors: true, uniqueKeys: true });
    if (doc.errors.length) {
      const lines = new LineIndex(src);
      const problems: Problem[] = [];
      for (const e of doc.errors) {
        const pos = e.linePos?.[0] ?? lines.position(e.pos[0]);
        const line = 'line' in pos ? pos.line : 1;
        const column = 'col' in pos ? pos.col : pos.column;
        // One mistake often trips several rules at the same spot; the first says it best.
        if (problems.some((p) => p.line === line && p.column === column)) continue;
        problems.push(syntaxProblem(line, column, firstLine(e.message).replace(/ at line \d+, column \d+:?$/, '')));
      }
      return { raw: null, problems };
    }
    try {
      // maxAliasCount bounds alias expansion ("billion laughs").
      return { raw: doc.toJS({ maxAliasCount: 100 }), problems: [] };
    } catch (err) {
      return { raw: null, problems: [syntaxProblem(1, 1, (err as Error).message)] };
    }
  }

  // Measured first: validating and locating thousands of levels held the event loop for seconds.
  const deepAt = jsonTextTooDeep(src, MAX_YAML_NESTING);
  if (deepAt !== null) {
    const pos = new LineIndex(src).position(deepAt);
    return { raw: null, problems: [{ file, line: pos.line, column: pos.column, severity: 'error', code: 'manifest.too-deep', message: `${tooDeepMessage(`The manifest ${fileName}`)} (line ${pos.line}, column ${pos.column}).` }] };
  }
  try {
    return { raw: JSON.parse(src), problems: [] };
  } catch (err) {
    const message = (err as Error).message;
    let offset: number | undefined;
    const at = /at position (\d+)/.exec(message);
    if (at) offset = Number(at[1]);
    else if (/end of JSON input/i.test(message)) offset = src.length;
    else {
      // V8 gives some errors without a position ("Unexpected token '}', ... is not valid JSON").
      try {
        new JsonScanner(src).scanDocument();
      } catch (scanErr) {
        if (scanErr instanceof JsonSyntaxError) offset = scanErr.offset;
      }
    }
    const pos = new LineIndex(src).position(offset ?? 0);
    const detail = message
      .replace(/\s*in JSON at position \d+.*$/s, '')
      .replace(/, (?:\.\.\.)?"[\s\S]*" is not valid JSON$/, '');
    return { raw: null, problems: [syntaxProblem(pos.line, pos.column, detail)] };
  }
}

const DEFAULT_DENYLIST = new Set(DEFAULT_COMMAND_DENYLIST.map(commandBaseName));
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Gatehouse's platform name for a Node platform: darwin → macos, win32 → windows. */
export function platformName(p: NodeJS.Platform): string {
  return p === 'darwin' ? 'macos' : p === 'win32' ? 'windows' : p;
}

export function validateManifest(raw: unknown, ctx: ValidateContext): { manifest: PluginManifest | null; problems: Problem[] } {
  const syntax = syntaxOf(ctx.manifestFile) ?? 'toml';
  const { valid, errors } = checkAgainstSchema(raw);
  const pending: PendingProblem[] = valid ? [] : schemaProblems(errors, { file: ctx.manifestFile, syntax, raw });

  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    pending.push(...semanticProblems(raw as Record<string, unknown>, ctx));
  }

  const problems = locate(pending, ctx, syntax);
  if (problems.some((p) => p.severity === 'error')) return { manifest: null, problems };
  return { manifest: normalizeManifest(raw as RawPluginManifest, ctx.manifestFile), problems };
}

/** Rules beyond the schema. Each looks only at fields that have the right type, so that a
 *  mistyped field yields its type error once rather than a cascade. */
function semanticProblems(m: Record<string, unknown>, ctx: ValidateContext): PendingProblem[] {
  const out: PendingProblem[] = [];
  const { name, version, kind, platforms, command, tools } = m;

  const folder = basename(resolve(ctx.dir));
  if (typeof name === 'string' && nameFaults(name, 'plugin').length === 0 && name !== folder) {
    out.push({
      segments: ['name'],
      severity: 'warning',
      code: 'name.folder-mismatch',
      message: `The plugin is named ${JSON.stringify(name)} but its folder is ${JSON.stringify(folder)}; by convention they match, so rename the folder or the plugin.`,
    });
  }

  if (typeof version === 'string' && !SEMVER.test(version)) {
    out.push({
      segments: ['version'],
      severity: 'warning',
      code: 'manifest.version',
      message: `\`version\` = ${JSON.stringify(version)} is not a semantic version; write MAJOR.MINOR.PATCH, e.g. ${JSON.stringify(semverGuess(version))}.`,
    });
  }

  const effectiveKind = kind === undefined ? MANIFEST_DEFAULTS.kind : kind;
  // `optional` says what a failure of a kind that judges calls does to them (a checker's).
  if ('optional' in m && typeof effectiveKind === 'string' && kindInfo(effectiveKind)?.judgesCalls !== true) {
    out.push({
      segments: ['optional'],
      severity: 'warning',
      code: 'manifest.optional-ignored',
      message: `\`optional\` only applies to checkers and this plugin's kind is "${effectiveKind}", so it has no effect; remove it.`,
    });
  }

  if (Array.isArray(platforms)) {
    const listed = [...new Set(platforms.filter((p): p is string => typeof p === 'string' && (PLATFORMS as readonly string[]).includes(p)))];
    const here = platformName(ctx.platform ?? process.platform);
    if (listed.length && !listed.includes(here)) {
      out.push({
        segments: ['platforms'],
        severity: 'error',
        code: 'platform.unsupported',
        message: `This plugin runs on ${listWords(listed, 'and')} only; this machine is ${here}, so it cannot run here (if it does work on ${here}, add ${JSON.stringify(here)} to \`platforms\`).`,
      });
    }
  }

  const commandCtx = {
    dir: ctx.dir,
    realDir: realDirOf(ctx.dir),
    denylist: ctx.denylist?.length ? new Set([...DEFAULT_DENYLIST, ...ctx.denylist.map(commandBaseName)]) : DEFAULT_DENYLIST,
    posix: process.platform !== 'win32',
  };
  if (typeof command === 'string' && command !== '') out.push(...checkCommand(command, ['command'], commandCtx));
  if (typeof kind === 'string') out.push(...(kindProvider(kind)?.manifest?.validate?.(m, ctx.dir) ?? []));
  if (tools !== null && typeof tools === 'object' && !Array.isArray(tools)) {
    for (const [toolName, spec] of Object.entries(tools as Record<string, unknown>)) {
      const c = spec !== null && typeof spec === 'object' ? (spec as Record<string, unknown>)['command'] : undefined;
      if (typeof c === 'string' && c !== '') out.push(...checkCommand(c, ['tools', toolName, 'command'], commandCtx));
    }
  }
  return out;
}

function realDirOf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

function semverGuess(v: string): string {
  const nums = v.replace(/^v/i, '').split('.').map((n) => String(Number.parseInt(n, 10) || 0));
  while (nums.length < 3) nums.push('0');
  return nums.slice(0, 3).join('.');
}

/** Fills in file, path, line and column; sorted by place in the file, folder-level first. */
function locate(pending: PendingProblem[], ctx: ValidateContext, syntax: ManifestSyntax): Problem[] {
  const locator = pending.length && ctx.source !== undefined ? SourceLocator.for(syntax, stripBom(ctx.source)) : null;
  const problems = pending.map(({ segments, locateAt, ...rest }): Problem => {
    const pos = locator?.find(locateAt ?? segments);
    const path = dotted(segments);
    return { file: ctx.manifestFile, ...(pos ? { line: pos.line, column: pos.column } : {}), ...(path ? { path } : {}), ...rest };
  });
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.i - b.i)
    .map(({ p }) => p);
}

export function loadManifest(dir: string, opts: LoadOptions = {}): LoadResult {
  const found = findManifestFile(dir);
  if ('problems' in found) return { manifest: null, problems: found.problems, manifestFile: null };
  const file = found.file;
  let text: string;
  try {
    const size = statSync(found.path).size;
    if (size > MAX_MANIFEST_BYTES) {
      return { manifest: null, manifestFile: file, problems: [{ file, severity: 'error', code: 'manifest.too-large', message: `The manifest ${file} is ${size} bytes, more than the ${MAX_MANIFEST_BYTES} a manifest may have; a manifest holds only the plugin's fields, so move any data into other files.` }] };
    }
    text = readFileSync(found.path, 'utf8');
  } catch (err) {
    return { manifest: null, manifestFile: file, problems: [{ file, severity: 'error', code: 'manifest.read', message: `The manifest ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check that it is a file Gatehouse may read.` }] };
  }
  const parsed = parseManifestSource(file, text);
  if (parsed.problems.length) return { manifest: null, problems: parsed.problems, manifestFile: file };
  const validated = validateManifest(parsed.raw, { dir, manifestFile: file, source: text, ...(opts.denylist ? { denylist: opts.denylist } : {}), ...(opts.platform ? { platform: opts.platform } : {}) });
  return { ...validated, manifestFile: file };
}

function firstLine(s: string): string {
  return (s.split('\n')[0] ?? s).trim();
}

function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}
