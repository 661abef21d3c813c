// Word expansion as bash does it: variables, braces, tilde and pathname expansion (globs against
// the real file system when the call may look at it, within a per-call budget).
import { escapeGlob, expandBraces, expandGlob, GLOB_DOT, globPrefix, hasGlob, isBareWildcard, MAX_BRACE_WORDS, MAX_GLOB_SCAN, QUOTED_VAR, unescapePattern } from '../globs.js';
import { expandHome } from '../paths.js';
import { VAR_MARK, type Word } from '../shell-ir.js';
import { CALL_BRACE_BUDGET, CALL_SCAN_BUDGET, type Ctx, type Env, type EW, UNKNOWN_VALUE } from './types.js';

export function lookup(name: string, env: Env, c: Ctx): string | undefined {
  const v = env.vars.get(name);
  if (v !== undefined) return v === UNKNOWN_VALUE ? undefined : v;
  if (name === 'HOME') return c.home;
  if (name === 'PWD') return env.cwd;
  if (name === 'IFS') return ' ';
  return c.env?.[name];
}

const MARK_RE = new RegExp(`${VAR_MARK}([^${VAR_MARK}]*)${VAR_MARK}`, 'g');

export function evalWord(w: Word, env: Env, c: Ctx): EW {
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

export function expandWords(words: Word[], env: Env, c: Ctx): EW[] {
  const out: EW[] = [];
  for (const w of words) {
    const e = evalWord(w, env, c);
    if (w.indirect) c.col.evasive('variable indirection');
    if (w.ifs) {
      // Unquoted $IFS splits the word, so `cat${IFS}/etc/passwd` runs `cat /etc/passwd`.
      c.col.evasive('${IFS} used to split words');
      for (const part of e.t.split(/[ \t\n]+/)) if (part) out.push({ ...e, t: part, tilde: false });
    } else if (w.glob !== undefined && e.known) expandPattern(w.glob, w.tilde, e, env, c, out);
    else out.push(e);
  }
  return out;
}

const PATTERN_VAR_RE = new RegExp(`${VAR_MARK}(${QUOTED_VAR}?)([^${VAR_MARK}]*)${VAR_MARK}`, 'g');

/**
 * Brace expansion, then variables, tilde and pathname expansion of one word, in bash's order:
 * `cat ~/.{ssh,x}/id_rsa` is two words, `cat ~/.ss?/id_rsa` the files that match. Only words the
 * grammar marked (unquoted `*?[{` or variables) get here, so plain words cost nothing.
 */
export function expandPattern(pattern: string, tilde: boolean, e: EW, env: Env, c: Ctx, out: EW[]): void {
  const col = c.col;
  const br = expandBraces(pattern, Math.max(1, Math.min(MAX_BRACE_WORDS, c.braceLeft)));
  c.braceLeft -= br.words.length;
  if (br.truncated) {
    col.evasive(c.braceLeft <= 0 ? `brace expansions with more than ${CALL_BRACE_BUDGET} words in one command` : `a brace expansion with more than ${MAX_BRACE_WORDS} words`);
  }
  for (let p of br.words) {
    let known = true;
    if (p.indexOf(VAR_MARK) >= 0) {
      p = p.replace(PATTERN_VAR_RE, (_m, q: string, name: string) => {
        const v = lookup(name, env, c);
        if (v === undefined) {
          known = false;
          return '';
        }
        // An unquoted value is globbed (`x='*'; rm -rf ~/$x`); a quoted one is literal.
        return q ? escapeGlob(v) : v;
      });
    }
    if (!known) {
      out.push(e);
      continue;
    }
    // Tilde expansion applies to each word brace expansion made (`~/{a,b}` is `~/a ~/b`).
    if ((tilde || br.words.length > 1) && p.charCodeAt(0) === 126) {
      const slash = p.indexOf('/');
      const head = slash < 0 ? p : p.slice(0, slash);
      const home = expandHome(unescapePattern(head), c.home);
      if (home !== unescapePattern(head)) p = escapeGlob(home) + (slash < 0 ? '' : p.slice(slash));
    }
    if (!hasGlob(p)) {
      out.push({ ...e, t: unescapePattern(p), tilde: false });
      continue;
    }
    globWord(p, e, env, c, out);
  }
}

function inside(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir === '/' ? '/' : dir + '/');
}

/**
 * Pathname expansion against the real file system when the call may look at it; otherwise (or
 * when the expansion hit a cap or an unreadable folder) the glob's literal start is counted as
 * reached whole and, when it could hold a protected tree, the call is unsure.
 */
function globWord(p: string, e: EW, env: Env, c: Ctx, out: EW[]): void {
  const col = c.col;
  const literal: EW = { ...e, t: unescapePattern(p), tilde: false };
  if (!col.ctx.resolveSymlinks) {
    const g = globPrefix(p, env.cwd);
    literal.globbed = { prefix: g.prefix, bareLast: isBareWildcard(g.segs[g.segs.length - 1] ?? '') };
    // Inside the working folder, below the home folder and not reaching for dot-names, a glob
    // cannot name a protected tree; anywhere else it could.
    const dotted = ((c.globOpts ?? 0) & GLOB_DOT) !== 0 || g.segs.slice(g.first).some((s) => s.startsWith('.') || s.startsWith('\\.'));
    if (dotted || !inside(g.prefix, env.cwd) || inside(c.home, g.prefix) || g.prefix === '/') {
      col.evasive('a glob the judge did not expand');
      col.recursivePath(g.prefix);
    }
    out.push(literal);
    return;
  }
  if (c.scanLeft <= 0) {
    const g = globPrefix(p, env.cwd);
    col.evasive(`globs in one command read more than ${CALL_SCAN_BUDGET} entries`);
    col.recursivePath(g.prefix);
    out.push({ ...literal, globbed: { prefix: g.prefix, bareLast: isBareWildcard(g.segs[g.segs.length - 1] ?? '') } });
    return;
  }
  const r = expandGlob(p, env.cwd, Math.min(MAX_GLOB_SCAN, c.scanLeft), undefined, c.dirs, c.globOpts);
  c.scanLeft -= r.scanned;
  const globbed = { prefix: r.prefix, bareLast: r.bareLast };
  if (r.unsure) {
    col.evasive(r.unsure);
    col.recursivePath(r.prefix);
    out.push({ ...literal, globbed });
    return;
  }
  if (!r.matches.length) {
    // No match: bash passes the word as it is.
    out.push({ ...literal, globbed });
    return;
  }
  for (const m of r.matches) out.push({ ...e, t: m, tilde: false, globbed });
}
