// Brace expansion and pathname expansion (globs) of shell words, done the way bash does them, so
// that `cat ~/.ss?/id_rsa` or `cat ~/.{ssh,x}/id_rsa` is judged as the `cat ~/.ssh/id_rsa` it runs.
//
// The grammar hands over, for each word with unquoted glob or brace characters (or unquoted
// variables, whose values are globbed too), a pattern: unquoted text as written (backslash escapes
// kept, as bash's matcher sees them), quoted text with its special characters backslash-escaped,
// variables as markers. Everything here is bounded: brace results, directory entries scanned and
// matches are capped, and past a cap the caller is told to treat the glob's literal prefix as
// reached whole (and the call as unsure) instead of guessing.
import { walkPath } from '../../core/path-walk.js';
import { lstatSync, opendirSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import type { Node } from 'web-tree-sitter';
import { VAR_MARK } from './shell-ir.js';

/** Marks a variable reference that sat inside double quotes: its value is not globbed. */
export const QUOTED_VAR = '"';

/** Most words a brace expression may produce before the rest is judged unsure. */
export const MAX_BRACE_WORDS = 256;
/** Directory entries one word's glob may read before it is judged unsure. */
export const MAX_GLOB_SCAN = 4096;
/** Matches one word's glob may produce before it is judged unsure. */
export const MAX_GLOB_MATCHES = 512;

const GLOB_CHARS = /[*?[{$]/;
const SPECIAL = /[*?[\]{},\\~]/g;

/** Backslash-escapes every character that is special to brace or pathname expansion. */
export function escapeGlob(s: string): string {
  return s.replace(SPECIAL, '\\$&');
}

interface PatState {
  out: string;
  /** An unquoted glob or brace character, or an unquoted variable, was seen. */
  active: boolean;
}

/**
 * The bash pattern of a word node, or null when nothing in it is expanded (the common case; one
 * regular-expression test decides it for most words). `decoded` gives the text of node kinds whose
 * value the grammar decodes itself (ANSI-C strings), so both agree on it.
 */
export function globPattern(n: Node, decoded: (n: Node) => string): string | null {
  if (!GLOB_CHARS.test(n.text)) return null;
  const st: PatState = { out: '', active: false };
  pat(n, st, false, decoded);
  return st.active ? st.out : null;
}

function pat(n: Node, st: PatState, quoted: boolean, decoded: (n: Node) => string): void {
  switch (n.type) {
    case 'word':
    case 'number': {
      const t = n.text;
      if (quoted) {
        st.out += escapeGlob(t);
        return;
      }
      if (hasUnescaped(t, '*?[{')) st.active = true;
      st.out += t;
      return;
    }
    case 'raw_string':
      st.out += escapeGlob(n.text.slice(1, -1));
      return;
    case 'ansi_c_string':
      st.out += escapeGlob(decoded(n));
      return;
    case 'string':
    case 'translated_string': {
      for (let i = 0; i < n.namedChildCount; i++) {
        const c = n.namedChild(i);
        if (!c) continue;
        if (c.type === 'string_content') st.out += escapeGlob(unescapeDq(c.text));
        else pat(c, st, true, decoded);
      }
      return;
    }
    case 'concatenation':
      for (let i = 0; i < n.namedChildCount; i++) {
        const c = n.namedChild(i);
        if (c) pat(c, st, quoted, decoded);
      }
      return;
    case 'simple_expansion':
      variable(n.text.slice(1), st, quoted);
      return;
    case 'expansion': {
      const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(n.text);
      if (m && m[1]) variable(m[1], st, quoted);
      else st.out += escapeGlob(n.text);
      return;
    }
    case 'brace_expression':
      if (!quoted) st.active = true;
      st.out += quoted ? escapeGlob(n.text) : n.text;
      return;
    default:
      // Substitutions and arithmetic: the word is not known statically anyway.
      if (!n.isNamed && !quoted) {
        if (hasUnescaped(n.text, '*?[{')) st.active = true;
        st.out += n.text;
      } else st.out += escapeGlob(n.text);
  }
}

function variable(name: string, st: PatState, quoted: boolean): void {
  if (!quoted) st.active = true;
  st.out += VAR_MARK + (quoted ? QUOTED_VAR : '') + name + VAR_MARK;
}

function unescapeDq(t: string): string {
  return t.indexOf('\\') < 0 ? t : t.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c));
}

function hasUnescaped(t: string, chars: string): boolean {
  for (let i = 0; i < t.length; i++) {
    const ch = t[i] as string;
    if (ch === '\\') i++;
    else if (chars.includes(ch)) return true;
  }
  return false;
}

/** Removes backslash escapes (the text bash passes when a pattern matches nothing). */
export function unescapePattern(p: string): string {
  if (p.indexOf('\\') < 0) return p;
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const ch = p[i] as string;
    if (ch === '\\' && i + 1 < p.length) out += p[++i];
    else out += ch;
  }
  return out;
}

