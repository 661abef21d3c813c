// The spawner process: the host starts its one-shot plugin processes through a small Node process
// of its own, so that the host itself never forks (issue #29).
//
// Why: a fork copies the forking process's page tables while it holds the address-space lock.
// For the host (hundreds of MB to GBs) that is milliseconds, during which the host's main thread
// stalls at its next page fault even when the fork runs on another thread (the fork thread,
// fork-thread.ts), and afterwards the host pays copy-on-write faults on every page it writes.
// Profiles under 40 agents showed about 20% of the host's loop in such stalls. The spawner is
// small: its forks are cheap and stall only itself.
//
// How: it is a real Node (core/node-runtime.ts, found as for every JavaScript child) running
// spawner-process.ts, started once, at the first one-shot process, and
// kept. Requests and events are those of the fork thread (spawn-service.ts, one handler for both),
// over its IPC channel with advanced serialization, so a process's stdout arrives as bytes.
// Starting the spawner forks the host, once.
//
// When there is none: no Node (the packaged desktop app's binary cannot act as one: its runAsNode
// fuse is off; without a Node on the PATH), or its file is missing, or it died before it was
// ready: one-shot processes are started on the fork thread as before (sharedChildStarter).
//
// Fail closed, as the fork thread: if the spawner dies, each process it had started is killed (by
// the host: it knows their pids) and reported `lost`; nothing is started twice. The next process
// starts a new spawner. If the host dies, the spawner sees its channel close and kills what it
// started; if the host exits normally, it kills them itself first (onProcessExit), synchronously.
// The spawner never keeps the host running: its process and channel are unreferenced whenever no
// process it started is running for a call (a warm start held at its gate does not count).
import { spawn, type ChildProcess } from 'node:child_process';
import { entryFile } from '../core/entry-file.js';
import { jsChildCommand, type RuntimeHost } from '../core/node-runtime.js';
import type { ChildEvent, ChildIo, ChildRequest } from './child-io.js';
import { ForkThreadUnavailable, sharedForkThread } from './fork-thread.js';
import { killSession } from './process-tree.js';
import { toolsCpuGroup } from './tool-priority.js';
import type { ChildReply, ChildStarter, SpawnRequest } from './spawn-service.js';

type SpawnerReply = { type: 'ready'; pid: number } | ChildReply;

/** A one-shot process started (or to be started) by the spawner. */
interface Spawned {
  pid: number | null;
  emit: (e: ChildEvent) => void;
}

/** Starts the spawner process: a real Node running `file`, with an IPC channel. Throws JsChildRefused when there is no Node. */
export function startSpawnerProcess(file: string = spawnerFile(), runtime?: RuntimeHost, cpuGroup: string | null = toolsCpuGroup()): ChildProcess {
  // The Node every JavaScript child runs on (runner/js-child.ts does the same for the sandboxed
  // ones): never the desktop app's own binary. No sandbox: it runs Gatehouse's own code and only
  // forks; each plugin process it starts is wrapped by the host's request, as before.
  const at = jsChildCommand('the spawner process (which starts plugin processes)', file, runtime);
  // The tools' cpu group it joins, so that every process it starts is in it (tool-priority.ts).
  return spawn(at.node, cpuGroup === null ? [at.file] : [at.file, cpuGroup], {
    // stdout and stderr are the host's: a crash of the spawner says why where the host's would.
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
    // Its own group: the terminal's Ctrl-C is the host's to handle, not the spawner's.
    detached: true,
    // Nothing of the host's environment (NODE_OPTIONS) shapes it; each request brings its env.
    env: {},
  });
}

export class Spawner implements ChildStarter {
  private readonly child: ChildProcess;
  private readonly ready: Promise<void>;
  private failure: string | null = null;
  /** Its process id once it said it is ready. */
  private spawnerPid: number | null = null;
  private nextId = 1;
  /** One-shot processes asked for and not yet closed. */
  private readonly spawned = new Map<number, Spawned>();
  /** Of those, warm starts not yet released (they do not keep the host up). */
  private readonly held = new Set<number>();

  /**
   * @param kill ends a process whose exit can no longer be reported (the spawner died, the host
   *   exits): its session's processes are killed.
   * @param start starts the spawner process; throws when there is none to start (no Node).
   */
  constructor(
    private readonly kill: (pid: number) => void,
    start: () => ChildProcess = () => startSpawnerProcess(),
  ) {
    this.child = start();
    this.unref();
    this.ready = new Promise<void>((resolve, reject) => {
      this.child.on('message', (r: SpawnerReply) => {
        if (r.type === 'ready') {
          this.spawnerPid = r.pid;
          resolve();
        } else this.childEvent(r.id, r.event);
      });
      this.child.on('error', (err) => {
        this.died(`the spawner process (which starts plugin processes) failed: ${err.message}`);
        reject(new ForkThreadUnavailable(this.failure!));
      });
      this.child.on('exit', (code, signal) => {
        this.died(`the spawner process (which starts plugin processes) stopped (${signal ? `killed by ${signal}` : `exit code ${code}`})`);
        reject(new ForkThreadUnavailable(this.failure!));
      });
    });
    // Nobody may be waiting yet; the rejection is seen by startChild().
    this.ready.catch(() => {});
    process.once('exit', this.onProcessExit);
  }

