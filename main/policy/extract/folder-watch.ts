// Proof that folders have not changed, without a system call per use. The symlink cache
// (symlink-cache.ts) proves a kept answer with one stat per call; in some virtual machines a
// system call costs several µs, most of a decision. A folder watched with inotify proves the same
// thing for free while no event has come: any entry made, removed or renamed in it, and any change
// to the folder itself, queues an event in the same system call that makes the change.
//
// Why an event is never too late: the kernel queues it before the change's system call returns, so
// before the agent can send its next call. The host reads that call from a socket on the same event
// loop as this watch, and the loop's epoll reports ready descriptors in the order they became
// ready: the watch's callback runs before the call is read. So this is used only on the thread of
// the host's loop (never in the extraction worker, whose messages are drained in batches), only on
// Linux (other systems' folder watches deliver late, by design), and only on local file systems
// (inotify does not see changes another machine makes to a network share).
//
// Why an event is never lost: see core/watch-events.ts (a full queue is seen as a burst, and every
// proof made before it is dropped).
//
// A folder's record dies at its first event: the folder may have been moved or removed, and a
// watch follows the inode, not the name. The next proof watches the name again.
import { readFileSync, statfsSync, watch, type FSWatcher } from 'node:fs';
import { countWatchEvent, watchEventEpoch, BURST_LIMIT } from '../../core/watch-events.js';

interface Folder {
  readonly path: string;
  watcher: FSWatcher | null;
  dead: boolean;
}

/** Proof that a set of folders had no event since it was made. */
export interface WatchProof {
  readonly folders: readonly Folder[];
  readonly epoch: number;
}

/** statfs(2) f_type of file systems whose every change this kernel's inotify reports. */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0xca451a4e, // bcachefs
  0x794c7630, // overlayfs (changes made through it)
]);

/** Most folders watched at once: at most this, and an eighth of the user's inotify budget (shared with editors and file managers). */
export const MAX_WATCHED_FOLDERS = 2048;

export interface FolderWatchOptions {
  /** Called with a folder's path at its first event (tests wait on it instead of sleeping). */
  onChange?: (folder: string) => void;
}

export class FolderWatch {
  private readonly folders = new Map<string, Folder>();
  /** Folders that cannot be watched (another file system, no permission), not asked again. */
  private readonly unwatchable = new Set<string>();
  private readonly max: number;
  private closed = false;

  constructor(private readonly opts: FolderWatchOptions = {}) {
    this.max = Math.max(64, Math.min(MAX_WATCHED_FOLDERS, Math.floor(procNumber('/proc/sys/fs/inotify/max_user_watches') / 8)));
  }

  /**
   * Whether watches can prove anything on this machine: Linux, and a kernel queue far larger than
   * the burst that counts as an overflow.
   */
  static available(): boolean {
    return process.platform === 'linux' && procNumber('/proc/sys/fs/inotify/max_queued_events') >= 4 * BURST_LIMIT;
  }

  /**
   * Watches every one of `paths` (folders) from now on: the proof holds until one of them has an
   * event. Null when one cannot be watched. The caller proves the folders unchanged once more after
   * this (a change before the watch began queues nothing).
   */
  watch(paths: readonly string[]): WatchProof | null {
    if (this.closed) return null;
    const folders: Folder[] = [];
    for (const p of paths) {
      const f = this.folders.get(p) ?? this.add(p);
      if (!f) return null;
      folders.push(f);
    }
    return { folders, epoch: watchEventEpoch() };
  }

  /** True while no folder of the proof has had an event (and no burst may have lost one). */
  holds(proof: WatchProof): boolean {
    if (proof.epoch !== watchEventEpoch()) return false;
    for (const f of proof.folders) if (f.dead) return false;
    return true;
  }

  /** How many folders are watched (for tests). */
  get size(): number {
    return this.folders.size;
  }

  /** Stops every watch; no proof holds after it. */
  close(): void {
    this.closed = true;
    for (const f of this.folders.values()) this.kill(f, true);
    this.folders.clear();
  }

  private add(path: string): Folder | null {
    if (this.unwatchable.has(path)) return null;
    if (this.folders.size >= this.max) {
      // Start over rather than track which folders are still asked for: proofs fall back to a stat
      // until their folders are watched again.
      for (const f of this.folders.values()) this.kill(f, false);
      this.folders.clear();
    }
    const f: Folder = { path, watcher: null, dead: false };
    try {
      if (!LOCAL_FILE_SYSTEMS.has(statfsSync(path).type)) throw new Error('not a local file system');
      // Every event counts toward a burst, also after the folder's first (see watch-events.ts),
      // so the watcher stays open until the loop turns.
      f.watcher = watch(path, { persistent: false }, () => {
        countWatchEvent();
        if (!f.dead) this.opts.onChange?.(f.path);
        this.kill(f, false);
      });
    } catch {
      // ENOENT, EACCES, ENOSPC (the user's watch budget is spent), or another file system.
      if (this.unwatchable.size >= this.max) this.unwatchable.clear();
      this.unwatchable.add(path);
      return null;
    }
    f.watcher.on('error', () => this.kill(f, false));
    this.folders.set(path, f);
    return f;
  }

  private kill(f: Folder, now: boolean): void {
    if (!f.dead) {
      f.dead = true;
      if (this.folders.get(f.path) === f) this.folders.delete(f.path);
    }
    const w = f.watcher;
    if (!w) return;
    f.watcher = null;
    if (now) w.close();
    else setImmediate(() => w.close());
  }
}

/** A number from a /proc/sys file; 0 when it cannot be read. */
function procNumber(file: string): number {
  try {
    return Number(readFileSync(file, 'utf8')) || 0;
  } catch {
    return 0;
  }
}
