// The thread that forks PTY programs for the host. node-pty's spawn forks the whole host
// (forkpty), synchronously: with a host-sized heap that is tens of milliseconds of the event loop
// per terminal, and calls that arrive together fork one after the other, so the loop stalls for
// several of those in a row (docs/soak.md). Here the fork runs on a worker thread instead.
//
// What it buys, and what not: the kernel still write-locks the address space while it copies the
// page tables, so the main thread stalls on its next page fault during a fork (measured: roughly
// half of an in-thread fork's stall). But it is no longer blocked for the whole fork plus node-pty's
// set-up, and between two forks it runs: a burst of terminals costs the loop about one fork's
// stall, not the sum of them.
//
// fds and pids belong to the whole process, so only the fork crosses threads: the main thread
// wraps the master fd itself (node-pty-spawn.ts). node-pty's waitpid thread reports the exit to
// the thread that forked, and that is relayed.
//
// The thread also finds what a program left running in its session when it exits
// (process-tree.ts sessionProcesses): that reads a /proc file per process forked since the
// program, and under load (many short commands) /proc reads are slow: off the loop too.
//
// And it starts one-shot plugin processes (child-io.ts, for main/runner/one-shot.ts) when the host
// has no spawner process (spawner.ts, which starts them without forking the host at all: no Node
// to run it, or it could not start): the same fork of the whole host, on every plugin call. Their
// pipes are libuv handles of the thread that made them, so those processes' input and output are
// handled there too (spawn-service.ts, the spawner's handler as well), and their events relayed.
// They share the terminals' queue: one fork at a time, the loop turns in between.
//
// Terminals are no longer forked here by default: the host opens them itself and the spawner
// starts their programs (node-pty-spawn.ts startOnOwnTerminal, which says why). This thread forks
// them only where that cannot be (no setsid or stty, or the start failed).
import { Worker } from 'node:worker_threads';
import { entryFile } from '../core/entry-file.js';
import { releaseSealLockOf, sealedListForThread } from '../core/sealed-fds.js';
import type { ChildEvent, ChildIo, ChildRequest } from './child-io.js';
import { killSession } from './process-tree.js';
import type { ChildReply, SpawnRequest } from './spawn-service.js';
import { toolsCpuGroup } from './tool-priority.js';

export type { SpawnRequest } from './spawn-service.js';

/** How long a host that exits waits for the thread to hear its killed terminals' exits (onProcessExit). */
const EXIT_REPORT_WAIT_MS = 1000;

/** node-pty's native fork (src/unix/pty.cc) as UnixTerminal calls it, without the exit callback. */
export type ForkArgs = [file: string, args: string[], env: string[], cwd: string, cols: number, rows: number, uid: number, gid: number, utf8: boolean, helperPath: string];

/** node-pty's native module (lib/index.js exports it as `native`), as far as it is used. */
export interface NativePty {
  fork(...args: [...ForkArgs, onexit: (exitCode: number, signal: number) => void]): NativeTerm;
  /** openpty(3) at that size: both sides, non-blocking, and neither close-on-exec. */
  open?(cols: number, rows: number): { master: number; slave: number; pty: string };
}

export interface NativeTerm {
  fd: number;
  pid: number;
  /** The slave side's name (/dev/pts/N). */
  pty: string;
}

export interface ForkRequest {
  type: 'fork';
  id: number;
  args: ForkArgs;
}

/** Which processes of the session led by `leader` are left (sessionProcesses' arguments). */
export interface ScanRequest {
  type: 'scan';
  id: number;
  leader: number;
  forksBefore: number | null;
}

export type ForkReply =
  | { type: 'ready'; threadId: number }
  | { type: 'failed'; message: string }
  | ({ type: 'forked'; id: number; threadId: number } & NativeTerm)
  | { type: 'error'; id: number; message: string }
  | { type: 'exit'; id: number; exitCode: number; signal: number }
  | { type: 'scanned'; id: number; pids: number[] | null }
  | ChildReply;

