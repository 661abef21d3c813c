// Text tools: grep and kin, sed, awk, sort, jq and other filters. Their scripts have side doors
// (sed `w`/`e`, awk `system()`), judged here.
import { has, optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { DEVICE_SINKS } from '../shell/redirects.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, literalEW } from '../shell/types.js';
import { generic, READ } from './generic.js';

/**
 * grep and its kin. `always`: the program searches folders whole by default (rg, ag, ack); grep
 * does with `-r`/`-R`/`-d recurse`. A recursive search with no path searches the working folder.
 */
function grepLike(v: string, lv: string[], always = false): Handler {
  return (args, env, c) => {
    c.col.op('read');
    const p = parseArgs(args, v, lv);
    const explicit = has(p, '-e', '-f', '--regexp', '--file', '--files');
    const tree =
      always ||
      has(p, '-r', '-R', '--recursive', '--dereference-recursive') ||
      p.opts.some((o) => (o.name === '-d' || o.name === '--directories') && o.value?.t === 'recurse');
    for (const f of optVals(p, '-f', '--file')) pathOf(f, env, c, 'read');
    let n = 0;
    p.pos.forEach((a, i) => {
      if (i > 0 || explicit) {
        n++;
        pathOf(a, env, c, 'read', tree);
      }
    });
    if (tree && n === 0 && !has(p, '--type-list', '--version', '-V', '--help', '-h')) c.col.recursivePath('.', env.cwd);
  };
}

const rgSearch = grepLike('efmABCgtTjMr', ['--regexp', '--file', '--glob', '--type', '--type-not', '--max-count', '--threads', '--replace', '--context', '--iglob', '--max-depth', '--pre-glob', '--encoding', '--sort', '--sortr', '--type-add', '--ignore-file'], true);

/** ripgrep: recursive by default; `--pre CMD` runs a program on every file it searches. */
function rgHandler(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): void {
  const p = parseArgs(args, '', ['--pre', '--ignore-file']);
  for (const o of p.opts) {
    if (o.name === '--pre') {
      c.col.op('execute');
      c.col.evasive('rg --pre runs a program on every file it searches');
      if (o.value) pathOf(o.value, env, c);
    }
  }
  rgSearch(args.filter((a, i) => a.t !== '--pre' && args[i - 1]?.t !== '--pre' && !a.t.startsWith('--pre=')), env, c, feed, name);
}

function sed(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const p = parseArgs(args, 'efl', ['--expression', '--file', '--line-length']);
  const inPlace = p.opts.some((o) => o.name === '-i' || o.name.startsWith('--in-place'));
  // -i takes an optional attached suffix (`-i.bak`), which parseArgs sees as more flag letters.
  const explicit = has(p, '-e', '-f', '--expression', '--file');
  for (const f of optVals(p, '-f', '--file')) {
    pathOf(f, env, c, 'read');
    c.col.evasive('a sed script read from a file');
  }
  const scripts = explicit ? optVals(p, '-e', '--expression') : p.pos.slice(0, 1);
  for (const sc of scripts) {
    if (sc.known) sedScript(sc.t, env, c);
    else c.col.evasive('a sed script built at run time');
  }
  if (inPlace) c.col.op('write');
  p.pos.forEach((a, i) => { if (i > 0 || explicit) pathOf(a, env, c, inPlace ? 'write' : 'read'); });
}

/**
 * The side doors of a sed script: `w FILE`/`W FILE` and the `w` flag of `s` write a file,
 * `r FILE`/`R FILE` read one, `e` and the `e` flag of `s` run a command. Commands are found at the
 * start of the script, after `;`, a newline, `{` or `}`, past an address.
 */
function sedScript(script: string, env: Env, c: Ctx): void {
  const col = c.col;
  let i = 0;
  const n = script.length;
  const skipBlanks = (): void => { while (i < n && /[ \t]/.test(script.charAt(i))) i++; };
  const restOfLine = (): string => {
    const nl = script.indexOf('\n', i);
    const end = nl < 0 ? n : nl;
    const v = script.slice(i, end);
    i = end;
    return v;
  };
  const regexAddr = (): void => {
    const d = script[i] === '\\' ? script[++i] : '/';
    i++;
    while (i < n && script[i] !== d) { if (script[i] === '\\') i++; i++; }
    i++;
    while (i < n && /[IM]/.test(script.charAt(i))) i++;
  };
  let guard = 0;
  while (i < n && guard++ < 100000) {
    while (i < n && /[\s;{}!]/.test(script.charAt(i))) i++;
    if (i >= n) break;
    // Address: number, $, /re/, \cREc, with an optional `,addr`, `~step` or `+n`.
    for (let k = 0; k < 2; k++) {
      if (/[0-9$]/.test(script.charAt(i))) { while (i < n && /[0-9$~+]/.test(script.charAt(i))) i++; }
      else if (script[i] === '/' || script[i] === '\\') regexAddr();
      if (script[i] === ',') { i++; continue; }
      break;
    }
    while (i < n && /[\s!]/.test(script.charAt(i))) i++;
    const cmd = script[i];
    i++;
    if (cmd === undefined) break;
    if (cmd === 'w' || cmd === 'W') {
      skipBlanks();
      const f = restOfLine().trim();
      if (f && f !== '/dev/stdout' && f !== '/dev/stderr') pathOf(literalEW(f), env, c, 'write');
    } else if (cmd === 'r' || cmd === 'R') {
      skipBlanks();
      const f = restOfLine().trim();
      if (f) pathOf(literalEW(f), env, c, 'read');
    } else if (cmd === 'e') {
      col.op('execute');
      col.evasive('a sed script runs a command (e)');
      restOfLine();
    } else if (cmd === 's' || cmd === 'y') {
      const d = script[i];
      if (d === undefined) break;
      i++;
      for (let parts = 0; parts < 2 && i < n; i++) {
        if (script[i] === '\\') { i++; continue; }
        if (script[i] === d) parts++;
        if (parts === 2) break;
      }
      i++;
      if (cmd === 'y') continue;
      while (i < n && /[gpiImMe0-9]/.test(script.charAt(i))) {
        if (script[i] === 'e') {
          col.op('execute');
          col.evasive('a sed substitution runs its result as a command (s///e)');
        }
        i++;
      }
      if (script[i] === 'w') {
        i++;
        skipBlanks();
        const f = restOfLine().trim();
        if (f && f !== '/dev/stdout' && f !== '/dev/stderr') pathOf(literalEW(f), env, c, 'write');
      }
    } else if ('aic'.includes(cmd) || cmd === ':' || cmd === 'b' || cmd === 't' || cmd === 'T' || cmd === '#') {
      // Text or a label runs to the end of the line.
      restOfLine();
    }
  }
}

/**
 * An awk program's side doors: `system()`, pipes to and from commands (`print | "cmd"`,
 * `"cmd" | getline`) run programs (unsure); `getline < FILE` reads and `print > FILE`/`>> FILE`
 * writes a file (reported when the name is a literal string, unsure when it is computed).
 */
function awkProgram(prog: string, env: Env, c: Ctx): void {
  const col = c.col;
  if (/\bsystem\s*\(|\|\s*&?\s*getline|\|&|\bprint[f]?\b[^;}\n]*\|/.test(prog) || /"[^"]*"\s*\|/.test(prog)) {
    col.op('execute');
    col.evasive('an awk program runs commands (system, pipes)');
  }
  for (const m of prog.matchAll(/\bgetline\b[^<;}\n]*<\s*("([^"]*)"|[^\s;}]+)/g)) {
    if (m[2] !== undefined) pathOf(literalEW(m[2]), env, c, 'read');
    else {
      col.op('read');
      col.evasive('an awk program reads a file it names at run time');
    }
  }
  for (const m of prog.matchAll(/\bprintf?\b[^>;}\n|]*?>>?\s*("([^"]*)"|[^\s;}]+)/g)) {
    if (m[2] !== undefined) {
      if (!DEVICE_SINKS.has(m[2])) pathOf(literalEW(m[2]), env, c, 'write');
    } else {
      col.op('write');
      col.evasive('an awk program writes a file it names at run time');
    }
  }
}

