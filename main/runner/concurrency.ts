// Per-plugin concurrency cap: at most `limit` calls of one plugin run at once; more wait in
// FIFO order, and when `maxQueue` are already waiting the next caller is refused at once
// rather than piling up without bound (an agent in a loop must not grow the host's memory).
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_MAX_QUEUE = 64;

/** The queue of a key is full; the caller should report it rather than retry in a loop. */
export class QueueFullError extends Error {
  constructor(
    readonly key: string,
    readonly limit: number,
    readonly maxQueue: number,
  ) {
    super(`${key} already has ${limit} calls running and ${maxQueue} waiting, the most allowed; this call was refused. Try again when earlier calls finish, or raise the plugin's concurrency limit.`);
    this.name = 'QueueFullError';
  }
}

interface Slot {
  running: number;
  waiting: (() => void)[];
}

export interface ConcurrencyOptions {
  /** Calls of one key running at once (default 4). */
  limit?: number;
  /** Calls of one key allowed to wait (default 64); 0 refuses whenever all slots are busy. */
  maxQueue?: number;
}

export class ConcurrencyLimiter {
  readonly limit: number;
  readonly maxQueue: number;
  private readonly slots = new Map<string, Slot>();

  constructor(opts: ConcurrencyOptions = {}) {
    this.limit = Math.max(1, Math.floor(opts.limit ?? DEFAULT_CONCURRENCY));
    this.maxQueue = Math.max(0, Math.floor(opts.maxQueue ?? DEFAULT_MAX_QUEUE));
  }

  /**
   * Waits for a slot and returns its release function (call it exactly once; later calls are
   * ignored). Rejects with QueueFullError when the queue is full.
   */
  acquire(key: string): Promise<() => void> {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { running: 0, waiting: [] };
      this.slots.set(key, slot);
    }
    const s = slot;
    const release = this.releaser(key, s);
    if (s.running < this.limit) {
      s.running++;
      return Promise.resolve(release);
    }
    if (s.waiting.length >= this.maxQueue) return Promise.reject(new QueueFullError(key, this.limit, this.maxQueue));
    return new Promise((resolve) => s.waiting.push(() => resolve(release)));
  }

  /** Runs fn in a slot of `key`. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire(key);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  stats(key: string): { running: number; waiting: number } {
    const s = this.slots.get(key);
    return { running: s?.running ?? 0, waiting: s?.waiting.length ?? 0 };
  }

  private releaser(key: string, s: Slot): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = s.waiting.shift();
      // The slot passes straight to the next waiter, so the running count does not change and
      // a newcomer cannot overtake the queue.
      if (next) next();
      else if (--s.running === 0) this.slots.delete(key);
    };
  }
}
