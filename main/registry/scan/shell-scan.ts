// Shell rules, by pattern over two blanked copies of the script (same length and line breaks, so
// offsets map straight back to lines and columns):
//   a — comments, single-quoted text and here-document data blanked;
//   b — as a, and the literal text inside double quotes blanked too (expansions such as "$x" and
//       "$(cmd)" stay, because they run).
// Quoted text that is itself code — the argument of eval, trap, `sh -c`, `su -c` — is not blanked
// but lexed as a script of its own, so `trap 'curl … | sh' EXIT` is still seen. Arithmetic `$((…))`
// is skipped before looking for here-documents, so `1<<2` cannot hide the rest of a file.
//
// Judgment call on cleanup: `rm -rf "$dir"` where dir was set from `$(mktemp …)` in the same script
// is the standard way to remove the script's own temp folder and is not reported. Any other
// `rm -rf` is reported (weight 2); on /, ~, $HOME, a top-level system folder, `--no-preserve-root`,
// or `"$VAR/"…` where VAR is never set in the script (empty VAR means "/…") it is weight 3.

import type { Collector } from './collector.js';
import type { RuleId } from './rules.js';

interface ShellLexed {
  a: string;
  b: string;
  /** Comments blanked, every quoted text kept: where a string spells a device path or encoded command. */
  code: string;
  /** Ranges of quoted strings that were lexed as code (eval/trap/sh -c arguments). */
  inner: [number, number][];
}

