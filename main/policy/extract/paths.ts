import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { posix } from 'node:path';
import { stat, SymlinkCache, type Walked } from './symlink-cache.js';
import { walkPath } from '../../core/path-walk.js';

/** How relative paths, `~` and `$HOME` are interpreted for one call. */
export interface PathContext {
  cwd: string;
  home: string;
  resolveSymlinks: boolean;
}

/**
 * Expands a leading `~`, `~/`, `$HOME` or `${HOME}` (file-tool arguments get the same treatment as
 * shell words so that `~/x` and `$HOME/x` can never disagree — a rule on one must catch the other).
 */
export function expandHome(p: string, home: string): string {
  if (p.charCodeAt(0) === 126 /* ~ */) {
    if (p.length === 1 || p.charCodeAt(1) === 47) return home + p.slice(1);
    // `~user/…`: we cannot read the password database cheaply; root is the one that matters.
    const slash = p.indexOf('/');
    const user = slash < 0 ? p.slice(1) : p.slice(1, slash);
    const rest = slash < 0 ? '' : p.slice(slash);
    if (/^[a-z_][a-z0-9_.-]*$/i.test(user)) return (user === 'root' ? '/root' : `/home/${user}`) + rest;
    return p;
  }
  if (p.charCodeAt(0) === 36 /* $ */) {
    if (p.startsWith('$HOME') && (p.length === 5 || p.charCodeAt(5) === 47)) return home + p.slice(5);
    if (p.startsWith('${HOME}')) return home + p.slice(7);
  }
  return p;
}

/**
 * Absolute, lexically normalised path: relative to `cwd`, no `.`/`..` segments, no duplicate or
 * trailing slashes. Pure string work; symlinks are resolved separately.
 */
export function normalisePath(p: string, cwd: string, home: string): string {
  const expanded = expandHome(p, home);
  // Most paths are already in normal form (an absolute path, or a plain relative one under a
  // normal cwd): the same string posix.resolve would build, without its segment-by-segment pass
  // (asked for every path of every call).
  if (expanded.charCodeAt(0) === 47) {
    if (!NOT_NORMAL.test(expanded)) return expanded;
  } else if (expanded !== '' && cwd.charCodeAt(0) === 47 && !NOT_NORMAL.test(cwd) && !NOT_NORMAL.test('/' + expanded)) {
    return cwd === '/' ? '/' + expanded : cwd + '/' + expanded;
  }
  // posix.resolve never consults process.cwd() here because the first argument is absolute.
  const base = cwd.charCodeAt(0) === 47 ? cwd : posix.resolve('/', cwd);
  return posix.resolve(base, expanded);
}

/** What posix.resolve would change in an absolute path: `//`, a `.` or `..` segment, a trailing `/`. */
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

/** An absolute path posix.resolve would leave as it is (see NOT_NORMAL). */
export function inNormalForm(p: string): boolean {
  return p.charCodeAt(0) === 47 && !NOT_NORMAL.test(p);
}

/**
 * The folder a call works in, as policy judges it: `arguments.cwd` (relative to the call's cwd,
 * `~` expanded) when given, else the call's cwd, lexically normalised. The shell tool runs in
 * exactly this folder: two resolutions could disagree, and a command judged in one folder would
 * run in another (a relative `cwd` ran against the host's own working folder).
 */
export function callCwd(call: { cwd: string; arguments: Record<string, unknown> | null }, home: string): string {
  let base = call.cwd || '/';
  // The call's own cwd first (`~/proj` is the home's proj, not `/~/proj`), then the argument on it.
  if (base.charCodeAt(0) !== 47 || base.includes('/.') || base.includes('//')) base = normalisePath(base, '/', home);
  const arg = call.arguments?.['cwd'];
  if (typeof arg === 'string' && arg) return normalisePath(arg, base, home);
  return base;
}

const MAX_RESOLVED_PATH = 4096;