  /** A host that exits kills what the spawner started for it, synchronously, as its last act (the spawner would too, once it sees the channel close). */
  private readonly onProcessExit = (): void => {
    for (const s of this.spawned.values()) if (s.pid !== null) this.kill(s.pid);
  };

  get failed(): string | null {
    return this.failure;
  }

  /** The spawner's process id, once it is ready (tests: a plugin process's parent). */
  get pid(): number | null {
    return this.spawnerPid;
  }

  /** Whether it died before it was ready (then it is not started again: sharedChildStarter). */
  get neverReady(): boolean {
    return this.failure !== null && this.spawnerPid === null;
  }

  /**
   * Starts a one-shot process in the spawner; its events come to `emit` in order. Rejects with
   * ForkThreadUnavailable only when the spawner is already gone (nothing was started).
   */
  async startChild(req: ChildRequest, emit: (e: ChildEvent) => void): Promise<ChildIo> {
    await this.ready;
    if (this.failure) throw new ForkThreadUnavailable(this.failure);
    const id = this.nextId++;
    this.spawned.set(id, { pid: null, emit });
    // A warm start held at its gate keeps nothing running (it is killed with the host): it keeps
    // the host up only once a call has taken it.
    if (req.input === null) this.held.add(id);
    else this.ref();
    this.send({ type: 'spawn', id, req });
    return {
      letGo: () => {
        if (this.spawned.has(id)) this.send({ type: 'let-go', id });
      },
      release: (input) => {
        if (!this.held.delete(id) || !this.spawned.has(id)) return;
        this.ref();
        this.send({ type: 'release', id, input });
      },
    };
  }

  /** Sent in order on the channel; a send that fails means the spawner is going ('exit' follows and reports it). */
  private send(r: SpawnRequest): void {
    if (this.failure || !this.child.connected) return;
    this.child.send(r, (err) => {
      if (err) this.child.kill('SIGKILL');
    });
  }

  private childEvent(id: number, e: ChildEvent): void {
    const s = this.spawned.get(id);
    if (!s) return;
    if (e.type === 'spawned') s.pid = e.pid;
    if (e.type === 'failed' || e.type === 'close' || e.type === 'lost') {
      this.spawned.delete(id);
      this.held.delete(id);
      if (this.spawned.size === this.held.size) this.unref();
    }
    s.emit(e);
  }

  private ref(): void {
    this.child.ref();
    this.child.channel?.ref();
  }

  private unref(): void {
    this.child.unref();
    this.child.channel?.unref();
  }

  /**
   * The spawner is gone: the exits and output of what it started can no longer be read. Each
   * process is killed (if it was seen starting; one whose start was still on its way had its
   * pipes closed with the spawner) and reported lost, as the fork thread's death is.
   */
  private died(why: string): void {
    if (this.failure) return;
    this.failure = why;
    process.off('exit', this.onProcessExit);
    this.unref();
    for (const [id, s] of [...this.spawned]) {
      if (s.pid !== null) this.kill(s.pid);
      this.childEvent(id, { type: 'lost', message: why });
    }
  }
}

/**
 * What starts the host's one-shot processes: its spawner process, started on first use and again
 * after one died, or the fork thread when there can be none (no Node, no file, or one died before
 * it was ready: then for good, said once).
 */
export class ChildStarters {
  private spawner: Spawner | null = null;
  /** Why there is no spawner for good. */
  private noSpawner: string | null = null;

  /**
   * @param newSpawner starts a spawner; throws when there can be none (JsChildRefused: no Node).
   * @param fallback the fork thread, or null when there is none either.
   */
  constructor(
    private readonly newSpawner: () => Spawner,
    private readonly fallback: () => ChildStarter | null,
    private readonly say: (message: string) => void = (m) => console.error(m),
  ) {}

  /** The starter to use now; null: start on the calling thread. */
  current(): ChildStarter | null {
    if (this.noSpawner === null && this.spawner?.neverReady) this.refuse(this.spawner.failed!);
    else if (this.spawner?.failed) this.spawner = null;
    if (this.noSpawner === null && !this.spawner) {
      try {
        this.spawner = this.newSpawner();
      } catch (err) {
        this.refuse((err as Error).message);
      }
    }
    return this.spawner ?? this.fallback();
  }

  private refuse(why: string): void {
    this.noSpawner = why;
    this.spawner = null;
    this.say(`gatehouse: plugin processes are started on the fork thread: ${why}`);
  }
}

const shared = new ChildStarters(() => new Spawner((pid) => killSession(pid)), sharedForkThread);

/** The host's ChildStarters' current starter (one-shot.ts's default). */
export function sharedChildStarter(): ChildStarter | null {
  return shared.current();
}

function spawnerFile(): string {
  return entryFile({ name: 'spawner-process', ext: '.cjs', callerUrl: import.meta.url, what: 'the spawner process', packagesExternal: true });
}
