// Words for values, types and fields in problem messages, in the vocabulary of the manifest's
// own syntax: a TOML author writes tables and arrays, a YAML author mappings and lists.
import type { ManifestSyntax, PathSegment } from './source-locations.js';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';

export function objectWord(syntax: ManifestSyntax): string {
  return syntax === 'toml' ? 'table' : syntax === 'yaml' ? 'mapping' : 'object';
}
export function arrayWord(syntax: ManifestSyntax): string {
  return syntax === 'yaml' ? 'list' : 'array';
}

export function typeWithArticle(t: string, syntax: ManifestSyntax): string {
  switch (t) {
    case 'integer':
      return 'an integer';
    case 'object':
      return syntax === 'json' ? 'an object' : `a ${objectWord(syntax)}`;
    case 'array':
      return syntax === 'yaml' ? 'a list' : 'an array';
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    default:
      return `a ${t}`;
  }
}

/** "the string \"30\"", "the number 2.5", "a table", … */
export function describeValue(v: unknown, syntax: ManifestSyntax): string {
  if (v === null || v === undefined) return syntax === 'yaml' ? 'an empty value' : 'null';
  if (typeof v === 'string') return `the string ${JSON.stringify(clip(v))}`;
  if (typeof v === 'number' || typeof v === 'bigint') return `the number ${String(v)}`;
  if (typeof v === 'boolean') return `the boolean ${String(v)}`;
  if (v instanceof Date) return 'a date';
  if (Array.isArray(v)) return typeWithArticle('array', syntax);
  if (typeof v === 'object') return typeWithArticle('object', syntax);
  return `a ${typeof v}`;
}

/** How to write `key` with a literal value in this syntax: `key = 30`, `key: 30`, `"key": 30`. */
export function assignment(key: string, literal: string, syntax: ManifestSyntax): string {
  if (syntax === 'toml') return `${/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key)} = ${literal}`;
  if (syntax === 'yaml') return `${key}: ${literal}`;
  return `${JSON.stringify(key)}: ${literal}`;
}

/** Dotted path for display and for Problem.path: parameters.path.type, platforms[1]. */
export function dotted(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

export function clip(s: string, max = 60): string {
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

export function listWords(items: readonly string[], conj = 'or'): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${conj} ${items[items.length - 1]}`;
}

/** The candidate closest to `word` (edit distance, case-insensitive, prefix/substring), if close enough. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    let score: number;
    if (lc === w) score = 0;
    else if (w.length >= 3 && (lc.startsWith(w) || w.startsWith(lc) || lc.includes(w))) score = 1;
    else score = levenshtein(w, lc);
    if (score < bestScore) {
      bestScore = score;
      best = c;
    }
  }
  const limit = Math.max(2, Math.floor(w.length / 3));
  return bestScore <= limit ? best : undefined;
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] ?? 0;
      prev[j] = Math.min(up + 1, (prev[j - 1] ?? 0) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length] ?? 0;
}
