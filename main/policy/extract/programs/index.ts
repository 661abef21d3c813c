// The program table: every family's handlers by program name, and the links they follow.
// Families not yet in a file of their own (programs/<family>.ts) are still here.
import { expandHome } from '../paths.js';
import { commandName } from '../shell/command-name.js';
import { codeVarReason } from '../shell/env-vars.js';
import { has, optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { DEVICE_SINKS } from '../shell/redirects.js';
import { nested, run, runRest } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, literalEW, MAX_DEPTH } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { evalWord, expandWords, lookup } from '../shell/words.js';
import { ARCHIVE_PROGRAMS } from './archive.js';
import { BUILD_PROGRAMS } from './build.js';
import { FILE_PROGRAMS } from './files.js';
import { generic } from './generic.js';
import { INTERPRETER_PROGRAMS, pipeReason } from './interpreters.js';
import { NETWORK_PROGRAMS } from './network.js';
import { PACKAGE_PROGRAMS } from './packages.js';
import { kubeServer, SERVER_CLIENT_PROGRAMS } from './server-clients.js';
import { TEXT_PROGRAMS } from './text.js';
import { VCS_PROGRAMS } from './vcs.js';

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

/** Runs the rest of the words as a command (`sudo rm …`, `xargs rm`, `timeout 5 curl …`). */
function wrapper(v: string, lv: string[] = [], skipPos = 0, stopAtAssign = false): Handler {
  return (args, env, c, feed) => {
    let i = 0;
    let skip = skipPos;
    for (; i < args.length; i++) {
      const t = (args[i] as EW).t;
      if (t === '--') { i++; break; }
      if (t.startsWith('-') && t.length > 1) {
        const last = t[t.length - 1] as string;
        if (!t.startsWith('--') && v.includes(last)) i++;
        else if (lv.includes(t)) i++;
        continue;
      }
      if (stopAtAssign && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) continue;
      if (skip > 0) { skip--; continue; }
      break;
    }
    const rest = args.slice(i);
    if (rest.length) run(rest, env, c, feed);
  };
}

/** Programs that only read the files they are given: `xargs CMD` with one of them needs no operator. */
const XARGS_READ = new Set([
  'cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ls', 'stat', 'file', 'md5sum', 'sha1sum', 'sha256sum',
  'sha512sum', 'cksum', 'b2sum', 'echo', 'printf', 'basename', 'dirname', 'realpath', 'readlink', 'du', 'diff', 'cmp',
  'nl', 'less', 'more', 'strings', 'od', 'hexdump', 'file', 'true', 'test', '[',
]);

/** Upstream programs whose output is names inside trees they were judged to walk. */
const NAME_LISTERS = new Set(['find', 'fd', 'fdfind', 'ls', 'git', 'rg', 'grep', 'ag', 'ack', 'tree']);

/**
 * xargs runs its command on names read from its input. When that input is visible (`echo a b |
 * xargs cat`, `xargs cat <<< ~/.ssh/id_rsa`) the names are judged as arguments (each substituted
 * for the `-I` string); when they come from a walk already judged (`find … | xargs cat`) a reading
 * command is fine; any other input makes the call unsure.
 */
