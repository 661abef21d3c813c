// The command languages of database shells: sqlite3's dot-commands and file functions, psql's
// backslash meta-commands. Both run shell commands and read or write any file they are told to,
// inside a string the shell model sees only as an argument (`sqlite3 db ".system curl …"`,
// `psql -c "\! cat ~/.ssh/id_rsa"`); these read that string. When a form cannot be followed the
// call is unsure (evasive) rather than judged by what is visible.
import { hostOfTarget, hostsOfUrl } from '../hosts.js';
import { normalisePath } from '../paths.js';
import { commandName } from '../shell/command-name.js';
import { optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { printedText } from '../shell/redirects.js';
import { nested } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Feed, literalEW, MAX_DEPTH } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { expandWords } from '../shell/words.js';
import type { Operation } from '../../types.js';

/** Command text longer than this is not read whole: the call is unsure instead. */
export const MAX_TEXT = 65536;

/** Shell code a database shell hands to /bin/sh (`.system`, `\!`, `|cmd`, a backquote). */
export function shellCode(src: string, env: Env, c: Ctx): void {
  if (env.depth >= MAX_DEPTH) return c.col.evasive('shell nesting too deep to analyse');
  nested(src, env, c);
}

/**
 * `|cmd` for output (`.output |cmd`, `\o |cmd`, `\copy … to program`): the client's output is the
 * command's standard input, so a shell there runs whatever the query printed. Judged as the last
 * stage of a pipeline, which makes that unsure; a compound command (`true; sh`, `(sh)`) would hide
 * a later command's reading of the same input from that.
 */
export function outputPipe(src: string, env: Env, c: Ctx, name: string): void {
  if (/[;&\n(){}]/.test(src)) c.col.evasive(`${name} pipes its output to a compound command`);
  // `cat` stands for the client's output: text the judge cannot see.
  shellCode(`cat | ${src}`, env, c);
}

/**
 * A file named inside the commands. psql expands a leading `~`; sqlite3 does not (`~/x` is a
 * folder named ~), but taking it as the home can only find more.
 */
export function fileArg(t: string, env: Env, c: Ctx, op: Operation, tree = false): void {
  pathOf(literalEW(t), env, c, op, tree);
}

/**
 * A command file this same command wrote with visible text (`echo '.shell …' > x.sql; sqlite3 db
 * .read x.sql`): judged as what it holds, like a shell script it wrote (script.ts runWritten).
 */
export function writtenCommands(file: string, env: Env, c: Ctx, judge: (text: string, env: Env) => void): void {
  if (!c.written.size) return;
  const text = c.written.get(normalisePath(file, env.cwd, c.home));
  if (text === undefined) return;
  if (env.depth >= MAX_DEPTH) return c.col.evasive('command files read each other too deep to analyse');
  judge(text, { ...env, depth: env.depth + 1 });
}

/**
 * Commands read from standard input (no command on the command line): a literal here-document is
 * judged like a command argument; a redirected file, a pipe or a here-document with expansions
 * hides them. (The redirection's own read is counted by redirects.ts.)
 */
export function stdinCommands(feed: Feed, env: Env, c: Ctx, name: string, judge: (text: string, env: Env) => void): void {
  for (const r of feed.redirects) {
    if (r.op === '<<' || r.op === '<<-' || r.op === '<<<') {
      if (r.bodyLiteral && r.body !== undefined) judge(r.body, env);
      else c.col.evasive(`${name} reads commands from a here-document built at run time`);
    } else if (r.op === '<' || r.op === '<>') c.col.evasive(`${name} reads commands from a redirected file`);
  }
  if (!feed.upstream) return;
  c.col.evasive(`${name} reads commands from a pipe`);
  // `echo '.shell …' | sqlite3 db`: still unsure, but what is visibly sent counts too.
  const last = feed.upstream[feed.upstream.length - 1];
  if (last?.kind !== 'cmd') return;
  const words = expandWords(last.words, env, c);
  const text = printedText(commandName(words[0]?.t ?? ''), words, last.redirects);
  if (text !== undefined) judge(text, env);
}

// ---- sqlite3 ------------------------------------------------------------------------------------

/** sqlite3's options (one dash or two) that take values, and how many. */
const SQLITE_VALUE: ReadonlyMap<string, number> = new Map([
  ['cmd', 1], ['init', 1], ['separator', 1], ['newline', 1], ['nullvalue', 1], ['vfs', 1], ['maxsize', 1], ['mmap', 1],
  ['heap', 1], ['escape', 1], ['nonce', 1], ['sorterref', 1], ['lookaside', 2], ['pagecache', 2],
]);

