// Path globs for rules (`block_paths`, `block_except`): `~` expansion, validation, and matchers
// compiled once at load (picomatch), so matching a call costs a few regex tests.
import picomatch from 'picomatch';
import { resolveSymlinks } from '../extract/paths.js';

export interface PathContext {
  /** The user's home directory, what `~` in a glob means. */
  home: string;
  /** Match paths case-insensitively (macOS and Windows file systems are). */
  caseInsensitive: boolean;
  /**
   * Also compile each glob for the real path of its base (default true): the one file-system
   * look-up per glob happens here, at load, never while matching a call.
   */
  resolveSymlinks?: boolean;
}

export const defaultCaseInsensitive = (platform: NodeJS.Platform = process.platform): boolean => platform === 'darwin' || platform === 'win32';

const GLOB_SPECIAL = /[*?[\](){}!+@|\\]/g;
const escapeGlob = (literal: string): string => literal.replace(GLOB_SPECIAL, '\\$&');

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.replace(/\/+$/, '') || '/' : p;
}

/**
 * The glob as matched against absolute paths:
 * - `~` and `~/…` start at the home directory (escaped, so a home with `(` in it stays literal);
 * - absolute globs and globs starting with `**` are used as they are;
 * - other globs match at any depth: `.git/hooks/**` as `**` followed by `/.git/hooks/**`, and globs
 *   without a `/` (`*.pem`, `.env`) match the file name anywhere.
 */
export function expandGlob(glob: string, home: string): string {
  const g = glob.trim();
  if (g === '~') return escapeGlob(trimSlash(home));
  if (g.startsWith('~/')) return escapeGlob(trimSlash(home)) + g.slice(1);
  if (g.startsWith('/') || g.startsWith('**')) return g;
  // picomatch's `basename` option misbehaves with globs that have slashes; `**/` is the same thing.
  return `**/${g}`;
}

/** The literal directory a glob starts at (`~/.ssh/**` → `/home/u/.ssh`), or null. */
export function globBase(glob: string, home: string): string | null {
  const g = glob.trim();
  const expanded = g === '~' ? home : g.startsWith('~/') ? trimSlash(home) + g.slice(1) : g;
  if (!expanded.startsWith('/')) return null;
  const scan = picomatch.scan(expanded);
  const base = scan.isGlob ? scan.base : expanded;
  return base === '' ? null : trimSlash(base);
}

/** A problem sentence for a glob, or null when it compiles. */
export function globProblem(glob: string): string | null {
  if (glob.trim() === '') return 'an empty glob';
  if (glob.includes('\0')) return 'a glob with a NUL character';
  if (glob.trim().startsWith('!')) return `"${glob}": negated globs are not supported; use block_except`;
  if (/^~[^/]/.test(glob.trim())) return `"${glob}": only ~ and ~/ are expanded (not ~user)`;
  try {
    picomatch.makeRe(expandGlob(glob, '/home/x'), { strictBrackets: true, dot: true });
  } catch (err) {
    return `"${glob}" is not a valid glob: ${(err as Error).message}`;
  }
  return null;
}

export interface PathPattern {
  readonly empty: boolean;
  /** The glob `path` matches, or null. */
  match(path: string): string | null;
  /**
   * A glob whose protected tree lies inside `path` (deleting, moving or copying `path`, or reading
   * it as a whole tree, reaches what the glob protects), or null. Globs without a literal base
   * (`**` + `/.env`) name files anywhere and are not counted: see docs/security-model.md.
   */
  containsProtected(path: string): string | null;
}

/**
 * The absolute globs one rule glob stands for. A rule names a place by the path an operator would
 * type, but a call may name the same file by another path: the real path of a symlinked home
 * (`/home` → `/var/home` on Fedora Atomic), of GATEHOUSE_HOME, or of any protected base. The
 * extractor adds where a path's symlinks lead, so a call naming the real path directly would slip
 * past a glob compiled from the lexical path alone. Each glob is therefore compiled for the lexical
 * and the real path of its literal base, resolved once here, at load: matching a call never
 * touches the file system. A glob for a tree (`x/**`) also matches the tree's root `x`, also when
 * `x` has wildcards (`~/.config/vivaldi*`): listing `~/.ssh` reveals the names of the keys.
 */