/** A program forked on the thread. */
export interface Forked extends NativeTerm {
  /** The thread that forked it (worker_threads' threadId). */
  threadId: number;
  /** Where its exit goes (once; an exit that came before is delivered on the next turn). */
  onExit(listener: (exitCode: number, signal: number) => void): void;
}

/** The thread is not there (it could not start, or it died): the caller forks itself. */
export class ForkThreadUnavailable extends Error {}

interface Child {
  pid: number | null;
  resolve: (f: Forked) => void;
  reject: (err: Error) => void;
  exit: { exitCode: number; signal: number } | null;
  listener: ((exitCode: number, signal: number) => void) | null;
}

const SIGKILL = 9;

/** A one-shot process started (or to be started) on the thread. */
interface Spawned {
  pid: number | null;
  emit: (e: ChildEvent) => void;
}

export class ForkThread {
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private failure: string | null = null;
  private nextId = 1;
  /** Forks asked for and children not yet reported exited. */
  private readonly children = new Map<number, Child>();
  /** One-shot processes asked for and not yet closed. */
  private readonly spawned = new Map<number, Spawned>();
  /** Of those, warm starts not yet released (they do not keep the host up). */
  private readonly held = new Set<number>();
  /** Forks waiting for the one on the thread to be answered (see next()). */
  private readonly queue: Array<ForkRequest | SpawnRequest> = [];
  private inFlight = false;
  /** Session scans asked for and not yet answered: resolved with null when the thread dies. */
  private readonly scans = new Map<number, (pids: number[] | null) => void>();

  /**
   * @param kill ends a child whose exit can no longer be reported (the thread died): its
   *   session's processes are killed and it is reported ended by SIGKILL.
   */
  constructor(
    private readonly kill: (pid: number) => void,
    file: string = forkWorkerFile(),
    /** The tools' cpu group the processes it starts are moved into (tool-priority.ts); null: none. */
    cpuGroup: string | null = toolsCpuGroup(),
  ) {
    // The thread spawns with its own child_process: it reads the host's sealed descriptors
    // (core/sealed-fds.ts) from shared memory, under the same lock, when it forks.
    this.worker = new Worker(file, { workerData: { live: this.live.buffer, sealed: sealedListForThread(), cpuGroup } });
    const threadId = this.worker.threadId;
    // A thread that died holding the sealed descriptors' lock never lets go of it.
    this.worker.once('exit', () => releaseSealLockOf(threadId));
    this.worker.unref();
    this.ready = new Promise<void>((resolve, reject) => {
      this.worker.on('message', (r: ForkReply) => {
        if (r.type === 'ready') resolve();
        else if (r.type === 'failed') reject(new ForkThreadUnavailable(r.message));
        else this.reply(r);
      });
      this.worker.on('error', (err) => {
        this.died(`the fork thread (which starts terminals and plugin processes) failed: ${err.message}`);
        reject(new ForkThreadUnavailable(this.failure!));
      });
      this.worker.on('exit', (code) => {
        this.died(`the fork thread (which starts terminals and plugin processes) stopped (exit code ${code})`);
        reject(new ForkThreadUnavailable(this.failure!));
      });
    });
    // Nobody may be waiting yet; the rejection is seen by fork().
    this.ready.catch(() => {});
    // A host that exits with terminals still running (process.exit, an uncaught exception): Node
    // tears the thread down only after node-pty's waitpid threads on it return, that is after
    // every program it forked has ended, so the exit would hang for as long as they run (a
    // `sleep 30`: 30 s). They are killed here instead, synchronously, as the last thing the
    // host does; nothing it started goes on running unsupervised after it.
    process.once('exit', this.onProcessExit);
  }

  /**
   * The terminals forked on the thread whose exit node-pty has not reported there yet (the
   * thread counts them: the count is exact even while its messages are on their way here).
   */
  private readonly live = new Int32Array(new SharedArrayBuffer(4));

