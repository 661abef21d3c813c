// The program table: every family's handlers by program name, and the links they follow.
// Families not yet in a file of their own (programs/<family>.ts) are still here.
import { parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { nested } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Handler, MAX_DEPTH } from '../shell/types.js';
import { lookup } from '../shell/words.js';
import { ARCHIVE_PROGRAMS } from './archive.js';
import { BUILD_PROGRAMS } from './build.js';
import { CREDENTIAL_PROGRAMS } from './credentials.js';
import { EDITOR_PROGRAMS } from './editors.js';
import { FILE_PROGRAMS } from './files.js';
import { INTERPRETER_PROGRAMS } from './interpreters.js';
import { NETWORK_PROGRAMS } from './network.js';
import { PACKAGE_PROGRAMS } from './packages.js';
import { SERVER_CLIENT_PROGRAMS } from './server-clients.js';
import { SERVICE_PROGRAMS } from './services.js';
import { TEXT_PROGRAMS } from './text.js';
import { VCS_PROGRAMS } from './vcs.js';
import { WRAPPER_PROGRAMS } from './wrappers.js';

function cd(args: EW[], env: Env, c: Ctx): void {
  const p = parseArgs(args);
  const d = p.pos[0];
  const old = env.cwd;
  if (!d) env.cwd = c.home;
  else if (d.known && d.t === '-') {
    // `cd -` goes to $OLDPWD, which the command may have set itself.
    const back = lookup('OLDPWD', env, c);
    if (back === undefined) {
      c.col.evasive('cd - to a folder the judge does not know');
      return;
    }
    env.cwd = c.col.shellPath(back, false, env.cwd) ?? env.cwd;
  } else if (!d.known) {
    // Relative paths after it are relative to a folder chosen at run time.
    c.col.evasive(d.subst ? 'cd to a folder computed by command substitution' : 'cd to a folder the judge cannot evaluate');
    return;
  } else env.cwd = c.col.shellPath(d.t, d.tilde, env.cwd) ?? env.cwd;
  env.vars.set('OLDPWD', old);
}

function source(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const f = args[0];
  if (!f) return;
  if (!f.known) {
    c.col.evasive(f.subst ? 'source of a computed or downloaded file' : 'source of a file named by a variable');
    return;
  }
  if (f.t === '/dev/stdin' || f.t.startsWith('/dev/fd/') || f.t.startsWith('/proc/self/fd/')) c.col.evasive('source of standard input');
  pathOf(f, env, c, 'read');
}

function evalCmd(args: EW[], env: Env, c: Ctx): void {
  c.col.evasive('eval');
  if (args.length && args.every((a) => a.known) && env.depth < MAX_DEPTH) nested(args.map((a) => a.t).join(' '), env, c);
}

function aliasCmd(args: EW[], env: Env, c: Ctx): void {
  for (const a of args) {
    if (!a.known) {
      c.col.evasive('an alias built from a computed string');
      continue;
    }
    const eq = a.t.indexOf('=');
    if (eq <= 0) continue;
    (env.aliases ??= new Map()).set(a.t.slice(0, eq), a.t.slice(eq + 1));
  }
}

function unaliasCmd(args: EW[], env: Env): void {
  for (const a of args) {
    if (a.t === '-a') env.aliases?.clear();
    else env.aliases?.delete(a.t);
  }
}

/** `trap 'CODE' SIGNAL…`: CODE is shell code run later in the same shell. */
function trap(args: EW[], env: Env, c: Ctx): void {
  const code = args.find((a) => !a.t.startsWith('-'));
  if (!code || args.length < 2) return;
  if (!code.known) c.col.evasive('trap runs a computed string');
  else if (env.depth < MAX_DEPTH) nested(code.t, env, c);
}

/** Builtins and programs that take no file arguments: their words are text, not paths. */
const NO_FILES: Handler = () => {};

const NO_FILE_PROGRAMS = [
  'echo', 'printf', 'true', 'false', 'test', '[', '[[', 'pwd', 'date', 'whoami', 'id', 'uname', 'sleep', 'seq', 'yes',
  'basename', 'dirname', 'expr', 'export', 'local', 'declare', 'typeset', 'readonly', 'unset', 'set', 'shopt', 'exit',
  'return', 'break', 'continue', 'wait', 'jobs', 'kill', 'type', 'which', 'hash', 'ulimit', 'umask', 'getopts',
  'read', 'printenv', 'let', 'shift', 'clear', 'tput', 'nproc', 'arch', 'tty', 'logname', 'groups', 'users', 'uptime',
  'free', 'ps', 'pgrep', 'whereis', ':', 'bg', 'fg', 'disown', 'times', 'caller', 'help', 'dirs', 'popd', 'df', 'lsblk', 'findmnt',
];

/** Any word is the long option (or `--opt=…`), or a short-option bundle holding one of `shorts`. */
function anyFlag(args: EW[], shorts: string, longs: string[]): boolean {
  return args.some((a) => longs.some((l) => a.t === l || a.t.startsWith(`${l}=`)) || (shorts !== '' && /^-[^-]/.test(a.t) && [...shorts].some((s) => a.t.includes(s))));
}