function xargs(args: EW[], env: Env, c: Ctx, feed: Feed): void {
  let i = 0;
  let fromFile = false;
  let replace: string | null = null;
  for (; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (t === '--') { i++; break; }
    if (!t.startsWith('-') || t.length < 2) break;
    if (t === '-a' || t === '--arg-file') {
      fromFile = true;
      const f = args[++i];
      if (f) pathOf(f, env, c, 'read');
      continue;
    }
    if (t.startsWith('--arg-file=')) {
      fromFile = true;
      pathOf(literalEW(t.slice(11)), env, c, 'read');
      continue;
    }
    if (t === '-I') { replace = args[++i]?.t ?? null; continue; }
    if (t.startsWith('-I')) { replace = t.slice(2); continue; }
    if (t === '-i' || t === '--replace') { replace = '{}'; continue; }
    if (t.startsWith('--replace=')) { replace = t.slice(10); continue; }
    if (t.startsWith('-i')) { replace = t.slice(2); continue; }
    if (t.startsWith('--')) {
      if (['--max-args', '--max-procs', '--delimiter', '--max-lines', '--max-chars', '--eof', '--process-slot-var'].includes(t)) i++;
      continue;
    }
    const last = t[t.length - 1] as string;
    if ('anLPsdE'.includes(last) && !/^-[el]/.test(t)) i++;
  }
  const cmd = args.slice(i);
  const words = cmd.length ? cmd : [literalEW('echo')];
  const name = commandName(words[0]?.t ?? '');
  const input = fromFile ? null : xargsInput(env, c, feed);
  const direct: Feed = { upstream: null, redirects: [] };
  if (input) {
    if (replace === null) run([...words, ...input], env, c, direct);
    else for (const item of input.slice(0, 64)) run(words.map((w) => (w.known && w.t.includes(replace as string) ? { ...w, t: w.t.split(replace as string).join(item.t), tilde: false } : w)), env, c, direct);
    return;
  }
  const up = feed.upstream?.[feed.upstream.length - 1];
  const lister = up?.kind === 'cmd' && NAME_LISTERS.has(commandName(up.words[0]?.text ?? ''));
  if (!(lister && XARGS_READ.has(name))) c.col.evasive(`xargs runs ${name || 'a command'} on names it reads from its input`);
  run(replace === null ? words : words.filter((w) => w.t !== replace), env, c, direct);
}

/** xargs's input when it is visible: `echo`/`printf` words piped in, a here-string, a literal here-document. */
function xargsInput(env: Env, c: Ctx, feed: Feed): EW[] | null {
  const items = (text: string): EW[] => text.split(/\s+/).filter(Boolean).map((t) => literalEW(t));
  for (const r of feed.redirects) {
    if (r.op === '<<<' && r.target) {
      const w = evalWord(r.target, env, c);
      if (!w.known) return null;
      return items(w.tilde ? expandHome(w.t, c.home) : w.t);
    }
    if ((r.op === '<<' || r.op === '<<-') && r.bodyLiteral && r.body !== undefined) return items(r.body);
  }
  const up = feed.upstream?.[feed.upstream.length - 1];
  if (!up || up.kind !== 'cmd' || up.redirects.length) return null;
  const ws = expandWords(up.words, env, c);
  const n0 = commandName(ws[0]?.t ?? '');
  if ((n0 !== 'echo' && n0 !== 'printf') || !ws.slice(1).every((w) => w.known && !w.t.includes('%') && !w.t.includes('\\'))) return null;
  const out: EW[] = [];
  for (const w of ws.slice(1)) {
    if (n0 === 'echo' && /^-[neE]+$/.test(w.t)) continue;
    out.push(...items(w.tilde ? expandHome(w.t, c.home) : w.t));
  }
  return out;
}

/** `env [-i] [-u NAME] [-C DIR] [NAME=VALUE]… [-S 'CMD ARGS'] CMD…`: judged as the command it runs. */
function envCmd(args: EW[], env: Env, c: Ctx, feed: Feed): void {
  let cur = env;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (t === '--') return runRest(args.slice(i + 1), cur, c, feed);
    let split: EW | null | undefined = null;
    if (t === '-S' || t === '--split-string') split = args[++i];
    else if (t.startsWith('--split-string=')) split = { ...a, t: t.slice(15) };
    else if (/^-[iv0]*S./.test(t)) split = { ...a, t: t.slice(t.indexOf('S') + 1) };
    if (split !== null) {
      if (!split) return;
      if (!split.known || /['"\\$]/.test(split.t)) c.col.evasive('env -S splits a string into a command');
      const words = split.known ? split.t.split(/[ \t\n]+/).filter(Boolean).map(literalEW) : [];
      return envCmd([...words, ...args.slice(i + 1)], cur, c, feed);
    }
    if (t === '-u' || t === '--unset') { i++; continue; }
    if (t === '-C' || t === '--chdir') {
      const d = args[++i];
      if (d?.known) cur = { ...cur, cwd: c.col.shellPath(d.t, d.tilde, cur.cwd) ?? cur.cwd };
      continue;
    }
    if (t.startsWith('-') && t.length > 1) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
      // `env NODE_OPTIONS=… npm test` sets it as surely as `NODE_OPTIONS=… npm test`.
      const why = codeVarReason(t.slice(0, t.indexOf('=')));
      if (why) c.col.evasive(why);
      continue;
    }
    return runRest(args.slice(i), cur, c, feed);
  }
}

