// Hot reload: watches every plugin place and hands each changed plugin folder to the registry,
// debounced so an editor's save (write, rename, chmod) is one reload, well within a second.
//
// One debounce for all folders, not one per folder: a `git checkout` or an unpacked archive
// touches thousands of files in many plugin folders at once, and per-folder reloads meant as
// many rescans, each telling every console and every MCP client that the tools changed. The
// whole burst is now one rescan of the folders it touched, once the writing pauses
// (`debounceMs`), or after `maxWaitMs` at the latest while it goes on (so a folder that never
// stops changing is still reloaded).
import { watch, type FSWatcher } from 'chokidar';
import { existsSync } from 'node:fs';
import { relative, sep, join } from 'node:path';
import { realTimers, type Timers } from '../core/clock.js';
import type { PluginSource } from './plugin-registry.js';

export interface WatcherDeps {
  sources: readonly PluginSource[];
  /** A plugin folder changed (or appeared, or disappeared). */
  onFolder(dir: string): Promise<void>;
  /** Several folders changed in one burst: one rescan of them all (default: onFolder for each, in turn). */
  onFolders?(dirs: string[]): Promise<void>;
  /** Quiet time that ends a burst. Default 120 ms. */
  debounceMs?: number;
  /** A burst that goes on this long is rescanned anyway. Default 5 s. */
  maxWaitMs?: number;
  log?: (msg: string, err?: unknown) => void;
  /** Timers and clock (tests pass fake ones that move by hand). */
  timers?: Timers;
  now?: () => number;
}

export class PluginWatcher {
  private watcher: FSWatcher | null = null;
  /** Folders touched since the last rescan, and the burst's timer and start. */
  private readonly pending = new Set<string>();
  private timer: unknown = null;
  private burstStart = 0;
  private rescanCount = 0;
  private readonly listeners = new Set<(dirs: string[]) => void>();
  private queue: Promise<void> = Promise.resolve();
  private readyPromise: Promise<void> = Promise.resolve();

  constructor(private readonly deps: WatcherDeps) {}

  start(): void {
    const roots = this.deps.sources.map((s) => s.dir).filter((d) => existsSync(d));
    if (roots.length === 0) return;
    this.watcher = watch(roots, { ignoreInitial: true, depth: 8, followSymlinks: false, awaitWriteFinish: false });
    this.watcher.on('all', (_event, path) => this.touched(path));
    this.watcher.on('error', (err) => this.deps.log?.('plugin watcher error', err));
    const w = this.watcher;
    this.readyPromise = new Promise((resolve) => w.once('ready', () => resolve()));
  }

  /** Resolves once the initial watch is in place (tests wait for it instead of sleeping). */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** Resolves when every reload queued so far has finished. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Rescans started so far (each one a burst of changes, however many files and folders). */
  get rescans(): number {
    return this.rescanCount;
  }

  /** Called with the folders of each rescan as it starts; returns the unsubscribe function. */
  onRescan(listener: (dirs: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
    await this.watcher?.close();
    await this.queue;
  }

  private get timers(): Timers {
    return this.deps.timers ?? realTimers;
  }
  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }
  private get debounceMs(): number {
    return this.deps.debounceMs ?? 120;
  }
  private get maxWaitMs(): number {
    return this.deps.maxWaitMs ?? 5000;
  }

  private touched(path: string): void {
    const folder = this.folderOf(path);
    if (!folder) return;
    const now = this.now();
    if (this.pending.size === 0) this.burstStart = now;
    this.pending.add(folder);
    this.arm(now);
  }

  /** Waits for a pause, but never past the burst's maximum wait. */
  private arm(now: number): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.debounceMs, this.burstStart + this.maxWaitMs - now));
    this.timer = this.timers.setTimeout(() => this.quietOrNot(now + wait), wait);
  }

  /**
   * The burst's timer ran out, but a pause is proved only if the loop was free to take events
   * meanwhile. A timer that fires well after its time (a host starved of CPU, a long task) ran
   * before the file events that waited with it: CI saw a 10,000-file checkout rescanned twice
   * that way. Then one more quiet time is waited for, unless the burst is at its maximum wait.
   */
  private quietOrNot(due: number): void {
    this.timer = null;
    const now = this.now();
    if (now - due > this.debounceMs / 2 && now - this.burstStart < this.maxWaitMs) this.arm(now);
    else this.rescan();
  }

  private rescan(): void {
    const dirs = [...this.pending].sort();
    this.pending.clear();
    if (dirs.length === 0) return;
    this.rescanCount++;
    for (const l of this.listeners) {
      try {
        l(dirs);
      } catch (err) {
        this.deps.log?.('plugin watcher listener failed', err);
      }
    }
    const { onFolders, onFolder } = this.deps;
    const run = onFolders
      ? () => onFolders.call(this.deps, dirs)
      : async () => {
          for (const d of dirs) await onFolder.call(this.deps, d);
        };
    // Rescans run one at a time so two quick bursts cannot race each other.
    this.queue = this.queue.then(run).catch((err) => this.deps.log?.(`reloading ${dirs.join(', ')} failed`, err));
  }

  /** The plugin folder (first level below a place) that a changed path belongs to. */
  private folderOf(path: string): string | null {
    for (const s of this.deps.sources) {
      const rel = relative(s.dir, path);
      if (!rel || rel.startsWith('..')) continue;
      const first = rel.split(sep)[0]!;
      if (first.startsWith('.')) return null;
      return join(s.dir, first);
    }
    return null;
  }
}