/**
 * Walks that follow symbolic links, and the options that make them: while such a command records
 * the folders it walks, the links inside that lead out count as walked too (Collector.followLinks).
 * A bundle that merely contains the letter inside a value (`grep -eR`) only costs a listing.
 */
const FOLLOWS: Record<string, (args: EW[]) => boolean> = {
  grep: (a) => anyFlag(a, 'R', ['--dereference-recursive']),
  egrep: (a) => anyFlag(a, 'R', ['--dereference-recursive']),
  fgrep: (a) => anyFlag(a, 'R', ['--dereference-recursive']),
  zgrep: (a) => anyFlag(a, 'R', ['--dereference-recursive']),
  rg: (a) => anyFlag(a, 'L', ['--follow']),
  ag: (a) => anyFlag(a, 'f', ['--follow']),
  ack: (a) => anyFlag(a, '', ['--follow']),
  find: (a) => a.some((w) => w.t === '-L' || w.t === '-follow'),
  fd: (a) => anyFlag(a, 'L', ['--follow']),
  fdfind: (a) => anyFlag(a, 'L', ['--follow']),
  cp: (a) => anyFlag(a, 'L', ['--dereference']),
  tar: (a) => anyFlag(a, 'h', ['--dereference']) || (a[0] !== undefined && !a[0].t.startsWith('-') && /^[a-zA-Z]*h/.test(a[0].t)),
  rsync: (a) => anyFlag(a, 'Lk', ['--copy-links', '--copy-dirlinks', '--copy-unsafe-links']),
  zip: (a) => !anyFlag(a, 'y', ['--symlinks']),
  du: (a) => anyFlag(a, 'L', ['--dereference']),
  ls: (a) => anyFlag(a, 'L', ['--dereference']),
  tree: (a) => anyFlag(a, 'l', []),
};

/** Shell builtins that change the shell itself, and programs whose words are text, not paths. */
export const BUILTIN_PROGRAMS: Record<string, Handler> = {
  ...Object.fromEntries(NO_FILE_PROGRAMS.map((n) => [n, NO_FILES])),
  cd, pushd: cd, source, '.': source, eval: evalCmd, alias: aliasCmd, unalias: unaliasCmd, trap,
  fc: (_a, _e, c) => c.col.evasive('fc runs earlier commands or an editor'),
  enable: (args, _e, c) => { if (args.some((a) => a.t.startsWith('-f'))) c.col.evasive('enable -f loads a builtin from a library'); },
};

/**
 * Wraps each handler FOLLOWS names so that, while the options make it follow links, the walks it
 * records follow them too. Fails at load when FOLLOWS names a program no family handles.
 */
export function withFollowedLinks(handlers: Record<string, Handler>): void {
  for (const [name, follows] of Object.entries(FOLLOWS)) {
    const inner = handlers[name];
    if (!inner) throw new Error(`FOLLOWS names ${name}, which has no handler`);
    handlers[name] = (args, env, c, feed, n) => {
      if (!follows(args)) return inner(args, env, c, feed, n);
      const before = c.col.followLinks;
      c.col.followLinks = true;
      try {
        return inner(args, env, c, feed, n);
      } finally {
        c.col.followLinks = before;
      }
    };
  }
}

/** Each family's table, by family name (the test checks that no program is in two). */
export const FAMILIES: Readonly<Record<string, Readonly<Record<string, Handler>>>> = {
  builtins: BUILTIN_PROGRAMS,
  files: FILE_PROGRAMS,
  text: TEXT_PROGRAMS,
  archive: ARCHIVE_PROGRAMS,
  network: NETWORK_PROGRAMS,
  'server-clients': SERVER_CLIENT_PROGRAMS,
  vcs: VCS_PROGRAMS,
  packages: PACKAGE_PROGRAMS,
  build: BUILD_PROGRAMS,
  interpreters: INTERPRETER_PROGRAMS,
  wrappers: WRAPPER_PROGRAMS,
  services: SERVICE_PROGRAMS,
  credentials: CREDENTIAL_PROGRAMS,
  editors: EDITOR_PROGRAMS,
};

/**
 * Program name → handler, for run(). A name two families claim would be judged by whichever came
 * last, silently: the registry refuses to load instead.
 */
export const PROGRAMS: Readonly<Record<string, Handler>> = joinFamilies(FAMILIES);

export function joinFamilies(families: Readonly<Record<string, Readonly<Record<string, Handler>>>>): Record<string, Handler> {
  const out: Record<string, Handler> = {};
  const claimedBy = new Map<string, string>();
  for (const [family, table] of Object.entries(families)) {
    for (const [name, handler] of Object.entries(table)) {
      const first = claimedBy.get(name);
      if (first !== undefined) throw new Error(`programs/${family}.ts and programs/${first}.ts both handle ${name}: keep it in one family`);
      claimedBy.set(name, family);
      out[name] = handler;
    }
  }
  withFollowedLinks(out);
  return out;
}
