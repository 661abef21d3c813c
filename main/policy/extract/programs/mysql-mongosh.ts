// The mysql/mariadb client's own commands and the MongoDB shell's code. mysql runs a shell command
// (`system`, `\!`), writes a file (`tee`, `\T`), pipes its output to a command (`pager`, `\P`) and
// reads a command file (`source`, `\.`) inside a string the shell model sees only as an argument
// (`mysql -e "system curl …"`); mongosh evaluates JavaScript, Node's require included. The routines
// shared with psql and sqlite3 (shell code, output pipes, command files, standard input) are in
// db-commands.ts.
import { hostOfTarget } from '../hosts.js';
import { optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import type { Ctx, Env, EW, Feed } from '../shell/types.js';
import { fileArg, MAX_TEXT, outputPipe, shellCode, sqlTokens, stdinCommands, writtenCommands } from './db-commands.js';
import { inlineCode } from './interpreters.js';

// ---- mysql / mariadb ----------------------------------------------------------------------------

/** mysql's short options that take a value (attached or the next word). */
export const MYSQL_VALUE = 'DehPSu';

/** Short options whose value is optional and only ever attached (`-psecret`, `-#d:t`): the rest of the word. */
const MYSQL_ATTACHED = 'p#';

const MYSQL_SHORT_NAMES: Readonly<Record<string, string>> = { D: 'database', e: 'execute', h: 'host', P: 'port', S: 'socket', u: 'user' };

/** Long options (without `--`) that take the next word as a value when not given with `=`. */
const MYSQL_LONG_VALUE = [
  'bind-address', 'character-sets-dir', 'compression-algorithms', 'connect-timeout', 'database', 'default-auth', 'default-character-set',
  'defaults-extra-file', 'defaults-file', 'defaults-group-suffix', 'delimiter', 'dns-srv-name', 'execute', 'histignore', 'host',
  'init-command', 'init-command-add', 'load-data-local-dir', 'login-path', 'max-allowed-packet', 'max-join-size', 'max-statement-time',
  'net-buffer-length', 'network-namespace', 'oci-config-file', 'plugin-dir', 'port', 'prompt', 'protocol', 'select-limit',
  'server-public-key-path', 'shared-memory-base-name', 'socket', 'ssl-ca', 'ssl-capath', 'ssl-cert', 'ssl-cipher', 'ssl-crl',
  'ssl-crlpath', 'ssl-fips-mode', 'ssl-key', 'ssl-mode', 'ssl-session-data', 'tee', 'tls-ciphersuites', 'tls-version',
  'tls-sni-servername', 'user', 'zstd-compression-level',
];

/** As server-clients.ts's option parser takes them. */
export const MYSQL_LONG_VALUE_ARGS = MYSQL_LONG_VALUE.map((o) => `--${o}`);

/** Long options whose value is optional: given only with `=`. */
const MYSQL_LONG_OPTIONAL = ['pager', 'password', 'local-infile', 'debug'];

/** Options whose value names no file: left out of the words judged as an unknown program's paths. */
const MYSQL_NOT_PATH = new Set([
  'host', 'user', 'port', 'database', 'password', 'prompt', 'protocol', 'default-character-set', 'login-path', 'connect-timeout',
  'max-allowed-packet', 'max-join-size', 'select-limit', 'net-buffer-length', 'compression-algorithms', 'ssl-mode', 'local-infile',
]);

/**
 * The options a long name may stand for: my_getopt takes `_` for `-`, a `loose-` prefix, and any
 * unambiguous prefix of a name (`--exec=…`); a prefix is taken as every option it may abbreviate.
 */
function mysqlLongNames(raw: string): string[] {
  const n = raw.replace(/_/g, '-').replace(/^loose-/, '');
  const all = [...MYSQL_LONG_VALUE, ...MYSQL_LONG_OPTIONAL];
  if (all.includes(n)) return [n];
  return n.length ? all.filter((o) => o.startsWith(n)) : [];
}

/**
 * mysql's and mariadb's command strings (`-e`/`--execute`, `--init-command`), the options that run a
 * command or name a file (`--pager`, `--tee`, `--defaults-file`), and commands read from standard
 * input. Returns the arguments left for the unknown-program judgement of paths (a command string,
 * a host or a user name is not a path).
 */
export function mysqlCommands(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): EW[] {
  const col = c.col;
  const rest: EW[] = [];
  // `-e`: run instead of standard input. `--init-command`: sent first, either way.
  const commands: EW[] = [];
  const init: EW[] = [];
  const delimiters = [';'];
  /** One option and its value; true when judged here (not a path for the unknown-program judgement). */
  const option = (opt: string, v: EW | undefined): boolean => {
    switch (opt) {
      case 'execute':
        if (v) commands.push(v);
        return true;
      case 'init-command': case 'init-command-add':
        if (v) init.push(v);
        return true;
      case 'pager':
        // `--pager` alone is $PAGER; `--pager=CMD` gets the client's output.
        if (v && !v.known) col.evasive(`${name} --pager names a command built at run time`);
        else if (v) outputPipe(v.t, env, c, name);
        return true;
      case 'tee':
        if (v) pathOf(v, env, c, 'write');
        return true;
      case 'defaults-file': case 'defaults-extra-file':
        // An option file may set pager=, init-command=: one this command wrote is not followed.
        if (v) pathOf(v, env, c, 'read');
        if (v?.known) writtenCommands(v.t, env, c, () => col.evasive(`${name} reads options from a file this command writes`));
        return true;
      case 'plugin-dir':
        // The client loads authentication plugins (native code) from this folder: `--default-auth`
        // names one, and a server can ask for any.
        col.evasive(`${name} --plugin-dir names a folder of native plugins the client loads`);
        return true;
      case 'default-auth':
        if (!v?.known || /[\\/]/.test(v.t)) col.evasive(`${name} --default-auth names a plugin file the client loads`);
        return true;
      case 'delimiter':
        if (v?.known) delimiters.push(v.t);
        return true;
      default:
        return MYSQL_NOT_PATH.has(opt);
    }
  };
  let end = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (end || !a.known || t.length < 2 || t[0] !== '-') {
      rest.push(a);
      continue;
    }
    if (t === '--') {
      end = true;
      rest.push(a);
      continue;
    }
    // The next word as a value. One that looks like an option is read as an option too (not
    // skipped): if mysql took it as this value, reading it as `-e` as well can only find more.
    const next = (): EW | undefined => {
      const n = args[i + 1];
      if (n && !(n.known && n.t.length > 1 && n.t[0] === '-')) i++;
      return n;
    };
    const start = i;
    let judged = false;
    let v: EW | undefined;
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const names = mysqlLongNames(t.slice(2, eq > 0 ? eq : undefined));
      if (eq > 0) v = { ...a, t: t.slice(eq + 1), tilde: t[eq + 1] === '~' };
      else if (names.some((n) => MYSQL_LONG_VALUE.includes(n))) v = next();
      // Every option the name may stand for is judged (`||` would stop at the first).
      judged = names.map((n) => option(n, v)).some(Boolean);
    } else {
      for (let j = 1; j < t.length; j++) {
        const ch = t.charAt(j);
        if (MYSQL_ATTACHED.includes(ch)) break;
        const opt = MYSQL_SHORT_NAMES[ch];
        if (opt === undefined) continue;
        const attached = t.slice(j + 1);
        v = attached ? { ...a, t: attached, tilde: attached[0] === '~' } : next();
        judged = option(opt, v);
        break;
      }
    }
    if (judged) continue;
    rest.push(a);
    if (i > start && v) rest.push(v);
  }
  const judge = (text: string, e: Env): void => mysqlText(text, e, c, name, delimiters);
  for (const cmd of [...commands, ...init]) {
    if (!cmd.known) col.evasive(`${name} runs commands built at run time`);
    else judge(cmd.t, env);
  }
  if (!commands.length) stdinCommands(feed, env, c, name, judge);
  return rest;
}