export function hasGlob(p: string): boolean {
  return hasUnescaped(p, '*?[');
}

// ---- brace expansion ------------------------------------------------------------------------------

/**
 * Expands `{a,b}` and `{1..3}`/`{a..e}` as bash does (left to right, nested, escapes respected).
 * `truncated` when the result was capped.
 */
export function expandBraces(p: string, max = MAX_BRACE_WORDS): { words: string[]; truncated: boolean } {
  const state = { truncated: false };
  const words = braces(p, max, state, 0);
  return { words, truncated: state.truncated };
}

function braces(p: string, max: number, state: { truncated: boolean }, depth: number): string[] {
  if (depth > 16) {
    state.truncated = true;
    return [p];
  }
  // Find the first `{` that has a matching `}` with a top-level `,` or a `..` sequence inside.
  for (let i = 0; i < p.length; i++) {
    const ch = p[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch !== '{') continue;
    let level = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = i + 1; j < p.length; j++) {
      const cj = p[j];
      if (cj === '\\') {
        j++;
        continue;
      }
      if (cj === '{') level++;
      else if (cj === '}') {
        if (level === 0) {
          close = j;
          break;
        }
        level--;
      } else if (cj === ',' && level === 0) commas.push(j);
    }
    if (close < 0) return [p];
    const pre = p.slice(0, i);
    const post = p.slice(close + 1);
    const body = p.slice(i + 1, close);
    let alts: string[] | null;
    if (commas.length) {
      alts = [];
      let s = i + 1;
      for (const c of commas) {
        alts.push(p.slice(s, c));
        s = c + 1;
      }
      alts.push(p.slice(s, close));
    } else alts = sequence(body, max);
    if (!alts) {
      // `{x}` is not an expansion; keep it and look further on.
      const rest = braces(post, max, state, depth + 1);
      return rest.map((r) => pre + '{' + body + '}' + r);
    }
    const out: string[] = [];
    const tails = braces(post, max, state, depth + 1);
    for (const a of alts) {
      for (const mid of braces(a, max, state, depth + 1)) {
        for (const t of tails) {
          if (out.length >= max) {
            state.truncated = true;
            return out;
          }
          out.push(pre + mid + t);
        }
      }
    }
    return out;
  }
  return [p];
}

function sequence(body: string, max: number): string[] | null {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m || m[1] === undefined || m[2] === undefined) return null;
  const num = /\d/.test(m[1]);
  if (num !== /\d/.test(m[2])) return null;
  const a = num ? Number(m[1]) : m[1].charCodeAt(0);
  const b = num ? Number(m[2]) : m[2].charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(m[3] ?? 1)) || 1);
  const out: string[] = [];
  const dir = a <= b ? 1 : -1;
  for (let v = a; dir > 0 ? v <= b : v >= b; v += dir * step) {
    out.push(num ? String(v) : escapeGlob(String.fromCharCode(v)));
    if (out.length > max) break;
  }
  return out;
}

// ---- pathname expansion ---------------------------------------------------------------------------

export interface GlobResult {
  /** Matches, sorted as bash sorts them (empty: no match, bash passes the word as it is). */
  matches: string[];
  /** Absolute directory before the first segment with a glob character. */
  prefix: string;
  /** The last segment is a bare wildcard (`*`, `?*`, `**`): the glob names every child of its parent. */
  bareLast: boolean;
  /** Why the expansion could not be completed (a cap, an unreadable folder); null when it was. */
  unsure: string | null;
  /** Directory entries read (the caller keeps a budget per call across all its globs). */
  scanned: number;
}