// Patterns that run at many positions of a line avoid open-ended runs like \S* before their
// keyword (a path prefix is matched by allowing "/" just before the keyword instead): on a long
// line without spaces such a run makes the scan quadratic, and a plugin author controls the input.
// `-c` may be followed by `--`, and preceded by options that take a value (`-o pipefail`), and the
// shell may be named by $SHELL: `bash -o pipefail -c -- '…'` runs its quoted argument like `sh -c '…'`.
const EXEC_CONTEXT = /(?:^|[\s;&|(`/])(?:eval|trap|(?:(?:ba|z|da|k|a|fi)?sh|\$\{?SHELL\}?)(?:\s+(?:-[-A-Za-z]+|[-+]O?o\s+[\w-]+))*\s+-[A-Za-z]*c[A-Za-z]*(?:\s+--)?|su(?:\s+\S+)*?\s+-c(?:\s+--)?)\s+$/;
const HEREDOC = /^<<(-?)[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z_][\w.-]*))/;
const HEREDOC_TO_SHELL = /(?:^|[\s;&|(`/])(?:(?:ba|z|da|k|a)?sh|source|eval)(?:\s+-[-A-Za-z]+)*\s*$/;

interface Heredoc {
  delim: string;
  /** `<<-`: leading tabs are stripped from the body and the terminator. */
  strip: boolean;
  /** A quoted delimiter: the body is data, nothing in it expands. */
  quoted: boolean;
  /** Offset of the `<<`. */
  opAt: number;
}

class ShellLexer {
  readonly a: Uint16Array;
  readonly b: Uint16Array;
  readonly code: Uint16Array;
  readonly inner: [number, number][] = [];

  constructor(private readonly s: string) {
    const codes = new Uint16Array(s.length);
    for (let i = 0; i < s.length; i++) codes[i] = s.charCodeAt(i);
    this.a = codes;
    this.b = codes.slice();
    this.code = codes.slice();
  }

  private blank(arr: Uint16Array, from: number, to: number): void {
    for (let i = from; i < to; i++) if (arr[i] !== 10 && arr[i] !== 13) arr[i] = 32;
  }

  private blankBoth(from: number, to: number): void {
    this.blank(this.a, from, to);
    this.blank(this.b, from, to);
  }

  private wordStart(i: number): boolean {
    if (i === 0) return true;
    const p = this.s[i - 1] as string;
    return ' \t\r\n;&|()'.includes(p);
  }

  lex(from: number, to: number): void {
    const s = this.s;
    let heredocs: Heredoc[] = [];
    let i = from;
    while (i < to) {
      const c = s.charCodeAt(i);
      if (c === 92 /* \ */) {
        if (s.charCodeAt(i + 1) === 10) {
          // Line continuation: one logical line for the patterns (offsets are unchanged).
          this.a[i] = this.a[i + 1] = this.b[i] = this.b[i + 1] = 32;
        }
        i += 2;
      } else if (c === 10) {
        i++;
        if (heredocs.length > 0) {
          i = this.heredocBodies(i, to, heredocs);
          heredocs = [];
        }
      } else if (c === 35 /* # */ && this.wordStart(i)) {
        let j = s.indexOf('\n', i);
        if (j < 0 || j > to) j = to;
        this.blankBoth(i, j);
        this.blank(this.code, i, j);
        i = j;
      } else if (c === 39 /* ' */) {
        const ansi = i > 0 && s[i - 1] === '$';
        const j = ansi ? this.endOfAnsi(i + 1, to) : this.indexOr(s, "'", i + 1, to);
        if (!ansi && this.execContext(i)) this.codeString(i, j);
        else this.blankBoth(i + 1, j);
        i = j + 1;
      } else if (c === 34 /* " */) {
        const j = this.endOfDouble(i + 1, to);
        if (this.execContext(i)) this.codeString(i, j);
        else this.doubleQuoted(i + 1, j, false);
        i = j + 1;
      } else if (c === 96 /* ` */) {
        const j = this.endOfBacktick(i + 1, to);
        this.lex(i + 1, j);
        i = j + 1;
      } else if (c === 36 /* $ */ && s.startsWith('$((', i)) {
        i = this.endOfArithmetic(i + 3, to);
      } else if (c === 40 /* ( */ && s.charCodeAt(i + 1) === 40 && this.wordStart(i)) {
        i = this.endOfArithmetic(i + 2, to);
      } else if (c === 60 /* < */ && s.startsWith('<<', i) && s[i + 2] !== '<') {
        const m = HEREDOC.exec(s.slice(i, Math.min(to, i + 200)));
        if (m) {
          heredocs.push({ delim: (m[2] ?? m[3] ?? m[4]) as string, strip: m[1] === '-', quoted: !m[4], opAt: i });
          i += m[0].length;
        } else i += 2;
      } else i++;
    }
  }

  /** A quoted string that is code: blank the quotes, lex the inside as a script. */
  private codeString(open: number, close: number): void {
    this.blankBoth(open, open + 1);
    if (close < this.s.length) this.blankBoth(close, close + 1);
    this.inner.push([open + 1, close]);
    this.lex(open + 1, close);
  }

  /** Inside double quotes (or an unquoted here-document): literal text is blanked in b (and in a too
   *  for here-documents); expansions stay; command substitutions are lexed as code. */
  private doubleQuoted(from: number, to: number, heredoc: boolean): void {
    const s = this.s;
    const blankLit = (x: number, y: number): void => {
      this.blank(this.b, x, y);
      if (heredoc) this.blank(this.a, x, y);
    };
    let k = from;
    while (k < to) {
      const c = s[k];
      if (c === '\\') {
        blankLit(k, Math.min(k + 2, to));
        k += 2;
      } else if (s.startsWith('$((', k)) {
        k = this.endOfArithmetic(k + 3, to);
      } else if (s.startsWith('$(', k)) {
        const e = this.endOfParen(k + 2, to);
        this.lex(k + 2, e);
        k = e + 1;
      } else if (c === '`') {
        const e = this.endOfBacktick(k + 1, to);
        this.lex(k + 1, e);
        k = e + 1;
      } else if (s.startsWith('${', k)) {
        k = this.indexOr(s, '}', k, to) + 1;
      } else if (c === '$' && /[A-Za-z_0-9@*#?$!-]/.test(s[k + 1] ?? '')) {
        let e = k + 1;
        if (/[A-Za-z_]/.test(s[e] as string)) while (e < to && /\w/.test(s[e] as string)) e++;
        else e++;
        k = e;
      } else {
        blankLit(k, k + 1);
        k++;
      }
    }
  }

  /** Here-document delimiters known to have no terminator line from a given offset on. */
  private readonly unterminated = new Map<string, number>();

  private heredocBodies(start: number, to: number, docs: Heredoc[]): number {
    const s = this.s;
    let i = start;
    for (const d of docs) {
      const key = `${d.strip ? '-' : ''}${d.delim}`;
      if (i >= (this.unterminated.get(key) ?? Infinity)) return i;
      let ls = i;
      let found = -1;
      while (ls < to) {
        let le = s.indexOf('\n', ls);
        if (le < 0 || le > to) le = to;
        let line = s.slice(ls, le).replace(/\r$/, '');
        if (d.strip) line = line.replace(/^\t+/, '');
        if (line === d.delim) {
          found = ls;
          break;
        }
        ls = le + 1;
      }
      // No terminator: not a here-document we understand; keep scanning the text as code.
      if (found < 0) {
        this.unterminated.set(key, i);
        return i;
      }
      // Fed to a shell (`bash <<EOF`): the body is code. Decided here, once the body is known to
      // exist, rather than at every `<<`.
      if (HEREDOC_TO_SHELL.test(this.decodeB(this.lineStartB(d.opAt), d.opAt))) this.lex(i, found);
      else if (d.quoted) this.blankBoth(i, found);
      else this.doubleQuoted(i, found, true);
      const end = s.indexOf('\n', found);
      i = end < 0 || end > to ? to : end + 1;
    }
    return i;
  }

  private execContext(i: number): boolean {
    // Cheap test first (this runs at every quote): the word before the quote must be eval, trap or
    // a -c option; only then is the line matched against the full pattern.
    const b = this.b;
    let k = i - 1;
    while (k >= 0 && (b[k] === 32 || b[k] === 9)) k--;
    if (k === i - 1) return false;
    const end = k + 1;
    while (k >= 0 && k > i - 40 && b[k] !== 32 && b[k] !== 9 && b[k] !== 10) k--;
    const word = String.fromCharCode(...b.subarray(k + 1, end));
    if (!/^(?:eval|trap|-[A-Za-z]*c[A-Za-z]*|--)$/.test(word.replace(/^.*[;&|(`]/, ''))) return false;
    return EXEC_CONTEXT.test(this.decodeB(this.lineStartB(i), i));
  }

  /** Start of the line holding `i`, looking back at most 200 characters (all any pattern needs;
   *  an unbounded look-back would make a long line of quotes quadratic). */
  private lineStartB(i: number): number {
    let k = i - 1;
    const stop = Math.max(0, i - 200);
    while (k >= stop && this.b[k] !== 10) k--;
    return k + 1;
  }

  private decodeB(from: number, to: number): string {
    return String.fromCharCode(...this.b.subarray(from, to));
  }

  private indexOr(s: string, ch: string, from: number, to: number): number {
    const j = s.indexOf(ch, from);
    return j < 0 || j > to ? to : j;
  }

  private endOfAnsi(k: number, to: number): number {
    const s = this.s;
    while (k < to) {
      if (s[k] === '\\') k += 2;
      else if (s[k] === "'") return k;
      else k++;
    }
    return to;
  }

  endOfDouble(k: number, to: number): number {
    const s = this.s;
    while (k < to) {
      const c = s[k];
      if (c === '\\') k += 2;
      else if (c === '"') return k;
      else if (s.startsWith('$(', k)) k = this.endOfParen(k + 2, to) + 1;
      else if (c === '`') k = this.endOfBacktick(k + 1, to) + 1;
      else k++;
    }
    return to;
  }

  endOfParen(k: number, to: number): number {
    const s = this.s;
    let depth = 1;
    while (k < to) {
      const c = s[k];
      if (c === '\\') k += 2;
      else if (c === "'") k = this.indexOr(s, "'", k + 1, to) + 1;
      else if (c === '"') k = this.endOfDouble(k + 1, to) + 1;
      else if (c === '`') k = this.endOfBacktick(k + 1, to) + 1;
      else if (c === '(') {
        depth++;
        k++;
      } else if (c === ')') {
        if (--depth === 0) return k;
        k++;
      } else k++;
    }
    return to;
  }

  private endOfBacktick(k: number, to: number): number {
    const s = this.s;
    while (k < to) {
      if (s[k] === '\\') k += 2;
      else if (s[k] === '`') return k;
      else k++;
    }
    return to;
  }

  private noArithmeticCloseFrom = Infinity;

  private endOfArithmetic(k: number, to: number): number {
    // Remember where we learnt that no '))' follows, so a file of unclosed `$((` stays linear.
    if (k >= this.noArithmeticCloseFrom) return to;
    const j = this.s.indexOf('))', k);
    if (j < 0) this.noArithmeticCloseFrom = k;
    return j < 0 || j > to ? to : j + 2;
  }
}

export function lexShell(text: string): ShellLexed {
  const lx = new ShellLexer(text);
  lx.lex(0, text.length);
  const decode = (arr: Uint16Array): string => Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength).toString('utf16le');
  return { a: decode(lx.a), b: decode(lx.b), code: decode(lx.code), inner: lx.inner };
}

// ── commands and pipelines ───────────────────────────────────────────────────────────────────

const COMMAND_SEPARATOR = /\|\||&&|;|(?<![<>])&(?![>&])|\n|`|\(|\)/g;
const PIPE = /(?<!\|)\|&?(?!\|)/g;
/** Skips keywords, assignments and wrappers (sudo, env, xargs, eval, trap, sh -c) to the command word. */
const COMMAND_WORD = /^(?:[\s{!]|\$(?![A-Za-z_{]))*(?:(?:if|then|do|else|elif|while|until|time|exec|command|builtin|nohup|nice(?:\s+-n)?(?:\s+-?\d+)?|timeout(?:\s+-\S+)*\s+\S+|stdbuf(?:\s+-\S+)*|(?:sudo|doas)(?:\s+-[ugCDhprtU]\s*\S+|\s+-[-\w]+)*|env(?:\s+-\S+)*(?:\s+[A-Za-z_]\w*=\S*)*|xargs(?:\s+-\S+)*|trap|eval|(?:\S*\/)?(?:(?:ba|z|da|k|a)?sh|\$\{?SHELL\}?)(?:\s+(?:-[-A-Za-z]+|[-+]O?o\s+[\w-]+))*\s+-[A-Za-z]*c[A-Za-z]*(?:\s+--)?|[A-Za-z_]\w*=\S*)\s+)*\\?(\S+)/;
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'lwp-request', 'lwp-download', 'http', 'https']);
const INTERPRETERS = /^(?:(?:ba|z|da|k|a|fi|mk)?sh|python[\d.]*|perl|ruby|node|nodejs|php|lua|busybox|source|\.)$/;

interface Stage {
  start: number;
  end: number;
  /** Command word (basename) and where it starts. */
  word: string;
  /** The command word as written (with its path). */
  raw: string;
  wordAt: number;
  text: string;
}

function pipelines(b: string): Stage[][] {
  const out: Stage[][] = [];
  let segStart = 0;
  const push = (from: number, to: number): void => {
    if (to <= from) return;
    const seg = b.slice(from, to);
    if (!/\S/.test(seg)) return;
    const stages: Stage[] = [];
    let st = 0;
    PIPE.lastIndex = 0;
    const cut = (x: number, y: number): void => {
      const text = seg.slice(x, y);
      const m = COMMAND_WORD.exec(text.length > 400 ? text.slice(0, 400) : text);
      if (!m || !m[1]) return;
      const raw = m[1];
      const word = raw.slice(raw.lastIndexOf('/') + 1);
      stages.push({ start: from + x, end: from + y, word, raw, wordAt: from + x + m[0].length - raw.length, text });
    };
    for (let m = PIPE.exec(seg); m; m = PIPE.exec(seg)) {
      cut(st, m.index);
      st = m.index + m[0].length;
    }
    cut(st, seg.length);
    if (stages.length > 0) out.push(stages);
  };
  COMMAND_SEPARATOR.lastIndex = 0;
  for (let m = COMMAND_SEPARATOR.exec(b); m; m = COMMAND_SEPARATOR.exec(b)) {
    push(segStart, m.index);
    segStart = m.index + m[0].length;
  }
  push(segStart, b.length);
  return out;
}

interface Word {
  value: string;
  start: number;
}

/**
 * Shell words of the original text between `from` and `to`, quotes removed; redirections skipped.
 * Only words starting before `startsBefore`: a quoted word that runs past `to` (a program over
 * several lines) is read whole when `to` is the end of the text.
 */
function words(s: string, from: number, to: number, startsBefore = to): Word[] {
  const out: Word[] = [];
  let k = from;
  const stop = (c: string | undefined): boolean => c === undefined || /[\s;&|()<>]/.test(c);
  while (k < to) {
    while (k < to && /[\s\\]/.test(s[k] as string)) k++;
    if (k >= to || k >= startsBefore) break;
    const redirect = /^\d*(?:>>?|<<?|&>>?|>&|<&)\|?/.exec(s.slice(k, k + 5));
    if (redirect && redirect[0].length > 0 && /[<>]/.test(redirect[0])) {
      k += redirect[0].length;
      while (k < to && /[ \t]/.test(s[k] as string)) k++;
      while (k < to && !stop(s[k])) k++;
      continue;
    }
    if (stop(s[k])) break;
    const start = k;
    let value = '';
    while (k < to && !stop(s[k])) {
      const c = s[k] as string;
      if (c === '\\') {
        value += s[k + 1] ?? '';
        k += 2;
      } else if (c === "'") {
        const e = s.indexOf("'", k + 1);
        const end = e < 0 || e > to ? to : e;
        value += s.slice(k + 1, end);
        k = end + 1;
      } else if (c === '"') {
        let e = k + 1;
        while (e < to && s[e] !== '"') e += s[e] === '\\' ? 2 : 1;
        value += s.slice(k + 1, Math.min(e, to));
        k = e + 1;
      } else {
        value += c;
        k++;
      }
    }
    out.push({ value, start });
  }
  return out;
}

// ── rules ────────────────────────────────────────────────────────────────────────────────────

const RM_CRITICAL = /^(?:\/+\.?\*?|\/+(?:bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|run|sbin|srv|sys|usr|var|Users|System|Library|Applications|private)\/?\*?|~[^/]*(?:\/.*)?|\$\{?HOME\}?(?:\/.*)?|\$\{?USERPROFILE\}?.*)$/;
const VAR_SLASH = /^\$\{?([A-Za-z_]\w*|\d)(\}?)\/+/;
const VAR_PLAIN = /^\$\{?([A-Za-z_]\w*)\}?(?:$|\/)/;
const ASSIGN = /(?<=^|[\s;&(])(?:local\s+|export\s+|readonly\s+|declare\s+(?:-\w+\s+)*)?([A-Za-z_]\w*)=(?=[^\s;&|)])/gm;
const FOR_VAR = /(?<=^|[\s;&(])for\s+([A-Za-z_]\w*)\s+in\b/gm;
const MKTEMP_ASSIGN = /(?<=^|[\s;&(])(?:local\s+|export\s+|readonly\s+|declare\s+(?:-\w+\s+)*)?([A-Za-z_]\w*)=["']?(?:\$\(|`)\s*mktemp\b/gm;

const PROC_SUB_DOWNLOAD = /(?<=^|[\s;&|(`])(?:(?:ba|z|da|k)?sh|source|\.)\s+(?:-\S+\s+)*<\(\s*(curl|wget)\b/gm;
const SUBST_EXEC = /(?<=^|[\s;&|(`/])(?:eval|(?:ba|z|da|k)?sh(?:\s+-[-A-Za-z]+)*\s+-[A-Za-z]*c[A-Za-z]*)\s+["']?\s*(?:\$\(|`)([^)`\n]{0,300})/gm;
const DEV_TCP = /\/dev\/(?:tcp|udp)\//g;
// /dev/tcp spelled in pieces the plain pattern misses: quotes or backslashes between its letters
// ("/dev/"tcp, /d'e'v/tcp, /dev/\tcp), or named without the trailing slash (h=/dev/tcp, then $h/host/port).
const Q = String.raw`(?:["'\\]|\$(?=["']))*`;
const DEV_TCP_SPELLED = new RegExp(String.raw`/${Q}d${Q}e${Q}v${Q}/${Q}(?:t${Q}c${Q}p|u${Q}d${Q}p)(?![\w.-])`, 'g');
// A device path built from variables: /dev/$proto/…, $dev/tcp/…, /dev/$(…).
const DEV_COMPUTED = /\/dev\/["']?(?:\$\{?[A-Za-z_]\w*|\$\()|\$\{?[A-Za-z_]\w*\}?["']?\/["']?(?:tcp|udp)["']?\//g;
// A read-write descriptor opened on a computed path shaped like HOST/PORT (exec 3<>$h/1.2.3.4/80):
// in a shell that is a socket. (`exec 3<>"$fifo"` alone is the FIFO idiom and is left alone.)
const RW_COMPUTED = /\d*<>\s*["']?(?=\$\{?[A-Za-z_]\w*\}?["']?\/[^\s/]+\/\d)/g;
// Escapes that spell printable ASCII (\162\155 is "rm"): text hidden from a reader, not a colour code.
const LETTER_ESCAPE = /\\(?:0?([0-7]{3})|x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4}))/g;
// Command substitutions of printf/echo and ANSI-C strings ($'…'), where encoded text becomes a word.
const SUBST_PRINT = /(?:\$\(|`)\s*(?:command\s+|builtin\s+)?(?:printf|echo|print)\b([^)`\n]{0,300})/g;
const ANSI_C = /\$'((?:[^'\\\n]|\\.){0,300})'/g;
// A command substitution in the place of the command word: the program that runs is computed.
const CMD_POSITION_SUBST = /(?:^|[;&|({!]|\b(?:then|do|else|exec|command|sudo|doas|env|xargs|nohup|time))[ \t]*["']?(?:\$\(|`)([^)`\n]{0,300})/gm;
const DECODING = /\b(?:base64|base32|basenc|xxd|openssl|uudecode|rev|tr|sed|awk|perl|python[\d.]*)\b/;
const NC_EXEC = /(?<=^|[\s;&|(`/])(?:nc|ncat|netcat|nc\.traditional|nc\.openbsd)\s+(?:[^\n;&|]{0,160}?\s)?(?:-[A-Za-z]*[ec][A-Za-z]*|--(?:sh-)?exec|--lua-exec)(?=\s|$)/gm;
const SHELL_I = /(?<=^|[\s;&|(`/])(?:ba|z|da|k)?sh\s+-i\b[^\n;]{0,300}?(?:[<>]&|\|\s*(?:nc|ncat|netcat|telnet|openssl)\b)/gm;
const SOCAT = /(?<=^|[\s;&|(`/])socat\b[^\n;|]{0,300}?\b(?:exec|system):/gim;
const EVAL_VAR = /(?<=^|[\s;&|(`])eval\s+(?:--\s+)?["']?\s*(?=[$`])/gm;
const WRITE_HOME = /(?<![<>&\d])>>?\|?\s*["']?(?:~\/|\$\{?HOME\}?(?=[/"'\s]|$))|(?<=^|[\s;&|(])tee\s+(?:-\S+\s+)*["']?(?:~\/|\$\{?HOME\}?)/gm;

export function scanShell(c: Collector): void {
  const s = c.text;
  const { a, b, code, inner } = lexShell(s);
  const severe = new Set<number>();
  const add = (rule: RuleId, offset: number, message: string): void => {
    if (rule === 'sh.curl-pipe-shell' || rule === 'sh.base64-exec') severe.add(c.lines.position(offset).line);
    c.at(rule, offset, message);
  };

  // Pipelines: downloads or decoded data piped into an interpreter.
  const stagesByPipeline = pipelines(b);
  for (const stages of stagesByPipeline) {
    const interp = stages.findIndex((st, i) => i > 0 && INTERPRETERS.test(st.word));
    if (interp > 0) {
      const dl = stages.findIndex((st) => DOWNLOADERS.has(st.word));
      if (dl >= 0 && dl < interp) {
        const d = stages[dl] as Stage;
        add('sh.curl-pipe-shell', d.wordAt, `${d.word} output is piped into ${(stages[interp] as Stage).word}: code downloaded at run time is executed without ever being reviewed, pinned or scanned.`);
      }
      // printf '\162\155 -rf ~' | sh: the script is spelled with escape codes.
      const spelled = stages.findIndex((st, i) => i < interp && /^(?:printf|echo|print)$/.test(st.word) && letterEscapes(code.slice(st.start, st.end)).length >= 2);
      if (spelled >= 0) {
        const d = stages[spelled] as Stage;
        add('sh.obfuscated-command', d.wordAt, `${d.word} output spelled with escape codes is piped into ${(stages[interp] as Stage).word}: the code that runs is hidden from a reader.`);
      }
      // c=$(printf %s%s cu rl); $c -s URL | sh: the program whose output runs is named by a variable.
      const named = stages.findIndex((st, i) => i < interp && /^["']?\$/.test(st.raw));
      if (named >= 0 && !(dl >= 0 && dl < interp)) {
        const d = stages[named] as Stage;
        add('sh.obfuscated-command', d.wordAt, `The output of ${d.raw.slice(0, 40)} (a program named by a variable, so its name is hidden from a reader) is piped into ${(stages[interp] as Stage).word} and runs as code.`);
      }
      const dec = stages.findIndex((st) => isDecoder(st));
      if (dec >= 0 && dec < interp) {
        const d = stages[dec] as Stage;
        add('sh.base64-exec', d.wordAt, `Decoded data (${d.word}) is piped into ${(stages[interp] as Stage).word}: the code that runs is hidden from review in an encoded blob.`);
      }
    }
  }
  each(PROC_SUB_DOWNLOAD, b, (m) => add('sh.curl-pipe-shell', m.index, `A shell runs <(${m[1]} …): code downloaded at run time is executed without being reviewed, pinned or scanned.`));
  each(SUBST_EXEC, b, (m) => {
    const body = m[1] ?? '';
    if (/^\s*(?:curl|wget)\b/.test(body)) add('sh.curl-pipe-shell', m.index, `The output of ${body.trim().split(/\s/)[0]} is executed as a script: code downloaded at run time runs without being reviewed, pinned or scanned.`);
    else if (/\b(?:base64|base32|xxd|openssl)\b/.test(body)) add('sh.base64-exec', m.index, 'Decoded data is executed as a script: the code that runs is hidden from review in an encoded blob.');
  });

  const plainTcp = new Set<number>();
  each(DEV_TCP, a, (m) => {
    plainTcp.add(m.index);
    add('sh.dev-tcp', m.index, `${s.slice(m.index, m.index + 9)} opens a network connection from the shell itself, the usual way to build a reverse shell or send data out without any network tool.`);
  });
  // The same, spelled so the line above would miss it. Over `code` (comments blanked, quoted text
  // kept): a string or an assignment holding the path is how it is built from variables.
  each(DEV_TCP_SPELLED, code, (m) => {
    if (plainTcp.has(m.index) || c.full('sh.dev-tcp-obfuscated')) return;
    add('sh.dev-tcp-obfuscated', m.index, `${shownCode(m[0])} spells /dev/tcp or /dev/udp in pieces (quotes, escapes, or a variable that holds it): the shell opens a network connection from a path a reader does not see, the usual way to hide a reverse shell.`);
  });
  each(DEV_COMPUTED, code, (m) => c.full('sh.dev-tcp-obfuscated') || add('sh.dev-tcp-obfuscated', m.index, `${shownCode(m[0])}… builds a device path from variables: with tcp or udp in them the shell opens a network connection, hidden from a reader.`));
  each(RW_COMPUTED, b, (m) => add('sh.dev-tcp-obfuscated', m.index, 'A read-write descriptor (<>) is opened on a path held in a variable: the shell way to open /dev/tcp/HOST/PORT without writing it out.'));

  // Commands spelled with escape codes or decoded at run time: what runs is not what a reader sees.
  each(SUBST_PRINT, code, (m) => {
    if (c.full('sh.obfuscated-command')) return;
    const decoded = letterEscapes(m[1] ?? '');
    if (decoded.length >= 2) add('sh.obfuscated-command', m.index, `A command substitution prints text spelled with escape codes (${shownCode(decoded)}): a command or path hidden from a reader, run or used once the substitution is expanded.`);
  });
  each(ANSI_C, code, (m) => {
    if (c.full('sh.obfuscated-command')) return;
    const decoded = letterEscapes(m[1] ?? '');
    if (decoded.length >= 2) add('sh.obfuscated-command', m.index, `$'…' spells text with escape codes (${shownCode(decoded)}): a command or path hidden from a reader.`);
  });
  each(CMD_POSITION_SUBST, code, (m) => {
    if (c.full('sh.obfuscated-command')) return;
    const body = m[1] ?? '';
    if (DECODING.test(body) || letterEscapes(body).length >= 2) add('sh.obfuscated-command', m.index + (m[0].length - m[0].trimStart().length), `The command word is computed by ${shownCode(body.trim())}: the program that runs is decoded or rebuilt at run time, hidden from a reader.`);
  });
  each(NC_EXEC, b, (m) => add('sh.reverse-shell', m.index, 'netcat with -e/-c hands a program (usually a shell) to a network connection: a reverse or bind shell.'));
  each(SHELL_I, b, (m) => add('sh.reverse-shell', m.index, 'An interactive shell (-i) has its input and output redirected to a descriptor or a network tool: a reverse shell.'));
  each(SOCAT, a, (m) => add('sh.reverse-shell', m.index, 'socat connects a program (exec:/system:) to a socket: a reverse or bind shell.'));
  each(EVAL_VAR, b, (m) => {
    if (severe.has(c.lines.position(m.index).line)) return;
    add('sh.eval-variable', m.index, 'eval runs the contents of a variable or command output as shell code; if any of it comes from input, the input becomes commands.');
  });
  each(WRITE_HOME, b, (m) => add('sh.write-home', m.index + (m[0].length - m[0].trimStart().length), 'Writes into the home folder (a redirect or tee to ~ or $HOME), outside the plugin folder; that is how start-up files and keys get planted.'));

  // Downloaded to a file, then run: `curl -o x.sh URL && sh x.sh`, `wget -O f URL; ./f`.
  const downloads = new Map<string, { at: number; tool: string }>();
  for (const stages of stagesByPipeline) {
    for (const st of stages) {
      const end = Math.min(st.end, innerEnd(inner, st.wordAt) ?? st.end);
      if (st.word === 'curl' || st.word === 'wget') {
        const ws = words(s, st.wordAt + st.raw.length, end);
        ws.forEach((w, i) => {
          const v = w.value;
          const next = ws[i + 1]?.value;
          let file: string | undefined;
          if (st.word === 'curl') file = v === '--output' || /^-[A-Za-z]*o$/.test(v) ? next : /^-o./.test(v) ? v.slice(2) : undefined;
          else file = v === '--output-document' || /^-[A-Za-z]*O$/.test(v) ? next : v.startsWith('--output-document=') ? v.slice(18) : /^-O./.test(v) ? v.slice(2) : undefined;
          if (file && file !== '-' && file !== '/dev/null' && !downloads.has(normaliseScriptPath(file))) downloads.set(normaliseScriptPath(file), { at: st.wordAt, tool: st.word });
        });
        continue;
      }
      if (downloads.size === 0) continue;
      let target: string | undefined;
      if (INTERPRETERS.test(st.word)) target = words(s, st.wordAt + st.raw.length, end).find((w) => !w.value.startsWith('-'))?.value;
      else target = words(s, st.wordAt, end)[0]?.value; // the command itself, quotes removed
      if (target === undefined) continue;
      const t = normaliseScriptPath(target);
      const d = downloads.get(t);
      if (d && d.at < st.wordAt) add('sh.curl-pipe-shell', st.wordAt, `Runs ${target}, which this script downloaded with ${d.tool} just before: code fetched at run time executes without being reviewed, pinned or scanned.`);
    }
  }

  // rm -rf and chmod: read their arguments from the original text.
  const mktemp = collect(MKTEMP_ASSIGN, a);
  const assigned = new Set([...collect(ASSIGN, a), ...collect(FOR_VAR, a)]);
  for (const stages of stagesByPipeline) {
    for (const st of stages) {
      const limit = innerEnd(inner, st.wordAt) ?? st.end;
      const end = Math.min(st.end, limit);
      if (st.word === 'rm') checkRm(c, s, st.wordAt, st.wordAt + 2, end, mktemp, assigned);
      else if (st.word === 'find') {
        const m = /\s-(?:exec|execdir|ok)\s+(?:\S*\/)?rm\s/.exec(st.text);
        if (m) {
          const at = st.start + m.index + m[0].lastIndexOf('rm');
          checkRm(c, s, at, at + 2, end, mktemp, assigned);
        }
      } else if (st.word === 'chmod') checkChmod(c, s, st.wordAt, st.wordAt + 5, end);
    }
  }
}

/** The printable ASCII that escape codes in `text` spell (\162\155 → "rm"); other escapes (colours, \n) are left out. */
function letterEscapes(text: string): string {
  let out = '';
  LETTER_ESCAPE.lastIndex = 0;
  for (let m = LETTER_ESCAPE.exec(text); m; m = LETTER_ESCAPE.exec(text)) {
    const cp = m[1] ? parseInt(m[1], 8) : parseInt((m[2] ?? m[3]) as string, 16);
    if (cp >= 0x21 && cp <= 0x7e) out += String.fromCharCode(cp);
  }
  return out;
}

/** A piece of the script quoted in a message, short and on one line. */
function shownCode(v: string): string {
  const one = v.replace(/\s+/g, ' ');
  return one.length > 40 ? `${one.slice(0, 39)}…` : one;
}

function normaliseScriptPath(p: string): string {
  return p.replace(/^(?:\.\/)+/, '').replace(/^["']|["']$/g, '');
}

function each(re: RegExp, text: string, fn: (m: RegExpExecArray) => void): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    fn(m);
    if (m[0].length === 0) re.lastIndex++;
  }
}

function collect(re: RegExp, text: string): Set<string> {
  const out = new Set<string>();
  each(re, text, (m) => {
    if (m[1]) out.add(m[1]);
  });
  return out;
}

/** End of the innermost code string (eval/trap/sh -c argument) holding `at`. `inner` is in order
 *  of start (the lexer records a string before the strings nested in it). */
function innerEnd(inner: [number, number][], at: number): number | undefined {
  let lo = 0;
  let hi = inner.length - 1;
  let last = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((inner[mid] as [number, number])[0] <= at) {
      last = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  for (let k = last, steps = 0; k >= 0 && steps < 256; k--, steps++) {
    const r = inner[k] as [number, number];
    if (at < r[1]) return r[1];
  }
  return undefined;
}

function isDecoder(st: Stage): boolean {
  switch (st.word) {
    case 'base64':
    case 'base32':
    case 'basenc':
      return /\s(?:-\w*[dD]\w*|--decode)(?=\s|$)/.test(st.text);
    case 'openssl':
      return /\b(?:base64|enc)\b/.test(st.text) && /\s-d(?=\s|$)/.test(st.text);
    case 'xxd':
      return /\s-\w*r/.test(st.text);
    case 'uudecode':
      return true;
    default:
      return false;
  }
}

function checkRm(c: Collector, s: string, at: number, from: number, to: number, mktemp: Set<string>, assigned: Set<string>): void {
  let recursive = false;
  let force = false;
  let noPreserveRoot = false;
  let endOfOptions = false;
  const targets: Word[] = [];
  for (const w of words(s, from, to)) {
    const v = w.value;
    if (!endOfOptions && v === '--') endOfOptions = true;
    else if (!endOfOptions && v.startsWith('--')) {
      if (v === '--recursive') recursive = true;
      else if (v === '--force') force = true;
      else if (v === '--no-preserve-root') noPreserveRoot = true;
    } else if (!endOfOptions && /^-[A-Za-z]+$/.test(v)) {
      if (/[rR]/.test(v)) recursive = true;
      if (v.includes('f')) force = true;
    } else targets.push(w);
  }
  if (!recursive || !force || targets.length === 0) return;
  const shown = (w: Word): string => (w.value.length > 40 ? `${w.value.slice(0, 39)}…` : w.value);
  let plain: Word | undefined;
  for (const t of targets) {
    const v = t.value;
    if (noPreserveRoot) {
      c.at('sh.rm-rf-critical', at, 'rm -rf --no-preserve-root explicitly allows deleting the whole file system.');
      return;
    }
    const tmp = VAR_PLAIN.exec(v);
    if (tmp && mktemp.has(tmp[1] as string)) continue; // the script's own mktemp folder
    if (RM_CRITICAL.test(v)) {
      c.at('sh.rm-rf-critical', at, `rm -rf ${shown(t)} deletes ${v.startsWith('~') || v.includes('HOME') || v.includes('USERPROFILE') ? "the user's home folder or files in it" : 'the root or a system folder'}, far outside the plugin folder.`);
      return;
    }
    const vs = VAR_SLASH.exec(v);
    if (vs && !assigned.has(vs[1] as string) && vs[1] !== 'PWD' && vs[1] !== 'HOME') {
      c.at('sh.rm-rf-critical', at, `rm -rf ${shown(t)}: ${vs[1]} is never set in this script, and if it is empty this deletes from / (write "\${${vs[1]}:?}" to stop on an empty value).`);
      return;
    }
    plain ??= t;
  }
  if (plain) c.at('sh.rm-rf', at, `rm -rf ${shown(plain)} deletes recursively without asking; check the path can never point outside the plugin's own files.`);
}

function checkChmod(c: Collector, s: string, at: number, from: number, to: number): void {
  const ws = words(s, from, to);
  const mode = ws.find((w) => !/^-[cfvR]+$/.test(w.value) && !w.value.startsWith('--'));
  if (!mode) return;
  const v = mode.value;
  let setuid = false;
  let world = false;
  const num = /^0*([0-7]{1,4})$/.exec(v);
  if (num) {
    const digits = (num[1] as string).padStart(4, '0');
    setuid = (Number(digits[0]) & 6) !== 0;
    world = (Number(digits[3]) & 2) !== 0;
  } else {
    for (const clause of v.split(',')) {
      const m = /^([ugoa]*)([-+=])([rwxXstugo]*)$/.exec(clause);
      if (!m || m[2] === '-') continue;
      const who = m[1] as string;
      const perms = m[3] as string;
      if (perms.includes('s')) setuid = true;
      if (perms.includes('w') && (who.includes('o') || who.includes('a'))) world = true;
    }
  }
  if (setuid) c.at('sh.chmod-setuid', at, `chmod ${v} sets the setuid/setgid bit: the file then runs with its owner's rights (often root) whoever starts it.`);
  if (world) c.at('sh.chmod-world-writable', at, `chmod ${v} makes files writable by every user on the machine, so anyone can change what the plugin runs.`);
}

// ── code given inline to another interpreter ─────────────────────────────────────────────────

/** An interpreter's option whose value is a program (`python3 -c CODE`, `node -e CODE`), and the language it is. */
const INLINE_OPTIONS: Array<[RegExp, ReadonlySet<string>, InlineLanguage]> = [
  [/^(?:python[\d.]*|pypy[\d.]*)$/, new Set(['-c']), 'python'],
  [/^(?:node|nodejs|bun)$/, new Set(['-e', '--eval', '-p', '--print']), 'js'],
  [/^perl[\d.]*$/, new Set(['-e', '-E']), 'Perl'],
  [/^ruby[\d.]*$/, new Set(['-e']), 'Ruby'],
  [/^php[\d.]*$/, new Set(['-r']), 'PHP'],
  [/^(?:lua[\d.]*|luajit)$/, new Set(['-e']), 'Lua'],
];
/** awk's options that take a value; its program is the first other word unless -f names a file. */
const AWK_VALUE_OPTIONS = new Set(['-F', '-v', '-i', '-l', '--field-separator', '--assign', '--include', '--load']);
/** awk's options that name the file its program is in. */
const AWK_FILE_OPTIONS = /^(?:-f|-E|--file|--exec)(?:=|$)/;
/**
 * system(), a command piped into getline, or a two-way pipe. Each repetition is followed by
 * something it cannot match (`\s*` by `(`, `&` or `getline`), so a run of blanks is crossed once:
 * `\|\s*&?\s*getline` split a run of blanks after `|` in every way, quadratic in its length.
 */
const AWK_RUNS = /\bsystem\s*\(|\|\s*(?:&\s*)?getline|\|&/;
/** What the print statement check below looks at: print/printf, a pipe or redirection, the end of a statement. */
const AWK_PRINT_TOKENS = /\bprintf?\b|[|>;}\n]/g;

/**
 * Whether an awk program reaches past its input: system(), a pipe to or from a command, or a
 * print/printf whose output goes to a command or a file (a `|` or `>` before the statement ends
 * at `;`, `}` or a line break). One pass over the program: a pattern that looked ahead from every
 * print to the end of its statement (`\bprint\b[^;}\n]*?[|>]`) took time growing with the square
 * of the program (a review's 1 MiB script of `print $1 ` took 72 s to scan).
 */
export function awkReaches(program: string): boolean {
  if (AWK_RUNS.test(program)) return true;
  let inPrint = false;
  for (const m of program.matchAll(AWK_PRINT_TOKENS)) {
    const t = m[0];
    if (t === '|' || t === '>') {
      if (inPrint) return true;
    } else if (t === ';' || t === '}' || t === '\n') inPrint = false;
    else inPrint = true;
  }
  return false;
}

export type InlineLanguage = 'python' | 'js' | 'Perl' | 'Ruby' | 'PHP' | 'Lua' | 'awk';

/**
 * Programs a script hands another interpreter inline: `python3 -c '…'`, `node -e '…'`, `perl -e
 * '…'`, and an awk program that runs commands or writes files. Their text is quoted, so the shell
 * rules never read it (a review ran `node -e 'require("child_process")…'` from a shell script
 * with a score of 0). `offset` is where the program's word starts in the script.
 */
export function inlinePrograms(text: string): Array<{ lang: InlineLanguage; via: string; code: string; offset: number }> {
  const { b } = lexShell(text);
  const out: Array<{ lang: InlineLanguage; via: string; code: string; offset: number }> = [];
  for (const stages of pipelines(b)) {
    for (const st of stages) {
      const awk = /^[gmn]?awk$/.test(st.word);
      const option = awk ? undefined : INLINE_OPTIONS.find(([re]) => re.test(st.word));
      if (!awk && !option) continue;
      // The stage ends at the first line break, also one inside the quoted program.
      const rest = words(text, st.wordAt, text.length, st.end).slice(1);
      if (option) {
        const [, flags, lang] = option;
        for (let i = 0; i < rest.length; i++) {
          const w = rest[i] as Word;
          const eq = w.value.indexOf('=');
          if (w.value.startsWith('--') && eq > 0 && flags.has(w.value.slice(0, eq))) {
            out.push({ lang, via: `${st.word} ${w.value.slice(0, eq)}`, code: w.value.slice(eq + 1), offset: w.start + eq + 1 });
            break;
          } else if (flags.has(w.value) && rest[i + 1]) {
            out.push({ lang, via: `${st.word} ${w.value}`, code: (rest[i + 1] as Word).value, offset: (rest[i + 1] as Word).start });
            break; // what follows is the program's arguments
          } else if (!w.value.startsWith('-')) break; // the script file and its arguments
        }
        continue;
      }
      for (let i = 0; i < rest.length; i++) {
        const w = rest[i] as Word;
        if (AWK_FILE_OPTIONS.test(w.value)) break; // the program is a file (filesRunBy)
        if (w.value === '--') continue;
        if (AWK_VALUE_OPTIONS.has(w.value)) {
          i++;
          continue;
        }
        if (w.value.startsWith('-')) continue;
        if (awkReaches(w.value)) out.push({ lang: 'awk', via: st.word, code: w.value, offset: w.start });
        break;
      }
    }
  }
  return out;
}
