// Shell builtins (cd, source, eval, alias, trap) and programs whose words are text, not paths.
import { declaration, getoptsVars, letVars, mapfileVars, printfVar, readVars, setBuiltin, shiftBuiltin, unsetVars } from '../shell/assign.js';
import { globOption } from '../shell/glob-options.js';
import { optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { nested } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Handler, MAX_DEPTH } from '../shell/types.js';
import { lookup } from '../shell/words.js';

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

/**
 * `pushd DIR` changes folder like cd; `pushd -n DIR` does not; `pushd` alone, `pushd +N`/`-N` and
 * `popd` go to a folder of the stack, which the judge does not keep: what follows is unsure.
 */
function pushd(args: EW[], env: Env, c: Ctx): void {
  const flags = args.filter((a) => a.known && /^-[a-z]+$/.test(a.t)).map((a) => a.t).join('');
  const dirs = args.filter((a) => !(a.known && /^-[a-z]+$/.test(a.t)));
  if (flags.includes('n')) return;
  const d = dirs[0];
  if (!d || (d.known && /^[+-]\d+$/.test(d.t))) c.col.evasive('pushd to a folder of the stack, which the judge does not follow');
  else cd([d], env, c);
}

function popd(args: EW[], _env: Env, c: Ctx): void {
  if (args.some((a) => a.known && /^-[a-z]*n/.test(a.t))) return;
  c.col.evasive('popd returns to a folder of the stack, which the judge does not follow');
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
  else {
    // It runs later (at exit, on a signal), with the variables and functions of that moment:
    // `x=/tmp; trap 'cat $x/id_rsa' EXIT; x=~/.ssh` reads the key. Judged now, and unsure when
    // it reads a variable or calls a function.
    if (/\$/.test(code.t) || [...(env.functions?.keys() ?? [])].some((f) => new RegExp(`(^|[\\s;&|(])${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[\\s;&|)])`).test(code.t))) c.col.evasive('a trap runs later, with the values of that moment');
    if (env.depth < MAX_DEPTH) nested(code.t, env, c);
  }
}

/** Builtins and programs that take no file arguments: their words are text, not paths. */
const NO_FILES: Handler = () => {};

const NO_FILE_PROGRAMS = [
  'echo', 'true', 'false', 'test', '[', '[[', 'pwd', 'whoami', 'id', 'uname', 'sleep', 'seq', 'yes',
  'basename', 'dirname', 'expr', 'exit',
  'return', 'break', 'continue', 'wait', 'jobs', 'kill', 'type', 'which', 'ulimit', 'umask',
  'printenv', 'clear', 'tput', 'nproc', 'arch', 'tty', 'logname', 'groups', 'users', 'uptime',
  'free', 'pgrep', 'whereis', ':', 'bg', 'fg', 'disown', 'times', 'caller', 'help', 'dirs', 'df', 'lsblk', 'findmnt',
];

/** `shopt -s OPTION…`: the glob options among them are on for the rest of the call (a computed one may be any). */
function shopt(args: EW[], _env: Env, c: Ctx): void {
  let on = false;
  let setO = false;
  for (const a of args) {
    if (a.known && /^-[supqo]+$/.test(a.t)) {
      on = a.t.includes('s');
      setO ||= a.t.includes('o');
      continue;
    }
    if (on && !setO) globOption(a, c);
  }
}

/** `date [-f FILE] [-r FILE]`: `-f` reads dates from FILE (and prints the lines it cannot parse), `-r` its time. */
function date(args: EW[], env: Env, c: Ctx): void {
  const p = parseArgs(args, 'dfrIsR', ['--date', '--file', '--reference', '--set']);
  for (const f of optVals(p, '-f', '--file', '-r', '--reference')) if (!(f.known && f.t === '-')) pathOf(f, env, c, 'read');
}

/**
 * `ps` with BSD-style `e` (`ps eww`, `ps auxe`) prints each process's environment after its
 * command line: what /proc/PID/environ holds (tokens passed to programs). Plain `ps aux` does not.
 */
function ps(args: EW[], env: Env, c: Ctx): void {
  for (const a of args) {
    if (!a.known) {
      c.col.evasive('ps with options the judge cannot evaluate');
      return;
    }
    if (/^[A-Za-z]+$/.test(a.t) && a.t.includes('e')) {
      c.col.op('read');
      c.col.path('/proc/*/environ', env.cwd);
      return;
    }
  }
}

/**
 * `hash -p PATH NAME` (also `-pPATH`, `-dp PATH`): NAME runs PATH from then on, out of a reader's
 * sight; PATH is a program the call starts (Gatehouse's own CLI is denied by it).
 */
function hash(args: EW[], env: Env, c: Ctx): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    if (a.known && a.t === '--') break;
    if (!a.known || !a.t.startsWith('-')) continue;
    const at = a.t.indexOf('p');
    if (at < 0) continue;
    const path = at + 1 < a.t.length ? { ...a, t: a.t.slice(at + 1), tilde: a.t.charCodeAt(at + 1) === 126 } : args[++i];
    c.col.evasive('hash -p makes a command name run another program');
    if (path?.known) c.col.program(path.t, path.tilde, env.cwd);
  }
}

/** Shell builtins that change the shell itself, and programs whose words are text, not paths. */
export const BUILTIN_PROGRAMS: Record<string, Handler> = {
  ...Object.fromEntries(NO_FILE_PROGRAMS.map((n) => [n, NO_FILES])),
  cd, pushd, popd, source, '.': source, eval: evalCmd, alias: aliasCmd, unalias: unaliasCmd, trap,
  shopt, date, ps, hash,
  // Builtins that assign variables (shell/assign.ts).
  declare: (args, env, c, feed, name) => declaration(args, feed.declared, env, c, name),
  typeset: (args, env, c, feed, name) => declaration(args, feed.declared, env, c, name),
  local: (args, env, c, feed, name) => declaration(args, feed.declared, env, c, name),
  export: (args, env, c, feed, name) => declaration(args, feed.declared, env, c, name),
  readonly: (args, env, c, feed, name) => declaration(args, feed.declared, env, c, name),
  printf: (args, env, c) => printfVar(args, env, c),
  read: (args, env, c, feed) => readVars(args, env, c, feed),
  mapfile: (args, env, c) => mapfileVars(args, env, c),
  readarray: (args, env, c) => mapfileVars(args, env, c),
  getopts: (args, env, c) => getoptsVars(args, env, c),
  let: (args, env, c) => letVars(args, env, c),
  unset: (args, env, c) => unsetVars(args, env, c),
  set: (args, env, c) => setBuiltin(args, env, c),
  shift: (args, env, c) => shiftBuiltin(args, env, c),
  fc: (_a, _e, c) => c.col.evasive('fc runs earlier commands or an editor'),
  enable: (args, _e, c) => { if (args.some((a) => a.t.startsWith('-f'))) c.col.evasive('enable -f loads a builtin from a library'); },
};
