// Judges a parsed shell script: which operations each command performs, on which paths and hosts,
// and what static analysis cannot see through (`evasive`). Conservative by design: when a command
// could do more than one thing, every operation it could do is reported.
import type { Operation } from '../types.js';
import type { Collector } from './collector.js';
import { hostOfTarget, hostOfUrl, hostsInText, scpHost } from './hosts.js';
import { VAR_MARK, type Redirect, type Script, type SimpleCommand, type Stage, type Word } from './shell-ir.js';

/** Parses nested shell source (`sh -c '…'`, `eval '…'`, a literal heredoc fed to a shell). */
export type ParseFn = (src: string) => Script;

interface Env {
  cwd: string;
  vars: Map<string, string>;
  depth: number;
}

/** A word after variable evaluation. */
interface EW {
  t: string;
  known: boolean;
  tilde: boolean;
  subst: boolean;
  indirect: boolean;
  /** Built from variables, known or not. */
  vars: boolean;
}

interface Ctx {
  col: Collector;
  parse: ParseFn;
  home: string;
  env: Record<string, string> | undefined;
}

const MAX_DEPTH = 8;

export function analyseScript(script: Script, cwd: string, col: Collector, parse: ParseFn, home: string, env?: Record<string, string>): void {
  const c: Ctx = { col, parse, home, env };
  col.op('execute');
  script_(script, { cwd, vars: new Map(), depth: 0 }, c);
}

function script_(s: Script, env: Env, c: Ctx): void {
  if (s.limit) c.col.evasive(`${s.limit}: Gatehouse analysed it only in part`);
  else if (s.error) c.col.evasive('the shell grammar could not parse part of the command');
  for (const p of s.pipelines) {
    // One array grows as the stages go by (a copy per stage was quadratic in a long pipeline);
    // each stage sees the stages before it, and nothing keeps the array after its call.
    const upstream: Stage[] = [];
    for (const st of p.stages) {
      stage(st, env, c, upstream.length > 0 ? upstream : null);
      upstream.push(st);
    }
  }
}

function stage(st: Stage, env: Env, c: Ctx, upstream: Stage[] | null): void {
  if (st.kind === 'group') {
    script_(st.body, env, c);
    redirects(st.redirects, env, c, false);
    return;
  }
  simple(st, env, c, upstream);
}

function substs(w: Word, env: Env, c: Ctx): void {
  for (const s of w.substs) {
    if (env.depth >= MAX_DEPTH) {
      c.col.evasive('shell nesting too deep to analyse');
      return;
    }
    // A substitution runs in a subshell: its `cd` and assignments do not leak out.
    script_(s, { cwd: env.cwd, vars: new Map(env.vars), depth: env.depth + 1 }, c);
  }
}

function lookup(name: string, env: Env, c: Ctx): string | undefined {
  const v = env.vars.get(name);
  if (v !== undefined) return v;
  if (name === 'HOME') return c.home;
  if (name === 'PWD') return env.cwd;
  if (name === 'IFS') return ' ';
  return c.env?.[name];
}

const MARK_RE = new RegExp(`${VAR_MARK}([^${VAR_MARK}]*)${VAR_MARK}`, 'g');

function evalWord(w: Word, env: Env, c: Ctx): EW {
  let known = !w.dynamic;
  let t = w.text;
  if (w.vars) {
    t = t.replace(MARK_RE, (_m, name: string) => {
      const v = lookup(name, env, c);
      if (v === undefined) {
        known = false;
        return '$' + name;
      }
      return v;
    });
  }
  return { t, known, tilde: w.tilde, subst: w.substs.length > 0, indirect: w.indirect, vars: w.vars || w.dynamic };
}

function expandWords(words: Word[], env: Env, c: Ctx): EW[] {
  const out: EW[] = [];
  for (const w of words) {
    const e = evalWord(w, env, c);
    if (w.indirect) c.col.evasive('variable indirection');
    if (w.ifs) {
      // Unquoted $IFS splits the word, so `cat${IFS}/etc/passwd` runs `cat /etc/passwd`.
      c.col.evasive('${IFS} used to split words');
      for (const part of e.t.split(/[ \t\n]+/)) if (part) out.push({ ...e, t: part, tilde: false });
    } else out.push(e);
  }
  return out;
}

function simple(cmd: SimpleCommand, env: Env, c: Ctx, upstream: Stage[] | null): void {
  for (const a of cmd.assigns) substs(a.value, env, c);
  for (const w of cmd.words) substs(w, env, c);
  for (const r of cmd.redirects) if (r.target) substs(r.target, env, c);
  if (!cmd.words.length) {
    for (const a of cmd.assigns) {
      if (!a.name) continue;
      const v = evalWord(a.value, env, c);
      if (v.known) env.vars.set(a.name, v.t);
      else env.vars.delete(a.name);
    }
    redirects(cmd.redirects, env, c, false);
    return;
  }
  const words = expandWords(cmd.words, env, c);
  const name = commandName(words[0]?.t ?? '');
  redirects(cmd.redirects, env, c, SHELLS.has(name) || INTERPRETERS.has(name));
  run(words, env, c, { upstream, redirects: cmd.redirects });
}