function awk(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const p = parseArgs(args, 'FvfEiWl', ['--file', '--assign', '--field-separator', '--include', '--load', '--exec', '--source']);
  const files = optVals(p, '-f', '--file', '-E', '--exec', '-i', '--include');
  for (const f of files) {
    pathOf(f, env, c, 'read');
    c.col.evasive('an awk program read from a file');
  }
  for (const s of optVals(p, '--source')) if (s.known) awkProgram(s.t, env, c);
  if (has(p, '-l', '--load')) {
    c.col.op('execute');
    c.col.evasive('awk loads an extension library');
  }
  let pos = p.pos;
  if (!files.length && !has(p, '--source')) {
    const prog = pos[0];
    if (prog?.known) awkProgram(prog.t, env, c);
    else if (prog) c.col.evasive('an awk program built at run time');
    pos = pos.slice(1);
  }
  for (const a of pos) if (!(a.known && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a.t))) pathOf(a, env, c, 'read');
}

/** `uniq [IN [OUT]]`: OUT is written. */
function uniq(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const p = parseArgs(args, 'fsw', ['--skip-fields', '--skip-chars', '--check-chars', '--group', '--all-repeated']);
  p.pos.forEach((a, i) => pathOf(a, env, c, i === 1 ? 'write' : 'read'));
}