/** sqlite3's flags. Another option may take a value, which would then be read as the database: unsure. */
const SQLITE_FLAGS = new Set([
  'append', 'ascii', 'bail', 'batch', 'box', 'column', 'csv', 'deserialize', 'echo', 'header', 'noheader', 'help', 'html',
  'interactive', 'json', 'line', 'list', 'markdown', 'memtrace', 'nofollow', 'no-rowid-in-view', 'pcachetrace', 'quote',
  'readonly', 'safe', 'stats', 'table', 'tabs', 'unsafe-testing', 'utf8', 'version', 'vfstrace', 'zip', 'tsv', 'insert',
]);

/**
 * sqlite3 [OPTIONS] FILENAME [SQL]…: the database is read and written; each SQL argument and each
 * `-cmd` value runs (a dot-command when it starts with `.`); with no SQL argument the commands come
 * from standard input. Options may follow the file name (shell.c reads them wherever they are).
 */
export function sqlite3(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): void {
  const col = c.col;
  let db: EW | undefined;
  const commands: EW[] = [];
  let sqlArgs = false;
  let optionsEnd = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    if (optionsEnd || !a.known || !a.t.startsWith('-') || a.t === '-') {
      if (db === undefined) db = a;
      else {
        commands.push(a);
        sqlArgs = true;
      }
      continue;
    }
    if (a.t === '--') {
      optionsEnd = true;
      continue;
    }
    const opt = a.t.replace(/^--?/, '');
    if (opt === 'A') {
      // `-A ARGS…` is `.archive ARGS…`: files extracted or archived, by its own option language.
      col.evasive(`${name} -A runs an archive command that reads and writes files`);
      unknownProgram(args.slice(i + 1), env, c);
      break;
    }
    const n = SQLITE_VALUE.get(opt);
    if (n !== undefined) {
      const v = args[i + 1];
      i += n;
      if (!v) continue;
      if (opt === 'cmd') commands.push(v);
      else if (opt === 'init') {
        pathOf(v, env, c, 'read');
        if (v.known) writtenCommands(v.t, env, c, (text, e) => sqliteLines(text, e, c, name));
      }
      continue;
    }
    if (!SQLITE_FLAGS.has(opt)) col.evasive(`${name}: an option Gatehouse does not know (${a.t.slice(0, 40)}) may take a value`);
  }
  if (db) sqliteDatabase(db, env, c, ['read', 'write']);
  for (const cmd of commands) {
    if (!cmd.known) col.evasive(`${name} runs commands built at run time`);
    else if (cmd.t.length > MAX_TEXT) col.evasive(`${name}: a command too long to read whole`);
    // shell.c: an argument that starts with `.` is one dot-command, its newlines mere spaces.
    else if (/^\s*\./.test(cmd.t)) sqliteDot(cmd.t, env, c, name);
    else sqliteSql(cmd.t, env, c, name);
  }
  if (!sqlArgs) stdinCommands(feed, env, c, name, (text, e) => sqliteLines(text, e, c, name));
}

