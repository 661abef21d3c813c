// Hot reload: watches every plugin place and hands each changed plugin folder to the registry,
// debounced so an editor's save (write, rename, chmod) is one reload, well within a second.
import { watch, type FSWatcher } from 'chokidar';
import { existsSync } from 'node:fs';
import { relative, sep, join } from 'node:path';
import type { PluginSource } from './plugin-registry.js';

export interface WatcherDeps {
  sources: readonly PluginSource[];
  /** A plugin folder changed (or appeared, or disappeared). */
  onFolder(dir: string): Promise<void>;
  debounceMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

export class PluginWatcher {
  private watcher: FSWatcher | null = null;
  private readonly timers = new Map<string, NodeJS.Timeout>();
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

  async close(): Promise<void> {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await this.watcher?.close();
    await this.queue;
  }

  private touched(path: string): void {
    const folder = this.folderOf(path);
    if (!folder) return;
    const prev = this.timers.get(folder);
    if (prev) clearTimeout(prev);
    this.timers.set(
      folder,
      setTimeout(() => {
        this.timers.delete(folder);
        // Reloads run one at a time so two quick saves cannot race each other.
        this.queue = this.queue.then(() => this.deps.onFolder(folder)).catch((err) => this.deps.log?.(`reloading ${folder} failed`, err));
      }, this.deps.debounceMs ?? 80),
    );
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