interface Feed {
  upstream: Stage[] | null;
  redirects: Redirect[];
}

const DEVICE_SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/zero']);

function redirects(rs: Redirect[], env: Env, c: Ctx, toShell: boolean): void {
  for (const r of rs) {
    if (r.op === '<<' || r.op === '<<-' || r.op === '<<<') {
      if (r.op !== '<<<') c.col.addContent(r.body ?? '');
      if (toShell) {
        c.col.evasive(r.op === '<<<' ? 'here-string fed to a shell' : 'here-document fed to a shell');
        // Still look inside a literal body: its paths and hosts are worth reporting.
        if (r.bodyLiteral && r.body && env.depth < MAX_DEPTH) nested(r.body, env, c);
      }
      continue;
    }
    if (!r.target) continue;
    const t = evalWord(r.target, env, c);
    // `>&2`, `2>&1`, `<&-`: duplicating descriptors touches no file.
    if ((r.op === '>&' || r.op === '<&') && /^(\d+|-)$/.test(t.t)) continue;
    const writes = r.op !== '<';
    const reads = r.op === '<' || r.op === '<>';
    if (!t.known) {
      if (t.subst && writes) c.col.evasive('command substitution builds a redirection target');
      continue;
    }
    if (DEVICE_SINKS.has(t.t)) continue;
    if (devTcp(t.t, c)) continue;
    if (writes) c.col.op('write');
    if (reads) c.col.op('read');
    c.col.shellPath(t.t, t.tilde, env.cwd);
  }
}

/** bash opens a socket for `/dev/tcp/HOST/PORT` and `/dev/udp/HOST/PORT`. */
function devTcp(p: string, c: Ctx): boolean {
  const m = /^\/dev\/(tcp|udp)\/([^/]+)/.exec(p);
  if (!m || !m[2]) return false;
  c.col.op('network');
  c.col.host(hostOfTarget(m[2]));
  return true;
}

function nested(src: string, env: Env, c: Ctx): void {
  let s: Script;
  try {
    s = c.parse(src);
  } catch {
    c.col.evasive('nested shell code could not be parsed');
    return;
  }
  script_(s, { cwd: env.cwd, vars: new Map(env.vars), depth: env.depth + 1 }, c);
}

// Look-alike letters folded to ASCII, so `сurl` (Cyrillic с) is judged as the curl it imitates.
const CONFUSABLES: Record<string, string> = {
  а: 'a', с: 'c', е: 'e', о: 'o', р: 'p', х: 'x', у: 'y', і: 'i', ѕ: 's', ј: 'j', ԁ: 'd', ӏ: 'l',
  һ: 'h', ԛ: 'q', ԝ: 'w', в: 'b', к: 'k', м: 'm', н: 'h', т: 't', ο: 'o', α: 'a', ν: 'v', ι: 'i',
  κ: 'k', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ε: 'e', ѵ: 'v', ɡ: 'g', ℓ: 'l',
};

export function commandName(word0: string): string {
  const slash = word0.lastIndexOf('/');
  return slash >= 0 ? word0.slice(slash + 1) : word0;
}

function foldConfusables(name: string): string {
  let out = '';
  for (const ch of name.normalize('NFKC')) out += CONFUSABLES[ch] ?? CONFUSABLES[ch.toLowerCase()] ?? ch;
  return out;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'csh', 'tcsh', 'rbash']);
const INTERPRETERS = new Set(['python', 'python2', 'python3', 'perl', 'ruby', 'node', 'php', 'lua', 'nodejs', 'deno', 'bun']);

function run(words: EW[], env: Env, c: Ctx, feed: Feed): void {
  const w0 = words[0];
  if (!w0) return;
  const col = c.col;
  col.op('execute');
  let name = '';
  if (!w0.known) col.evasive(w0.subst ? 'command substitution builds the command' : 'a variable is the command word');
  else {
    // Even a variable we could evaluate: `$cmd` as the command word hides what runs from a reader.
    if (w0.vars) col.evasive('a variable is the command word');
    name = commandName(w0.t);
  }
  if (w0.known && w0.t.includes('/')) col.shellPath(w0.t, w0.tilde, env.cwd);
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(name)) {
    col.evasive('non-ASCII command name (a look-alike of another command?)');
    name = foldConfusables(name);
  }
  const args = words.slice(1);
  // own properties only: a command named `constructor` must not reach Object.prototype.
  const h = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
  if (h) h(args, env, c, feed, name);
  else if (SHELLS.has(name) || INTERPRETERS.has(name)) shell(name, args, env, c, feed);
  else {
    // Unknown (or unknowable) program: arguments that look like paths or URLs are still reported.
    for (const a of args) {
      if (!a.known) continue;
      if (a.t.includes('://')) hostsInText(a.t, (x) => col.host(x));
      else if (a.tilde || a.t.startsWith('/') || a.t.startsWith('./') || a.t.startsWith('../')) col.shellPath(a.t, a.tilde, env.cwd);
    }
  }
}