/** A database file by name or `file:` URI; `:memory:` and the empty name are no file. */
function sqliteDatabase(a: EW, env: Env, c: Ctx, ops: Operation[]): void {
  if (a.known && (a.t === '' || a.t === ':memory:')) return;
  for (const op of ops.slice(1)) c.col.op(op);
  if (!a.known || !/^file:/i.test(a.t)) return pathOf(a, env, c, ops[0]);
  // file:PATH, file:///PATH, file://localhost/PATH, then ?query and #fragment.
  const m = /^file:(?:\/\/([^/]*))?([^?#]*)/i.exec(a.t);
  if (m?.[1] && m[1].toLowerCase() !== 'localhost') return c.col.evasive('sqlite3: a database URI with a host Gatehouse cannot read');
  let p = m?.[2] ?? '';
  try {
    p = decodeURIComponent(p);
  } catch {
    return c.col.evasive('sqlite3: a database URI Gatehouse cannot decode');
  }
  if (/[?&]mode=memory(&|#|$)/i.test(a.t) || p === '' || p === ':memory:') return;
  pathOf({ ...a, t: p, tilde: false }, env, c, ops[0]);
}

/**
 * Command text read line by line (standard input, `-init`, `.read`): a line starting with `.` is
 * a dot-command, the rest SQL. shell.c takes a dot-command only outside an unfinished statement;
 * every such line is taken here, which can only find more.
 */
function sqliteLines(text: string, env: Env, c: Ctx, name: string): void {
  if (text.length > MAX_TEXT) return c.col.evasive(`${name}: commands too long to read whole`);
  const sql: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*\./.test(line)) sqliteDot(line, env, c, name);
    else sql.push(line);
  }
  sqliteSql(sql.join('\n'), env, c, name);
}

/** shell.c's do_meta_command splitting: blanks separate, '…' is literal, "…" resolves backslashes. */
function sqliteWords(line: string): string[] {
  const out: string[] = [];
  let h = 0;
  while (h < line.length && out.length < 51) {
    while (h < line.length && /\s/.test(line.charAt(h))) h++;
    if (h >= line.length) break;
    const q = line.charAt(h);
    if (q === "'" || q === '"') {
      let w = '';
      for (h++; h < line.length && line.charAt(h) !== q; h++) {
        if (q === '"' && line.charAt(h) === '\\' && h + 1 < line.length) w += line.charAt(h++);
        w += line.charAt(h);
      }
      h++;
      out.push(q === '"' ? resolveBackslashes(w) : w);
    } else {
      const start = h;
      while (h < line.length && !/\s/.test(line.charAt(h))) h++;
      out.push(line.slice(start, h));
    }
  }
  return out;
}

/** shell.c's resolve_backslashes: C escapes and up to three octal digits; any other `\x` is x. */
function resolveBackslashes(s: string): string {
  const named: Record<string, string> = { a: '\x07', b: '\b', t: '\t', n: '\n', v: '\v', f: '\f', r: '\r' };
  return s.replace(/\\([0-7]{1,3}|[\s\S])/g, (_m, e: string) => (/^[0-7]/.test(e) ? String.fromCharCode(parseInt(e, 8) & 0xff) : (named[e] ?? e)));
}

/**
 * One dot-command. shell.c matches a command by any prefix of its name (`.sys` is `.system`), so a
 * word is taken as every command it may abbreviate.
 */
function sqliteDot(line: string, env: Env, c: Ctx, name: string): void {
  const col = c.col;
  const words = sqliteWords(line.trim().slice(1));
  const cmd = (words[0] ?? '').toLowerCase();
  if (!cmd) return;
  const args = words.slice(1);
  const is = (...full: string[]): boolean => full.some((f) => f.startsWith(cmd));
  // `.once |cmd a b`, `.read |cmd`: the rest of the words, joined by blanks, go to popen().
  const pipeOrFile = (i: number, op: Operation, special: string[] = []): void => {
    const f = args[i];
    if (f === undefined || special.includes(f)) return;
    if (!f.startsWith('|')) return fileArg(f, env, c, op);
    const src = [f.slice(1), ...args.slice(i + 1)].join(' ');
    if (op === 'write') return outputPipe(src, env, c, name);
    // `.read |cmd`: what the command prints is run as more commands.
    col.evasive(`${name} .${cmd} runs the commands a program prints`);
    shellCode(src, env, c);
  };
  const positional = (skipValue: string[] = []): string[] => {
    const out: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (!a.startsWith('-') || a === '-') out.push(a);
      else if (skipValue.includes(a.replace(/^--?/, ''))) i++;
    }
    return out;
  };
  if (is('shell', 'system') && args.length) {
    // shell.c joins the words with blanks, quoting one that has a blank in it.
    shellCode(args.map((a) => (a.includes(' ') ? `"${a}"` : a)).join(' '), env, c);
  }
  if (is('output', 'once')) {
    if (args.some((a) => /^--?[exw]$/.test(a))) col.evasive(`${name} .${cmd} -x/-e opens its output in another program`);
    const i = args.findIndex((a) => !a.startsWith('-'));
    if (i >= 0) pipeOrFile(i, 'write');
  }
  if (is('excel', 'www')) col.evasive(`${name} .${cmd} opens its output in another program`);
  if (is('log', 'trace')) {
    const i = args.findIndex((a) => !a.startsWith('-'));
    if (i >= 0) pipeOrFile(i, 'write', ['on', 'off', 'stdout', 'stderr']);
  }
  if (is('iotrace') && args[0] !== undefined && args[0] !== '-') fileArg(args[0], env, c, 'write');
  if (is('backup', 'save', 'clone')) {
    const p = positional();
    if (p.length) fileArg(p[p.length - 1] as string, env, c, 'write');
  }
  if (is('read')) {
    pipeOrFile(0, 'read');
    const f = args[0];
    if (f !== undefined && !f.startsWith('|')) writtenCommands(f, env, c, (text, e) => sqliteLines(text, e, c, name));
  }
  if (is('import')) {
    const f = positional(['skip', 'schema'])[0];
    // shell.c: `.import "|cmd" t` runs the one word after the bar.
    if (f?.startsWith('|')) shellCode(f.slice(1), env, c);
    else if (f !== undefined) fileArg(f, env, c, 'read');
  }
  if (is('restore')) {
    const p = positional();
    if (p.length) fileArg(p[p.length - 1] as string, env, c, 'read');
  }
  if (is('open')) {
    const f = positional(['maxsize'])[0];
    if (f !== undefined) sqliteDatabase(literalEW(f), env, c, ['read', 'write']);
  }
  if (is('load')) col.evasive(`${name} .load loads a library of native code`);
  if (is('cd')) col.evasive(`${name} .cd changes the folder later commands use`);
  if (is('archive', 'ar')) col.evasive(`${name} .archive reads and writes files by its own option language`);
  if (is('session')) col.evasive(`${name} .session writes change sets to files`);
}

export interface SqlToken {
  /** `s`: a quoted string or identifier ('…', "…", `…`); `w`: a word or [identifier]; `p`: punctuation. */
  k: 's' | 'w' | 'p';
  t: string;
  /** Where it starts in the text. */
  at: number;
}

/**
 * SQL tokens, as far as finding calls and their literal arguments needs: comments dropped.
 * `backslash`: a backslash in a '…' or "…" string escapes the next character (MySQL's strings).
 */
export function sqlTokens(sql: string, backslash = false): SqlToken[] {
  const out: SqlToken[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql.charAt(i);
    const at = i;
    if (/\s/.test(ch)) i++;
    else if (sql.startsWith('--', i)) i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
    else if (sql.startsWith('/*', i)) i = sql.includes('*/', i + 2) ? sql.indexOf('*/', i + 2) + 2 : sql.length;
    else if (ch === "'" || ch === '"' || ch === '`') {
      let t = '';
      for (i++; i < sql.length; i++) {
        if (backslash && ch !== '`' && sql.charAt(i) === '\\' && i + 1 < sql.length) t += mysqlEscape(sql.charAt(++i));
        else if (sql.charAt(i) !== ch) t += sql.charAt(i);
        else if (sql.charAt(i + 1) === ch) t += sql.charAt(i++);
        else break;
      }
      i++;
      out.push({ k: 's', t, at });
    } else if (ch === '[') {
      const end = sql.includes(']', i) ? sql.indexOf(']', i) : sql.length;
      out.push({ k: 'w', t: sql.slice(i + 1, end), at });
      i = end + 1;
    } else if (/[A-Za-z0-9_$\u0080-\uffff]/.test(ch)) {
      const start = i;
      while (i < sql.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql.charAt(i))) i++;
      out.push({ k: 'w', t: sql.slice(start, i), at });
    } else {
      out.push({ k: 'p', t: ch, at });
      i++;
    }
  }
  return out;
}