  private readonly onProcessExit = (): void => {
    for (const c of [...this.children.values(), ...this.spawned.values()]) if (c.pid !== null) this.kill(c.pid);
    // node-pty's waitpid thread reports each killed terminal's exit into the thread; one that
    // reports it while Node is tearing the thread down aborts the process (a C++ exception with
    // no JavaScript to take it: "terminate called after throwing an instance of 'Napi::Error'"),
    // so the host died by SIGABRT instead of exiting with its code, about one exit in ten. So the
    // host waits, briefly, until the thread has heard every exit.
    const deadline = performance.now() + EXIT_REPORT_WAIT_MS;
    for (let n = Atomics.load(this.live, 0); n > 0; n = Atomics.load(this.live, 0)) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      Atomics.wait(this.live, 0, n, left);
    }
  };

  /** Why the thread is gone, or null while it runs. */
  get failed(): string | null {
    return this.failure;
  }

  /**
   * Forks on the thread. Rejects with ForkThreadUnavailable when the thread is gone (nothing was
   * forked), with an Error of node-pty's message when the fork failed.
   */
  async fork(args: ForkArgs): Promise<Forked> {
    await this.ready;
    if (this.failure) throw new ForkThreadUnavailable(this.failure);
    const id = this.nextId++;
    return new Promise<Forked>((resolve, reject) => {
      this.children.set(id, { pid: null, resolve, reject, exit: null, listener: null });
      // A child not yet reported exited keeps the host running, as node-pty's own exit callback does.
      this.worker.ref();
      this.queue.push({ type: 'fork', id, args });
      if (!this.inFlight) this.next();
    });
  }

  /**
   * Starts a one-shot process on the thread (child-io.ts startChild there); its events come to
   * `emit` in order. Rejects with ForkThreadUnavailable only when the thread is already gone
   * (nothing was started: the caller may start it itself). If the thread dies later, `emit` gets
   * `lost`, and a process it had started is killed: it is not started again, a tool's effects
   * must not happen twice.
   */
  async startChild(req: ChildRequest, emit: (e: ChildEvent) => void): Promise<ChildIo> {
    await this.ready;
    if (this.failure) throw new ForkThreadUnavailable(this.failure);
    const id = this.nextId++;
    this.spawned.set(id, { pid: null, emit });
    // A warm start held at its gate keeps nothing running (it is killed with the host): it keeps
    // the host up only once a call has taken it.
    if (req.input === null) this.held.add(id);
    else this.worker.ref();
    this.queue.push({ type: 'spawn', id, req });
    if (!this.inFlight) this.next();
    return {
      letGo: () => {
        if (this.spawned.has(id) && !this.failure) this.worker.postMessage({ type: 'let-go', id } satisfies SpawnRequest);
      },
      release: (input) => {
        if (!this.held.delete(id) || !this.spawned.has(id) || this.failure) return;
        this.worker.ref();
        // Still waiting its turn to be started: it starts with its input (a release sent now would
        // reach the thread before the spawn, find nothing, and leave the process at its gate).
        const queued = this.queue.find((q) => q.type === 'spawn' && q.id === id);
        if (queued?.type === 'spawn') queued.req = { ...queued.req, input };
        else this.worker.postMessage({ type: 'release', id, input } satisfies SpawnRequest);
      },
    };
  }

  /**
   * One fork at a time, and the next only after the loop has had a turn. While the thread forks,
   * the main thread stalls at its first page fault (the address space is locked for the copy);
   * forks sent back to back would leave it no moment in between, and a burst of terminals would
   * stall the loop for all of them in a row, as forking on the loop did.
   */
  private next(): void {
    const r = this.queue.shift();
    this.inFlight = r !== undefined;
    if (r) this.worker.postMessage(r);
  }

  /**
   * The live processes of the session led by `leader` (process-tree.ts sessionProcesses), read
   * on the thread; null when the thread is gone or could not read them (the caller reads them).
   * Not queued behind forks' loop turns: a scan costs the loop nothing.
   */
  async sessionProcesses(leader: number, forksBefore: number | null): Promise<number[] | null> {
    if (this.failure) return null;
    const id = this.nextId++;
    return new Promise<number[] | null>((resolve) => {
      this.scans.set(id, resolve);
      this.worker.ref();
      this.worker.postMessage({ type: 'scan', id, leader, forksBefore } satisfies ScanRequest);
    });
  }

  private reply(r: Exclude<ForkReply, { type: 'ready' | 'failed' }>): void {
    if (r.type === 'child') return this.childEvent(r.id, r.event);
    if (r.type === 'scanned') {
      const resolve = this.scans.get(r.id);
      this.scans.delete(r.id);
      this.unrefWhenIdle();
      resolve?.(r.pids);
      return;
    }
    // The fork on the thread is answered: the next goes once the loop has turned.
    if (r.type !== 'exit') setImmediate(() => this.next());
    const c = this.children.get(r.id);
    if (!c) return;
    if (r.type === 'error') {
      this.forget(r.id);
      c.reject(new Error(r.message));
    } else if (r.type === 'forked') {
      c.pid = r.pid;
      c.resolve({
        fd: r.fd,
        pid: r.pid,
        pty: r.pty,
        threadId: r.threadId,
        onExit: (listener) => {
          c.listener = listener;
          const exit = c.exit;
          if (exit) setImmediate(() => listener(exit.exitCode, exit.signal));
        },
      });
    } else {
      this.forget(r.id);
      c.exit = { exitCode: r.exitCode, signal: r.signal };
      c.listener?.(r.exitCode, r.signal);
    }
  }

  private childEvent(id: number, e: ChildEvent): void {
    const s = this.spawned.get(id);
    // Started or refused: the fork on the thread is done, the next goes once the loop has turned.
    if (e.type === 'spawned' || e.type === 'failed') setImmediate(() => this.next());
    if (!s) return;
    if (e.type === 'spawned') s.pid = e.pid;
    if (e.type === 'failed' || e.type === 'close' || e.type === 'lost') {
      this.spawned.delete(id);
      this.held.delete(id);
      this.unrefWhenIdle();
    }
    s.emit(e);
  }

  private forget(id: number): void {
    this.children.delete(id);
    this.unrefWhenIdle();
  }

  private unrefWhenIdle(): void {
    if (this.children.size === 0 && this.scans.size === 0 && this.spawned.size === this.held.size) this.worker.unref();
  }

  /**
   * The thread is gone. Forks in flight fail (the caller may fork itself). Children it forked
   * can no longer be reported: their exit status was the thread's to read. They are killed, so
   * that nothing runs unsupervised, and reported ended by SIGKILL, which is what ended them.
   * (Node stops a thread only once its waitpid threads are done, so on 'exit' they are gone.)
   */
  private died(why: string): void {
    this.failure ??= why;
    process.off('exit', this.onProcessExit);
    this.queue.length = 0;
    for (const resolve of this.scans.values()) resolve(null);
    this.scans.clear();
    for (const [id, c] of [...this.children]) {
      if (c.pid === null) {
        this.forget(id);
        c.reject(new ForkThreadUnavailable(why));
        continue;
      }
      this.kill(c.pid);
      this.reply({ type: 'exit', id, exitCode: 0, signal: SIGKILL });
    }
    // A one-shot process's exit and output were the thread's to read. Killed (if it was seen
    // starting; one still in flight had its pipes closed with the thread) and reported lost.
    for (const [id, s] of [...this.spawned]) {
      if (s.pid !== null) this.kill(s.pid);
      this.childEvent(id, { type: 'lost', message: why });
    }
  }
}

let shared: ForkThread | null | undefined;

/**
 * One fork thread for the process, started on first use, for terminals and one-shot plugin
 * processes alike. When it cannot start (its file is missing, node-pty does not load in a
 * worker), they are started on the calling thread as before, and the reason is said once: they
 * still start, only the loop pays for the forks.
 */
export function sharedForkThread(): ForkThread | null {
  if (shared === undefined) {
    try {
      shared = new ForkThread((pid) => killSession(pid));
    } catch (err) {
      shared = null;
      console.error(`gatehouse: processes are forked on the main thread: ${(err as Error).message}`);
    }
  }
  if (shared?.failed) {
    console.error(`gatehouse: processes are forked on the main thread from now on: ${shared.failed}`);
    shared = null;
  }
  return shared;
}

function forkWorkerFile(): string {
  return entryFile({ name: 'pty-fork-worker', ext: '.cjs', callerUrl: import.meta.url, what: 'the fork thread', packagesExternal: true });
}