type Handler = (args: EW[], env: Env, c: Ctx, feed: Feed, name: string) => void;

interface Spec {
  ops: Operation[];
  /** Short options that take a value. */
  v?: string;
  /** Long options that take a separate value. */
  lv?: string[];
  /** Leading positionals that are not paths (a pattern, a mode, an owner). */
  skip?: number;
  /** Options whose value is a path, and the operation done on it. */
  pathOpts?: Record<string, Operation>;
}

interface Parsed {
  pos: EW[];
  opts: Array<{ name: string; value: EW | null }>;
}

/** Splits arguments into options (with values) and positionals, getopt-style. */
function parseArgs(args: EW[], v = '', lv: string[] = []): Parsed {
  const pos: EW[] = [];
  const opts: Parsed['opts'] = [];
  let end = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (end || !a.known || t.length < 2 || t[0] !== '-') {
      pos.push(a);
      continue;
    }
    if (t === '--') {
      end = true;
      continue;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      if (eq > 0) opts.push({ name: t.slice(0, eq), value: { ...a, t: t.slice(eq + 1), tilde: t[eq + 1] === '~' } });
      else if (lv.includes(t)) opts.push({ name: t, value: args[++i] ?? null });
      else opts.push({ name: t, value: null });
      continue;
    }
    for (let j = 1; j < t.length; j++) {
      const ch = t[j] as string;
      if (v.includes(ch)) {
        const rest = t.slice(j + 1);
        opts.push({ name: '-' + ch, value: rest ? { ...a, t: rest, tilde: rest[0] === '~' } : (args[++i] ?? null) });
        break;
      }
      opts.push({ name: '-' + ch, value: null });
    }
  }
  return { pos, opts };
}

function has(p: Parsed, ...names: string[]): boolean {
  return p.opts.some((o) => names.includes(o.name));
}

function optVals(p: Parsed, ...names: string[]): EW[] {
  const out: EW[] = [];
  for (const o of p.opts) if (o.value && names.includes(o.name)) out.push(o.value);
  return out;
}

function pathOf(a: EW, env: Env, c: Ctx, op?: Operation): void {
  if (!a.known) {
    if (a.subst && op && op !== 'read') c.col.evasive('command substitution builds a path argument');
    return;
  }
  if (op) c.col.op(op);
  if (!devTcp(a.t, c)) c.col.shellPath(a.t, a.tilde, env.cwd);
}

function generic(spec: Spec): Handler {
  return (args, env, c) => {
    for (const o of spec.ops) c.col.op(o);
    const p = parseArgs(args, spec.v, spec.lv);
    let skip = spec.skip ?? 0;
    for (const a of p.pos) {
      if (skip > 0) {
        skip--;
        continue;
      }
      pathOf(a, env, c, spec.ops[0]);
    }
    if (spec.pathOpts) for (const o of p.opts) { const op = spec.pathOpts[o.name]; if (op && o.value) pathOf(o.value, env, c, op); }
  };
}

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

const READ: Spec = { ops: ['read'] };

function grepLike(v: string, lv: string[]): Handler {
  return (args, env, c) => {
    c.col.op('read');
    const p = parseArgs(args, v, lv);
    const explicit = has(p, '-e', '-f', '--regexp', '--file');
    for (const f of optVals(p, '-f', '--file')) pathOf(f, env, c, 'read');
    p.pos.forEach((a, i) => { if (i > 0 || explicit) pathOf(a, env, c, 'read'); });
  };
}