export function globVariants(glob: string, ctx: PathContext): string[] {
  const out: string[] = [];
  const add = (g: string) => {
    if (!out.includes(g)) out.push(g);
    if (g.endsWith('/**') && g.length > 3 && !out.includes(g.slice(0, -3))) out.push(g.slice(0, -3));
  };
  const lexical = expandGlob(glob, ctx.home);
  add(lexical);
  const g = glob.trim();
  if (g === '~' || g.startsWith('~/')) {
    const realHome = realPathOf(trimSlash(ctx.home), ctx);
    if (realHome !== null && realHome !== trimSlash(ctx.home)) add(expandGlob(glob, realHome));
  }
  for (const abs of [...out]) {
    const lit = literalBase(abs);
    if (lit === null) continue;
    const real = realPathOf(lit.base, ctx);
    if (real !== null && real !== lit.base) add(escapeGlob(real) + lit.rest);
  }
  return out;
}

/** Where `path`'s symlinks lead (its longest existing prefix resolved), or null when it cannot be resolved. */
function realPathOf(path: string, ctx: PathContext): string | null {
  if (ctx.resolveSymlinks === false || !path.startsWith('/')) return null;
  try {
    return resolveSymlinks(path);
  } catch {
    return null;
  }
}

const UNESCAPED_SPECIAL = /(^|[^\\])[*?[\](){}!+@|]/;

/**
 * The literal directory an absolute glob starts at, unescaped (`/home/a\(b/.ssh/**` → `/home/a(b/.ssh`),
 * and the glob text after it (`/**`); null for a glob that is not absolute or starts with a wildcard.
 */
function literalBase(abs: string): { base: string; rest: string } | null {
  if (!abs.startsWith('/')) return null;
  const segs = abs.split('/');
  let i = 1;
  while (i < segs.length && !UNESCAPED_SPECIAL.test(segs[i] as string)) i++;
  // A fully literal glob is its own base; otherwise the base stops before the first wildcard segment.
  const baseSegs = segs.slice(1, i).map((s) => s.replace(/\\(.)/g, '$1'));
  if (baseSegs.length === 0) return null;
  const rest = i < segs.length ? '/' + segs.slice(i).join('/') : '';
  return { base: '/' + baseSegs.join('/'), rest };
}

const count = (s: string, ch: string): number => s.split(ch).length - 1;

/**
 * Whether a walk of a folder (its segments below a glob's literal base) can reach a path the rest
 * of the glob matches: each folder segment matches the glob's segment at its depth, and the glob
 * goes deeper (or reaches `**`). A brace or extglob group holding a `/` may span several folders,
 * so it counts as reachable: a protected tree is assumed inside rather than missed.
 */
function reachesBelow(rest: readonly string[], segs: readonly string[], segment: (glob: string) => (name: string) => boolean): boolean {
  for (let i = 0; i < segs.length; i++) {
    const g = rest[i];
    if (g === undefined) return false;
    // A brace or extglob group cut in two by the split held a `/`: it may span folders.
    if (g === '**' || count(g, '{') !== count(g, '}') || count(g, '(') !== count(g, ')')) return true;
    if (!segment(g)(segs[i] as string)) return false;
  }
  return rest.length > segs.length;
}

/**
 * One test for "does any of these globs match": every glob's picomatch regex in one alternation,
 * tested with RegExp#test. Judging a call asks this of every path for every rule, and picomatch's
 * own matcher for a list tries each glob in turn and builds a match result per try (a quarter of
 * a decision's time). The same answer as that matcher: picomatch also counts a path equal to the
 * glob's text as a match, whatever the regex says (`/tmp/[x]` names the file `/tmp/[x]`).
 */
function anyOf(globs: readonly string[], opts: picomatch.PicomatchOptions): (path: string) => boolean {
  const literal = new Set(globs);
  const res = globs.map((g) => picomatch.makeRe(g, opts));
  const flags = res[0]!.flags;
  // Each source is anchored (^…$) on its own, so the alternation needs no group around it.
  const one = res.every((r) => r.flags === flags) ? new RegExp(res.map((r) => r.source).join('|'), flags) : null;
  // picomatch: an empty path matches nothing.
  if (one) return (path) => path !== '' && (literal.has(path) || one.test(path));
  return (path) => path !== '' && (literal.has(path) || res.some((r) => r.test(path)));
}