/** The client's commands the judge reads, by their one-letter form (`\!`); the case matters. */
const MYSQL_SHORT: Readonly<Record<string, string>> = {
  '!': 'system', T: 'tee', P: 'pager', '.': 'source', e: 'edit', r: 'connect', d: 'delimiter', g: 'go', G: 'ego',
};

/** Long forms, matched whatever their case at the start of a statement (`SYSTEM id;`). */
const MYSQL_LONG = new Set(Object.values(MYSQL_SHORT));

/** Commands whose argument is the rest of the line, delimiters and all: mysql hands it on whole. */
const MYSQL_WHOLE_LINE = new Set(['system', 'pager']);

/** Commands that take no argument: mysql reads on right after them. */
const MYSQL_NO_ARGS = new Set(['edit', 'go', 'ego']);

type MysqlItem = { cmd: string; arg: string } | { sql: string; escapes: boolean };

/**
 * Text the client reads: `-e` strings, standard input, a sourced file. It is read twice, with a
 * backslash in a string an escape and without (the server's NO_BACKSLASH_ESCAPES, which an
 * earlier statement may set, changes where a string ends); what either reading finds counts.
 */
function mysqlText(text: string, env: Env, c: Ctx, name: string, delimiters: string[]): void {
  if (text.length > MAX_TEXT) return c.col.evasive(`${name}: commands too long to read whole`);
  const items = new Map<string, MysqlItem>();
  for (const escapes of [true, false]) for (const it of mysqlScan(text, escapes, delimiters)) items.set(JSON.stringify(it), it);
  for (const it of items.values()) {
    if ('sql' in it) mysqlSql(it.sql, it.escapes, env, c, name);
    else mysqlCommand(it.cmd, it.arg, env, c, name, delimiters);
  }
}