/** MySQL's string escapes (`\\n`, `\\0`, `\\Z`); `\\%` and `\\_` keep their backslash; any other `\\x` is x. */
function mysqlEscape(e: string): string {
  const named: Record<string, string> = { '0': '\0', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a', '%': '\\%', _: '\\_' };
  return named[e] ?? e;
}

/** The sqlite3 shell's SQL functions on files: what each does to the file its first argument names. */
const SQL_FILE_FUNCTIONS: Readonly<Record<string, Operation>> = {
  readfile: 'read',
  writefile: 'write',
  // fsdir('d') lists a folder tree and reads its files' contents.
  fsdir: 'read',
  // zipfile('x.zip') reads an archive; a virtual table on it writes one.
  zipfile: 'write',
  load_extension: 'read',
};

/**
 * SQL the sqlite3 shell runs: its file functions (`writefile('x', …)`, `readfile`, `fsdir`,
 * `zipfile`), `ATTACH 'file'` and `VACUUM INTO 'file'` name files; a name that is not one string
 * literal is chosen at run time. `edit()` starts an editor and `load_extension()` loads native code.
 */
function sqliteSql(sql: string, env: Env, c: Ctx, name: string): void {
  const col = c.col;
  const toks = sqlTokens(sql);
  // A single string literal, then what must follow it.
  const literal = (i: number, after: (t: SqlToken | undefined) => boolean): string | null => {
    const t = toks[i];
    return t?.k === 's' && after(toks[i + 1]) ? t.t : null;
  };
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i] as SqlToken;
    if (tok.k === 'p') continue;
    const w = tok.t.toLowerCase();
    const call = toks[i + 1]?.t === '(' && toks[i + 1]?.k === 'p';
    if (call && (w === 'edit' || w === 'load_extension')) col.evasive(`${name}: ${w}() ${w === 'edit' ? 'starts an editor' : 'loads a library of native code'}`);
    const op = call && Object.hasOwn(SQL_FILE_FUNCTIONS, w) ? SQL_FILE_FUNCTIONS[w] : undefined;
    if (op) {
      const f = literal(i + 2, (t) => t?.t === ',' || t?.t === ')');
      if (f === null) col.evasive(`${name}: ${w}() on a file named at run time`);
      else {
        if (w === 'zipfile') col.op('read');
        fileArg(f, env, c, op, w === 'fsdir');
      }
    }
    if (tok.k === 'w' && w === 'attach') {
      // ATTACH [DATABASE] 'file' AS name
      const at = toks[i + 1]?.k === 'w' && toks[i + 1]?.t.toLowerCase() === 'database' ? i + 2 : i + 1;
      const f = literal(at, (t) => t?.t.toLowerCase() === 'as');
      if (f === null) col.evasive(`${name}: ATTACH of a file named at run time`);
      else sqliteDatabase(literalEW(f), env, c, ['read', 'write']);
    }
    if (tok.k === 'w' && w === 'vacuum') {
      // VACUUM [schema] INTO 'file'
      const into = [i + 1, i + 2].find((k) => toks[k]?.k === 'w' && toks[k]?.t.toLowerCase() === 'into');
      if (into === undefined) continue;
      const f = literal(into + 1, (t) => t === undefined || t.t === ';');
      if (f === null) col.evasive(`${name}: VACUUM INTO a file named at run time`);
      else sqliteDatabase(literalEW(f), env, c, ['write']);
    }
  }
}

