// The host's side of the sandboxed WebAssembly process (wasm-host-process.ts): starts it with
// the sandbox plan's wrap (bubblewrap and the same limits as process plugins, with no CPU-time
// and address-space rlimit: the process is long-lived, and V8 reserves large address ranges for
// wasm memories), sends it calls, and answers its host functions. A process that dies ends
// every call it was running with `crash`, and the next call starts a fresh one.
import type { ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import type { EngineResult } from './engine.js';
import type { HostCallReply } from './extism-kernel.js';
import { WIRE_SERIALIZATION, WireReader, WireWriter, type HostProcessRequest, type WireMessage } from './wasm-host-wire.js';
import type { WasmCallResult, WasmCallSpec } from './wasm-pool.js';
import { wasmHostProcessFile, wasmWorkerFile } from './worker-file.js';
import { containWrap, type SandboxDetection } from '../sandbox.js';
import type { WrappedCommand } from '../one-shot.js';
import { spawnJsChild } from '../js-child.js';
import type { RuntimeHost } from '../../core/node-runtime.js';

export interface WasmHostOptions {
  /** The host's sandbox detection: with bwrap, the process runs inside it. */
  detection: SandboxDetection;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Folders bound read-only / read-write at their own paths (a WASI call's preopens). */
  read?: string[];
  write?: string[];
  /**
   * The folder a plugin's verified copy was made from: hidden inside the sandbox wherever a bind
   * would show it (sandbox.ts, reviewedDirCover), as from a process plugin's.
   */
  reviewedDir?: string;
  /** Stand-in for Electron's process.versions and PATH (tests); default: this process's. */
  runtime?: RuntimeHost;
}

/** How long past a call's own deadline the process may take to report it before it is killed. */
const BACKSTOP_GRACE_MS = 5_000;

interface Running {
  resolve(r: WasmCallResult): void;
  spec: WasmCallSpec;
  started: number;
}

export class WasmHostClient {
  private child: ChildProcess | null = null;
  /** The current process's channel, as messages go on it (wasm-host-wire.ts). */
  private writer: WireWriter | null = null;
  private wrapped: WrappedCommand | null = null;
  private ready: Promise<void> | null = null;
  private readonly running = new Map<number, Running>();
  private nextId = 1;
  private childPid: number | null = null;
  /** Hashes of the modules the current process already holds (it is sent each one's bytes once). */
  private known = new Set<string>();
  private closed = false;

  constructor(private readonly opts: WasmHostOptions) {}

  /** Whether the process runs inside bubblewrap. */
  get sandboxed(): boolean {
    return this.opts.detection.kind === 'bwrap';
  }

  /** Calls the process is running now. */
  get inFlight(): number {
    return this.childPid === null ? 0 : this.running.size;
  }

  /** The child process's pid as it sees itself (in its own pid namespace under bwrap), null when none runs. */
  get pid(): number | null {
    return this.childPid;
  }

  async run(spec: WasmCallSpec): Promise<WasmCallResult> {
    await this.start();
    const writer = this.writer!;
    const id = this.nextId++;
    const started = performance.now();
    return new Promise((resolve) => {
      // The process enforces the deadline by terminating the worker; this backstop covers a
      // process that stops answering altogether: it is killed, and its calls end with crash.
      const backstop = setTimeout(() => this.kill(), spec.timeoutMs + BACKSTOP_GRACE_MS);
      backstop.unref();
      this.running.set(id, {
        resolve: (r) => {
          clearTimeout(backstop);
          resolve(r);
        },
        spec,
        started,
      });
      const fresh = !this.known.has(spec.module.hash);
      this.known.add(spec.module.hash);
      const msg: HostProcessRequest = { type: 'run', id, module: { hash: spec.module.hash, ...(fresh ? { bytes: spec.module.bytes } : {}) }, call: spec.call, timeoutMs: spec.timeoutMs };
      writer.request(msg);
    });
  }

  private start(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the WebAssembly runner is shut down'));
    if (this.ready) return this.ready;
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
    let started: ReturnType<typeof spawnJsChild>;
    try {
      started = spawnJsChild({
        what: 'the WebAssembly runner',
        file: wasmHostProcessFile(),
        // Node's "WASI is an experimental feature" warning went to stderr, and from there into the
        // error an operator reads when the process ends early.
        nodeArgs: () => ['--disable-warning=ExperimentalWarning'],
        wrap: ({ file: hostFile, real }) => {
          const workerFile = real(wasmWorkerFile());
          env['GATEHOUSE_WASM_WORKER'] = workerFile;
          const dirs = [...new Set([dirname(hostFile), dirname(workerFile)])];
          return containWrap(this.opts.detection.kind === 'bwrap' ? { detection: this.opts.detection, profile: { pluginDir: dirs[0]!, read: [...dirs, ...(this.opts.read ?? [])], write: this.opts.write ?? [], hosts: [], readOnlyRoot: true, ...(this.opts.reviewedDir !== undefined ? { reviewedDir: this.opts.reviewedDir } : {}) } } : null, {
            timeoutMs: 30_000,
            limits: { cpuSecs: Infinity, addressSpaceBytes: Infinity },
            ...(this.opts.home ? { home: this.opts.home } : {}),
            ...(this.opts.env ? { env: this.opts.env } : {}),
          });
        },
        options: { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: WIRE_SERIALIZATION, env, detached: true },
        ...(this.opts.runtime ? { runtime: this.opts.runtime } : {}),
      });
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const { child, wrapped: w } = started;
    this.wrapped = w;
    this.child = child;
    this.writer = new WireWriter((m) => child.send(m));
    const reader = new WireReader();
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-2000);
    });
    this.ready = new Promise<void>((resolve, reject) => {
      child.once('error', (err) => reject(new Error(`the WebAssembly process could not start: ${err.message}`)));
      child.on('message', (w: WireMessage) => {
        const m = reader.message(w);
        if (!m) return;
        if (m.type === 'ready') {
          this.childPid = m.pid;
          resolve();
        } else if (m.type === 'host') this.answer(m.id, m.hostId, m.req);
        else if (m.type === 'ran') {
          const r = this.running.get(m.id);
          this.running.delete(m.id);
          r?.resolve(m.result);
        }
      });
      child.once('exit', (code, signal) => {
        const why = `the WebAssembly process ended (${signal ? `signal ${signal}` : `exit code ${code}`})${stderr.trim() ? `: ${stderr.trim().slice(-300)}` : ''}`;
        reject(new Error(why));
        this.child = null;
        this.writer = null;
        this.ready = null;
        this.childPid = null;
        this.known = new Set();
        void this.wrapped?.kill?.();
        for (const [id, r] of this.running) {
          this.running.delete(id);
          r.resolve({ ...crashed(`${why} before the call finished`), durationMs: performance.now() - r.started });
        }
      });
    });
    this.ready.catch(() => undefined);
    return this.ready;
  }

  private answer(id: number, hostId: number, req: Parameters<WasmCallSpec['hostCall']>[0]): void {
    const r = this.running.get(id);
    const reply = (x: HostCallReply) => this.child?.connected && this.writer?.request({ type: 'host-reply', hostId, reply: x });
    if (!r) return void reply({ ok: false, error: 'no such call' });
    void r.spec.hostCall(req).then(reply, (err: Error) => reply({ ok: false, error: err.message }));
  }

  /** Kills the process (and its process group): tests use it to kill a call mid-way. */
  kill(): void {
    const pid = this.child?.pid;
    if (pid) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        this.child?.kill('SIGKILL');
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    this.kill();
    await exited;
  }
}

function crashed(error: string): EngineResult {
  return { ok: false, output: new Uint8Array(0), error, failure: 'crash', fuelUsed: 0, logs: [], memoryBytes: 0 };
}
