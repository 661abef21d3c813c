// Python rules, by pattern. Patterns run over a copy of the source in which comments and the
// insides of string literals (docstrings included) are blanked out with spaces — same length, same
// line breaks — so `subprocess` in a docstring or `# eval(x)` never matches, while every offset
// still points at the right line and column. The expression parts of f-strings stay visible
// (they run). String contents are kept aside so that `__import__('subprocess')` can still be
// recognised by the module it names.

import type { Collector } from './collector.js';
import type { RuleId } from './rules.js';

interface Lexed {
  /** The source with comments and string contents blanked. */
  code: string;
  /** Content of each string literal, keyed by the offset of its opening quote. */
  strings: Map<number, string>;
}

const STRING_PREFIX = /^(?:[rRuUbBfFtT]|[rR][bBfFtT]|[bBfFtT][rR])$/;
const IDENT_CHAR = /[\w]/;

export function lexPython(text: string): Lexed {
  const strings = new Map<number, string>();
  const blank: [number, number][] = [];
  lexRange(text, 0, text.length, blank, strings);
  blank.sort((x, y) => x[0] - y[0]);
  return { code: applyBlanks(text, blank), strings };
}

/** Lexes text[from, to): records blanked ranges and string contents. Replacement fields of
 *  f-strings are lexed the same way (they are code, and may hold strings of their own). */
function lexRange(text: string, from: number, to: number, blank: [number, number][], strings: Map<number, string>): void {
  const n = to;
  let i = from;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === 35 /* # */) {
      let j = text.indexOf('\n', i);
      if (j < 0 || j > n) j = n;
      blank.push([i, j]);
      i = j;
      continue;
    }
    if (ch !== 34 /* " */ && ch !== 39 /* ' */) {
      i++;
      continue;
    }
    // A quote: work out the prefix letters (r, b, f, …) written just before it.
    let p = i;
    while (p > from && /[A-Za-z]/.test(text[p - 1] as string) && i - p < 2) p--;
    let prefix = text.slice(p, i);
    if (prefix && (!STRING_PREFIX.test(prefix) || (p > from && IDENT_CHAR.test(text[p - 1] as string)))) prefix = '';
    const isF = /[fFtT]/.test(prefix);
    const q = text[i] as string;
    const triple = text.startsWith(q + q + q, i);
    const close = triple ? q + q + q : q;
    const start = i + close.length;
    let k = start;
    let end = -1;
    const keep: [number, number][] = [];
    while (k < n) {
      const c = text[k];
      if (c === '\\') {
        k += 2;
        continue;
      }
      if (!triple && c === '\n') break; // unterminated: Python stops the string at the line end
      if (text.startsWith(close, k)) {
        end = k;
        break;
      }
      if (isF && c === '{') {
        if (text[k + 1] === '{') {
          k += 2;
          continue;
        }
        // The replacement field is code: keep it visible. Fields longer than 2000 characters (300
        // in a one-line string) or never closed are treated as text: Python rejects an unclosed one, and an unbounded
        // search would make a file of `f"{` quadratic.
        let depth = 1;
        let m = k + 1;
        const limit = Math.min(n, k + (triple ? 2000 : 300));
        while (m < limit && depth > 0) {
          const d = text[m];
          if (d === '{') depth++;
          else if (d === '}') depth--;
          else if (!triple && d === '\n') break;
          if (depth > 0) m++;
        }
        if (depth > 0 && m >= limit) {
          k++;
          continue;
        }
        keep.push([k, m]);
        k = m + 1;
        continue;
      }
      k++;
    }
    const stop = end < 0 ? Math.min(k, n) : end;
    strings.set(i, text.slice(start, stop));
    let lit = start;
    for (const [a, b] of keep) {
      if (a > lit) blank.push([lit, a]);
      lexRange(text, a + 1, Math.min(b, stop), blank, strings);
      lit = b + 1;
    }
    if (stop > lit) blank.push([lit, stop]);
    i = end < 0 ? stop : end + close.length;
  }
}