// ---- psql ---------------------------------------------------------------------------------------

/** psql's short options that take a value, and long ones (as in server-clients.ts). */
export const PSQL_VALUE = 'cdfhLoPpUvTFR';
export const PSQL_LONG_VALUE = ['--command', '--dbname', '--file', '--host', '--log-file', '--output', '--port', '--pset', '--username', '--variable', '--set', '--field-separator', '--record-separator', '--table-attr'];

/**
 * psql's `-c`/`--command` strings, `-f` command files and standard input: meta-commands read.
 * Returns the arguments left once the command strings are taken out, for the unknown-program
 * judgement of the rest (a command string is not a path).
 */
export function psqlCommands(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): EW[] {
  // getopt, as parseArgs: options may follow the database name.
  const p = parseArgs(args, PSQL_VALUE, PSQL_LONG_VALUE);
  const taken = p.opts.filter((o) => o.name === '-c' || o.name === '--command');
  const commands = taken.flatMap((o) => (o.value ? [o.value] : []));
  // The command strings are not paths for the unknown-program judgement; every other word is.
  const rest = args.filter((_, i) => !taken.some((o) => i >= o.at && i < o.end));
  for (const cmd of commands) {
    if (!cmd.known) c.col.evasive(`${name} runs a command built at run time`);
    else psqlText(cmd.t, env, c, name);
  }
  const files = optVals(p, '-f', '--file');
  for (const f of files) if (f.known && f.t !== '-') writtenCommands(f.t, env, c, (text, e) => psqlText(text, e, c, name));
  if (!commands.length && (!files.length || files.some((f) => f.known && f.t === '-'))) stdinCommands(feed, env, c, name, (text, e) => psqlText(text, e, c, name));
  return rest;
}

/**
 * psql's meta-commands whose names start with the letter of a one-letter command the judge reads.
 * psql runs an unknown name as its first letter with the rest as an argument (`\!ls`, `\o/tmp/x`):
 * a name not listed here is taken that way.
 */
const PSQL_NAMES = new Set([
  '!', 'o', 'out', 'g', 'gx', 'gdesc', 'gexec', 'gset', 'getenv', 'getresults', 'w', 'write', 'warn', 'watch',
  's', 'set', 'setenv', 'sf', 'sf+', 'sv', 'sv+', 'sendpipeline', 'startpipeline', 'syncpipeline',
  'i', 'include', 'include_relative', 'ir', 'if', 'e', 'edit', 'ef', 'ev', 'echo', 'elif', 'else', 'endif', 'encoding',
  'endpipeline', 'errverbose', 'c', 'connect', 'cd', 'close', 'close_prepared', 'conninfo', 'copy', 'copyright',
  'crosstabview', 'lo_import', 'lo_export', 'lo_list', 'lo_unlink',
]);

/**
 * Text psql reads for meta-commands. Every backslash is taken as the start of one, in SQL quotes
 * and comments too: psql's lexer skips those, and reading more than it runs can only find more.
 */