function shell(name: string, args: EW[], env: Env, c: Ctx, feed: Feed): void {
  const interp = INTERPRETERS.has(name);
  const codeFlag = interp ? (name.startsWith('python') ? 'c' : 'e') : 'c';
  let i = 0;
  let code: EW | null = null;
  let hasCode = false;
  let module = false;
  for (; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (t === '--' || t === '-') { i++; break; }
    if (t.startsWith('-') && t.length > 1 && !t.startsWith('--')) {
      const flags = t.slice(1);
      if (flags.includes(codeFlag)) { hasCode = true; code = args[i + 1] ?? null; i += 2; break; }
      if (interp && flags.includes('m')) { module = true; i++; break; }
      if (/[oO]$/.test(flags) && !interp) i++;
      continue;
    }
    if (t.startsWith('--')) continue;
    break;
  }
  const rest = args.slice(i);
  if (hasCode) {
    if (interp) return; // inline program in another language: executed, not parsed here
    if (!code) return;
    if (!code.known) {
      c.col.evasive(`${name} -c on a computed string`);
      return;
    }
    if (env.depth >= MAX_DEPTH) { c.col.evasive('shell nesting too deep to analyse'); return; }
    nested(code.t, env, c);
    return;
  }
  if (module) {
    const m = rest[0]?.t ?? args[i - 1]?.t.slice(2);
    if (m === 'pip' && rest.some((a) => a.t === 'install' || a.t === 'download')) c.col.op('network');
    return;
  }
  const script = rest[0];
  if (script) {
    // A script file: read and run. `bash <(curl …)` runs a download.
    if (!script.known) c.col.evasive(script.subst ? 'a shell runs a computed or downloaded script' : 'a shell runs a script named by a variable');
    else pathOf(script, env, c, 'read');
    return;
  }
  const fromHere = feed.redirects.some((r) => r.op === '<<' || r.op === '<<-' || r.op === '<<<');
  if (feed.upstream) c.col.evasive(pipeReason(feed.upstream, env, c));
  else if (!fromHere && feed.redirects.some((r) => r.op === '<')) c.col.evasive('a shell reads its program from a redirected file');
}

/** Why text piped into a shell cannot be seen through, judged by what produced it. */
function pipeReason(up: Stage[], env: Env, c: Ctx): string {
  let reason = 'text piped to a shell';
  for (const st of up) {
    if (st.kind !== 'cmd') continue;
    for (const r of st.redirects) {
      if ((r.op === '<<' || r.op === '<<-' || r.op === '<<<') && r.body) {
        if (r.bodyLiteral && env.depth < MAX_DEPTH) nested(r.body, env, c);
        reason = 'here-document piped to a shell';
      }
    }
    const ws = st.words.map((w) => evalWord(w, env, c).t);
    const n = commandName(ws[0] ?? '');
    const flags = ws.slice(1).join(' ');
    if (n === 'base64' || n === 'base32' || n === 'basenc') {
      if (/(^|\s)(-\w*[dD]|--decode)/.test(flags)) return 'decoded base64 piped to a shell';
    } else if (n === 'xxd' && /(^|\s)-\w*r/.test(flags)) return 'decoded hex piped to a shell';
    else if ((n === 'printf' || n === 'echo') && /\\x[0-9a-f]|\\[0-7]{3}/i.test(flags)) return 'hex-escaped text piped to a shell';
    else if (n === 'curl' || n === 'wget') reason = 'downloaded script piped to a shell';
    else if (['openssl', 'gunzip', 'zcat', 'gzip', 'rev', 'tr', 'uudecode', 'bzcat', 'xz'].includes(n)) reason = 'decoded text piped to a shell';
  }
  return reason;
}

function find(args: EW[], env: Env, c: Ctx, feed: Feed): void {
  c.col.op('read');
  let i = 0;
  const starts: EW[] = [];
  for (; i < args.length; i++) {
    const a = args[i] as EW;
    if (a.t === '-H' || a.t === '-L' || a.t === '-P') continue;
    if (a.t.startsWith('-') || a.t === '(' || a.t === '!' || a.t === ',') break;
    starts.push(a);
  }
  if (!starts.length) starts.push({ t: '.', known: true, tilde: false, subst: false, indirect: false, vars: false });
  for (const s of starts) pathOf(s, env, c, 'read');
  for (; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (t === '-delete') c.col.op('delete');
    else if (t === '-fprint' || t === '-fprintf' || t === '-fls' || t === '-fprint0') {
      const f = args[i + 1];
      if (f) pathOf(f, env, c, 'write');
    } else if (t === '-exec' || t === '-execdir' || t === '-ok' || t === '-okdir') {
      const sub: EW[] = [];
      for (i++; i < args.length; i++) {
        const a = args[i] as EW;
        if (a.t === ';' || a.t === '+') break;
        // `{}` stands for each file found: judge the command as run on the start paths.
        if (a.t === '{}') sub.push(...starts);
        else sub.push(a);
      }
      run(sub, env, c, { upstream: null, redirects: feed.redirects.filter(() => false) });
    }
  }
}

function sed(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const p = parseArgs(args, 'efl', ['--expression', '--file', '--line-length']);
  const inPlace = p.opts.some((o) => o.name === '-i' || o.name.startsWith('--in-place'));
  // -i takes an optional attached suffix (`-i.bak`), which parseArgs sees as more flag letters.
  const explicit = has(p, '-e', '-f', '--expression', '--file');
  for (const f of optVals(p, '-f', '--file')) pathOf(f, env, c, 'read');
  if (inPlace) c.col.op('write');
  p.pos.forEach((a, i) => { if (i > 0 || explicit) pathOf(a, env, c, inPlace ? 'write' : 'read'); });
}

