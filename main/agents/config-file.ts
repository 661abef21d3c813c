// An agent's configuration file as "write it for me" handles it, whatever the agent: read with
// its hash (what the preview was computed from), planned as a diff, written only if it still has
// that hash, with a backup first and an atomic rename that keeps the file's mode. JSON files are
// edited through jsonc-parser's modify(), so the user's formatting, key order and every other key
// stay as they were; a file that is not strict JSON is never touched.
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, copyFileSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type JSONPath, type ParseError } from 'jsonc-parser';
import type { JsonObject } from '../../shared/claude-config.js';
import { OperationError } from '../core/operation-error.js';

/** One file as the preview shows it. */
export interface PlannedFile {
  path: string;
  /** "settings": a settings.json (hooks); "mcp": a file the agent reads only MCP servers from. */
  kind: 'settings' | 'mcp';
  exists: boolean;
  changed: boolean;
  /** Unified diff of the current content against the new one (empty when nothing changes). */
  diff: string;
  /** What the diff was computed from: the SHA-256 of the current bytes, or "absent". */
  baseHash: string;
  after: string;
  /** What Gatehouse adds or replaces, in words (no token). */
  changes: string[];
}

export interface ConfigPreview {
  files: PlannedFile[];
  /** What the operator still has to do (an environment variable, a restart, an approval). */
  notes: string[];
}

export interface WrittenFile {
  path: string;
  written: boolean;
  created: boolean;
  /** The copy of the previous content, next to the file; null for a new file or no change. */
  backup: string | null;
}

export const ABSENT = 'absent';
const MAX_BYTES = 16 << 20;

/** A configuration file that is not what its agent expects; names the file and, for syntax, the line and column. */
export class ConfigFileError extends OperationError {
  constructor(
    readonly file: string,
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super('invalid_config', message);
  }
}

/** A file an integration writes. */
export interface ConfigTarget {
  path: string;
  kind: 'settings' | 'mcp';
  /** Mode for a file Gatehouse creates. */
  newMode: number;
}

export interface CurrentFile {
  exists: boolean;
  text: string;
  hash: string;
  /** The file to write: the path itself, or what its symlink points to. */
  real: string;
  mode: number | null;
}

/** An edit of a JSON file: the path, the new value (undefined removes it), and whether it is inserted into a list. */
export type JsonEdit = (path: JSONPath, v: unknown, isArrayInsertion?: boolean) => void;

/**
 * What `target` would become after `merge` made its edits (and said what they are in `changes`).
 * Every edit is made twice: as text (jsonc-parser, keeping the user's layout) and on the parsed
 * value (the meaning). Removals are not made as text (jsonc-parser 3.3 removes a compact array's
 * element at the wrong offset: [1,2] becomes [12]); if any edit was one, or the text does not
 * parse to exactly the meaning, the file is written from the value instead. `current`: what the
 * file holds (default: read now; an absent file for a snippet).
 */
export function planJsonFile(target: ConfigTarget, agent: string, merge: (value: JsonObject, edit: JsonEdit, changes: string[]) => void, current: CurrentFile = readCurrent(target.path)): { plan: PlannedFile; current: CurrentFile } {
  const value = current.exists ? parseStrict(target.path, current.text, agent) : {};
  // An existing but empty file is an empty object; a new file starts as one.
  let text = current.exists && current.text.trim() !== '' ? current.text : '{}\n';
  const fmt = formattingOf(text);
  const changes: string[] = [];
  const model = structuredClone(value);
  let rewrite = false;
  const edit: JsonEdit = (path, v, isArrayInsertion = false) => {
    editValue(model, path, v, isArrayInsertion);
    if (v === undefined) rewrite = true;
    else text = applyEdits(text, modify(text, path, v, { formattingOptions: fmt, isArrayInsertion }));
  };
  merge(value, edit, changes);
  if (!rewrite && !parsesTo(text, model)) rewrite = true;
  if (rewrite) text = JSON.stringify(model, null, fmt.insertSpaces ? ' '.repeat(fmt.tabSize) : '\t').replace(/\n/g, fmt.eol);
  if (!text.endsWith('\n')) text += fmt.eol;
  return { plan: plannedFile(target, current, text, changes), current };
}

/** The preview of one file: `after` with its diff against what the file holds now. */
export function plannedFile(target: ConfigTarget, current: CurrentFile, after: string, changes: string[]): PlannedFile {
  const changed = changes.length > 0 && after !== current.text;
  const diff = changed ? createTwoFilesPatch(target.path, target.path, current.text, after, current.exists ? 'current' : 'new file', 'with Gatehouse', { context: 3 }) : '';
  return { path: target.path, kind: target.kind, exists: current.exists, changed, diff, baseHash: current.hash, after: changed ? after : current.text, changes: changed ? changes : [] };
}