function psqlText(text: string, env: Env, c: Ctx, name: string): void {
  if (text.length > MAX_TEXT) return c.col.evasive(`${name}: commands too long to read whole`);
  psqlSql(text, env, c, name);
  for (let i = text.indexOf('\\'); i >= 0; i = text.indexOf('\\', i + 1)) {
    // The name runs to a blank or the next backslash (psqlscanslash.l).
    let j = i + 1;
    while (j < text.length && !/[\s\\]/.test(text.charAt(j))) j++;
    let cmd = text.slice(i + 1, j);
    if (!cmd) continue;
    let pushback = '';
    if (!PSQL_NAMES.has(cmd) && !cmd.startsWith('d')) {
      pushback = cmd.slice(1);
      cmd = cmd.charAt(0);
    }
    const eol = text.indexOf('\n', j);
    psqlMeta(cmd, pushback + text.slice(j, eol < 0 ? text.length : eol), env, c, name);
  }
}

interface PsqlArg {
  t: string;
  /** False when a variable (`:x`, `:'x'`) or a backquoted command's output is part of it. */
  known: boolean;
}

/**
 * A meta-command's arguments as psql splits them: blanks separate; '…' with psql's escapes, "…",
 * `…` (a shell command whose output is the argument: judged here), `:var` (unknown). An unquoted
 * backslash ends the command.
 */
function psqlArgs(line: string, env: Env, c: Ctx, name: string): PsqlArg[] {
  const out: PsqlArg[] = [];
  let i = 0;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line.charAt(i))) i++;
    if (i >= line.length || line.charAt(i) === '\\') break;
    const arg: PsqlArg = { t: '', known: true };
    while (i < line.length && !/[\s\\]/.test(line.charAt(i))) {
      const ch = line.charAt(i);
      if (ch === "'") {
        for (i++; i < line.length; i++) {
          const q = line.charAt(i);
          if (q === "'" && line.charAt(i + 1) === "'") arg.t += line.charAt(i++);
          else if (q === "'") break;
          else if (q === '\\') {
            const m = /^\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|([\s\S]))/.exec(line.slice(i)) as RegExpExecArray;
            const named: Record<string, string> = { n: '\n', t: '\t', b: '\b', r: '\r', f: '\f' };
            arg.t += m[1] ? String.fromCharCode(parseInt(m[1], 8)) : m[2] ? String.fromCharCode(parseInt(m[2], 16)) : (named[m[3] ?? ''] ?? m[3] ?? '');
            i += m[0].length - 1;
          } else arg.t += q;
        }
        i++;
      } else if (ch === '"') {
        const end = line.indexOf('"', i + 1);
        arg.t += line.slice(i + 1, end < 0 ? line.length : end);
        i = end < 0 ? line.length : end + 1;
      } else if (ch === '`') {
        const end = line.indexOf('`', i + 1);
        const code = line.slice(i + 1, end < 0 ? line.length : end);
        // psql fills `:var` into a backquoted command before it runs.
        if (end < 0 || /:['"]?[A-Za-z_{]/.test(code)) c.col.evasive(`${name} runs a backquoted command Gatehouse cannot read whole`);
        shellCode(code, env, c);
        arg.known = false;
        i = end < 0 ? line.length : end + 1;
      } else if (ch === ':' && /^:(?:[A-Za-z0-9_]|'[A-Za-z0-9_]+'|"[A-Za-z0-9_]+"|\{\?)/.test(line.slice(i))) {
        arg.known = false;
        i += (/^:(?:'[^']*'|"[^"]*"|\{\?[^}]*\}|[A-Za-z0-9_]+)/.exec(line.slice(i))?.[0].length ?? 1);
      } else {
        arg.t += ch;
        i++;
      }
    }
    out.push(arg);
  }
  return out;
}

/** One meta-command and the rest of its line. */
function psqlMeta(cmd: string, line: string, env: Env, c: Ctx, name: string): void {
  const col = c.col;
  // `\o |cmd`, `\w |cmd`, `\g |cmd`: psql hands the rest of the line to the shell, as written.
  const fileOrPipe = (rest: string, op: Operation, at = 0): void => {
    const bar = /^\s*\|/.exec(rest);
    if (bar) return outputPipe(rest.slice(bar[0].length), env, c, name);
    const f = psqlArgs(rest, env, c, name)[at];
    if (!f) return;
    if (!f.known) return col.evasive(`${name} \\${cmd} names a file filled in at run time`);
    fileArg(f.t, env, c, op);
  };
  switch (cmd) {
    case '!':
      // The rest of the line, as written: psql neither fills in variables nor runs backquotes.
      if (line.trim()) shellCode(line.trim(), env, c);
      else col.evasive(`${name} \\! with no command starts an interactive shell`);
      return;
    case 'o': case 'out': case 'w': case 'write': case 's':
      return fileOrPipe(line, 'write');
    case 'g': case 'gx':
      // `\g (format=csv) file`: options in parentheses come first.
      return fileOrPipe(line.replace(/^\s*\([^)]*\)/, ''), 'write');
    case 'lo_export':
      return fileOrPipe(line, 'write', 1);
    case 'i': case 'include': case 'ir': case 'include_relative': case 'lo_import': {
      const f = psqlArgs(line, env, c, name)[0];
      if (!f) return;
      if (!f.known) return col.evasive(`${name} \\${cmd} names a file filled in at run time`);
      fileArg(f.t, env, c, 'read');
      // An included file's meta-commands run too.
      if (cmd !== 'lo_import') writtenCommands(f.t, env, c, (text, e) => psqlText(text, e, c, name));
      return;
    }
    case 'copy':
      return psqlCopy(line, env, c, name);
    case 'gexec':
      col.evasive(`${name} \\gexec runs the SQL its query builds`);
      return;
    case 'c': case 'connect':
      return psqlConnect(psqlArgs(line, env, c, name), c, name);
    case 'cd': case 'setenv': case 'e': case 'edit': case 'ef': case 'ev':
      col.evasive(`${name} \\${cmd} ${cmd === 'cd' ? 'changes the folder later commands use' : cmd === 'setenv' ? 'sets the environment of the commands it starts' : 'starts an editor'}`);
      return;
    default:
      // Any other meta-command's arguments may hold backquoted commands (`\set x \`…\``).
      psqlArgs(line, env, c, name);
  }
}

