// The real spawn: node-pty. Kept apart so the manager can be given another (tests, a sandbox
// wrapper) and so node-pty's quirks are handled in one place.
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import * as nodePty from 'node-pty';
import { closeSealed, sealFd, unsealFd, withSealLock } from '../core/sealed-fds.js';
import { startChild, type ChildEvent, type ChildRequest } from './child-io.js';
import { ForkThread, ForkThreadUnavailable, sharedForkThread, type ForkArgs, type Forked, type NativePty } from './fork-thread.js';
import type { ChildStarter } from './spawn-service.js';
import { sharedChildStarter } from './spawner.js';
import type { PtyProcess, PtySpawn, PtySpawnOptions } from './types.js';

export interface NodePtySpawnOptions {
  /**
   * 'utf8' (the default): node-pty's stream decodes with a StringDecoder (a read that ends
   * inside a character keeps the bytes for the next one), and only then does the PTY get IUTF8,
   * which erase (Backspace) in canonical mode needs for multi-byte characters.
   * null: raw bytes, decoded by the session's own Utf8Stream.
   */
  encoding?: 'utf8' | null;
  /**
   * Fork on the host's fork thread (fork-thread.ts; the default), on a given one (tests), or on
   * the calling thread as node-pty does (false: for comparing the two).
   */
  forkThread?: boolean | ForkThread;
  /**
   * Who starts a program on a terminal the host opened itself (startOnOwnTerminal): the host's
   * spawner (the default), a given starter, or false: node-pty forks it (on the fork thread or
   * here, as `forkThread` says), which leaves the other terminals' masters open in the program.
   */
  starter?: ChildStarter | null | false;
}

/** A process the spawn started, and the thread that forked it (for tests: 0 is the main thread). */
export type NodePtyProcess = PtyProcess & { forkedOnThread: number };

export function createNodePtySpawn(spawnOpts: NodePtySpawnOptions = {}): (command: string, args: string[], opts: PtySpawnOptions) => Promise<NodePtyProcess> {
  const encoding = spawnOpts.encoding ?? 'utf8';
  const thread = spawnOpts.forkThread ?? true;
  return async (command, args, opts) => {
    const gate = new ExitGate();
    const starter = spawnOpts.starter === undefined ? sharedChildStarter : spawnOpts.starter === false ? false : () => spawnOpts.starter as ChildStarter | null;
    return withSlaveHeld(await spawnNodePty(command, args, opts, encoding, thread === true ? sharedForkThread() : thread || null, gate, starter), gate);
  };
}

export const nodePtySpawn: PtySpawn = createNodePtySpawn();

const native = (nodePty as unknown as { native: NativePty | null }).native;

/** Thrown by the capturing fork below: UnixTerminal's constructor stops at its fork. */
class Captured extends Error {}

type Terminal = ReturnType<typeof nodePty.spawn>;

/**
 * node-pty's own UnixTerminal does everything around the fork (the environment it passes, the
 * read stream on the master fd with its EIO handling, the write queue, resize, kill, exit after
 * the last read); only the fork itself moves to the fork thread. So the terminal is made twice,
 * each time with node-pty's native fork swapped out for the length of the (synchronous)
 * constructor: first to capture the arguments it would fork with, then, once the thread has
 * forked with them, to hand it the thread's result. The swap is of this thread's instance of the
 * native module only; the fork thread has its own.
 */
/** What the fork thread adds to a program it forked (types.ts PtyProcess says what for). */
type FromThread = Pick<PtyProcess, 'onLeaderExit' | 'sessionProcesses'>;

interface Spawned {
  pty: Terminal;
  threadId: number;
  fromThread?: FromThread;
  /** The slave side the host opened with the master (startOnOwnTerminal): held, then closed, as withSlaveHeld's. */
  slave?: number;
}