/** Splits a pattern at unescaped slashes. */
function segments(p: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < p.length; i++) {
    const ch = p[i] as string;
    if (ch === '\\' && i + 1 < p.length) {
      cur += ch + p[++i];
      continue;
    }
    if (ch === '/') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** A glob segment as an anchored regular expression (`*`, `?`, `[…]` with `!`/`^`, escapes); `nocase`: in any letter case. */
export function segmentRegExp(seg: string, nocase = false): RegExp {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i] as string;
    if (ch === '\\' && i + 1 < seg.length) {
      re += escapeRe(seg[++i] as string);
    } else if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '[') {
      let j = i + 1;
      if (seg[j] === '!' || seg[j] === '^') j++;
      if (seg[j] === ']') j++;
      while (j < seg.length && seg[j] !== ']') j++;
      if (j >= seg.length) {
        re += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, j);
      let neg = false;
      if (body[0] === '!' || body[0] === '^') {
        neg = true;
        body = body.slice(1);
      }
      // Character classes ([:alpha:]) are kept; everything else that is special in a JS class escaped.
      const cls = body.replace(/\[:[a-z]+:\]/g, (m) => POSIX_CLASSES[m] ?? '').replace(/[\\\]^]/g, (m) => '\\' + m);
      re += '[' + (neg ? '^' : '') + cls + ']';
      i = j;
    } else re += escapeRe(ch);
  }
  return new RegExp('^' + re + '$', nocase ? 'si' : 's');
}

const POSIX_CLASSES: Record<string, string> = {
  '[:alpha:]': 'A-Za-z', '[:digit:]': '0-9', '[:alnum:]': 'A-Za-z0-9', '[:upper:]': 'A-Z', '[:lower:]': 'a-z',
  '[:space:]': ' \\t\\n\\r\\f\\v', '[:punct:]': '!-\\/:-@\\[-`{-~', '[:xdigit:]': '0-9A-Fa-f', '[:word:]': 'A-Za-z0-9_',
};

function escapeRe(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? '\\' + ch : ch;
}

/** The absolute directory a glob starts from: its leading segments without glob characters. */
export function globPrefix(pattern: string, cwd: string): { prefix: string; segs: string[]; first: number } {
  const segs = segments(pattern);
  const absolute = pattern.startsWith('/');
  let first = absolute ? 1 : 0;
  const lit: string[] = [];
  for (; first < segs.length; first++) {
    const s = segs[first] as string;
    if (hasGlob(s)) break;
    lit.push(unescapePattern(s));
  }
  const lexical = posix.resolve(absolute ? '/' : cwd, ...lit);
  // A `..` after a link climbs from where the link leads (walkPath), as bash's glob does: with
  // `b -> .`, `b/b/../../.ss*` lists the folder two up, not the one its text names.
  const prefix = lit.includes('..') ? (walkPath(`${absolute ? '' : cwd}/${lit.join('/')}`).final ?? lexical) : lexical;
  return { prefix, segs, first };
}

export function isBareWildcard(seg: string): boolean {
  return /^[*?]+$/.test(seg) && seg.includes('*');
}

/** Folders already read during one call: a command that globs one folder many times reads it once. */
export type DirCache = Map<string, { names: string[]; over: boolean } | 'unreadable'>;

/**
 * The shell options that change what a glob matches (`shopt -s dotglob nocaseglob globstar`, and
 * dotglob when GLOBIGNORE is set), as bits. The judge only ever turns them on for a call: a glob
 * expanded with one on matches at least what it would with it off.
 */
export const GLOB_DOT = 1;
export const GLOB_NOCASE = 2;
export const GLOB_STAR = 4;

/** Most folders deep a globstar `**` is followed (the scan budget bounds it first in practice). */
const MAX_STAR_DEPTH = 32;

/**
 * Expands one pattern against the file system as bash does: without `dotglob` (`opts`), `*` and
 * `?` do not match a leading dot unless the segment starts with one; `.` and `..` are never
 * matched; with `nocaseglob` a segment with glob characters matches in any letter case; with
 * `globstar` a `**` segment matches any number of folders (every file and folder below, last).
 * Results are sorted, and a pattern that matches nothing is left to the caller (bash passes it as
 * it is). Results are in the pattern's own form (relative stays relative).
 */
