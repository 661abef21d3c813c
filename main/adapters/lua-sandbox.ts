// The host's side of one adapter session's Lua: starts the worker (lua-worker.ts), calls its entry
// points one at a time, and holds the wall-clock backstop. Any limit (ops, memory, time) ends the
// sandbox for good: the worker is terminated and every later call is refused with the same error.
import { Worker } from 'node:worker_threads';
import type { AdapterLimits } from './adapter-manifest.js';
import type { LuaWorkerData, LuaWorkerReply } from './lua-worker.js';
import type { AdapterLimitError } from './lua-types.js';
import type { HostFunction } from './permissions.js';
import { luaWorkerFile } from './worker-file.js';

export class AdapterLuaError extends Error {
  constructor(
    readonly code: AdapterLimitError | 'lua_error' | 'no_entry_point' | 'ended',
    message: string,
    readonly ops: number,
  ) {
    super(message);
  }
  /** Whether the sandbox ended because of this (a limit), rather than one call failing. */
  get fatal(): boolean {
    return this.code === 'ops_exceeded' || this.code === 'memory_exceeded' || this.code === 'timeout' || this.code === 'ended';
  }
}

export interface LuaSandboxOptions {
  source: string;
  chunk: string;
  functions: HostFunction[];
  limits: AdapterLimits;
  /** The bench's baseline: the same Lua without the count hook. */
  noHook?: boolean;
}

export class LuaSandbox {
  private worker: Worker | null = null;
  private ended: AdapterLuaError | null = null;
  private next = 1;
  private pending: { id: number; resolve: (v: { value: unknown; ops: number }) => void; reject: (e: AdapterLuaError) => void; timer: NodeJS.Timeout } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  entryPoints: string[] = [];
  /** Instructions the last call ran (the load counts as a call). */
  lastOps = 0;

  private constructor(private readonly opts: LuaSandboxOptions) {}

  /** Starts a fresh state and runs the entry point's chunk (under the same limits as a call). */
  static async start(opts: LuaSandboxOptions): Promise<LuaSandbox> {
    const s = new LuaSandbox(opts);
    await s.boot();
    return s;
  }

  /** Why the sandbox ended, or null while it runs. */
  get endedBy(): AdapterLuaError | null {
    return this.ended;
  }

  has(fn: string): boolean {
    return this.entryPoints.includes(fn);
  }

  /** Calls `M[fn](input)`; calls run one at a time, in order. */
  call(fn: string, input: unknown): Promise<{ value: unknown; ops: number }> {
    const run = this.queue.then(() => this.callNow(fn, input));
    this.queue = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    this.end(new AdapterLuaError('ended', 'the adapter session was closed', 0));
  }

  private boot(): Promise<void> {
    const data: LuaWorkerData = { source: this.opts.source, chunk: this.opts.chunk, functions: this.opts.functions, ops: this.opts.limits.ops, memoryBytes: this.opts.limits.memoryMb * 1048576, ...(this.opts.noHook ? { noHook: true } : {}) };
    // The JS heap is not where Lua lives (that is WebAssembly memory, capped by our allocator);
    // these bounds only keep the glue small.
    const worker = new Worker(luaWorkerFile(), { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 }, stdout: true, stderr: true });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const e = new AdapterLuaError('timeout', `the adapter's main chunk ran past its ${this.opts.limits.timeoutMs} ms wall-clock limit`, 0);
        this.end(e);
        reject(e);
      }, this.opts.limits.timeoutMs + STARTUP_MS);
      worker.once('message', (m: LuaWorkerReply) => {
        clearTimeout(timer);
        if (m.type === 'ready') {
          this.entryPoints = m.entryPoints;
          this.lastOps = m.ops;
          worker.on('message', (r: LuaWorkerReply) => this.onReply(r));
          resolve();
        } else if (m.type === 'error') {
          const e = new AdapterLuaError(m.code, m.message, m.ops);
          this.lastOps = m.ops;
          this.end(e);
          reject(e);
        }
      });
      worker.on('error', (err) => {
        clearTimeout(timer);
        const e = new AdapterLuaError('lua_error', `the Lua worker failed: ${err.message}`, 0);
        this.end(e);
        reject(e);
      });
      worker.on('exit', () => {
        if (!this.ended) this.end(new AdapterLuaError('ended', 'the Lua worker exited', 0));
      });
    });
  }

  private callNow(fn: string, input: unknown): Promise<{ value: unknown; ops: number }> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.end(new AdapterLuaError('timeout', `${fn} ran past the adapter's ${this.opts.limits.timeoutMs} ms wall-clock limit; its worker was terminated`, 0)), this.opts.limits.timeoutMs);
      this.pending = { id, resolve, reject, timer };
      this.worker!.postMessage({ type: 'call', id, fn, input: withoutNulls(input) });
    });
  }

  private onReply(m: LuaWorkerReply): void {
    const p = this.pending;
    if (!p || m.type === 'ready' || m.id !== p.id) return;
    clearTimeout(p.timer);
    this.pending = null;
    this.lastOps = m.ops;
    if (m.type === 'result') p.resolve({ value: m.value, ops: m.ops });
    else {
      const e = new AdapterLuaError(m.code, m.message, m.ops);
      // A limit ends the state: whatever it was doing may have been left half-done.
      if (e.fatal) this.end(e);
      p.reject(e);
    }
  }

  private end(e: AdapterLuaError): void {
    if (this.ended) return;
    this.ended = e;
    if (this.pending) {
      clearTimeout(this.pending.timer);
      this.pending.reject(e);
      this.pending = null;
    }
    void this.worker?.terminate();
  }
}

/** Starting a worker and compiling Lua's WebAssembly is not the adapter's time. */
const STARTUP_MS = 5000;

/** Lua has no null: a null field is simply absent (wasmoon cannot push a JS null). */
function withoutNulls(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== null && x !== undefined) out[k] = withoutNulls(x);
    return out;
  }
  return v;
}
