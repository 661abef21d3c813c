// getopt-style option parsing shared by the program handlers.
import type { EW } from './types.js';

interface Parsed {
  pos: EW[];
  /** Each option, its value, and the words it took: `args[at]` up to (not including) `args[end]`. */
  opts: Array<{ name: string; value: EW | null; at: number; end: number }>;
}

/** Splits arguments into options (with values) and positionals, getopt-style. */
export function parseArgs(args: EW[], v = '', lv: string[] = []): Parsed {
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
    const at = i;
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      if (eq > 0) opts.push({ name: t.slice(0, eq), value: { ...a, t: t.slice(eq + 1), tilde: t[eq + 1] === '~' }, at, end: at + 1 });
      else if (lv.includes(t)) opts.push({ name: t, value: args[++i] ?? null, at, end: i + 1 });
      else opts.push({ name: t, value: null, at, end: at + 1 });
      continue;
    }
    for (let j = 1; j < t.length; j++) {
      const ch = t.charAt(j);
      if (v.includes(ch)) {
        const rest = t.slice(j + 1);
        const value = rest ? { ...a, t: rest, tilde: rest[0] === '~' } : (args[++i] ?? null);
        opts.push({ name: '-' + ch, value, at, end: Math.min(i + 1, args.length) });
        break;
      }
      opts.push({ name: '-' + ch, value: null, at, end: at + 1 });
    }
  }
  return { pos, opts };
}

export function has(p: Parsed, ...names: string[]): boolean {
  return p.opts.some((o) => names.includes(o.name));
}

export function optVals(p: Parsed, ...names: string[]): EW[] {
  const out: EW[] = [];
  for (const o of p.opts) if (o.value && names.includes(o.name)) out.push(o.value);
  return out;
}

/** The path arguments are walked whole: a `-r`-style option is present, or the command always recurses. */
export function recursive(p: Parsed, rec: string[] | true | undefined): boolean {
  if (rec === true) return true;
  return rec ? p.opts.some((o) => rec.includes(o.name)) : false;
}
