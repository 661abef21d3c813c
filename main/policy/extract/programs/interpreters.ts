// Shells and language interpreters: inline code (`sh -c`, `python3 -c`), script files, modules,
// and programs read from standard input.
import { globOption } from '../shell/glob-options.js';
import { fileUrlPath, hostOfTarget, hostsInText, hostsOfUrl } from '../hosts.js';
import { expandHome } from '../paths.js';
import type { Stage } from '../shell-ir.js';
import { commandName, INTERPRETERS, SHELLS } from '../shell/command-name.js';
import { codeOptions } from '../shell/env-vars.js';
import { pathOf } from '../shell/path-args.js';
import { printedText } from '../shell/redirects.js';
import { nested, runWritten } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, MAX_DEPTH } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { evalWord, expandWords } from '../shell/words.js';
import { NET_PKG, pkgManager } from './packages.js';

interface Lang {
  /** Named in the evasive reason: "inline python code". */
  label: string;
  /** Short options whose value is the program text (`-c`, `-e`, `-r`). */
  code: string;
  /** Long options whose value is the program text. */
  longCode?: string[];
  /** Short options that take the next word (or the rest of the bundle) as a value. */
  value?: string;
  /** Long options that take the next word as a value. */
  longValue?: string[];
  /** Runs a module instead of a file (`python -m`). */
  module?: string;
}

const SHELL_LANG: Lang = { label: 'shell', code: 'c', value: 'oO', longValue: ['--rcfile', '--init-file'] };

const PYTHON: Lang = { label: 'python', code: 'c', value: 'WXQ', module: 'm' };

const PERL: Lang = { label: 'perl', code: 'eE', value: 'MmIidDxlC0V' };

const RUBY: Lang = { label: 'ruby', code: 'e', value: 'IrCxFKTEWi0l' };

const NODE: Lang = { label: 'node', code: 'ep', longCode: ['--eval', '--print'], value: 'rC', longValue: ['--require', '--import', '--loader', '--experimental-loader', '--conditions', '--input-type', '--env-file', '--title'] };

const LANGS: Record<string, Lang> = {
  python: PYTHON, python2: PYTHON, python3: PYTHON, pypy: PYTHON, pypy3: PYTHON,
  perl: PERL, ruby: RUBY, node: NODE, nodejs: NODE, bun: { ...NODE, label: 'bun' },
  php: { label: 'php', code: 'rBRE', value: 'cdfz' },
  lua: { label: 'lua', code: 'e', value: 'l' },
  osascript: { label: 'AppleScript', code: 'e', value: 'ls' },
  expect: { label: 'Tcl (expect)', code: 'c', value: 'bfi' }, tclsh: { label: 'Tcl', code: '', value: '' }, wish: { label: 'Tcl', code: '', value: '' },
};

/** Script names that are the process's standard input (`sh /dev/stdin`, `bash /proc/self/fd/0`). */
export const STDIN_SCRIPT = /^(-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/(self|thread-self|\d+)\/fd\/0)$/;