function dd(args: EW[], env: Env, c: Ctx): void {
  for (const a of args) {
    if (a.t.startsWith('if=')) pathOf({ ...a, t: a.t.slice(3), tilde: a.t[3] === '~' }, env, c, 'read');
    else if (a.t.startsWith('of=')) pathOf({ ...a, t: a.t.slice(3), tilde: a.t[3] === '~' }, env, c, 'write');
  }
}

function tee(args: EW[], env: Env, c: Ctx): void {
  c.col.op('write');
  for (const a of parseArgs(args).pos) pathOf(a, env, c, 'write');
}

function copyMove(kind: 'copy' | 'move'): Handler {
  return (args, env, c) => {
    const col = c.col;
    col.op(kind);
    col.op('write');
    col.op(kind === 'copy' ? 'read' : 'delete');
    const p = parseArgs(args, 'tSb', ['--target-directory', '--suffix', '--backup']);
    for (const a of p.pos) pathOf(a, env, c);
    for (const t of optVals(p, '-t', '--target-directory')) pathOf(t, env, c);
  };
}

function remoteCopy(name: string): Handler {
  return (args, env, c) => {
    const col = c.col;
    col.op('copy');
    const p = parseArgs(args, name === 'rsync' ? 'eTf' : 'PiolSFcJ', ['--rsh', '--exclude', '--include', '--filter', '--temp-dir', '--password-file', '--port']);
    if (name === 'scp' || name === 'sftp') col.op('network');
    if (p.opts.some((o) => o.name.startsWith('--delete') || o.name === '--remove-source-files')) col.op('delete');
    for (const o of p.opts) if (o.name === '-i') pathOf(o.value ?? { t: '', known: false, tilde: false, subst: false, indirect: false, vars: false }, env, c, 'read');
    const last = p.pos.length - 1;
    p.pos.forEach((a, i) => {
      if (!a.known) return;
      const remote = a.t.includes('://') ? hostOfUrl(a.t) : scpHost(a.t, false);
      if (remote) {
        col.op('network');
        col.host(remote);
        return;
      }
      if (name === 'sftp' && i === 0) { col.op('network'); col.host(hostOfTarget(a.t)); return; }
      pathOf(a, env, c, i === last && last > 0 ? 'write' : 'read');
    });
  };
}

function curl(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  col.op('network');
  const p = parseArgs(args, 'oTdDFHXuAebcxKmwrCEYyzQUtP', [
    '--output', '--upload-file', '--data', '--data-binary', '--data-raw', '--data-urlencode', '--form', '--header',
    '--request', '--user', '--user-agent', '--referer', '--cookie', '--cookie-jar', '--proxy', '--config', '--max-time',
    '--write-out', '--url', '--connect-timeout', '--retry', '--cacert', '--cert', '--key', '--resolve', '--connect-to',
    '--output-dir', '--dump-header', '--trace', '--trace-ascii', '--stderr', '--netrc-file',
  ]);
  for (const u of [...p.pos, ...optVals(p, '--url', '-x', '--proxy')]) {
    if (!u.known) continue;
    col.host(hostOfUrl(u.t.includes('://') ? u.t : 'http://' + u.t));
  }
  for (const o of p.opts) {
    if (!o.value) continue;
    const n = o.name;
    if (['-o', '--output', '-c', '--cookie-jar', '-D', '--dump-header', '--trace', '--trace-ascii', '--stderr', '--output-dir'].includes(n)) {
      if (o.value.t !== '-') pathOf(o.value, env, c, 'write');
    } else if (['-T', '--upload-file', '-K', '--config', '--cacert', '--cert', '--key', '--netrc-file', '-E'].includes(n)) pathOf(o.value, env, c, 'read');
    else if (['-d', '--data', '--data-binary', '--data-urlencode', '-F', '--form', '-b', '--cookie', '-H', '--header'].includes(n)) {
      const at = o.value.t.indexOf('@');
      const lt = o.value.t.indexOf('<');
      const i = at >= 0 && (n.startsWith('-d') || n.startsWith('--data') || n === '-H' || n === '--header') ? (at === 0 ? 0 : -1) : Math.max(at, lt);
      if (i >= 0 && (at === 0 || n === '-F' || n === '--form')) {
        const f = o.value.t.slice(i + 1).split(';')[0] ?? '';
        if (f && f !== '-') pathOf({ ...o.value, t: f, tilde: f[0] === '~' }, env, c, 'read');
      } else if (n === '-b' || n === '--cookie') {
        if (!o.value.t.includes('=')) pathOf(o.value, env, c, 'read');
      }
    }
  }
  if (has(p, '-O', '--remote-name', '--remote-name-all')) col.op('write');
}