/** su/runuser/sg: `-c CMD` is shell code; `runuser -u USER CMD…` runs CMD. */
function suLike(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): void {
  let code = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    let v: EW | undefined;
    if (t === '-c' || t === '--command' || t === '--session-command') v = args[++i];
    else if (t.startsWith('--command=') || t.startsWith('--session-command=')) v = { ...a, t: t.slice(t.indexOf('=') + 1) };
    else if (/^-[a-z]*c$/.test(t) && t !== '-c') v = args[++i];
    else if ((t === '-u' || t === '--user') && name === 'runuser') {
      let j = i + 2;
      if (args[j]?.t === '--') j++;
      return runRest(args.slice(j), env, c, feed);
    } else if (t === '-s' || t === '--shell' || t === '-g' || t === '--group' || t === '-G' || t === '--supp-group' || t === '-w') i++;
    if (v === undefined) continue;
    code = true;
    if (!v.known) c.col.evasive(`${name} -c on a computed string`);
    else if (env.depth >= MAX_DEPTH) c.col.evasive('shell nesting too deep to analyse');
    else nested(v.t, env, c);
  }
  if (!code && name === 'sg') {
    const rest = args.filter((a) => !a.t.startsWith('-')).slice(1);
    if (rest[0]?.known) nested(rest.map((a) => a.t).join(' '), env, c);
  }
}

/** `script [-q] [-c CMD] [FILE]`: CMD is shell code, FILE the transcript written. */
function scriptCmd(args: EW[], env: Env, c: Ctx): void {
  const p = parseArgs(args, 'cTIOBEmo', ['--command', '--log-timing', '--log-in', '--log-out', '--log-io', '--echo', '--logging-format', '--output-limit']);
  for (const v of optVals(p, '-c', '--command')) {
    if (!v.known) c.col.evasive('script -c on a computed string');
    else if (env.depth >= MAX_DEPTH) c.col.evasive('shell nesting too deep to analyse');
    else nested(v.t, env, c);
  }
  for (const v of optVals(p, '-T', '--log-timing', '-I', '--log-in', '-O', '--log-out', '-B', '--log-io')) pathOf(v, env, c, 'write');
  for (const f of p.pos) if (!(f.known && DEVICE_SINKS.has(f.t))) pathOf(f, env, c, 'write');
}

/** parallel CMD ::: ARGS — the command runs on the listed arguments, or on names from its input. */
function parallel(args: EW[], env: Env, c: Ctx): void {
  const sep = args.findIndex((a) => a.t === ':::' || a.t === '::::' || a.t === ':::+');
  const cmd = (sep < 0 ? args : args.slice(0, sep)).filter((a) => !a.t.startsWith('-'));
  if (sep < 0 || args[sep]?.t !== ':::') c.col.evasive('parallel runs commands on names it reads from its input or a file');
  if (cmd.length) run([...cmd, ...(sep < 0 ? [] : args.slice(sep + 1).filter((a) => !a.t.startsWith(':::')))], env, c, { upstream: null, redirects: [] });
  else if (sep >= 0) {
    // No command: each argument is a shell command of its own.
    c.col.evasive('parallel runs each argument as a shell command');
    for (const a of args.slice(sep + 1, sep + 65)) if (a.known && !a.t.startsWith(':::') && env.depth < MAX_DEPTH) nested(a.t, env, c);
  }
}

/** watch runs its arguments through `sh -c` again and again (unless `-x`). */
function watch(args: EW[], env: Env, c: Ctx, feed: Feed): void {
  const p = parseArgs(args, 'nd', ['--interval', '--differences']);
  if (!p.pos.length) return;
  if (has(p, '-x', '--exec')) return run(p.pos, env, c, feed);
  c.col.evasive('watch runs its command through sh -c, over and over');
  if (p.pos.every((a) => a.known) && env.depth < MAX_DEPTH) nested(p.pos.map((a) => a.t).join(' '), env, c);
}

/** sudo, doas, su, runuser, pkexec: a command run as another user (root) always needs an operator. */
function asUser(inner: Handler): Handler {
  return (args, env, c, feed, name) => {
    c.col.evasive(`${name} runs a command as another user`);
    inner(args, env, c, feed, name);
  };
}