export function expandGlob(pattern: string, cwd: string, scanCap = MAX_GLOB_SCAN, matchCap = MAX_GLOB_MATCHES, cache?: DirCache, opts = 0): GlobResult {
  const { prefix, segs, first } = globPrefix(pattern, cwd);
  const last = segs[segs.length - 1] ?? '';
  const res: GlobResult = { matches: [], prefix, bareLast: isBareWildcard(last), unsure: null, scanned: 0 };
  const absolute = pattern.startsWith('/');
  // Results keep the pattern's own form: relative stays relative, as bash passes them.
  const litSegs = segs.slice(absolute ? 1 : 0, first).map(unescapePattern);
  let current: Array<{ fs: string; text: string }> = [{ fs: prefix, text: absolute ? '/' + litSegs.join('/') : litSegs.join('/') }];
  /** The sorted names in a folder; null when it is not one; a string when the glob must stop. */
  const read = (fs: string): string[] | null | string => {
    const hit = cache?.get(fs);
    if (hit === 'unreadable') return `a glob over a folder the judge cannot read (${fs})`;
    if (hit) return hit.over ? `a glob over more than ${MAX_GLOB_SCAN} entries` : hit.names;
    const names: string[] = [];
    // Read entry by entry, so that a folder with a million files costs no more than the cap.
    try {
      const dir = opendirSync(fs);
      try {
        for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
          if (++res.scanned > scanCap) break;
          names.push(e.name);
        }
      } finally {
        dir.closeSync();
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      cache?.set(fs, 'unreadable');
      return `a glob over a folder the judge cannot read (${fs})`;
    }
    if (res.scanned > scanCap) {
      // Only a read cut at the per-folder cap is known to be too big; one cut by what is left
      // of the call's budget is not cached as such.
      if (scanCap >= MAX_GLOB_SCAN) cache?.set(fs, { names: [], over: true });
      return `a glob over more than ${scanCap} entries`;
    }
    names.sort();
    cache?.set(fs, { names, over: false });
    return names;
  };
  const dotAll = (opts & GLOB_DOT) !== 0;
  for (let i = first; i < segs.length; i++) {
    const seg = segs[i] as string;
    const isLast = i === segs.length - 1;
    const next: Array<{ fs: string; text: string }> = [];
    if (seg === '') {
      // A trailing slash (`*/`) keeps only directories; a doubled slash changes nothing.
      for (const c of current) next.push({ fs: c.fs, text: c.text + '/' });
      current = next;
      continue;
    }
    if (!hasGlob(seg)) {
      const name = unescapePattern(seg);
      for (const c of current) {
        const fs = posix.join(c.fs, name);
        if (lstatSync(fs, { throwIfNoEntry: false })) next.push({ fs, text: join(c.text, name) });
      }
      current = next;
      continue;
    }
    if (seg === '**' && (opts & GLOB_STAR) !== 0) {
      // globstar: the folder itself (zero folders) and every folder below it, or, last, every
      // file and folder below it. Links to folders are followed (a superset of what bash lists).
      const seen = new Set<string>();
      let work = 0;
      let level = current;
      for (let depth = 0; level.length && depth <= MAX_STAR_DEPTH; depth++) {
        const deeper: Array<{ fs: string; text: string }> = [];
        for (const c of level) {
          if (seen.has(c.fs)) continue;
          seen.add(c.fs);
          if (depth > 0 || !isLast) next.push(c);
          const names = read(c.fs);
          if (typeof names === 'string') {
            res.unsure = names;
            return res;
          }
          for (const name of names ?? []) {
            if (name.charCodeAt(0) === 46 && !dotAll) continue;
            // Folders read again through links come from the cache: each name looked at counts.
            if (++work > scanCap) {
              res.unsure = `a ** glob over more than ${scanCap} entries`;
              return res;
            }
            const fs = c.fs === '/' ? '/' + name : c.fs + '/' + name;
            if (isDir(fs)) deeper.push({ fs, text: join(c.text, name) });
            else if (isLast) next.push({ fs, text: join(c.text, name) });
          }
          if (next.length > matchCap) {
            res.unsure = `a glob with more than ${matchCap} matches`;
            return res;
          }
        }
        level = deeper;
        if (depth === MAX_STAR_DEPTH && level.length) {
          res.unsure = `a ** glob more than ${MAX_STAR_DEPTH} folders deep`;
          return res;
        }
      }
      current = next;
      continue;
    }
    const re = segmentRegExp(seg, (opts & GLOB_NOCASE) !== 0);
    const dots = dotAll || seg.startsWith('.') || seg.startsWith('\\.');
    for (const c of current) {
      const names = read(c.fs);
      if (typeof names === 'string') {
        res.unsure = names;
        return res;
      }
      for (const name of names ?? []) {
        if (name.charCodeAt(0) === 46 && !dots) continue;
        if (name === '.' || name === '..') continue;
        if (!re.test(name)) continue;
        const fs = c.fs === '/' ? '/' + name : c.fs + '/' + name;
        if (!isLast && !isDir(fs)) continue;
        next.push({ fs, text: join(c.text, name) });
        if (next.length > matchCap) {
          res.unsure = `a glob with more than ${matchCap} matches`;
          return res;
        }
      }
    }
    current = next;
  }
  res.matches = current.map((c) => c.text);
  return res;
}

function join(a: string, name: string): string {
  if (a === '') return name;
  return a.endsWith('/') ? a + name : a + '/' + name;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
