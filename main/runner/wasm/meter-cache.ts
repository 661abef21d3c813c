// Metered modules by input hash, memory cap and meter version, under the Gatehouse home: a
// module is metered once (when its plugin is enabled, or at its first call after a restart that
// lost the cache), and never on the host's main thread (binaryen parses untrusted bytes in a
// worker of its own, which ends after the job).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { METER_VERSION } from './meter.js';
import { wasmWorkerFile } from './worker-file.js';
import type { WorkerReply } from './wasm-worker.js';

export interface MeteredModule {
  /** SHA-256 of the metered bytes: the worker's compiled-module cache key. */
  hash: string;
  bytes: Uint8Array;
}

/** How long binaryen may take over one module before the job is abandoned. */
export const METER_DEADLINE_MS = 60_000;

/** A metered copy's file name: input hash, memory cap, fuel, meter version (see MeterCache.get). */
const CACHED = /^[0-9a-f]{64}-m\d+-f\d+-v(\d+)(?:-nofuel)?\.wasm$/;

export class MeterCache {
  private readonly memo = new Map<string, Promise<MeteredModule>>();
  private swept = false;

  constructor(private readonly dir: string) {}

  /**
   * `fuel: false` meters memory only: the bench's unmetered baseline, never used for plugins.
   * `inputHash`: the SHA-256 (hex) of `input` when the caller has it already (inputHash()), so
   * that a call hashes its module's bytes once.
   */
  get(input: Uint8Array, memoryMb: number, fuelLimit: number, opts: { fuel?: boolean; inputHash?: string } = {}): Promise<MeteredModule> {
    const fuel = opts.fuel !== false;
    const key = `${opts.inputHash ?? inputHash(input)}-m${memoryMb}-f${fuelLimit}-v${METER_VERSION}${fuel ? '' : '-nofuel'}`;
    let p = this.memo.get(key);
    if (!p) {
      p = this.load(key, input, memoryMb, fuelLimit, fuel);
      this.memo.set(key, p);
      p.catch(() => this.memo.delete(key));
    }
    return p;
  }

  private async load(key: string, input: Uint8Array, memoryMb: number, fuelLimit: number, fuel: boolean): Promise<MeteredModule> {
    const file = join(this.dir, `${key}.wasm`);
    if (existsSync(file)) {
      const bytes = new Uint8Array(readFileSync(file));
      return { hash: sha256(bytes), bytes };
    }
    const bytes = await meterInWorker(input, memoryMb, fuelLimit, fuel);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.sweepOtherVersions();
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, file);
    return { hash: sha256(bytes), bytes };
  }

  /**
   * Removes, once per cache, the copies another meter version wrote: this one never reads them,
   * and each weighs as much as its module (up to the 50 MB cap), per plugin and version. Run when
   * this cache first meters a module, which every cache does after the version changes.
   */
  private sweepOtherVersions(): void {
    if (this.swept) return;
    this.swept = true;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const m = CACHED.exec(name);
      if (!m || Number(m[1]) === METER_VERSION) continue;
      try {
        rmSync(join(this.dir, name), { force: true });
      } catch {
        // Left (not ours to remove, or not a file): it costs room, never a wrong module.
      }
    }
  }
}

/** The SHA-256 (hex) of a module's bytes as read, the first part of its cache key. */
export function inputHash(input: Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

export function meterInWorker(input: Uint8Array, memoryMb: number, fuelLimit: number, fuel = true): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // A worker with a heap limit: binaryen on a hostile module ends in this worker, not the host.
    const w = new Worker(wasmWorkerFile(), { resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    const timer = setTimeout(() => {
      void w.terminate();
      reject(new Error(`metering the module took longer than ${METER_DEADLINE_MS / 1000} s and was stopped`));
    }, METER_DEADLINE_MS);
    const done = () => {
      clearTimeout(timer);
      void w.terminate();
    };
    w.once('message', (m: WorkerReply) => {
      done();
      if (m.type === 'metered' && m.bytes) resolve(new Uint8Array(m.bytes));
      else reject(new Error(m.type === 'metered' && m.error ? m.error : 'the meter worker answered something else'));
    });
    w.once('error', (err) => {
      done();
      reject(new Error(`the meter worker failed: ${err.message}`));
    });
    w.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the meter worker ended (exit code ${code}) before answering`));
    });
    const copy = input.slice();
    w.postMessage({ type: 'meter', id: 1, bytes: copy, memoryMb, fuelLimit, fuel }, [copy.buffer as ArrayBuffer]);
  });
}