/** at/batch run shell code later: a literal here-document or here-string is analysed; other input is unsure. */
function atCmd(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): void {
  if (args.some((a) => /^-[lrdc]$/.test(a.t)) || name === 'atq' || name === 'atrm') return;
  const f = args.findIndex((a) => a.t === '-f');
  if (f >= 0) {
    const file = args[f + 1];
    if (file) pathOf(file, env, c, 'read');
    return;
  }
  const here = feed.redirects.find((r) => r.op === '<<' || r.op === '<<-' || r.op === '<<<');
  if (here && here.bodyLiteral && here.body !== undefined && env.depth < MAX_DEPTH) nested(here.body, env, c);
  else if (feed.upstream) c.col.evasive(pipeReason(feed.upstream, env, c));
  else c.col.evasive(`${name} runs shell code from its input later`);
}

/** crontab installs commands that run later, out of Gatehouse's sight. */
function crontab(args: EW[], env: Env, c: Ctx): void {
  if (args.some((a) => a.t === '-l')) return;
  c.col.op('write');
  c.col.evasive('crontab installs commands that run later');
  for (const a of args) if (a.known && !a.t.startsWith('-')) pathOf(a, env, c, 'read');
}

/** systemctl/launchctl/service: starting or enabling a unit runs what the unit file says, out of sight. */
function serviceCtl(args: EW[], env: Env, c: Ctx, _feed: Feed, name: string): void {
  const sub = args.find((a) => !a.t.startsWith('-'))?.t ?? '';
  if (/^(start|restart|reload|enable|reenable|edit|link|set-environment|import-environment|load|bootstrap|kickstart|submit|try-restart|reload-or-restart|daemon-reload|preset)$/.test(sub) || name === 'service') {
    c.col.op('execute');
    c.col.evasive(`${name} ${sub} runs a service Gatehouse does not see`);
  }
  unknownProgram(args, env, c);
}

/** ssh-keygen: `-f FILE` is read (`-y`, `-l`) and may be written (`-p`, a new key). */
function sshKeygen(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const p = parseArgs(args, 'abCEfImMNnOPrstVwzZDFRYGKTJjLSuW', []);
  for (const o of p.opts) {
    if (!o.value) continue;
    if (o.name === '-f') {
      pathOf(o.value, env, c, 'read');
      c.col.op('write');
    } else if (o.name === '-s') pathOf(o.value, env, c, 'read');
    else if (o.name === '-D' || o.name === '-w') {
      c.col.op('execute');
      c.col.evasive('ssh-keygen loads a provider library');
    }
  }
  if (!has(p, '-f') && !has(p, '-F', '-R', '-H')) c.col.recursivePath('~/.ssh', env.cwd);
  for (const a of p.pos) pathOf(a, env, c, 'read');
}

/** gpg exporting secret keys reads the whole key store (`--homedir`, default ~/.gnupg). */
function gpg(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const home = args.findIndex((a) => a.t === '--homedir');
  const dir = home >= 0 ? args[home + 1] : undefined;
  if (args.some((a) => /^--(export|export-secret-keys|export-secret-subkeys|list-secret-keys|decrypt|sign|clearsign|detach-sign)$|^-[a-zA-Z]*[dsK]$/.test(a.t))) {
    if (dir) pathOf(dir, env, c, 'read', true);
    else c.col.recursivePath('~/.gnupg', env.cwd);
  }
  unknownProgram(args, env, c);
}

/** Programs that read a protected store without naming it (`aws configure get`, `pass show`). */
const IMPLICIT: Record<string, (args: EW[]) => string | null> = {
  aws: (a) => ((a[0]?.t === 'configure' && /^(get|list|export-credentials)$/.test(a[1]?.t ?? '')) || a[0]?.t === 'sts' || (a[0]?.t === 'ecr' && a[1]?.t === 'get-login-password') ? '~/.aws' : null),
  az: (a) => (a[0]?.t === 'account' && /^get-access-token$/.test(a[1]?.t ?? '') ? '~/.azure' : null),
  gh: (a) => (a[0]?.t === 'auth' && (a[1]?.t === 'token' || a.some((w) => w.t === '--show-token' || w.t === '-t')) ? '~/.config/gh' : null),
  gcloud: (a) => (a.some((w) => /^print-(access|identity)-token$|^config-helper$/.test(w.t)) ? '~/.config/gcloud' : null),
  kubectl: (a) => (a[0]?.t === 'config' && a[1]?.t === 'view' && a.some((w) => w.t === '--raw' || w.t === '--flatten') ? '~/.kube' : null),
  pass: (a) => (a[0]?.t !== 'init' && a[0]?.t !== 'version' && a[0]?.t !== 'help' ? '~/.password-store' : null),
  gopass: () => '~/.password-store',
  'secret-tool': (a) => (/^(lookup|search)$/.test(a[0]?.t ?? '') ? '~/.local/share/keyrings' : null),
};