async function spawnNodePty(command: string, args: string[], opts: PtySpawnOptions, encoding: 'utf8' | null, thread: ForkThread | null, gate: ExitGate, starter: (() => ChildStarter | null) | false): Promise<Spawned> {
  const ptyOpts = { name: opts.env.TERM ?? 'xterm-256color', cols: opts.cols, rows: opts.rows, cwd: opts.cwd, env: opts.env, encoding };
  const make = () => nodePty.spawn(command, args, ptyOpts);
  if (native && (thread || starter !== false)) {
    const captured = captureForkArgs(make);
    // node-pty did not call the native fork we swapped (a node-pty that changed): it forked
    // itself, and that terminal is used, its exit told as node-pty tells it.
    if (!Array.isArray(captured)) {
      gate.release();
      return { pty: captured, threadId: 0 };
    }
    const tools = starter !== false ? terminalTools() : null;
    // A user or group to switch to is forkpty's to do (Gatehouse asks for none).
    if (tools && starter !== false && native.open && captured[6] === -1 && captured[7] === -1) {
      try {
        return await startOnOwnTerminal(captured, tools, starter(), gate, make);
      } catch (err) {
        // A working folder that does not exist: node-pty's fork below reports it as node-pty
        // does (its child exits 1 at chdir, before it runs anything). Anything else fails the
        // start: a program forkpty starts would hold every terminal's master (and what the host
        // inherited), and one the spawner may have started must never run twice.
        if (!(err instanceof NotStarted) || existsSync(captured[3])) throw err;
      }
    }
    if (thread) return forkOnThread(captured, thread, gate, make);
  }
  return forkHere(gate, make);
}

/**
 * The arguments node-pty's UnixTerminal would fork with (its native fork swapped for the length
 * of its synchronous constructor, which stops there), or the terminal itself if it forked some
 * other way (a node-pty that changed).
 */
function captureForkArgs(make: () => Terminal): ForkArgs | Terminal {
  let captured: ForkArgs | null = null;
  const made = withNativeFork(
    (...a) => {
      captured = a.slice(0, 10) as ForkArgs;
      throw new Captured();
    },
    () => {
      try {
        return make();
      } catch (err) {
        if (err instanceof Captured) return null;
        throw err;
      }
    },
  );
  return made ?? captured!;
}

/** node-pty's fork, on the fork thread; here when the thread cannot (see forkHere). */
async function forkOnThread(args: ForkArgs, thread: ForkThread, gate: ExitGate, make: () => Terminal): Promise<Spawned> {
  let f: Forked;
  try {
    f = await thread.fork(args);
  } catch (err) {
    // The thread could not start or died: fork here, as node-pty does. Slower for the loop,
    // but terminals still start.
    if (!(err instanceof ForkThreadUnavailable)) throw err;
    return forkHere(gate, make);
  }
  // The thread's waitpid returning is the leader's end: told to the session, then to node-pty.
  const leader = new LeaderEnd();
  const pty = withNativeFork((...a) => {
    const onexit = gate.hold(a[10]);
    f.onExit((exitCode, signal) => {
      leader.ended();
      onexit(exitCode, signal);
    });
    return { fd: f.fd, pid: f.pid, pty: f.pty };
  }, make);
  return { pty, threadId: f.threadId, fromThread: { onLeaderExit: (l) => leader.listen(l), sessionProcesses: (forksBefore) => thread.sessionProcesses(f.pid, forksBefore) } };
}

/** Forked here, by node-pty's own native fork, with only its exit callback held. */
function forkHere(gate: ExitGate, make: () => Terminal): Spawned {
  const real = native?.fork;
  if (!real) {
    gate.release();
    return { pty: make(), threadId: 0 };
  }
  // The master is sealed before another thread of the host can fork (its own program, forked by
  // forkpty, holds the other masters: this fork is the fallback, see spawnNodePty).
  const fork: NativePty['fork'] = (...a) =>
    withSealLock(() => {
      const t = real.call(native, ...(a.slice(0, 10) as ForkArgs), gate.hold(a[10]));
      sealFd(t.fd);
      return t;
    });
  return { pty: withNativeFork(fork, make), threadId: 0 };
}

/** The leader's end, told to the session (PtyProcess.onLeaderExit) before node-pty hears of it. */
class LeaderEnd {
  private done = false;
  private readonly listeners: (() => void)[] = [];

  ended(): void {
    this.done = true;
    for (const l of this.listeners.splice(0)) l();
  }

  listen(listener: () => void): void {
    if (this.done) setImmediate(listener);
    else this.listeners.push(listener);
  }
}

/** When the slave is let go of after the leader's exit if nobody has (a caller without a session). */
const RELEASE_FALLBACK_MS = 1_000;

type OnExit = (exitCode: number, signal: number) => void;

