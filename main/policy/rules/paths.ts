// Path globs for rules (`block_paths`, `block_except`): `~` expansion, validation, and matchers
// compiled once at load (picomatch), so matching a call costs a few regex tests.
import picomatch from 'picomatch';

export interface PathContext {
  /** The user's home directory, what `~` in a glob means. */
  home: string;
  /** Match paths case-insensitively (macOS and Windows file systems are). */
  caseInsensitive: boolean;
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
 * - other globs match at any depth: `.git/hooks/**` as `**​/.git/hooks/**`, and globs
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
   * A glob whose starting directory lies inside `path` (deleting, moving or copying `path`
   * reaches what the glob protects), or null.
   */
  containsProtected(path: string): string | null;
}

export function compilePathPattern(globs: readonly string[], ctx: PathContext): PathPattern {
  const opts: picomatch.PicomatchOptions = { dot: true, nocase: ctx.caseInsensitive, strictBrackets: true };
  const compiled = globs.map((g) => ({ glob: g, test: picomatch(expandGlob(g, ctx.home), opts) }));
  const any = compiled.length > 0 ? picomatch(compiled.map((c) => expandGlob(c.glob, ctx.home)), opts) : null;
  const fold = (s: string) => (ctx.caseInsensitive ? s.toLowerCase() : s);
  const bases = globs.flatMap((g) => {
    const b = globBase(g, ctx.home);
    return b ? [{ glob: g, base: fold(b) }] : [];
  });
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
      const prefix = p === '/' ? '/' : `${p}/`;
      for (const b of bases) if (b.base.startsWith(prefix)) return b.glob;
      return null;
    },
  };
}