function implicitRead(name: string): Handler {
  return (args, env, c) => {
    const tree = IMPLICIT[name]?.(args.filter((a) => !a.t.startsWith('-') || a.t === '--raw' || a.t === '--flatten' || a.t === '--show-token' || a.t === '-t'));
    if (tree) {
      c.col.op('read');
      c.col.recursivePath(tree, env.cwd);
      // A token printed is a credential handed out, whether or not a rule protects where it lives.
      c.col.evasive(`${name} hands out a stored credential`);
    }
    unknownProgram(args, env, c);
  };
}

/** vi/vim/nvim/emacs: write what they open; `-c`, `+CMD`, `--cmd`, `-S`, `--eval` run editor commands. */
function editor(args: EW[], env: Env, c: Ctx, _feed: Feed, name: string): void {
  const col = c.col;
  col.op('write');
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (t.startsWith('+') && !/^\+\d*$/.test(t)) {
      col.op('execute');
      col.evasive(`${name} runs editor commands given on its command line`);
    } else if (['-c', '--cmd', '--eval', '-eval', '--execute', '-x', '-batch', '--batch', '-l', '--load', '-f', '--funcall', '--script'].includes(t) || /^--(eval|load|script)=/.test(t)) {
      col.op('execute');
      col.evasive(`${name} runs editor commands given on its command line`);
      if (!t.includes('=') && t !== '-batch' && t !== '--batch') i++;
    } else if (t === '-S' || t === '-u' || t === '-s' || t === '-i' || t === '-U') {
      col.op('execute');
      col.evasive(`${name} runs an editor script from a file`);
      const f = args[++i];
      if (f && f.t !== 'NONE' && f.t !== 'NORC') pathOf(f, env, c, 'read');
    } else if (t === '-W' || t === '-w' || t === '-V') {
      const f = args[++i];
      if (f && t !== '-V') pathOf(f, env, c, 'write');
    } else if (!t.startsWith('-') || !a.known) pathOf(a, env, c, 'write');
  }
}

/** man: `-P`/`--pager` and `-H`/`--html` run a program of the caller's choosing; `-l` reads files. */
function man(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (t === '-P' || t === '--pager' || t.startsWith('--pager=') || (t.startsWith('-P') && t.length > 2) || t.startsWith('-H') || t.startsWith('--html') || t === '-X' || t.startsWith('--gxditview')) {
      c.col.op('execute');
      c.col.evasive(`man ${t.split('=')[0] ?? ''} runs a program of the caller's choosing`);
      if (t === '-P' || t === '--pager') i++;
    }
  }
  if (args.some((a) => a.t === '-l' || a.t === '--local-file')) for (const a of args) if (!a.t.startsWith('-')) pathOf(a, env, c, 'read');
}

/** gdb: `-ex`/`-x` run debugger commands, which include `shell`. */
function gdb(args: EW[], env: Env, c: Ctx): void {
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (['-ex', '--ex', '-eval-command', '--eval-command', '-x', '--command', '-iex', '-ix'].includes(t) || /^--?(eval-command|command)=/.test(t)) {
      c.col.evasive('gdb runs debugger commands given on its command line');
      if (!t.includes('=')) i++;
    }
  }
  unknownProgram(args, env, c);
}

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