/**
 * node-pty, told of the exit, waits at most 200 ms for its read stream to end and then destroys
 * it, dropping whatever is still unread. The session holds the slave open past the exit (see
 * withSlaveHeld) and lets go once reads have gone quiet, which on a loaded machine (a stalled
 * loop, a long GC) can be well past those 200 ms, with the program's last output still unread.
 * So node-pty hears of the exit only when the slave is let go of: its 200 ms then start once
 * everything the program wrote has been read, and are left only for what the session's leftover
 * processes (killed at the exit) may still hold open. Whoever spawned may never let go, so that
 * happens RELEASE_FALLBACK_MS after the exit anyway: an exit is never lost.
 */
class ExitGate {
  private exit: [number, number] | null = null;
  private onexit: OnExit | null = null;
  private released = false;
  private fallback: NodeJS.Timeout | null = null;
  private letGo: () => void = () => {};

  /** node-pty's exit callback, as the forking code should call it. */
  hold(onexit: OnExit): OnExit {
    this.onexit = onexit;
    return (exitCode, signal) => {
      if (this.exit) return;
      this.exit = [exitCode, signal];
      if (this.released) this.tell();
      else this.fallback = setTimeout(() => this.release(), RELEASE_FALLBACK_MS);
    };
  }

  /** What lets go of the slave. */
  onRelease(letGo: () => void): void {
    this.letGo = letGo;
  }

  release(): void {
    this.letGo();
    this.released = true;
    this.tell();
  }

  private tell(): void {
    const exit = this.exit;
    const onexit = this.onexit;
    if (!exit || !onexit) return;
    this.onexit = null;
    if (this.fallback) clearTimeout(this.fallback);
    this.fallback = null;
    onexit(exit[0], exit[1]);
  }
}

function withNativeFork<T>(fork: NativePty['fork'], fn: () => T): T {
  const n = native!;
  const real = n.fork;
  n.fork = fork;
  try {
    return fn();
  } finally {
    n.fork = real;
  }
}

function withSlaveHeld({ pty, threadId, fromThread, slave: opened }: Spawned, gate: ExitGate): NodePtyProcess {
  // On Linux the master side can read EIO while output is still buffered when the last holder
  // of the slave side exits with it, and node-pty then drops that tail (microsoft/node-pty#726,
  // #85). Holding the slave open ourselves means the master never sees EIO in that race; the
  // session lets go (release) once it has seen the leader gone, by which time what it wrote has
  // reached the master side, and node-pty reports the exit as soon as that is read.
  // O_NOCTTY: it must not become our controlling terminal; libuv opens with O_CLOEXEC, so no
  // child inherits it.
  // A terminal the host opened itself comes with its slave open: that one is held (it is sealed, not close-on-exec).
  let slave: number | null = opened ?? null;
  const ptsName = (pty as unknown as { ptsName?: unknown }).ptsName;
  if (slave === null && process.platform === 'linux' && typeof ptsName === 'string') {
    try {
      slave = openSync(ptsName, constants.O_RDWR | constants.O_NOCTTY);
    } catch {
      slave = null;
    }
  }
  const closeSlave = () => {
    if (slave === null) return;
    if (slave === opened) closeSealed(slave);
    else closeQuietly(slave);
    slave = null;
  };
  gate.onRelease(closeSlave);
  // The master, sealed where it was opened, is unsealed once node-pty has closed it (its read
  // stream closes the descriptor).
  const { _fd: master, _socket: socket } = pty as unknown as { _fd?: number; _socket?: { once(event: 'close', l: () => void): void } };
  if (socket && typeof master === 'number') socket.once('close', () => unsealFd(master));
  if (slave === null) gate.release();
  // Never left open past the terminal's end, whoever forked it.
  pty.onExit(closeSlave);
  return Object.assign(pty, { release: () => gate.release(), forkedOnThread: threadId }, fromThread ?? {}) as NodePtyProcess;
}


/** The terminal modes node-pty's forkpty sets beyond the kernel's defaults (src/unix/pty.cc), as stty words; IUTF8 with UTF-8 decoding. */
const NODE_PTY_MODES = ['ixany', 'imaxbel', 'brkint'];

/** A terminal's program that was not started (startOnOwnTerminal): nothing ran. */
class NotStarted extends Error {}

let tools: { setsid: string; stty: string } | null | undefined;