/** Replaces the given ranges with spaces, keeping line breaks so positions do not move. */
function applyBlanks(text: string, ranges: [number, number][]): string {
  if (ranges.length === 0) return text;
  let out = '';
  let last = 0;
  for (const [a, b] of ranges) {
    if (a < last) continue;
    out += text.slice(last, a) + text.slice(a, b).replace(/[^\r\n]/g, ' ');
    last = b;
  }
  return out + text.slice(last);
}

interface Pattern {
  rule: RuleId;
  re: RegExp;
  message: (m: RegExpExecArray) => string;
}

const DECODERS = /\b(?:b64decode|b32decode|b16decode|a85decode|b85decode|decodebytes|decodestring|unhexlify|fromhex|decompress)\s*\(|\bcodecs\s*\.\s*decode\s*\(/;
const OS_EXEC_NAMES = 'system|popen[234]?|exec(?:l|le|lp|lpe|v|ve|vp|vpe)|spawn(?:l|le|lp|lpe|v|ve|vp|vpe)|posix_spawnp?';

const PATTERNS: Pattern[] = [
  {
    rule: 'py.subprocess',
    re: /\bfrom[ \t]+subprocess\b|\bimport[ \t]+[^\n;]{0,200}?\bsubprocess\b/g,
    message: () => 'Imports subprocess, which runs other programs with the plugin\'s rights; what they do is outside anything this scan can see.',
  },
  {
    rule: 'py.subprocess',
    re: /(?<![\w.])subprocess\s*\.\s*(\w+)/g,
    message: (m) => `subprocess.${m[1]} runs or controls another program with the plugin's rights; what it runs is outside anything this scan can see.`,
  },
  {
    rule: 'py.os-exec',
    re: new RegExp(`(?<![\\w.])os\\s*\\.\\s*(${OS_EXEC_NAMES})\\s*\\(`, 'g'),
    message: (m) => `os.${m[1]} runs a shell command or replaces the process with another program, with the plugin's rights.`,
  },
  {
    rule: 'py.os-exec',
    re: new RegExp(`\\bfrom[ \\t]+os[ \\t]+import[ \\t]+(?:[^\\n;]{0,200}?\\b(${OS_EXEC_NAMES})\\b|\\*)`, 'g'),
    message: (m) => (m[1] ? `Imports os.${m[1]}, which runs a shell command or another program with the plugin's rights.` : 'Imports everything from os, including os.system and os.exec*, which run other programs with the plugin\'s rights.'),
  },
  {
    rule: 'py.os-exec',
    re: /(?<![\w.])(pty\s*\.\s*spawn|commands\s*\.\s*getoutput|commands\s*\.\s*getstatusoutput|platform\s*\.\s*popen)\s*\(/g,
    message: (m) => `${m[1]?.replace(/\s+/g, '')} runs another program (pty.spawn is the classic way to turn a connection into an interactive shell).`,
  },
  {
    rule: 'py.socket',
    re: /\bfrom[ \t]+socket(?:server)?\b|\bimport[ \t]+[^\n;]{0,200}?\bsocket(?:server)?\b|(?<![\w.])socket\s*\.\s*(?:socket|create_connection|create_server|fromfd|socketpair)\s*\(/g,
    message: () => 'Uses raw sockets, which can open connections to any host or listen for them, outside the HTTP hosts a manifest declares.',
  },
  {
    rule: 'py.deserialize',
    re: /(?<![\w.])(pickle|cPickle|_pickle|cloudpickle|dill|marshal)\s*\.\s*(loads?)\s*\(|(?<![\w.])yaml\s*\.\s*(unsafe_load)\s*\(/g,
    message: (m) => `${m[1] ?? 'yaml'}.${m[2] ?? m[3]} turns bytes into objects by running code embedded in them; loading untrusted data this way executes it.`,
  },
  {
    rule: 'py.network-send',
    re: /(?<![\w.])(requests|httpx|session|client)\s*\.\s*(post|put|patch)\s*\(|\burllib\s*\.\s*request\s*\.\s*Request\s*\([^)]{0,500}\bdata\s*=|(?<![\w.])urlopen\s*\([^)]{0,500}\bdata\s*=|(?<![\w.])(smtplib\s*\.\s*SMTP(?:_SSL)?|ftplib\s*\.\s*FTP(?:_TLS)?)\s*\(/g,
    message: () => 'Sends data over the network (an HTTP POST/PUT, an upload or an e-mail); check what is sent and where, since this is how data leaves the machine.',
  },
  {
    rule: 'py.network-request',
    re: /(?<![\w.])(?:requests|httpx)\s*\.\s*(?:get|head|request|Session|Client|AsyncClient)\s*\(|(?<![\w.])urlopen\s*\(|\burllib\s*\.\s*request\b|\bhttp\s*\.\s*client\s*\.\s*HTTPS?Connection\s*\(|\baiohttp\s*\.\s*ClientSession\s*\(/g,
    message: () => 'Makes HTTP requests; check the hosts it contacts match the permissions the manifest declares.',
  },
];

const OS_ALIAS = /\bimport[ \t]+(?:[^\n;]{0,200},\s*)?\bos[ \t]+as[ \t]+([A-Za-z_]\w*)/g;
const EXEC_EVAL = /(?<![\w.])(?<!\bdef\s+)(?:(?:builtins|__builtins__)\s*\.\s*)?(exec|eval)\s*\(/g;
const DYNAMIC_IMPORT = /(?<![\w.])(__import__|importlib\s*\.\s*import_module|import_module)\s*\(\s*/g;
const GETATTR = /(?<![\w.])getattr\s*\(\s*(os|builtins|__builtins__|subprocess)\s*,\s*/g;
const IMPORTLIB_ALIAS = /\bimport[ \t]+importlib[ \t]+as[ \t]+([A-Za-z_]\w*)|\bfrom[ \t]+importlib[ \t]+import[ \t]+(?:[^\n;]{0,200}?,\s*)?(?:import_module|__import__)[ \t]+as[ \t]+([A-Za-z_]\w*)/g;
// Any getattr, and the dict forms of attribute access (vars(m)[x], m.__dict__[x]).
const ANY_GETATTR = /(?<![\w.])getattr\s*\(\s*/g;
const DICT_ACCESS = /(?<![\w.])vars\s*\([^()\n]{0,80}\)\s*\[|\.\s*__dict__\s*\[/g;
// Modules whose functions run programs or code: a computed attribute of one of them can be any of those.
const RISKY_MODULES = /^(?:os|builtins|__builtins__|subprocess|pty|posix|nt|commands|platform|importlib|sys\.modules.*)$/;
const DECODED_ASSIGN = /^[ \t]*([A-Za-z_]\w*)\s*=[^\n]*/gm;

export function scanPython(c: Collector): void {
  const { code, strings } = lexPython(c.text);
  const perLine = new Set<string>();
  const reported = (rule: RuleId, offset: number): boolean => c.full(rule) || perLine.has(`${rule}:${c.lines.position(offset).line}`);
  const add = (rule: RuleId, offset: number, message: string): void => {
    const key = `${rule}:${c.lines.position(offset).line}`;
    if (perLine.has(key)) return;
    perLine.add(key);
    c.at(rule, offset, message);
  };

  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    for (let m = p.re.exec(code); m; m = p.re.exec(code)) add(p.rule, m.index, p.message(m));
  }

  // `import os as o` … `o.system(cmd)`
  OS_ALIAS.lastIndex = 0;
  const aliases = new Set<string>();
  for (let m = OS_ALIAS.exec(code); m; m = OS_ALIAS.exec(code)) if (m[1] !== 'os') aliases.add(m[1] as string);
  if (aliases.size > 0) {
    const re = new RegExp(`(?<![\\w.])(${[...aliases].join('|')})\\s*\\.\\s*(${OS_EXEC_NAMES})\\s*\\(`, 'g');
    for (let m = re.exec(code); m; m = re.exec(code)) add('py.os-exec', m.index, `${m[1]}.${m[2]} (os imported under another name) runs a shell command or another program with the plugin's rights.`);
  }

  // os.__dict__["po" + "pen"], vars(os)[name]: a module that runs programs or code, its functions
  // reached by a key (a review ran `id` this way with a score of 0).
  // os under another name too (`import os as o`), and `.get(…)` as well as `[…]`.
  const mods = ['os', 'builtins', '__builtins__', 'subprocess', 'pty', 'posix', 'nt', 'commands', ...aliases].join('|');
  const riskyDict = new RegExp(`(?<![\\w.])(${mods})\\s*\\.\\s*__dict__\\s*(?:\\[|\\.\\s*get\\s*\\()|(?<![\\w.])vars\\s*\\(\\s*(${mods})\\s*\\)\\s*(?:\\[|\\.\\s*get\\s*\\()`, 'g');
  for (let m = riskyDict.exec(code); m; m = riskyDict.exec(code)) add('py.dynamic-call', m.index, `${(m[1] ?? m[2]) as string}'s attributes looked up by key (${m[0].replace(/\s+/g, '').slice(0, 40)}…): any of its functions (system, popen, exec) can be reached without being named.`);
  // exec/eval, and whether what they run was decoded first (directly or through a variable).
  const decodedVars = new Set<string>();
  DECODED_ASSIGN.lastIndex = 0;
  for (let m = DECODED_ASSIGN.exec(code); m && decodedVars.size < 50; m = DECODED_ASSIGN.exec(code)) if (DECODERS.test(m[0])) decodedVars.add(m[1] as string);
  const decodedUse = decodedVars.size > 0 ? new RegExp(`\\b(?:${[...decodedVars].join('|')})\\b`) : null;
  EXEC_EVAL.lastIndex = 0;
  for (let m = EXEC_EVAL.exec(code); m; m = EXEC_EVAL.exec(code)) {
    if (reported('py.exec-eval', m.index) || reported('py.exec-decoded', m.index)) continue; // one per line
    const argStart = m.index + m[0].length;
    const arg = code.slice(argStart, matchingParen(code, argStart - 1));
    const decoded = DECODERS.test(arg) || (decodedUse !== null && decodedUse.test(arg));
    if (decoded) add('py.exec-decoded', m.index, `${m[1]}() runs data that was decoded (base64, hex or compressed) just before: code hidden from review is executed.`);
    else add('py.exec-eval', m.index, `${m[1]}() runs a string as Python code with the plugin's rights; whatever reaches it (input, network, decoded data) executes.`);
  }

  // __import__ / import_module: a literal names the module (judged like an import), anything else hides it.
  DYNAMIC_IMPORT.lastIndex = 0;
  for (let m = DYNAMIC_IMPORT.exec(code); m; m = DYNAMIC_IMPORT.exec(code)) {
    if (reported('py.dynamic-import', m.index)) continue;
    const after = m.index + m[0].length;
    const lit = stringAt(code, strings, after);
    const fn = (m[1] as string).replace(/\s+/g, '');
    if (lit === undefined) {
      add('py.dynamic-import', m.index, `${fn}() imports a module whose name is computed at run time, which hides which module (for example subprocess) it really loads.`);
      continue;
    }
    const mod = lit.value.split('.')[0] ?? '';
    const rest = code.slice(matchingParen(code, after - 1) + 1, matchingParen(code, after - 1) + 40);
    if (mod === 'subprocess') add('py.subprocess', m.index, `${fn}('${lit.value}') imports subprocess indirectly, which runs other programs with the plugin's rights.`);
    else if (mod === 'socket' || mod === 'socketserver') add('py.socket', m.index, `${fn}('${lit.value}') imports raw sockets indirectly; they can reach any host.`);
    else if (mod === 'pty' || (mod === 'os' && new RegExp(`^\\s*\\.\\s*(?:${OS_EXEC_NAMES})\\b`).test(rest))) add('py.os-exec', m.index, `${fn}('${lit.value}') is used to reach a process-spawning function indirectly (${mod}), a common way to hide a shell command.`);
    else if ((mod === 'pickle' || mod === 'marshal') && /^\s*\.\s*loads?\b/.test(rest)) add('py.deserialize', m.index, `${fn}('${lit.value}') loads serialized data that can run code when decoded.`);
    else if (mod === 'builtins' && /^\s*\.\s*(?:exec|eval)\b/.test(rest)) add('py.exec-eval', m.index, `${fn}('builtins') is used to reach exec/eval indirectly, running strings as code.`);
    else if (/(?<![\w.])getattr\s*\(\s*$/.test(code.slice(Math.max(0, m.index - 40), m.index))) {
      // getattr(__import__('os'), 'system')
      const comma = /^\s*,\s*/.exec(rest);
      const attr = comma ? stringAt(code, strings, matchingParen(code, after - 1) + 1 + comma[0].length) : undefined;
      if (attr && (mod === 'os' || mod === 'subprocess' || mod === 'pty') && new RegExp(`^(?:${OS_EXEC_NAMES}|run|call|check_output|check_call|Popen|spawn)$`).test(attr.value)) {
        add('py.os-exec', m.index, `getattr(${fn}('${lit.value}'), '${attr.value}') reaches a process-spawning function by name, a common way to hide a shell command.`);
      } else if (attr && mod === 'builtins' && (attr.value === 'exec' || attr.value === 'eval')) {
        add('py.exec-eval', m.index, `getattr(${fn}('builtins'), '${attr.value}') reaches ${attr.value} by name, running strings as code.`);
      }
    }
  }

  // A module chosen at run time plus a function in it chosen at run time reaches any function of
  // any module (os.system included) without naming either: importlib.import_module(a) then
  // getattr(m, b). Each alone is ordinary enough (plugin registries, dispatch tables); together, or
  // a computed attribute of a module that runs programs (getattr(os, name)), they hide what runs.
  let computedImport = false;
  DYNAMIC_IMPORT.lastIndex = 0;
  for (let m = DYNAMIC_IMPORT.exec(code); m && !computedImport; m = DYNAMIC_IMPORT.exec(code)) computedImport = stringAt(code, strings, m.index + m[0].length) === undefined;
  // The same under another name: `from importlib import import_module as im`, `import importlib as il`.
  const importers: string[] = [];
  IMPORTLIB_ALIAS.lastIndex = 0;
  for (let m = IMPORTLIB_ALIAS.exec(code); m && importers.length < 20; m = IMPORTLIB_ALIAS.exec(code)) importers.push(m[1] ? `${m[1]}\\s*\\.\\s*(?:import_module|__import__)` : (m[2] as string));
  if (!computedImport && importers.length > 0) {
    const aliased = new RegExp(`(?<![\\w.])(?:${importers.join('|')})\\s*\\(\\s*`, 'g');
    for (let m = aliased.exec(code); m && !computedImport; m = aliased.exec(code)) {
      computedImport = stringAt(code, strings, m.index + m[0].length) === undefined;
      if (computedImport) add('py.dynamic-import', m.index, 'import_module (under another name) imports a module whose name is computed at run time, which hides which module (for example subprocess) it really loads.');
    }
  }
  ANY_GETATTR.lastIndex = 0;
  for (let m = ANY_GETATTR.exec(code); m; m = ANY_GETATTR.exec(code)) {
    const open = code.lastIndexOf('(', m.index + m[0].length);
    // A getattr's arguments are short: one not closed within 200 characters is left to the rules
    // above, and a file of unclosed `getattr(` stays linear.
    if (c.full('py.dynamic-call')) break;
    const close = matchingParen(code, open, 200);
    if (code[close] !== ')') continue;
    const args = splitArgs(code, open + 1, close);
    if (args.length < 2) continue;
    const [objFrom, objTo] = args[0] as [number, number];
    const [nameFrom] = args[1] as [number, number];
    const obj = code.slice(objFrom, objTo).trim().replace(/\s+/g, '');
    let at = nameFrom;
    while (at < code.length && /\s/.test(code[at] as string)) at++;
    if (stringAt(code, strings, at) !== undefined) continue; // a literal name: judged by the rules above
    const risky = RISKY_MODULES.test(obj) || /^(?:__import__|importlib\.import_module|import_module)\(/.test(obj);
    if (risky) add('py.dynamic-call', m.index, `getattr(${obj.slice(0, 40)}, …) takes an attribute whose name is computed at run time from a module that runs programs or code: any of them (system, exec, Popen) can be reached without being named.`);
    else if (computedImport) add('py.dynamic-call', m.index, 'getattr with a computed name, in a file that also imports a module by a computed name: together they reach any function of any module (os.system included) without naming either.');
  }
  if (computedImport) {
    DICT_ACCESS.lastIndex = 0;
    for (let m = DICT_ACCESS.exec(code); m; m = DICT_ACCESS.exec(code)) add('py.dynamic-call', m.index, "An attribute looked up by a computed key (vars(m)[x], m.__dict__[x]) in a file that also imports a module by a computed name: together they reach any function of any module without naming it.");
  }

  // getattr(os, 'system') and friends.
  GETATTR.lastIndex = 0;
  for (let m = GETATTR.exec(code); m; m = GETATTR.exec(code)) {
    const lit = stringAt(code, strings, m.index + m[0].length);
    if (!lit) continue;
    if (m[1] === 'subprocess' || new RegExp(`^(?:${OS_EXEC_NAMES})$`).test(lit.value)) add('py.os-exec', m.index, `getattr(${m[1]}, '${lit.value}') reaches a process-spawning function by name, a common way to hide a shell command.`);
    else if (lit.value === 'exec' || lit.value === 'eval') add('py.exec-eval', m.index, `getattr(${m[1]}, '${lit.value}') reaches ${lit.value} by name, running strings as code.`);
  }
}

/** The top-level arguments of a call whose parenthesis opens just before `from`, as [start, end) ranges. */
function splitArgs(code: string, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  let start = from;
  for (let i = from; i < to; i++) {
    const c = code[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push([start, i]);
      start = i + 1;
    }
  }
  if (code.slice(start, to).trim()) out.push([start, to]);
  return out;
}

/** The string literal (after optional prefix letters) starting at `offset` in the blanked code. */
function stringAt(code: string, strings: Map<number, string>, offset: number): { value: string } | undefined {
  let i = offset;
  while (i < code.length && /[rRbBuUfF]/.test(code[i] as string) && i - offset < 2) i++;
  const v = strings.get(i);
  if (v === undefined) return undefined;
  // Followed by more than a closing paren or comma (e.g. 'sub' + 'process'): not a plain literal.
  const q = code[i] as string;
  const triple = code.startsWith(q + q + q, i);
  const from = i + (triple ? 6 : 2) + v.length;
  const after = code.slice(from, from + 200).match(/^\s*(.)/)?.[1];
  if (after !== undefined && after !== ')' && after !== ',') return undefined;
  return { value: v };
}

/** Offset of the parenthesis closing the one at `open`; looks at most 4000 characters ahead so a
 *  file of unclosed calls stays linear (an argument that long is cut short, not missed). */
function matchingParen(code: string, open: number, max = 4000): number {
  let depth = 0;
  const end = Math.min(code.length, open + max);
  for (let i = open; i < end; i++) {
    const c = code.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41 && --depth === 0) return i;
  }
  return end;
}
