// Where a path's symlinks lead is asked for every path of every call, and a walk costs 4–8 system
// calls (a third of a decision's time). Agents repeat their paths, so answers are kept — but an
// agent that swaps a folder for a symlink between two calls must be judged on the swap, never on
// the answer from before it. So a kept answer is used only after one stat proves it current:
//
// - A path that exists whole: the stat (which follows symlinks) must find the same object (device
//   and inode) with the same ctime. A symlink on the way retargeted, or a folder on the way
//   replaced, reaches another object; the same object reached another way is the same file.
// - A path whose first missing name sits straight under an existing folder: that folder, stated
//   the same way. Making, removing or renaming any entry in a folder changes its ctime (and mtime),
//   so the name is still absent and nothing new (a symlink) stands where it would be.
// - The same, for a folder that changes all the time (a project's src while the agent works, a
//   shared temp folder): its times prove nothing for long, and every call walked again. When no name on the
//   way to the folder is a symlink, the folder is stated without following links (lstat), so it
//   must still be that folder itself, not a link put at its name; when its times moved but it is
//   the same folder (device, inode and birth time: a folder made again gets a new birth time,
//   which no one but root can set) one more lstat asks for the missing name itself, and only
//   "no entry" keeps the answer. Two system calls instead of a walk.
//
// What one stat cannot see: a folder above the anchor renamed away and a symlink to it put at
// its old name. The anchor is then the same object with the same times, reached by a new real
// path (`mv work protected/work; ln -s protected/work work` leaves work/d/f.txt the same file).
// Every component would have to be checked to see it, which costs what the walk costs. So an
// answer is reused for at most REUSE_MS after the walk that made it: past that, the path is
// walked again. Within it, such a move is no more than the race every judge-then-run has (a
// command judged now runs a moment later, and anything the agent left running can move folders
// in between); it cannot be made to last.
//
// ctime, not only mtime: `touch -d` can put a folder's mtime back after a change, but nothing
// short of root setting the clock sets ctime. And an answer is kept only when its anchor's times
// are older than SETTLED_MS at the moment it is kept: a file system stamps times with a coarse
// clock (a jiffy on Linux, a second on some), so a change in the same tick as the walk could leave
// the times equal. This is how git treats "racily clean" index entries. An answer the missing
// name's absence proves needs no settled times (the lstat of the name is asked at each use), only
// a settled birth time, for the same reason: a folder made again in the same tick could carry it.
import { lstatSync, statSync, type Stats } from 'node:fs';
import { dropOldest } from '../../core/drop-oldest.js';

/** One walk's answer, and what proves it while unchanged (null: nothing cheap does; not kept). */
export interface Walked {
  path: string;
  anchor: string | null;
  /** The anchor's stat (following symlinks) as the walk took it, before reading the rest; absent: stated after the walk. */
  stat?: Stats | undefined;
  /** The missing name straight under the anchor (its folder + `/` + name), when that is what the answer rests on. */
  absent?: string | undefined;
  /** True when no name on the way to the anchor is a symlink (its real path is itself). */
  plain?: boolean | undefined;
}

/** How old an anchor's ctime and mtime must be before an answer resting on it is kept. */
export const SETTLED_MS = 2000;
/** How long after its walk an answer may be reused (see the top of the file). */
export const REUSE_MS = 1000;
/** Most answers kept; past it the older half is dropped (calls repeat recent paths). */
export const MAX_KEPT = 4096;

interface Kept {
  path: string;
  anchor: string;
  dev: number;
  ino: number;
  /** NaN when the times were not settled when kept: only the missing name's absence proves it then. */
  ctimeMs: number;
  mtimeMs: number;
  /** The anchor is a folder with no symlink on the way: stated with lstat (see the top of the file). */
  plain: boolean;
  /** The missing name (see Walked.absent) whose absence, in the same folder, proves the answer; null: only the times do. */
  absent: string | null;
  birthtimeMs: number;
  /** When the walk that made it ran (the clock of SymlinkCacheOptions.now). */
  walkedAt: number;
}

export interface SymlinkCacheOptions {
  now?: () => number;
  max?: number;
}

export class SymlinkCache {
  private readonly kept = new Map<string, Kept>();
  private readonly now: () => number;
  private readonly max: number;

  constructor(
    private readonly walk: (p: string) => Walked,
    opts: SymlinkCacheOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.max = opts.max ?? MAX_KEPT;
  }

  resolve(p: string): string {
    const hit = this.kept.get(p);
    if (hit) {
      if (this.now() - hit.walkedAt < REUSE_MS && current(hit)) return hit.path;
      this.kept.delete(p);
    }
    const walkedAt = this.now();
    const walked = this.walk(p);
    if (walked.anchor === null) return walked.path;
    // Stated by the walk when it found the anchor, before it read the rest (else here, after
    // it). A change the walk did not see was made after that stat, and the next check finds a
    // ctime other than the kept one; or, stated after the walk, during it, and the ctime is too
    // recent to keep. Either way the answer is never reused past the change.
    const st = walked.stat ?? stat(walked.anchor);
    if (!st) return walked.path;
    const settledBefore = this.now() - SETTLED_MS;
    const timesSettled = st.ctimeMs <= settledBefore && st.mtimeMs <= settledBefore;
    // The folder's identity must be settled too (its birth time older than SETTLED_MS): a folder
    // made later, even on a reused inode, is then born after it. A file system that keeps no
    // birth time reports 0: only the times prove anything there.
    const plain = walked.plain === true && walked.absent !== undefined && st.isDirectory();
    const byAbsence = plain && st.birthtimeMs > 0 && st.birthtimeMs <= settledBefore;
    if (!timesSettled && !byAbsence) return walked.path;
    if (this.kept.size >= this.max) dropOldest(this.kept, this.kept.size >> 1);
    this.kept.set(p, {
      path: walked.path,
      anchor: walked.anchor,
      dev: st.dev,
      ino: st.ino,
      ctimeMs: timesSettled ? st.ctimeMs : NaN,
      mtimeMs: st.mtimeMs,
      plain,
      absent: byAbsence ? (walked.absent as string) : null,
      birthtimeMs: st.birthtimeMs,
      walkedAt,
    });
    return walked.path;
  }

  /** How many answers are kept (for tests). */
  get size(): number {
    return this.kept.size;
  }

}

/** Does one stat (two, for a changed folder) prove the kept answer current? See the top of the file. */
function current(k: Kept): boolean {
  // A plain folder without following links: a symlink put at its name is not the folder.
  const st = k.plain ? lstat(k.anchor) : stat(k.anchor);
  if (!st || st.ino !== k.ino || st.dev !== k.dev) return false;
  if (st.ctimeMs === k.ctimeMs && st.mtimeMs === k.mtimeMs) return true;
  // Entries came or went: the same folder (not one made again), and still no entry of the name.
  return k.absent !== null && st.isDirectory() && st.birthtimeMs === k.birthtimeMs && lstat(k.absent) === null;
}

/** stat(2) of `p` (following symlinks), or undefined when it cannot be reached, for any reason (as access(2) answers). */
export function stat(p: string): Stats | undefined {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch {
    // ENOTDIR (`/etc/hosts/x`), EACCES, ELOOP, ENAMETOOLONG: not there for the agent's tool either.
    return undefined;
  }
}

/** lstat(2): the entry itself, null when there is none (ENOENT), undefined when it cannot be asked. */
function lstat(p: string): Stats | null | undefined {
  try {
    return lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return undefined;
  }
}