function wget(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  col.op('network');
  const p = parseArgs(args, 'OoPiaTtUeB', ['--output-document', '--output-file', '--directory-prefix', '--input-file', '--user', '--password', '--header', '--user-agent', '--post-file', '--post-data', '--timeout', '--tries', '--load-cookies', '--save-cookies', '-e', '--execute']);
  for (const u of p.pos) if (u.known) col.host(hostOfUrl(u.t.includes('://') ? u.t : 'http://' + u.t));
  for (const o of p.opts) {
    if (!o.value) continue;
    if (['-O', '--output-document', '-o', '--output-file', '-a', '--save-cookies'].includes(o.name)) { if (o.value.t !== '-') pathOf(o.value, env, c, 'write'); }
    else if (['-P', '--directory-prefix'].includes(o.name)) pathOf(o.value, env, c, 'write');
    else if (['-i', '--input-file', '--post-file', '--load-cookies'].includes(o.name)) pathOf(o.value, env, c, 'read');
  }
  if (!has(p, '-O', '--output-document', '--spider')) col.op('write');
}

function ssh(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  col.op('network');
  const p = parseArgs(args, 'BbcDEeFIiJLlmOoPpQRSWw', []);
  for (const o of p.opts) {
    if (!o.value) continue;
    if (o.name === '-i' || o.name === '-F') pathOf(o.value, env, c, 'read');
    else if (o.name === '-J') for (const j of o.value.t.split(',')) col.host(hostOfTarget(j));
    else if (o.name === '-E') pathOf(o.value, env, c, 'write');
  }
  const target = p.pos[0];
  if (target?.known) col.host(hostOfTarget(target.t));
}

function netcat(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  col.op('network');
  const p = parseArgs(args, 'pswiqxXeIOTVWc', ['--exec', '--sh-exec', '--proxy', '--source']);
  for (const o of p.opts) {
    if (!o.value) continue;
    if (o.name === '-e' || o.name === '--exec') pathOf(o.value, env, c);
    else if ((o.name === '-c' || o.name === '--sh-exec') && o.value.known) nested(o.value.t, env, c);
    else if (o.name === '-x' || o.name === '--proxy') col.host(hostOfTarget(o.value.t));
  }
  const target = p.pos[0];
  if (target?.known && !/^\d+(-\d+)?$/.test(target.t)) col.host(hostOfTarget(target.t));
}

function firstHost(v: string, lv: string[] = []): Handler {
  return (args, _env, c) => {
    c.col.op('network');
    const p = parseArgs(args, v, lv);
    const t = p.pos[0];
    if (t?.known) c.col.host(hostOfTarget(t.t));
  };
}

function dig(args: EW[], _env: Env, c: Ctx): void {
  c.col.op('network');
  const RR = /^(a|aaaa|mx|ns|txt|cname|soa|ptr|srv|any|caa|ds|dnskey|axfr|in|ch)$/i;
  const p = parseArgs(args, 'bcfkpqtxy', []);
  for (const a of p.pos) {
    if (!a.known || a.t.startsWith('+')) continue;
    if (a.t.startsWith('@')) c.col.host(hostOfTarget(a.t.slice(1)));
    else if (!RR.test(a.t)) c.col.host(hostOfTarget(a.t));
  }
  for (const x of optVals(p, '-q', '-x')) if (x.known) c.col.host(hostOfTarget(x.t));
}

const GIT_NETWORK = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule', 'remote', 'archive']);
const GIT_READ = new Set(['status', 'log', 'diff', 'show', 'branch', 'rev-parse', 'ls-files', 'blame', 'grep', 'describe', 'shortlog', 'reflog', 'cat-file', 'ls-tree', 'rev-list', 'whatchanged', 'version', 'help']);

function git(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  let i = 0;
  let cwd = env.cwd;
  for (; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (t === '-C') {
      const d = args[++i];
      if (d?.known) cwd = col.shellPath(d.t, d.tilde, cwd) ?? cwd;
    } else if (t === '-c' || t === '--git-dir' || t === '--work-tree' || t === '--namespace') i++;
    else if (!t.startsWith('-')) break;
  }
  const sub = args[i]?.t ?? '';
  const rest = args.slice(i + 1);
  const sEnv = { ...env, cwd };
  if (GIT_NETWORK.has(sub)) {
    col.op('network');
    for (const a of rest) {
      if (!a.known || a.t.startsWith('-')) continue;
      const h = a.t.includes('://') ? hostOfUrl(a.t) : scpHost(a.t, true);
      if (h) col.host(h);
    }
  }
  if (sub === 'clone') {
    col.op('write');
    const pos = parseArgs(rest, 'obcju', ['--origin', '--branch', '--config', '--depth', '--reference', '--separate-git-dir', '--upload-pack', '--template', '--jobs', '--filter']).pos;
    const dir = pos[1];
    if (dir) pathOf(dir, sEnv, c, 'write');
    return;
  }
  if (GIT_READ.has(sub)) {
    col.op('read');
    return;
  }
  if (sub === 'rm' || sub === 'clean') col.op('delete');
  else if (sub === 'mv') col.op('move');
  if (!GIT_NETWORK.has(sub) || sub === 'pull' || sub === 'submodule') col.op('write');
  if (sub === 'rm' || sub === 'mv' || sub === 'add' || sub === 'checkout' || sub === 'restore') {
    for (const a of parseArgs(rest, 'm', []).pos) pathOf(a, sEnv, c);
  }
}