/** A long-form command: the statement's first word, whatever its case; its argument follows a blank. */
function longCommand(statement: string): MysqlItem | null {
  const m = /^(\S+)(?:\s+([\s\S]*))?$/.exec(statement.trim());
  const cmd = m?.[1]?.toLowerCase() ?? '';
  return MYSQL_LONG.has(cmd) ? { cmd, arg: (m?.[2] ?? '').trim() } : null;
}

/**
 * The client's reading (mysql.cc read_and_execute, add_line): statements end at the delimiter, `\g`
 * or `\G`; a statement, or a line with no delimiter begun with nothing pending, whose first word
 * names a command is that command. `\x` outside strings and comments is a command wherever it is:
 * mysql hands it the rest of its line, then reads on after the next delimiter. `delimiter X`
 * starts a line; X then ends statements too (`;` still does here: that can only find more).
 */
function mysqlScan(text: string, escapes: boolean, initial: string[]): MysqlItem[] {
  const out: MysqlItem[] = [];
  const delims = [...initial];
  let buf = '';
  let quote = '';
  let comment = false;
  // The current line began with nothing pending, and has had no delimiter yet.
  let lineFresh = true;
  let lineDelim = false;
  const flush = (): void => {
    const s = buf.trim();
    buf = '';
    if (s) out.push(longCommand(s) ?? { sql: s, escapes });
  };
  const delimAt = (i: number): string | undefined => delims.find((d) => d && text.startsWith(d, i));
  const lineEndOf = (i: number): number => (text.includes('\n', i) ? text.indexOf('\n', i) : text.length);
  const endLine = (): void => {
    if (lineFresh && !lineDelim && longCommand(buf)) flush();
    lineFresh = buf.trim() === '';
    lineDelim = false;
  };
  let i = 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (comment) {
      if (text.startsWith('*/', i)) comment = false;
      i += text.startsWith('*/', i) ? 2 : 1;
      continue;
    }
    if (quote) {
      const n = escapes && ch === '\\' && i + 1 < text.length ? 2 : 1;
      if (ch === quote && n === 1) quote = '';
      buf += text.slice(i, i + n);
      i += n;
      continue;
    }
    if (lineFresh && buf.trim() === '' && (i === 0 || text.charAt(i - 1) === '\n')) {
      // `delimiter //` or `\d //` takes the whole line.
      const d = /^[ \t]*(?:delimiter|\\d)[ \t]+(\S+)/i.exec(text.slice(i, lineEndOf(i)));
      if (d) {
        delims.push((d[1] as string).replace(/^(['"`])(.*)\1$/, '$2'));
        i = lineEndOf(i);
        continue;
      }
    }
    const d = delimAt(i);
    if (d) {
      flush();
      lineDelim = true;
      i += d.length;
      continue;
    }
    if (ch === '\n') {
      endLine();
      buf += ch;
      i++;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
      buf += ch;
      i++;
      continue;
    }
    if (ch === '#' || (text.startsWith('--', i) && /^--(\s|$)/.test(text.slice(i, i + 3)))) {
      i = lineEndOf(i);
      continue;
    }
    if (text.startsWith('/*', i)) {
      // `/*! … */` and `/*+ … */` are run by the server: their text is read; a plain comment is not.
      if (/^\/\*[!+]/.test(text.slice(i, i + 3))) i += 3 + (/^\d*/.exec(text.slice(i + 3))?.[0].length ?? 0);
      else {
        comment = true;
        i += 2;
      }
      continue;
    }
    if (text.startsWith('*/', i)) {
      i += 2;
      continue;
    }
    const cmd = ch === '\\' ? MYSQL_SHORT[text.charAt(i + 1)] : undefined;
    if (cmd === undefined) {
      buf += text.slice(i, ch === '\\' ? i + 2 : i + 1);
      i += ch === '\\' ? 2 : 1;
      continue;
    }
    if (cmd === 'go' || cmd === 'ego') {
      flush();
      i += 2;
      continue;
    }
    // mysql takes the argument after the first blank of the line from the command on.
    const lineEnd = lineEndOf(i);
    const line = text.slice(i, lineEnd);
    const blank = line.search(/\s/);
    const argStart = blank < 0 ? lineEnd : i + blank + 1;
    let arg = text.slice(argStart, lineEnd);
    let next = MYSQL_NO_ARGS.has(cmd) ? i + 2 : lineEnd;
    // Its parameters end at the next delimiter on the line (all but system's and pager's).
    for (let k = i + 2; k < lineEnd && !MYSQL_NO_ARGS.has(cmd); k++) {
      const dk = delimAt(k);
      if (!dk) continue;
      if (!MYSQL_WHOLE_LINE.has(cmd)) arg = text.slice(Math.min(argStart, k), k);
      next = k + dk.length;
      break;
    }
    if (cmd === 'delimiter' && arg.trim()) delims.push(arg.trim().replace(/^(['"`])(.*)\1$/, '$2'));
    else out.push({ cmd, arg: arg.trim() });
    i = next;
  }
  endLine();
  flush();
  return out;
}

/** A file named after a command: the rest, trimmed, without quotes around it. */
function mysqlFile(arg: string): string {
  return arg.trim().replace(/^(['"`])(.*)\1$/s, '$2');
}

/** One client command and its argument. */
function mysqlCommand(cmd: string, arg: string, env: Env, c: Ctx, name: string, delimiters: string[]): void {
  const col = c.col;
  switch (cmd) {
    case 'system':
      // With no command mysql prints its usage: nothing runs.
      if (arg) shellCode(arg, env, c);
      return;
    case 'pager':
      // `pager` alone is the default pager (--pager or $PAGER).
      if (arg) outputPipe(arg, env, c, name);
      return;
    case 'tee':
      if (arg) fileArg(mysqlFile(arg), env, c, 'write');
      return;
    case 'source': {
      const f = mysqlFile(arg);
      if (!f) return;
      fileArg(f, env, c, 'read');
      // A file of commands this same command wrote: judged as what it holds, like psql's \i.
      writtenCommands(f, env, c, (text, e) => mysqlText(text, e, c, name, delimiters));
      return;
    }
    case 'edit':
      col.evasive(`${name} edit starts an editor`);
      return;
    case 'connect': {
      // `connect [db [host]]`
      const host = arg.split(/\s+/).map(mysqlFile)[1];
      if (!host) return;
      col.op('network');
      col.host(hostOfTarget(host));
      return;
    }
    default:
  }
}

/**
 * SQL that names files: `LOAD DATA|XML [LOCAL] INFILE 'f'` reads one (LOCAL: the client reads it
 * here; otherwise the server, which may be this machine), `INTO OUTFILE|DUMPFILE 'f'` writes one
 * on the server, `LOAD_FILE('f')` reads one there. The server is taken to be local: the default
 * host is. MySQL takes only a string literal after INFILE and OUTFILE.
 */
function mysqlSql(sql: string, escapes: boolean, env: Env, c: Ctx, name: string): void {
  const toks = sqlTokens(sql, escapes);
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i];
    if (tok?.k !== 'w') continue;
    const w = tok.t.toLowerCase();
    const next = toks[i + 1];
    if (w === 'prepare') {
      // PREPARE s FROM 'text' | @var: the statement is text, read as SQL when it is a literal.
      const from = toks.findIndex((t, k) => k > i && t.k === 'w' && /^from$/i.test(t.t));
      const text = toks[from + 1];
      if (from > 0 && text?.k === 's' && (toks[from + 2] === undefined || toks[from + 2]?.t === ';')) mysqlSql(text.t, escapes, env, c, name);
      else c.col.evasive(`${name}: PREPARE of a statement built at run time`);
    } else if (w === 'soname') c.col.evasive(`${name}: SONAME loads a library of native code into the server`);
    else if (w === 'infile' || w === 'outfile' || w === 'dumpfile') {
      if (next?.k === 's') fileArg(next.t, env, c, w === 'infile' ? 'read' : 'write');
    } else if (w === 'load_file' && next?.k === 'p' && next.t === '(') {
      const f = toks[i + 2];
      if (f?.k === 's' && toks[i + 3]?.t === ')') fileArg(f.t, env, c, 'read');
      else c.col.evasive(`${name}: LOAD_FILE() on a file named at run time`);
    }
  }
}

// ---- mongosh / mongo ----------------------------------------------------------------------------

/** mongosh's short options that take a value, and long ones (as in server-clients.ts). */
export const MONGO_VALUE = 'upf';
export const MONGO_LONG_VALUE = [
  '--host', '--port', '--username', '--password', '--eval', '--file', '--authenticationDatabase', '--authenticationMechanism',
  '--awsIamSessionToken', '--gssapiServiceName', '--sspiRealmOverride', '--sspiHostnameCanonicalization', '--tlsCertificateKeyFile',
  '--tlsCertificateKeyFilePassword', '--tlsCAFile', '--tlsCertificateSelector', '--tlsCRLFile', '--tlsDisabledProtocols', '--apiVersion',
  '--awsAccessKeyId', '--awsSecretAccessKey', '--awsSessionToken', '--keyVaultNamespace', '--kmsURL', '--csfleLibraryPath',
  '--cryptSharedLibPath', '--oidcFlows', '--oidcRedirectUri', '--browser', '--sslPEMKeyFile', '--sslPEMKeyPassword', '--sslCAFile',
  '--sslCRLFile',
];

/** A first positional that is a script, not the address (mongosh's arg-parser). */
const MONGO_SCRIPT = /\.(js|mjs|cjs|mongodb)$/i;

/**
 * mongosh [options] [address] [files…]: `--eval` code and script files (`-f`, `--file`, every
 * positional after the address, the first too when it ends in .js) are JavaScript Gatehouse does
 * not analyse: unsure, with the paths and URLs the code visibly names (interpreters.ts). With
 * neither, the code comes from standard input. Returns the arguments left to judge as paths.
 */
export function mongoshCommands(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): EW[] {
  const col = c.col;
  const p = parseArgs(args, MONGO_VALUE, MONGO_LONG_VALUE);
  const code = optVals(p, '--eval');
  for (const e of code) {
    if (e.known) inlineCode(e.t, name, env, c);
    else col.evasive(`inline ${name} code built at run time`);
  }
  const [first, ...others] = p.pos;
  const files = [...optVals(p, '-f', '--file'), ...(first?.known && MONGO_SCRIPT.test(first.t) ? [first] : []), ...others];
  for (const f of files) {
    if (!f.known) col.evasive(`${name} runs a script named at run time`);
    else {
      pathOf(f, env, c, 'read');
      col.evasive(`${name} runs a script file`);
    }
  }
  if (!code.length && !files.length) stdinCommands(feed, env, c, name, (text, e) => inlineCode(text, name, e, c));
  const judged = new Set<EW>([...code, ...files]);
  return args.filter((a) => !judged.has(a) && !(a.known && /^(--eval|--file)(=|$)|^-f/.test(a.t)));
}
