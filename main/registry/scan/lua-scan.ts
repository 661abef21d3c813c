// The scanner's look at an adapter's Lua before it loads. The runtime removes these globals
// anyway; a finding still tells the operator that the author tried to run programs, open pipes,
// compile strings or reach the debug library, which is reason enough to read the code.
// Comments and string contents are blanked first (positions kept), so text that only mentions
// os.execute in a string or comment is not a finding.
import { LineIndex } from '../../core/line-index.js';
import type { Finding } from '../types.js';

const PATTERNS: { rule: string; weight: Finding['weight']; re: RegExp; message: string }[] = [
  { rule: 'lua.os-execute', weight: 3, re: /(?<![.:\w])os\s*(?:\.\s*execute\b|\[)/g, message: 'os.execute runs a shell command; an adapter only reads the screen and returns actions, so remove it (the runtime has no os table).' },
  { rule: 'lua.io-popen', weight: 3, re: /(?<![.:\w])io\s*(?:\.\s*popen\b|\[)/g, message: 'io.popen starts a program; an adapter has no process access, so remove it (the runtime has no io table).' },
  { rule: 'lua.load-string', weight: 3, re: /(?<![.:\w])(?:load|loadstring|dofile|loadfile)\s*[("'[]/g, message: 'compiling or loading code at run time hides what the adapter does from review; write the code out (the runtime has no load, loadstring, dofile or loadfile).' },
  { rule: 'lua.debug', weight: 2, re: /(?<![.:\w])debug\s*[.[]/g, message: 'the debug library can reach past the adapter\'s own state; remove it (the runtime has no debug table).' },
];

/** Blanks Lua comments and the contents of strings, keeping every offset where it was. */
export function blankLua(src: string): string {
  const out = src.split('');
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < src.length) {
    const c = src[i];
    const long = /^\[(=*)\[/.exec(src.slice(i, i + 80));
    if (c === '-' && src[i + 1] === '-') {
      const lc = /^\[(=*)\[/.exec(src.slice(i + 2, i + 82));
      const end = lc ? src.indexOf(`]${lc[1]}]`, i + 2) : src.indexOf('\n', i);
      const stop = end < 0 ? src.length : lc ? end + lc[1]!.length + 2 : end;
      blank(i, stop);
      i = stop;
    } else if (long) {
      const end = src.indexOf(`]${long[1]}]`, i);
      const stop = end < 0 ? src.length : end + long[1]!.length + 2;
      blank(i + 1, stop - 1);
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
    } else i++;
  }
  return out.join('');
}

export function scanLua(file: string, src: string): Finding[] {
  const text = blankLua(src);
  const lines = new LineIndex(src);
  const findings: Finding[] = [];
  for (const p of PATTERNS) {
    for (const m of text.matchAll(p.re)) {
      const pos = lines.position(m.index);
      findings.push({ file, line: pos.line, column: pos.column, rule: p.rule, weight: p.weight, message: p.message });
    }
  }
  return findings.sort((a, b) => a.line - b.line || a.column - b.column);
}