export interface PlannedWrite {
  target: ConfigTarget;
  plan: PlannedFile;
  current: CurrentFile;
}

/**
 * Writes every changed file of `plans`, if each still has the hash its preview showed
 * (`expected`: path → baseHash); nothing is written unless all of them match. `recorded` is
 * called with what was written (also when a later file failed), for the audit log; `checked`
 * once every hash matched, before anything is written.
 */
export function writePlanned(plans: PlannedWrite[], expected: readonly { path: string; baseHash: string }[], o: { agent: string; now: number; recorded: (written: WrittenFile[]) => void; checked?: () => void }): WrittenFile[] {
  for (const { plan } of plans) {
    const seen = expected.find((e) => e.path === plan.path);
    if (!seen) throw new OperationError('not_previewed', `${plan.path} was not in the preview you applied; preview again, read the diff, then apply.`);
    if (seen.baseHash !== plan.baseHash) {
      const what = seen.baseHash === ABSENT ? 'was created' : plan.baseHash === ABSENT ? 'was removed' : 'changed';
      throw new OperationError('changed', `${plan.path} ${what} since the preview (another program, or ${o.agent} itself, wrote it). Nothing was written: look at the new diff and apply again.`);
    }
  }
  o.checked?.();
  const written: WrittenFile[] = [];
  for (const { target, plan, current } of plans) {
    if (!plan.changed) {
      written.push({ path: plan.path, written: false, created: false, backup: null });
      continue;
    }
    try {
      const backup = current.exists ? keepBackup(plan.path, current, o.now) : null;
      writeAtomic(current.real, plan.after, current.mode ?? target.newMode);
      written.push({ path: plan.path, written: true, created: !current.exists, backup });
    } catch (err) {
      const done = written.filter((w) => w.written);
      const already = done.length ? ` Already written: ${done.map((w) => `${w.path}${w.backup ? ` (backup ${w.backup})` : ''}`).join(', ')}.` : '';
      if (done.length) o.recorded(written);
      throw new OperationError('write_failed', `Could not write ${plan.path}: ${(err as Error).message}.${already}`);
    }
  }
  if (written.some((w) => w.written)) o.recorded(written);
  return written;
}

export function readCurrent(path: string): CurrentFile {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, text: '', hash: ABSENT, real: path, mode: null };
    throw new OperationError('unreadable', `Could not read ${path}: ${(err as Error).message}.`);
  }
  let real = path;
  if (st.isSymbolicLink()) {
    // A dotfile manager's link: write through it, so the link stays a link.
    try {
      real = realpathSync(path);
      st = statSync(real);
    } catch {
      throw new ConfigFileError(path, `${path} is a symbolic link to a file that does not exist; fix or remove the link, then preview again.`);
    }
  }
  if (!st.isFile()) throw new ConfigFileError(path, `${path} is not a regular file; Gatehouse leaves it alone.`);
  if (st.size > MAX_BYTES) throw new ConfigFileError(path, `${path} is over ${MAX_BYTES >> 20} MiB; Gatehouse does not edit a file that large.`);
  const bytes = readFileSync(real);
  return { exists: true, text: bytes.toString('utf8'), hash: createHash('sha256').update(bytes).digest('hex'), real, mode: st.mode & 0o7777 };
}

// By jsonc-parser's error names (ParseErrorCode is a const enum, out of reach here).
const parseErrorWords: Record<string, string> = {
  InvalidSymbol: 'a character that cannot start a JSON value',
  InvalidNumberFormat: 'a number that is not valid JSON',
  PropertyNameExpected: 'a property name in double quotes was expected (a trailing comma?)',
  ValueExpected: 'a value was expected (a trailing comma?)',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma was expected',
  CloseBraceExpected: 'a closing } was expected',
  CloseBracketExpected: 'a closing ] was expected',
  EndOfFileExpected: 'more text after the end of the JSON value',
  InvalidCommentToken: 'a comment (JSON has no comments)',
  UnexpectedEndOfComment: 'a comment that never ends',
  UnexpectedEndOfString: 'a string that never ends',
  UnexpectedEndOfNumber: 'a number that ends too early',
  InvalidUnicode: 'an invalid \\u escape',
  InvalidEscapeCharacter: 'an invalid escape character',
  InvalidCharacter: 'a control character inside a string',
};