/**
 * `p` and the folders above it (not `/`): asked by every rule's containment check for the same
 * path in turn, so the last answer is kept (a pure function of the string).
 */
let lastAncestors: { path: string; list: string[] } = { path: '', list: [] };
function ancestorsOf(p: string): readonly string[] {
  if (lastAncestors.path === p) return lastAncestors.list;
  const list: string[] = [];
  for (let at = p; at.length > 1; at = at.slice(0, Math.max(at.lastIndexOf('/'), 1))) list.push(at);
  lastAncestors = { path: p, list };
  return list;
}

export function compilePathPattern(globs: readonly string[], ctx: PathContext): PathPattern {
  const opts: picomatch.PicomatchOptions = { dot: true, nocase: ctx.caseInsensitive, strictBrackets: true };
  const fold = (s: string) => (ctx.caseInsensitive ? s.toLowerCase() : s);
  const compiled = globs.map((g) => {
    const variants = globVariants(g, ctx);
    // The same combined test as `any` below, per glob: which glob matched is asked of every path
    // an allow rule covers, and picomatch's own list matcher built a result object per variant.
    return { glob: g, variants, test: anyOf(variants, opts) };
  });
  const all = compiled.flatMap((c) => c.variants);
  const any = all.length > 0 ? anyOf(all, opts) : null;
  // Where each glob's protected tree starts (lexical and real): a call that reaches an ancestor of
  // one as a whole tree touches it. `literal` globs name exactly their base; the others may match
  // anything under it, the base itself included (`~/.config/vivaldi*/**` under `~/.config`).
  // A folder-segment glob is compiled once, when a walk first reaches it (compiling it on every
  // containment check was a tenth of a decision's time).
  const segmentMatchers = new Map<string, (name: string) => boolean>();
  const segment = (glob: string) => {
    let m = segmentMatchers.get(glob);
    if (!m) segmentMatchers.set(glob, (m = picomatch(glob, opts)));
    return m;
  };
  const bases = compiled.flatMap((c) =>
    c.variants.flatMap((v) => {
      const lit = literalBase(v);
      return lit ? [{ glob: c.glob, base: fold(trimSlash(lit.base)), literal: lit.rest === '', rest: lit.rest.split('/').filter(Boolean) }] : [];
    }),
  );
  // The common answer to containsProtected is "no", and it is asked for every path a recursive
  // call names under every rule: two set look-ups say when the walk over the bases below can
  // find something (a base below the path; the path at or below a wildcard base).
  const above = new Set<string>();
  for (const b of bases) for (let i = b.base.lastIndexOf('/'); i > 0; i = b.base.lastIndexOf('/', i - 1)) above.add(b.base.slice(0, i));
  const wildcardBases = new Set(bases.filter((b) => !b.literal).map((b) => b.base));
  const mayContain = (p: string): boolean => {
    if (bases.length === 0) return false;
    if (p === '/' || above.has(p)) return true;
    if (wildcardBases.size === 0) return false;
    for (const at of ancestorsOf(p)) if (wildcardBases.has(at)) return true;
    return false;
  };
  return {
    empty: compiled.length === 0,
    match(path) {
      if (!any) return null;
      const p = trimSlash(path);
      // One combined regex first: the common answer is "no".
      if (!any(p)) return null;
      return compiled.find((c) => c.test(p))?.glob ?? globs[0] ?? null;
    },
    containsProtected(path) {
      const p = fold(trimSlash(path));
      if (!mayContain(p)) return null;
      const prefix = p === '/' ? '/' : `${p}/`;
      for (const b of bases) {
        if (b.base.startsWith(prefix) || (!b.literal && b.base === p)) return b.glob;
        // Below a wildcard base: a walk of `/proc/1` reaches `/proc/*/environ`.
        if (!b.literal && p.startsWith(`${b.base}/`) && reachesBelow(b.rest, p.slice(b.base.length + 1).split('/'), segment)) return b.glob;
      }
      return null;
    },
  };
}
