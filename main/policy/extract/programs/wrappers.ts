// Programs that run another command (sudo, env, timeout, xargs, …): judged as that command.
import { expandHome } from '../paths.js';
import { commandName } from '../shell/command-name.js';
import { judgeAssignment } from '../shell/env-vars.js';
import { has, optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { DEVICE_SINKS } from '../shell/redirects.js';
import { nested, run, runRest } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, literalEW, MAX_DEPTH } from '../shell/types.js';
import { evalWord, expandWords } from '../shell/words.js';

/** Options of a wrapper whose value is a file it writes (`time -o FILE`, `strace -o FILE`). */
interface Outputs {
  short?: string;
  long?: string[];
}

/** Runs the rest of the words as a command (`sudo rm …`, `xargs rm`, `timeout 5 curl …`). */
function wrapper(v: string, lv: string[] = [], skipPos = 0, stopAtAssign = false, outs: Outputs = {}): Handler {
  return (args, env, c, feed) => {
    let i = 0;
    let skip = skipPos;
    for (; i < args.length; i++) {
      const a = args[i] as EW;
      const t = a.t;
      if (t === '--') { i++; break; }
      if (t.startsWith('-') && t.length > 1) {
        if (t.startsWith('--')) {
          const eq = t.indexOf('=');
          const opt = eq > 0 ? t.slice(0, eq) : t;
          const val = eq > 0 ? { ...a, t: t.slice(eq + 1), tilde: t.charCodeAt(eq + 1) === 126 } : lv.includes(t) ? args[++i] : undefined;
          if (val && outs.long?.includes(opt)) output(val, env, c);
          continue;
        }
        // A short option with a value takes the rest of its word, or the next word.
        for (let j = 1; j < t.length; j++) {
          const ch = t.charAt(j);
          if (!v.includes(ch)) continue;
          const val = j + 1 < t.length ? { ...a, t: t.slice(j + 1), tilde: t.charCodeAt(j + 1) === 126 } : args[++i];
          if (val && outs.short?.includes(ch)) output(val, env, c);
          break;
        }
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

/** A wrapper's output file (`-o |CMD` pipes strace's and ltrace's trace to a shell command). */
function output(f: EW, env: Env, c: Ctx): void {
  if (f.known && /^[|!]/.test(f.t)) {
    c.col.op('execute');
    c.col.evasive('a trace written to a shell command');
    if (env.depth < MAX_DEPTH) nested(f.t.slice(1), env, c);
    return;
  }
  pathOf(f, env, c, 'write');
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
    const last = t.charAt(t.length - 1);
    if ('anLPsdE'.includes(last) && !/^-[el]/.test(t)) i++;
  }
  const cmd = args.slice(i);
  const words = cmd.length ? cmd : [literalEW('echo')];
  const name = commandName(words[0]?.t ?? '');
  const input = fromFile ? null : xargsInput(env, c, feed);
  const direct: Feed = { upstream: null, redirects: [] };
  if (input) {
    const r = replace;
    if (r === null) run([...words, ...input], env, c, direct);
    else for (const item of input.slice(0, 64)) run(words.map((w) => (w.known && w.t.includes(r) ? { ...w, t: w.t.split(r).join(item.t), tilde: false } : w)), env, c, direct);
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
    if (t === '-C' || t === '--chdir' || t.startsWith('--chdir=') || /^-[iv0]*C./.test(t)) {
      // `-C DIR`, `--chdir DIR`, `--chdir=DIR`, `-CDIR`: the command runs in DIR.
      const at = t.startsWith('--') ? t.indexOf('=') + 1 : t.indexOf('C') + 1;
      const d = at > 0 && at < t.length ? { ...a, t: t.slice(at), tilde: t.charCodeAt(at) === 126 } : args[++i];
      if (d?.known) cur = { ...cur, cwd: c.col.shellPath(d.t, d.tilde, cur.cwd) ?? cur.cwd };
      else if (d) c.col.evasive('env -C to a folder the judge cannot evaluate');
      continue;
    }
    if (t.startsWith('-') && t.length > 1) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
      // `env NODE_OPTIONS=… npm test` sets it as surely as `NODE_OPTIONS=… npm test`.
      const name = t.slice(0, t.indexOf('='));
      const value = t.slice(name.length + 1);
      judgeAssignment(name, { ...a, t: value, tilde: value.charCodeAt(0) === 126 }, cur, c);
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

/** Programs that run another command: judged as that command (as another user: always asked). */
export const WRAPPER_PROGRAMS: Record<string, Handler> = {
  xargs, parallel, watch,
  su: asUser(suLike), runuser: asUser(suLike), sg: suLike, script: scriptCmd,
  sudo: asUser(wrapper('ugCDhprTU', ['--user', '--group', '--chdir'])), doas: asUser(wrapper('uC')), pkexec: asUser(wrapper('', ['--user'])), env: envCmd,
  nice: wrapper('n', ['--adjustment']), nohup: wrapper(''), time: wrapper('fo', ['--format', '--output'], 0, false, { short: 'o', long: ['--output'] }), timeout: wrapper('sk', ['--signal', '--kill-after'], 1),
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
  faketime: wrapper('f', [], 1), fakeroot: wrapper('lsi'), eatmydata: wrapper(''), ltrace: wrapper('oesnaApuFxXwlD', ['--output', '--config'], 0, false, { short: 'o', long: ['--output'] }),
  valgrind: wrapper('', [], 0, false, { long: ['--log-file', '--xml-file'] }),
  'ssh-agent': wrapper('aEPt'), 'dbus-run-session': wrapper(''), 'xvfb-run': wrapper('nsfwe', ['--server-num', '--server-args', '--auth-file', '--error-file']), catchsegv: wrapper(''), chpst: wrapper('ugUl/nLm'),
  chroot: wrapper('', [], 1), flock: wrapper('wEn', [], 1), setsid: wrapper(''), strace: wrapper('oespPuIabEXS', ['--output', '--trace', '--signal', '--attach', '--user', '--env', '--trace-path'], 0, false, { short: 'o', long: ['--output'] }), busybox: wrapper(''), caffeinate: wrapper('t'),
};