function pkgManager(netSubs: string[]): Handler {
  return (args, _env, c) => {
    const sub = args.find((a) => !a.t.startsWith('-'))?.t ?? '';
    if (netSubs.includes(sub)) {
      c.col.op('network');
      c.col.op('write');
    }
  };
}

function cd(args: EW[], env: Env, c: Ctx): void {
  const p = parseArgs(args);
  const d = p.pos[0];
  if (!d) {
    env.cwd = c.home;
    return;
  }
  if (!d.known || d.t === '-') return;
  env.cwd = c.col.shellPath(d.t, d.tilde, env.cwd) ?? env.cwd;
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

function tar(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  // Old-style `tar czf x.tgz dir`: the first word is a bundle of letters without a dash.
  const first = args[0];
  const a2 = first && /^[A-Za-z]+$/.test(first.t) ? [{ ...first, t: '-' + first.t }, ...args.slice(1)] : args;
  const p = parseArgs(a2, 'fCbTXIHK', ['--file', '--directory', '--exclude', '--files-from', '--exclude-from', '--transform', '--use-compress-program']);
  const create = has(p, '-c', '-r', '-u', '--create', '--append', '--update');
  const extract = has(p, '-x', '--extract', '--get');
  col.op('read');
  for (const f of optVals(p, '-f', '--file')) pathOf(f, env, c, create ? 'write' : 'read');
  for (const d of optVals(p, '-C', '--directory')) pathOf(d, env, c, extract ? 'write' : 'read');
  if (extract) col.op('write');
  for (const x of p.pos) pathOf(x, env, c, extract ? 'write' : 'read');
}

function chmodLike(args: EW[], env: Env, c: Ctx): void {
  c.col.op('write');
  const p = parseArgs(args.filter((a) => !/^[-+=][rwxXstugo]+$/.test(a.t) || a.t.startsWith('--')), '', ['--reference']);
  const ref = has(p, '--reference');
  p.pos.forEach((a, i) => { if (i > 0 || ref) pathOf(a, env, c, 'write'); });
}

function interpreterModule(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): void {
  shell(name, args, env, c, feed);
}

const NET_PKG = ['install', 'i', 'add', 'ci', 'update', 'upgrade', 'publish', 'download', 'fetch', 'pull', 'push', 'clone', 'get', 'exec', 'dlx', 'create', 'init'];

const HANDLERS: Record<string, Handler> = {
  cat: generic(READ), tac: generic(READ), less: generic(READ), more: generic(READ), nl: generic(READ),
  head: generic({ ops: ['read'], v: 'nc' }), tail: generic({ ops: ['read'], v: 'ncs' }),
  ls: generic({ ops: ['read'], v: 'IwT', lv: ['--ignore', '--hide', '--width'] }), dir: generic(READ), tree: generic({ ops: ['read'], v: 'LIP' }),
  stat: generic({ ops: ['read'], v: 'c', lv: ['--format', '--printf'] }), file: generic(READ), wc: generic(READ), diff: generic(READ), cmp: generic(READ), comm: generic(READ),
  md5sum: generic(READ), sha1sum: generic(READ), sha256sum: generic(READ), sha512sum: generic(READ), cksum: generic(READ), b2sum: generic(READ),
  strings: generic({ ops: ['read'], v: 'nt' }), od: generic({ ops: ['read'], v: 'tNjAw' }), hexdump: generic({ ops: ['read'], v: 'nsef' }),
  uniq: generic(READ), cut: generic({ ops: ['read'], v: 'dfcb' }), readlink: generic(READ), realpath: generic(READ), du: generic({ ops: ['read'], v: 'dBt' }),
  sort: generic({ ops: ['read'], v: 'ktoST', pathOpts: { '-o': 'write', '--output': 'write' }, lv: ['--output', '--key'] }),
  awk: generic({ ops: ['read'], v: 'Fvf', skip: 1, pathOpts: { '-f': 'read' } }), gawk: generic({ ops: ['read'], v: 'Fvf', skip: 1 }),
  jq: generic({ ops: ['read'], skip: 1, lv: ['--arg', '--argjson', '--slurpfile', '--rawfile', '--indent'] }),
  base64: generic({ ops: ['read'], v: 'w' }), xxd: (args, env, c) => {
    const p = parseArgs(args, 'cglosn', []);
    const rev = has(p, '-r');
    c.col.op('read');
    p.pos.forEach((a, i) => pathOf(a, env, c, i === 1 ? 'write' : 'read'));
    if (rev && p.pos.length > 1) c.col.op('write');
  },
  grep: grepLike('efmABCdD', ['--regexp', '--file', '--max-count', '--include', '--exclude', '--exclude-dir', '--context']),
  egrep: grepLike('efmABCdD', []), fgrep: grepLike('efmABCdD', []), zgrep: grepLike('efmABC', []),
  rg: grepLike('efmABCgtTjMr', ['--regexp', '--file', '--glob', '--type', '--type-not', '--max-count', '--threads', '--replace', '--context']),
  ag: grepLike('ABCmG', []), ack: grepLike('ABCm', []),
  find, sed, dd, tee, tar,
  rm: generic({ ops: ['delete'] }), rmdir: generic({ ops: ['delete'] }), unlink: generic({ ops: ['delete'] }),
  shred: (args, env, c) => { c.col.op('write'); generic({ ops: ['delete'], v: 'ns' })(args, env, c, { upstream: null, redirects: [] }, 'shred'); },
  cp: copyMove('copy'), mv: copyMove('move'), install: copyMove('copy'), rsync: remoteCopy('rsync'), scp: remoteCopy('scp'), sftp: remoteCopy('sftp'),
  touch: generic({ ops: ['write'], v: 'dtr', pathOpts: { '-r': 'read' } }), mkdir: generic({ ops: ['write'], v: 'm' }),
  truncate: generic({ ops: ['write'], v: 'sr' }), mkfifo: generic({ ops: ['write'], v: 'm' }), ln: generic({ ops: ['write'], v: 'St' }),
  patch: generic({ ops: ['write'], v: 'pio', pathOpts: { '-i': 'read' } }),
  chmod: chmodLike, chown: chmodLike, chgrp: chmodLike, chattr: chmodLike,
  vi: generic({ ops: ['write'] }), vim: generic({ ops: ['write'] }), nvim: generic({ ops: ['write'] }), nano: generic({ ops: ['write'] }), emacs: generic({ ops: ['write'] }), code: generic({ ops: ['write'] }),
  curl, wget, ssh, nc: netcat, ncat: netcat, netcat, telnet: firstHost(''), ftp: firstHost('p'), mosh: firstHost(''),
  ping: firstHost('cisWtlIQpMm'), ping6: firstHost('cisWtlIQ'), traceroute: firstHost('fmpqwzA'), mtr: firstHost('c'), whois: firstHost('hp'),
  nslookup: (args, env, c) => { firstHost('')(args, env, c, { upstream: null, redirects: [] }, ''); const s = parseArgs(args).pos[1]; if (s?.known) c.col.host(hostOfTarget(s.t)); },
  host: firstHost('tWcNR'), dig,
  'ssh-keyscan': firstHost('pTt'),
  git,
  pip: pkgManager(NET_PKG), pip3: pkgManager(NET_PKG), uv: pkgManager(['pip', 'add', 'sync', 'run', 'tool']),
  npm: pkgManager(NET_PKG), pnpm: pkgManager(NET_PKG), yarn: pkgManager([...NET_PKG, '']), bun: pkgManager(NET_PKG),
  npx: (_a, _e, c) => { c.col.op('network'); }, pnpx: (_a, _e, c) => { c.col.op('network'); },
  'apt-get': pkgManager(['install', 'update', 'upgrade', 'download', 'source', 'dist-upgrade']), apt: pkgManager(['install', 'update', 'upgrade']),
  brew: pkgManager(['install', 'update', 'upgrade', 'tap', 'fetch']), gem: pkgManager(['install', 'update', 'fetch']), cargo: pkgManager(['install', 'add', 'fetch', 'update', 'publish']),
  docker: pkgManager(['pull', 'push', 'login', 'build', 'run', 'create']), podman: pkgManager(['pull', 'push', 'login', 'build', 'run']),
  cd, pushd: cd, source, '.': source, eval: evalCmd,
  sudo: wrapper('ugCDhprTU', ['--user', '--group', '--chdir']), doas: wrapper('uC'), env: wrapper('uCS', ['--unset', '--chdir', '--split-string'], 0, true),
  nice: wrapper('n', ['--adjustment']), nohup: wrapper(''), time: wrapper('fo'), timeout: wrapper('sk', ['--signal', '--kill-after'], 1),
  stdbuf: wrapper('ioe'), ionice: wrapper('cnp'), command: wrapper(''), builtin: wrapper(''), exec: wrapper('a'), unbuffer: wrapper(''),
  xargs: wrapper('IinLPsdEa', ['--max-args', '--max-procs', '--delimiter', '--arg-file', '--replace']), watch: wrapper('nd', ['--interval']),
  chroot: wrapper('', [], 1), flock: wrapper('wEn', [], 1), setsid: wrapper(''), strace: wrapper('oesp'), busybox: wrapper(''), caffeinate: wrapper('t'),
  python: interpreterModule, python3: interpreterModule,
};