/** The file as strict JSON, or a ConfigFileError naming the line and column of the first problem. */
export function parseStrict(file: string, text: string, agent = 'Claude Code'): JsonObject {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  let value: unknown;
  try {
    // JSON.parse has the last word on validity; jsonc-parser says where.
    value = JSON.parse(text);
  } catch (err) {
    const first = errors[0];
    const offset = first?.offset ?? Number(/at position (\d+)/.exec((err as Error).message)?.[1] ?? NaN);
    const what = first ? parseErrorWords[printParseErrorCode(first.error)] ?? 'invalid JSON' : (err as Error).message;
    if (Number.isFinite(offset)) {
      const { line, column } = lineColumn(text, offset);
      throw new ConfigFileError(file, `${file} is not valid JSON: line ${line}, column ${column}: ${what}. Gatehouse does not change a file it cannot read exactly; fix that line (or move the file aside), then preview again.`, line, column);
    }
    throw new ConfigFileError(file, `${file} is not valid JSON (${what}). Gatehouse does not change a file it cannot read exactly; fix it (or move the file aside), then preview again.`);
  }
  if (!isObject(value)) throw new ConfigFileError(file, `${file} holds ${kindOf(value)}, not a JSON object as ${agent} expects. Fix it (or move it aside), then preview again.`);
  return value;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return { line, column };
}

/** The file's own indentation and line ends, so added lines look like the rest. */
export function formattingOf(text: string): FormattingOptions & { tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indents = [...text.matchAll(/\n([ \t]+)\S/g)].map((m) => m[1]!);
  if (indents.some((i) => i.startsWith('\t'))) return { insertSpaces: false, tabSize: 1, eol };
  const widths = indents.map((i) => i.length).filter((n) => n > 0);
  const tabSize = widths.length ? Math.min(...widths) : 2;
  return { insertSpaces: true, tabSize, eol };
}

export function keepBackup(path: string, current: CurrentFile, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  for (let n = 0; n < 100; n++) {
    const backup = `${path}.gatehouse-backup-${stamp}${n ? `-${n}` : ''}`;
    if (existsSync(backup)) continue;
    try {
      // The copy holds what the file held (possibly a token): the same mode, never wider.
      copyFileSync(current.real, backup, constants.COPYFILE_EXCL);
      chmodSync(backup, current.mode ?? 0o600);
      return backup;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new Error(`the backup ${backup} could not be written (${(err as Error).message}); the file was not changed`, { cause: err });
    }
  }
  throw new Error(`no free backup name next to ${path}; the file was not changed`);
}

/** Temp file in the same folder, flushed, then renamed over the file: readers see old or new, never half. */
export function writeAtomic(file: string, text: string, mode: number): void {
  const dir = dirname(file);
  // A new .claude folder is as private as the file that goes in it.
  mkdirSync(dir, { recursive: true, mode: mode & 0o077 ? 0o755 : 0o700 });
  const tmp = join(dir, `.${basename(file)}.gatehouse-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(tmp, mode); // the umask narrowed the mode openSync asked for
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw err;
  }
}

/** The same edit as jsonc-parser's modify() on the parsed value: set (creating objects on the way), append, or remove. */
export function editValue(root: JsonObject, path: JSONPath, v: unknown, isArrayInsertion: boolean): void {
  let parent: unknown = root;
  for (const key of path.slice(0, -1)) {
    const container = parent as Record<string | number, unknown>;
    if (container[key] === undefined && typeof key === 'string') container[key] = {};
    parent = container[key];
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(parent) && typeof last === 'number') {
    if (v === undefined) parent.splice(last, 1);
    else if (last === -1) parent.push(v);
    else if (isArrayInsertion) parent.splice(last, 0, v);
    else parent[last] = v;
    return;
  }
  const obj = parent as Record<string, unknown>;
  if (v === undefined) delete obj[last as string];
  else obj[last as string] = v;
}

export function parsesTo(text: string, value: unknown): boolean {
  try {
    return sameJson(JSON.parse(text), value);
  } catch {
    return false;
  }
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The project folder a request names (absolute, or ~/…), which must exist on this host. */
export function projectFolder(dir: string | undefined, userHome: string, agent: string): string {
  const raw = (dir ?? '').trim();
  if (!raw) throw new OperationError('invalid', `Enter the project folder (the folder you start ${agent} in).`);
  const expanded = raw === '~' ? userHome : raw.startsWith('~/') ? join(userHome, raw.slice(2)) : raw;
  if (!isAbsolute(expanded)) throw new OperationError('invalid', `The project folder must be an absolute path (it is on the host, not relative to anything): ${raw}.`);
  const abs = resolve(expanded);
  let isDir: boolean;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    throw new OperationError('invalid', `The project folder ${abs} does not exist on this host.`);
  }
  if (!isDir) throw new OperationError('invalid', `${abs} is a file, not a folder: enter the project folder.`);
  return abs;
}
