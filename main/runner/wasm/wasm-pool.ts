// Warm workers that run WebAssembly plugin calls off the host's main thread. A worker keeps the
// modules it compiled (by hash), so a warm call is an instantiation and the call itself. One
// call per worker at a time; a call past its deadline terminates its worker (a guest cannot be
// interrupted any other way), and a worker that dies mid-call ends that call with `crash`.
import { performance } from 'node:perf_hooks';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { EngineCall, EngineResult, WasmFailure } from './engine.js';
import type { HostCallReply, HostCallRequest } from './extism-kernel.js';
import type { MeteredModule } from './meter-cache.js';
import type { WorkerReply, WorkerRequest } from './wasm-worker.js';
import { wasmWorkerFile } from './worker-file.js';

export interface WasmCallSpec {
  module: MeteredModule;
  call: EngineCall;
  timeoutMs: number;
  /** Answers a host function; the guest waits for it. */
  hostCall: (req: HostCallRequest) => Promise<HostCallReply>;
}

export interface WasmCallResult extends EngineResult {
  durationMs: number;
}

interface Slot {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
  known: Set<string>;
  busy: boolean;
  dead: boolean;
}

export const DEFAULT_WASM_WORKERS = 4;

export class WasmPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: (() => void)[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: { maxWorkers?: number } = {}) {}

  /** Worker threads alive now (tests check that nothing is left running). */
  get workerCount(): number {
    return this.slots.length;
  }

  async run(spec: WasmCallSpec): Promise<WasmCallResult> {
    const slot = await this.acquire();
    const started = performance.now();
    try {
      return await this.runOn(slot, spec, started);
    } finally {
      slot.busy = false;
      if (slot.dead) this.drop(slot);
      this.waiting.shift()?.();
    }
  }

  /** Stops every worker (a call running now ends with `crash`). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }

  private async acquire(): Promise<Slot> {
    for (;;) {
      if (this.closed) throw new Error('the WebAssembly runner is shut down');
      const idle = this.slots.find((s) => !s.busy && !s.dead);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (this.slots.length < (this.opts.maxWorkers ?? DEFAULT_WASM_WORKERS)) {
        const s = this.spawn();
        s.busy = true;
        return s;
      }
      await new Promise<void>((r) => this.waiting.push(r));
    }
  }

  private spawn(): Slot {
    const { port1, port2 } = new MessageChannel();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    // resourceLimits bound the worker's JavaScript heap; wasm memory is bounded by the meter's cap.
    const worker = new Worker(wasmWorkerFile(), { workerData: { hostPort: port2, flag: flag.buffer }, transferList: [port2], resourceLimits: { maxOldGenerationSizeMb: 256 } });
    worker.unref();
    port1.unref();
    const slot: Slot = { worker, port: port1, flag, known: new Set(), busy: false, dead: false };
    worker.once('exit', () => {
      slot.dead = true;
      if (!slot.busy) this.drop(slot);
    });
    this.slots.push(slot);
    return slot;
  }

  private drop(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    slot.port.close();
  }

  private runOn(slot: Slot, spec: WasmCallSpec, started: number): Promise<WasmCallResult> {
    const id = this.nextId++;
    const port = slot.port;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (r: EngineResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        slot.worker.off('message', onMessage);
        slot.worker.off('exit', onExit);
        slot.worker.off('error', onError);
        resolve({ ...r, durationMs: performance.now() - started });
      };
      const failed = (failure: WasmFailure, error: string): EngineResult => ({ ok: false, output: new Uint8Array(0), error, failure, fuelUsed: 0, logs: [], memoryBytes: 0 });
      const timer = setTimeout(() => {
        slot.dead = true;
        void slot.worker.terminate();
        finish(failed('timeout', `the call ran past limits.timeout_secs (${spec.timeoutMs / 1000} s); its worker was terminated`));
      }, spec.timeoutMs);
      const onExit = (code: number) => {
        slot.dead = true;
        finish(failed('crash', `the worker running the call ended (exit code ${code}) before the call finished`));
      };
      const onError = (err: Error) => {
        slot.dead = true;
        finish(failed('crash', `the worker running the call failed: ${err.message}`));
      };
      const onMessage = (m: WorkerReply) => {
        if (m.id !== id) return;
        if (m.type === 'host') {
          void spec.hostCall(m.req).then(
            (reply) => answer(reply),
            (err: Error) => answer({ ok: false, error: `the host function failed: ${err.message}` }),
          );
          return;
        }
        if (m.type !== 'ran') return;
        if (m.needBytes) {
          send(true);
          return;
        }
        slot.known.add(spec.module.hash);
        if (m.result) finish(m.result);
        else finish(failed('crash', m.error ?? 'the worker gave no result'));
      };
      const answer = (reply: HostCallReply) => {
        if (settled) return;
        port.postMessage(reply);
        Atomics.store(slot.flag, 0, 1);
        Atomics.notify(slot.flag, 0);
      };
      const send = (withBytes: boolean) => {
        const msg: WorkerRequest = { type: 'run', id, hash: spec.module.hash, call: spec.call, ...(withBytes ? { bytes: spec.module.bytes } : {}) };
        slot.worker.postMessage(msg);
      };
      slot.worker.on('message', onMessage);
      slot.worker.once('exit', onExit);
      slot.worker.once('error', onError);
      send(!slot.known.has(spec.module.hash));
    });
  }
}