/** PostgreSQL's functions on the server's files: what each does to the file its first string argument names. */
const PG_FILE_FUNCTIONS: Record<string, Operation> = {
  pg_read_file: 'read', pg_read_binary_file: 'read', pg_ls_dir: 'read', pg_stat_file: 'read', lo_import: 'read', pg_file_write: 'write',
};

/** Procedural languages that reach the server's operating system (the `u` is "untrusted"), and C. */
const PG_UNTRUSTED = /^(c|plpython[23]?u|plperlu|pltclu|plsh|plv8u?|pljavau)$/i;

/**
 * The SQL psql sends, as the server runs it. The server is taken to be local, as psql's default
 * host is, so what it does to files and commands is done here, as the postgres account:
 * `COPY … TO|FROM PROGRAM 'cmd'` runs a shell command, `COPY … TO|FROM 'file'` and the file
 * functions name files, `LOAD` and functions in an untrusted language run native or OS-level code.
 * SQL a procedure builds at run time (`EXECUTE` in a `DO` block or a function body) is not seen.
 */
function psqlSql(sql: string, env: Env, c: Ctx, name: string, inBody = false): void {
  const col = c.col;
  const toks = sqlTokens(sql);
  const word = (i: number, re: RegExp): boolean => toks[i]?.k === 'w' && re.test(toks[i]?.t ?? '');
  let body = inBody;
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i] as SqlToken;
    // A body given as a string (`AS 'BEGIN … END'`, `DO 'BEGIN … END'`) is SQL the server runs too.
    if (tok.k === 's' && body && !inBody) psqlSql(tok.t, env, c, name, true);
    if (tok.k !== 'w') continue;
    const w = tok.t.toLowerCase();
    if (w === 'do' || (w === 'function' || w === 'procedure') && toks.slice(Math.max(0, i - 3), i).some((t) => /^create$/i.test(t.t))) body = true;
    // `\copy` is psql's own (psqlCopy reads it, unquoted file names included).
    if (w === 'copy' && toks[i - 1]?.t !== '\\') {
      // COPY table|(query) [(columns)] TO|FROM 'file'|PROGRAM 'cmd'|STDIN|STDOUT: the direction word
      // is the first TO/FROM outside parentheses.
      let depth = 0;
      let k = i + 1;
      for (; k < toks.length && toks[k]?.t !== ';'; k++) {
        const t = toks[k] as SqlToken;
        if (t.k === 'p' && t.t === '(') depth++;
        else if (t.k === 'p' && t.t === ')') depth--;
        else if (depth === 0 && word(k, /^(to|from)$/i)) break;
      }
      const dir = toks[k]?.t.toLowerCase();
      if (dir !== 'to' && dir !== 'from') continue;
      const program = word(k + 1, /^program$/i);
      const target = toks[program ? k + 2 : k + 1];
      if (program) {
        if (target?.k !== 's') col.evasive(`${name}: COPY … PROGRAM Gatehouse cannot read`);
        else if (dir === 'to') outputPipe(target.t, env, c, name);
        else shellCode(target.t, env, c);
      } else if (target?.k === 's') fileArg(target.t, env, c, dir === 'from' ? 'read' : 'write');
      else if (!word(k + 1, /^std(in|out)$/i)) col.evasive(`${name}: COPY to or from a file Gatehouse cannot read`);
    } else if (w === 'lo_export' && toks[i + 1]?.t === '(') {
      const f = toks.findIndex((t, k) => k > i && t.k === 's');
      if (f < 0 || toks[f + 1]?.t !== ')') col.evasive(`${name}: lo_export() to a file named at run time`);
      else fileArg((toks[f] as SqlToken).t, env, c, 'write');
    } else if (Object.hasOwn(PG_FILE_FUNCTIONS, w) && toks[i + 1]?.t === '(') {
      const f = toks[i + 2];
      if (f?.k === 's' && (toks[i + 3]?.t === ')' || toks[i + 3]?.t === ',')) fileArg(f.t, env, c, PG_FILE_FUNCTIONS[w] as Operation);
      else col.evasive(`${name}: ${w}() on a file named at run time`);
    } else if (w === 'load' && (i === 0 || toks[i - 1]?.t === ';')) col.evasive(`${name}: LOAD loads a library of native code into the server`);
    else if (w === 'language' && (toks[i + 1]?.k === 'w' || toks[i + 1]?.k === 's') && PG_UNTRUSTED.test(toks[i + 1]?.t ?? '')) {
      col.evasive(`${name}: code in ${toks[i + 1]?.t} runs with the server's access to the system`);
    } else if (w === 'execute' && body) col.evasive(`${name}: EXECUTE in a procedure runs SQL built at run time`);
  }
}