/** Programs that run another command: judged as that command (as another user: always asked). */
export const WRAPPER_PROGRAMS: Record<string, Handler> = {
  xargs, parallel, watch,
  su: asUser(suLike), runuser: asUser(suLike), sg: suLike, script: scriptCmd,
  sudo: asUser(wrapper('ugCDhprTU', ['--user', '--group', '--chdir'])), doas: asUser(wrapper('uC')), pkexec: asUser(wrapper('', ['--user'])), env: envCmd,
  nice: wrapper('n', ['--adjustment']), nohup: wrapper(''), time: wrapper('fo'), timeout: wrapper('sk', ['--signal', '--kill-after'], 1),
  stdbuf: wrapper('ioe'), ionice: wrapper('cnp'), command: (args, env, c, feed, name) => {
    // `command -v NAME` and `-V` only say what NAME is; nothing runs.
    if (!/^-p?[vV]/.test(args[0]?.t ?? '')) wrapper('')(args, env, c, feed, name);
  }, builtin: wrapper(''), exec: wrapper('a'), unbuffer: wrapper(''),
  // Wrappers that run the rest of their words as a command (after their own options and values).
  chrt: wrapper('TPD', ['--sched-runtime', '--sched-period', '--sched-deadline'], 1), taskset: wrapper('', [], 1),
  setpriv: wrapper('', ['--reuid', '--regid', '--ruid', '--rgid', '--euid', '--egid', '--groups', '--inh-caps', '--ambient-caps', '--bounding-set', '--securebits', '--pdeathsig', '--selinux-label', '--apparmor-profile', '--landlock-access', '--landlock-rule', '--ptracer', '--rlimit']),
  unshare: wrapper('SGRw', ['--setuid', '--setgid', '--root', '--wd', '--map-user', '--map-group', '--map-users', '--map-groups', '--propagation', '--setgroups']),
  nsenter: wrapper('tSG', ['--target', '--setuid', '--setgid']), firejail: wrapper(''),
  'systemd-run': wrapper('puEMHs', ['--property', '--unit', '--setenv', '--uid', '--gid', '--machine', '--host', '--description', '--slice', '--working-directory', '--nice', '--on-active', '--on-boot', '--on-startup', '--on-unit-active', '--on-unit-inactive', '--on-calendar', '--timer-property', '--path-property', '--socket-property', '--service-type']),
  prlimit: wrapper('p', ['--pid']), proxychains: wrapper('fq'), proxychains4: wrapper('fq'), torsocks: wrapper('uapP'), tsocks: wrapper(''),
  faketime: wrapper('f', [], 1), fakeroot: wrapper('lsi'), eatmydata: wrapper(''), ltrace: wrapper('oesnaApu'), valgrind: wrapper(''),
  'ssh-agent': wrapper('aEPt'), 'dbus-run-session': wrapper(''), 'xvfb-run': wrapper('nsfwe', ['--server-num', '--server-args', '--auth-file', '--error-file']), catchsegv: wrapper(''), chpst: wrapper('ugUl/nLm'),
  chroot: wrapper('', [], 1), flock: wrapper('wEn', [], 1), setsid: wrapper(''), strace: wrapper('oesp'), busybox: wrapper(''), caffeinate: wrapper('t'),
};

/** Services and schedulers: what they start runs later or elsewhere, out of Gatehouse's sight. */
export const SERVICE_PROGRAMS: Record<string, Handler> = {
  systemctl: serviceCtl, launchctl: serviceCtl, service: serviceCtl,
  at: atCmd, batch: atCmd, crontab,
};

/** Key and credential tools: they read a protected store, often without naming it. */
export const CREDENTIAL_PROGRAMS: Record<string, Handler> = {
  'ssh-keygen': sshKeygen, gpg, gpg2: gpg,
  aws: implicitRead('aws'), az: implicitRead('az'), gh: implicitRead('gh'), gcloud: implicitRead('gcloud'), kubectl: (args, env, c, feed, name) => { implicitRead('kubectl')(args, env, c, feed, name); kubeServer(args, env, c, feed, name); },
  pass: implicitRead('pass'), gopass: implicitRead('gopass'),
  'secret-tool': implicitRead('secret-tool'),
};

/** Editors, the manual reader and the debugger: they run commands in a language of their own. */
export const EDITOR_PROGRAMS: Record<string, Handler> = {
  vi: editor, vim: editor, nvim: editor, view: editor, ex: editor, gvim: editor, emacs: editor, nano: generic({ ops: ['write'] }), code: generic({ ops: ['write'] }),
  man, gdb,
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
