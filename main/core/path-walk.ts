// Where a path leads, worked out as the kernel does: one component at a time, a symbolic link read
// where it is met and its target taken from the link's own folder before any `..` after it applies.
// `resolve()` and `posix.normalize()` apply `..` to the text first, so `b/b/../..` with `b -> .`
// reads as the folder itself while the kernel climbs two folders out of it: a plugin shipped such
// a chain, the copy and the scan judged it by its text, and the sandbox followed it out.
import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, sep } from 'node:path';

export interface PathWalk {
  /** Every location a component landed on, in order (links included, where they are; a `..` lands on the folder above). */
  visited: string[];
  /** The links met on the way, where they are. */
  links: string[];
  /** Where the path leads; null when the links loop (more than 40, as the kernel's ELOOP). */
  final: string | null;
}

/** Walks absolute path `p`; a name that does not exist ends the look-ups (the rest is taken as written). */
export function walkPath(p: string): PathWalk {
  const visited: string[] = [];
  const links: string[] = [];
  let todo = p.split(sep).filter(Boolean);
  let cur: string = sep;
  let missing = false;
  for (let hops = 0; todo.length > 0; ) {
    const name = todo.shift()!;
    if (name === '.') continue;
    if (name === '..') {
      cur = dirname(cur);
      visited.push(cur);
      continue;
    }
    const next = join(cur, name);
    visited.push(next);
    if (missing) {
      cur = next;
      continue;
    }
    let target: string | null = null;
    try {
      if (lstatSync(next).isSymbolicLink()) target = readlinkSync(next);
    } catch {
      // Not there, or not searchable: nothing further is looked up.
      missing = true;
    }
    if (target === null) {
      cur = next;
      continue;
    }
    links.push(next);
    if (++hops > 40) return { visited, links, final: null };
    todo = [...target.split(sep).filter(Boolean), ...todo];
    if (isAbsolute(target)) cur = sep;
  }
  return { visited, links, final: cur };
}

/**
 * Where following `rel` from inside folder `root` (a real path, no links in it) leads out of it: a
 * link met on the way that lies outside the folder (someone else can change where it leads), where
 * the path ends when that is outside, "loops", or null when it ends inside with only the folder's
 * own links on the way.
 */
export function leavesFolder(root: string, rel: string): string | null {
  const walk = walkPath(join(root, rel));
  if (walk.final === null) return 'loops';
  const within = (x: string) => x === root || x.startsWith(root === sep ? sep : root + sep);
  return [...walk.links, walk.final].find((v) => !within(v)) ?? null;
}