/**
 * Resolves symlinks in an absolute normalised path: realpath of the longest existing prefix, the
 * rest appended. A dangling symlink is followed to where it points, because writing through it
 * creates the target — without that, `ln -s /etc/cron.d/x /tmp/l; echo … > /tmp/l` would look like
 * a write to /tmp.
 *
 * Every call is judged on the file system as it is now; repeated paths are answered from a cache
 * that one stat proves current (symlink-cache.ts says why that is enough).
 */
export function resolveSymlinks(p: string): string {
  return resolved.resolve(p);
}

/**
 * One walk of the file system for `p`, and the anchor that proves the answer while it is
 * unchanged: the path itself when all of it exists, or the deepest existing folder when the first
 * missing name has no entry at all in it, with the anchor's stat. No anchor when a symlink was
 * followed into another part of the tree (a dangling link, a walk from the root), where one stat
 * proves nothing.
 */
export function walkSymlinks(p: string, depth = 0): Walked {
  // Longer than PATH_MAX: no file has this name, and each step below costs a system call the
  // agent chose; the extractor reports such a path as unsure.
  if (depth > 40 || p.length > MAX_RESOLVED_PATH) return { path: p, anchor: null };
  let prefix = p;
  let up = 0;
  let fromRoot = false;
  // Whether a prefix exists is asked with stat(2), not access(2): the same answer, at the same
  // cost, and the stat of the prefix found is the anchor's (symlink-cache.ts says why one taken
  // before the rest of the walk proves as much as one after it), one system call fewer per walk.
  let st: Stats | undefined;
  while (prefix !== '/' && (st = stat(prefix)) === undefined) {
    // A deep tail that does not exist (`/tmp/a/a/a/…`): walk down from the root instead, one
    // look-up per existing folder, rather than one per missing one.
    if (++up > 8) {
      prefix = '/';
      fromRoot = true;
      break;
    }
    const i = prefix.lastIndexOf('/');
    prefix = i <= 0 ? '/' : prefix.slice(0, i);
  }
  let cur: string;
  try {
    cur = realpathSync.native(prefix);
  } catch {
    return { path: p, anchor: null };
  }
  if (prefix.length === p.length) return depth === 0 ? { path: cur, anchor: p, stat: st } : { path: cur, anchor: null };
  const rest = p.slice(prefix === '/' ? 1 : prefix.length + 1).split('/');
  for (let i = 0; i < rest.length; i++) {
    const name = rest[i] as string;
    const candidate = cur === '/' ? '/' + name : cur + '/' + name;
    let entry: Stats | undefined;
    let unreadable = false;
    try {
      entry = lstatSync(candidate, { throwIfNoEntry: false });
    } catch {
      // ENOTDIR (`/etc/hosts/x`), EACCES, ELOOP: nothing further can be resolved; the rest is literal.
      entry = undefined;
      unreadable = true;
    }
    if (entry?.isSymbolicLink()) {
      let target: string;
      try {
        target = readlinkSync(candidate);
      } catch {
        target = name;
      }
      // Followed as the kernel follows it (walkPath): a `..` in the target applies where the links
      // before it lead (`b/b/../../x` with `b -> .` is two folders up), not to its text.
      const raw = `${target.startsWith('/') ? target : `${cur === '/' ? '' : cur}/${target}`}${i + 1 < rest.length ? `/${rest.slice(i + 1).join('/')}` : ''}`;
      const walked = walkPath(raw).final;
      return { path: walked ?? walkSymlinks(posix.resolve(cur, target, ...rest.slice(i + 1)), depth + 1).path, anchor: null };
    }
    // The first missing name, straight under the existing prefix: the prefix's folder holds no
    // entry of that name while its stat is unchanged (an entry made or removed changes it).
    if (!entry) {
      const path = posix.join(cur, ...rest.slice(i));
      if (i !== 0 || depth !== 0 || fromRoot || unreadable) return { path, anchor: null };
      return { path, anchor: prefix, stat: st, absent: prefix === '/' ? '/' + name : prefix + '/' + name, plain: cur === prefix };
    }
    cur = candidate;
  }
  return { path: cur, anchor: null };
}

const resolved = new SymlinkCache(walkSymlinks);