/** util-linux's setsid and coreutils' stty, which start a program on a terminal the host opened (Linux); null: node-pty forks. */
function terminalTools(): { setsid: string; stty: string } | null {
  if (tools === undefined) {
    const find = (name: string) => (process.platform === 'linux' ? (['/usr/bin', '/bin'].map((d) => `${d}/${name}`).find((p) => existsSync(p)) ?? null) : null);
    const setsid = find('setsid');
    const stty = find('stty');
    tools = setsid && stty ? { setsid, stty } : null;
  }
  return tools;
}

/**
 * The program on a terminal the host opens itself (openpty, no fork), started by the host's
 * spawner process, or the fork thread or this thread without one (child-io.ts, ChildRequest.tty).
 *
 * Why not forkpty: node-pty's master is not close-on-exec, so a program forkpty starts holds every
 * other terminal's master (a plugin's terminal could type into an operator's shell), and a fork of
 * the host stalls its loop. Here the master is sealed (core/sealed-fds.ts) the moment it exists,
 * the program is started by a process that holds no master, and the host does not fork. node-pty
 * does the rest as for its own fork: UnixTerminal is made with its native fork answered by this
 * terminal, and the exit, reported by whoever started the program, is handed to it.
 */
async function startOnOwnTerminal(a: ForkArgs, tools: { setsid: string; stty: string }, by: ChildStarter | null, gate: ExitGate, make: () => Terminal): Promise<Spawned> {
  const [file, argv, envList, cwd, cols, rows, , , utf8] = a;
  let t: { master: number; slave: number; pty: string };
  try {
    // Sealed under the lock that every thread's spawn takes: no thread forks in between.
    t = withSealLock(() => {
      const opened = native!.open!(cols, rows);
      try {
        sealFd(opened.master);
        sealFd(opened.slave);
      } catch (err) {
        for (const fd of [opened.master, opened.slave]) closeQuietly(fd);
        throw err;
      }
      return opened;
    });
  } catch (err) {
    throw new NotStarted((err as Error).message);
  }
  const env: Record<string, string> = {};
  for (const kv of envList) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const req: ChildRequest = { command: file, args: argv, cwd, env, input: null, maxStdout: 0, stderrTail: 0, tty: { path: t.pty, setsid: tools.setsid, stty: [tools.stty, ...NODE_PTY_MODES, utf8 ? 'iutf8' : '-iutf8'] } };
  let ended: [number, number] | null = null;
  let onEnd: ((exitCode: number, signal: number) => void) | null = null;
  const end = (exitCode: number, signal: number) => {
    if (ended) return;
    ended = [exitCode, signal];
    onEnd?.(exitCode, signal);
  };
  let started: { pid: number; threadId: number };
  try {
    started = await new Promise<{ pid: number; threadId: number }>((resolve, reject) => {
      const onEvent = (e: ChildEvent) => {
        if (e.type === 'spawned') resolve({ pid: e.pid, threadId: e.threadId });
        else if (e.type === 'failed') reject(new NotStarted(e.message));
        else if (e.type === 'close') end(e.code ?? 0, e.signal ? (osConstants.signals[e.signal] ?? 0) : 0);
        else if (e.type === 'lost') {
          // Whoever started it is gone and killed its session: it ended by SIGKILL, as far as anyone can tell.
          reject(new Error(e.message));
          end(0, osConstants.signals.SIGKILL);
        }
      };
      if (!by) return void startChild(req, onEvent);
      by.startChild(req, onEvent).catch((err: unknown) => {
        // Gone before it started anything: started here instead.
        if (err instanceof ForkThreadUnavailable) startChild(req, onEvent);
        else reject(err as Error);
      });
    });
  } catch (err) {
    for (const fd of [t.master, t.slave]) closeSealed(fd);
    throw err;
  }
  const { pid } = started;
  const leader = new LeaderEnd();
  const pty = withNativeFork((...x) => {
    const onexit = gate.hold(x[10]);
    onEnd = (exitCode, signal) => {
      leader.ended();
      onexit(exitCode, signal);
    };
    if (ended) onEnd(ended[0], ended[1]);
    return { fd: t.master, pid, pty: t.pty };
  }, make);
  const fromThread: FromThread = {
    onLeaderExit: (l) => leader.listen(l),
    // What the session left is read off the loop on the fork thread, when there is one.
    sessionProcesses: (forksBefore) => sharedForkThread()?.sessionProcesses(pid, forksBefore) ?? Promise.resolve(null),
  };
  return { pty, threadId: started.threadId, fromThread, slave: t.slave };
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}