/** sort: `-o FILE` writes, `--files0-from=F` reads a list of names, `--compress-program` runs one. */
function sort(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const p = parseArgs(args, 'ktoST', ['--output', '--key', '--field-separator', '--buffer-size', '--temporary-directory', '--compress-program', '--files0-from', '--parallel', '--random-source', '--batch-size']);
  for (const o of p.opts) {
    if (!o.value) continue;
    if (o.name === '-o' || o.name === '--output') pathOf(o.value, env, c, 'write');
    else if (o.name === '--random-source') pathOf(o.value, env, c, 'read');
    else if (o.name === '-T' || o.name === '--temporary-directory') pathOf(o.value, env, c, 'write');
    else if (o.name === '--compress-program') {
      c.col.op('execute');
      c.col.evasive('sort --compress-program runs a program');
    } else if (o.name === '--files0-from') {
      pathOf(o.value, env, c, 'read');
      c.col.evasive('sort takes the names to read from a file');
    }
  }
  for (const a of p.pos) pathOf(a, env, c, 'read');
}

/** jq: `--rawfile NAME FILE` and `--slurpfile NAME FILE` read FILE; `-f FILE` is the program. */
function jq(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const pos: EW[] = [];
  let fromFile = false;
  let rest = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (rest || !a.known || t[0] !== '-' || t === '-') {
      pos.push(a);
      continue;
    }
    if (t === '--args' || t === '--jsonargs') {
      // What follows the filter and files are arguments, not files: stop treating them as paths.
      rest = true;
      continue;
    }
    if (t === '--rawfile' || t === '--slurpfile') {
      const f = args[i + 2];
      if (f) pathOf(f, env, c, 'read');
      i += 2;
    } else if (t === '--arg' || t === '--argjson') i += 2;
    else if (t === '-f' || t === '--from-file') {
      fromFile = true;
      const f = args[++i];
      if (f) pathOf(f, env, c, 'read');
    } else if (t.startsWith('--from-file=')) {
      fromFile = true;
      pathOf({ ...a, t: t.slice(12), tilde: t[12] === '~' }, env, c, 'read');
    } else if (t === '--indent' || t === '-L' || t === '--library-path') {
      const v = args[++i];
      if (v && t !== '--indent') pathOf(v, env, c, 'read');
    }
  }
  if (rest) pos.splice(fromFile ? 0 : 1);
  (fromFile ? pos : pos.slice(1)).forEach((a) => pathOf(a, env, c, 'read'));
}

/** Filters, searches and text tools: they read their files; some write an output file or run code of their own. */
export const TEXT_PROGRAMS: Record<string, Handler> = {
  fold: generic({ ops: ['read'], v: 'w' }), paste: generic({ ops: ['read'], v: 'd' }), expand: generic({ ops: ['read'], v: 't' }), unexpand: generic({ ops: ['read'], v: 't' }),
  fmt: generic({ ops: ['read'], v: 'wgp' }), pr: generic({ ops: ['read'], v: 'hwlWoNS' }), join: generic({ ops: ['read'], v: 'aejot12' }), rev: generic(READ),
  column: generic({ ops: ['read'], v: 'sctoNOEHWRr' }), look: generic({ ops: ['read'], skip: 1, v: 't' }), tsort: generic(READ), sum: generic(READ),
  base32: generic({ ops: ['read'], v: 'w' }), basenc: generic({ ops: ['read'], v: 'w' }),
  iconv: generic({ ops: ['read'], v: 'fto', lv: ['--from-code', '--to-code', '--output'], pathOpts: { '-o': 'write', '--output': 'write' } }),
  shuf: generic({ ops: ['read'], v: 'onie', lv: ['--output', '--head-count', '--input-range', '--random-source'], pathOpts: { '-o': 'write', '--output': 'write', '--random-source': 'read' } }),
  strings: generic({ ops: ['read'], v: 'nt' }), od: generic({ ops: ['read'], v: 'tNjAw' }), hexdump: generic({ ops: ['read'], v: 'nsef' }),
  uniq, cut: generic({ ops: ['read'], v: 'dfcb' }),
  sort, awk, gawk: awk, mawk: awk, nawk: awk, busybox_awk: awk, jq,
  base64: generic({ ops: ['read'], v: 'w' }), xxd: (args, env, c) => {
    const p = parseArgs(args, 'cglosn', []);
    const rev = has(p, '-r');
    c.col.op('read');
    p.pos.forEach((a, i) => pathOf(a, env, c, i === 1 ? 'write' : 'read'));
    if (rev && p.pos.length > 1) c.col.op('write');
  },
  grep: grepLike('efmABCdD', ['--regexp', '--file', '--max-count', '--include', '--exclude', '--exclude-dir', '--context']),
  egrep: grepLike('efmABCdD', []), fgrep: grepLike('efmABCdD', []), zgrep: grepLike('efmABC', []),
  rg: rgHandler,
  ag: grepLike('ABCmG', [], true), ack: grepLike('ABCm', [], true),
  sed,
};