function shell(name: string, args: EW[], env: Env, c: Ctx, feed: Feed): void {
  const interp = INTERPRETERS.has(name) || Object.hasOwn(LANGS, name);
  const lang = LANGS[name] ?? SHELL_LANG;
  let i = 0;
  let code: EW | null = null;
  let hasCode = false;
  let module = false;
  let stdin = false;
  outer: for (; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (t === '--') { i++; break; }
    if (t === '-') { stdin = true; i++; break; }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const opt = eq > 0 ? t.slice(0, eq) : t;
      if (lang.longCode?.includes(opt)) {
        hasCode = true;
        code = eq > 0 ? { ...a, t: t.slice(eq + 1) } : (args[i + 1] ?? null);
        i += eq > 0 ? 1 : 2;
        break;
      }
      if (eq < 0 && lang.longValue?.includes(opt)) {
        const v = args[++i];
        if (v && (opt === '--rcfile' || opt === '--init-file')) pathOf(v, env, c, 'read');
      }
      continue;
    }
    if (t.length > 1 && (t[0] === '-' || (t[0] === '+' && !interp))) {
      for (let j = 1; j < t.length; j++) {
        const ch = t.charAt(j);
        if (lang.code.includes(ch)) {
          hasCode = true;
          const restOf = t.slice(j + 1);
          code = restOf && interp ? { ...a, t: restOf } : (args[i + 1] ?? null);
          i += restOf && interp ? 1 : 2;
          break outer;
        }
        if (lang.module?.includes(ch)) { module = true; i++; break outer; }
        if (!interp && ch === 's') stdin = true;
        if (lang.value?.includes(ch)) {
          // `bash -O dotglob -c …`: a glob option on from the start.
          if (!interp && ch === 'O' && t[0] === '-') {
            const v = j === t.length - 1 ? args[i + 1] : { ...a, t: t.slice(j + 1) };
            if (v) globOption(v, c);
          }
          if (j === t.length - 1) i++;
          break;
        }
      }
      continue;
    }
    break;
  }
  const rest = args.slice(i);
  if (hasCode) {
    if (interp) {
      if (code?.known) inlineCode(code.t, lang.label, env, c);
      else c.col.evasive(`inline ${lang.label} code built at run time`);
      // The words after the code are its arguments: what the code does with them is not known.
      unknownProgram(rest, env, c);
      // `perl -ne CODE FILE…` and `ruby -ne` read their file arguments line by line.
      if (lang === PERL || lang === RUBY) for (const a of rest) if (a.known && !a.t.startsWith('-')) pathOf(a, env, c, 'read');
      return;
    }
    if (!code) return;
    if (!code.known) {
      c.col.evasive(`${name} -c on a computed string`);
      return;
    }
    if (env.depth >= MAX_DEPTH) { c.col.evasive('shell nesting too deep to analyse'); return; }
    // `sh -c 'cat "$1"' _ FILE`: the words after the code are $0, $1, … inside it.
    const vars = new Map(env.vars);
    const value = (a: EW): string => (a.tilde ? expandHome(a.t, c.home) : a.t);
    rest.forEach((a, k) => { if (a.known) vars.set(String(k), value(a)); });
    const params = rest.slice(1);
    if (params.length === 1 && params[0]?.known) {
      vars.set('@', value(params[0]));
      vars.set('*', value(params[0]));
    }
    nested(code.t, { ...env, vars }, c);
    return;
  }
  if (module) {
    // `-m pytest …` or `-mpytest …`.
    const attached = args[i - 1]?.t.replace(/^-[A-Za-z]*m/, '') ?? '';
    const m = attached || rest[0]?.t || '';
    pythonModule(m, attached ? rest : rest.slice(1), env, c);
    return;
  }
  const script = stdin ? undefined : rest[0];
  if (script && !(script.known && STDIN_SCRIPT.test(script.t))) {
    // A script file: read and run. `bash <(curl …)` runs a download.
    if (!script.known) c.col.evasive(script.subst ? 'a shell runs a computed or downloaded script' : 'a shell runs a script named by a variable');
    else {
      pathOf(script, env, c, 'read');
      scriptProgram(script, env, c);
      if (!interp) runWritten(script, env, c);
    }
    // `node x.js ~/.ssh/id_rsa`: what the script does with its arguments is not known.
    unknownProgram(rest.slice(1), env, c);
    return;
  }
  // The program comes from standard input: a pipe, a here-document, a redirected file.
  const here = feed.redirects.find((r) => r.op === '<<' || r.op === '<<-' || r.op === '<<<');
  if (feed.upstream) c.col.evasive(pipeReason(feed.upstream, env, c));
  else if (here) {
    if (interp) {
      c.col.evasive(`inline ${lang.label} code`);
      if (here.body) scanCode(here.body, env, c);
    }
  } else if (feed.redirects.some((r) => r.op === '<' || r.op === '<>')) c.col.evasive(`${interp ? lang.label : 'a shell'} reads its program from a redirected file`);
  else if (script) c.col.evasive(`${interp ? lang.label : 'a shell'} runs its standard input`);
}

/**
 * Inline code in another language (`python3 -c`, `node -e`, `perl -ne`): not analysed, so unsure.
 * What it visibly names is still reported: quoted absolute or `~` paths as read and written, URLs
 * as hosts contacted.
 */
export function inlineCode(code: string, label: string, env: Env, c: Ctx): void {
  c.col.evasive(`inline ${label} code`);
  scanCode(code, env, c);
}