/**
 * `\copy … from|to 'file'|file|program 'cmd'|stdin|stdout|pstdin|pstdout`: the direction word is
 * the first `from`/`to` outside parentheses (a query's own FROM is inside them).
 */
function psqlCopy(line: string, env: Env, c: Ctx, name: string): void {
  const toks = sqlTokens(line);
  let depth = 0;
  let k = 0;
  for (; k < toks.length; k++) {
    const t = toks[k] as SqlToken;
    if (t.k === 'p' && t.t === '(') depth++;
    else if (t.k === 'p' && t.t === ')') depth--;
    else if (depth === 0 && t.k === 'w' && /^(from|to)$/i.test(t.t)) break;
  }
  const dir = toks[k]?.t.toLowerCase();
  const target = toks[k + 1];
  if (!dir || !target) return c.col.evasive(`${name} \\copy Gatehouse cannot read`);
  if (target.k === 'w' && /^program$/i.test(target.t)) {
    const code = toks[k + 2];
    if (code?.k !== 's') c.col.evasive(`${name} \\copy … program Gatehouse cannot read`);
    else if (dir === 'to') outputPipe(code.t, env, c, name);
    else shellCode(code.t, env, c);
    return;
  }
  if (target.k === 'w' && /^p?std(in|out)$/i.test(target.t)) return;
  // An unquoted file name runs to the next blank (sqlTokens would split it at punctuation).
  const file = target.k === 's' ? target.t : (/^\S+/.exec(line.slice(target.at))?.[0] ?? target.t);
  fileArg(file, env, c, dir === 'from' ? 'read' : 'write');
}

/** `\c [dbname [user [host [port]]]]` or `\c conninfo|URI`: another server. */
function psqlConnect(args: PsqlArg[], c: Ctx, name: string): void {
  const col = c.col;
  const words = args.filter((a) => !a.t.startsWith('-reuse-previous'));
  if (words.some((a) => !a.known)) return col.evasive(`${name} \\c connects to a server filled in at run time`);
  const first = words[0]?.t ?? '';
  const reach = (h: string | null): void => {
    col.op('network');
    col.host(h);
  };
  if (/^postgres(ql)?:\/\//i.test(first)) {
    col.op('network');
    hostsOfUrl(first, (h) => col.host(h));
  } else if (first.includes('=')) {
    for (const m of first.matchAll(/(?:^|\s)host(?:addr)?\s*=\s*'?([^\s']+)/gi)) for (const one of (m[1] as string).split(',')) if (!one.startsWith('/')) reach(hostOfTarget(one));
  } else {
    const host = words[2]?.t;
    if (host && host !== '-' && !host.startsWith('/')) reach(hostOfTarget(host));
  }
}