const QUOTED_PATH_RE = /(['"`])((?:~|\/)[^'"`\n]*)\1/g;

function scanCode(code: string, env: Env, c: Ctx): void {
  if (code.length > 65536) code = code.slice(0, 65536);
  QUOTED_PATH_RE.lastIndex = 0;
  for (let m = QUOTED_PATH_RE.exec(code); m; m = QUOTED_PATH_RE.exec(code)) {
    const t = m[2] as string;
    if (t === '/' && m[1] === '/') continue;
    c.col.op('read');
    c.col.op('write');
    const f = fileUrlPath(t);
    c.col.shellPath(f ?? t, t[0] === '~', env.cwd);
  }
  const before = c.col.hosts.length;
  hostsInText(code, (h) => c.col.host(h));
  // A quoted IP literal (`socket.create_connection(("127.0.0.1", 7411))`) is a host the code may reach.
  for (const m of code.matchAll(/(['"])(\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:]*:[0-9a-f.]*)\1/gi)) c.col.host(hostOfTarget(m[2] as string));
  if (c.col.hosts.length > before) c.col.op('network');
}

/** Why text piped into a shell cannot be seen through, judged by what produced it. */
export function pipeReason(up: Stage[], env: Env, c: Ctx): string {
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
    else if ((n === 'printf' || n === 'echo') && st === up[up.length - 1] && env.depth < MAX_DEPTH) {
      // `echo 'rm -rf ~' | sh`: still unsure (the shell reads a pipe), but what it visibly runs counts.
      const text = printedText(n, expandWords(st.words, env, c), st.redirects);
      if (text !== undefined) nested(text, env, c);
    } else if (n === 'curl' || n === 'wget') reason = 'downloaded script piped to a shell';
    else if (['openssl', 'gunzip', 'zcat', 'gzip', 'rev', 'tr', 'uudecode', 'bzcat', 'xz'].includes(n)) reason = 'decoded text piped to a shell';
  }
  return reason;
}

function interpreterModule(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): void {
  shell(name, args, env, c, feed);
}

/** `python -m MODULE ARGS`: modules known to handle files are judged by their path arguments; others are unsure with them. */
const PY_MODULES = new Set(['pytest', 'unittest', 'pip', 'venv', 'virtualenv', 'mypy', 'black', 'ruff', 'isort', 'flake8', 'pylint', 'build', 'py_compile', 'compileall', 'json.tool', 'coverage', 'doctest', 'timeit', 'cProfile', 'pdb', 'ensurepip', 'site', 'tox', 'nox']);

function pythonModule(mod: string, rest: EW[], env: Env, c: Ctx): void {
  if (mod === 'http.server' || mod === 'SimpleHTTPServer' || mod === 'uploadserver') {
    // Serves a folder whole to anyone who can reach the port.
    c.col.op('network');
    const d = rest.findIndex((a) => a.t === '--directory' || a.t === '-d');
    const dir = d >= 0 ? rest[d + 1] : undefined;
    if (dir) pathOf(dir, env, c, 'read', true);
    else c.col.recursivePath('.', env.cwd);
    return;
  }
  if (mod === 'pip' && rest.some((a) => a.t === 'install' || a.t === 'download')) c.col.op('network');
  // `python -m pytest -p plugin`: the module's own options are judged as the program's.
  codeOptions(mod, rest, c, env);
  unknownProgram(rest, env, c, false, PY_MODULES.has(mod) || mod.startsWith('pip') ? undefined : `python -m ${mod}`);
}

/** bun: `-e`/`--eval`/`--print` is inline code; otherwise a package manager or a script runner. */
function bunCmd(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): void {
  if (args.some((a) => /^(-e|-p|--eval|--print)(=|$)/.test(a.t))) return shell('bun', args, env, c, feed);
  pkgManager(NET_PKG)(args, env, c, feed, name);
  const p = args.filter((a) => !a.t.startsWith('-'));
  const sub = p[0]?.t ?? '';
  const file = sub === 'run' || sub === 'x' ? p[1] : NET_PKG.includes(sub) ? undefined : p[0];
  if (file?.known && /\.(m?[jt]sx?|c[jt]s)$/.test(file.t)) pathOf(file, env, c, 'read');
}

/**
 * A script file an interpreter runs is a program the call starts. `node cli.js` reads ./cli.js
 * from the folder it runs in (no PATH look-up): recorded as that path, so that after `cd
 * <installation>/out/main` it is the CLI's bundle. The bare name too, for the rule's name match.
 */
function scriptProgram(script: EW, env: Env, c: Ctx): void {
  c.col.program(script.t, script.tilde, env.cwd);
  if (!script.t.includes('/')) c.col.program(`./${script.t}`, false, env.cwd);
}

/** deno: `eval CODE` is inline code; `run FILE|URL` reads or fetches the script. */
function deno(args: EW[], env: Env, c: Ctx): void {
  const p = args.filter((a) => !a.t.startsWith('-'));
  const sub = p[0]?.t ?? '';
  if (sub === 'eval') {
    const code = p[1];
    if (code?.known) inlineCode(code.t, 'deno', env, c);
    else c.col.evasive('inline deno code built at run time');
    return;
  }
  if (args.some((a) => a.t.startsWith('--allow-net') || a.t === '-A' || a.t === '--allow-all')) c.col.op('network');
  const file = sub === 'run' || sub === 'test' || sub === 'serve' ? p[1] : undefined;
  if (!file?.known) return;
  if (/^[a-z]+:\/\//i.test(file.t)) {
    c.col.op('network');
    hostsOfUrl(file.t, (h) => c.col.host(h));
  } else {
    pathOf(file, env, c, 'read');
    scriptProgram(file, env, c);
  }
}

/** Shells and language interpreters: inline code, a script file, or a program read from standard input. */
export const INTERPRETER_PROGRAMS: Record<string, Handler> = {
  // Every shell and interpreter run() used to fall back on when no handler claimed the name.
  ...Object.fromEntries([...SHELLS, ...INTERPRETERS].filter((n) => n !== 'deno' && n !== 'bun').map((n) => [n, interpreterModule])),
  deno, bun: bunCmd,
  osascript: (args, env, c, feed) => shell('osascript', args, env, c, feed),
  // TypeScript runners take node's options and run a script file as node does (`tsx bin/x.ts`).
  tsx: (args, env, c, feed) => shell('node', args, env, c, feed), 'ts-node': (args, env, c, feed) => shell('node', args, env, c, feed),
  expect: (args, env, c, feed) => shell('expect', args, env, c, feed), tclsh: (args, env, c, feed) => shell('tclsh', args, env, c, feed), wish: (args, env, c, feed) => shell('wish', args, env, c, feed),
};
