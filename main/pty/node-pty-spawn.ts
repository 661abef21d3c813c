// The real spawn: node-pty. Kept apart so the manager can be given another (tests, a sandbox
// wrapper) and so node-pty's quirks are handled in one place.
import { closeSync, constants, openSync } from 'node:fs';
import * as nodePty from 'node-pty';
import { ForkThread, ForkThreadUnavailable, sharedForkThread, type ForkArgs, type Forked, type NativePty } from './fork-thread.js';
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
}

/** A process the spawn started, and the thread that forked it (for tests: 0 is the main thread). */
export type NodePtyProcess = PtyProcess & { forkedOnThread: number };

export function createNodePtySpawn(spawnOpts: NodePtySpawnOptions = {}): (command: string, args: string[], opts: PtySpawnOptions) => Promise<NodePtyProcess> {
  const encoding = spawnOpts.encoding ?? 'utf8';
  const thread = spawnOpts.forkThread ?? true;
  return async (command, args, opts) => {
    const gate = new ExitGate();
    return withSlaveHeld(await spawnNodePty(command, args, opts, encoding, thread === true ? sharedForkThread() : thread || null, gate), gate);
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

async function spawnNodePty(command: string, args: string[], opts: PtySpawnOptions, encoding: 'utf8' | null, thread: ForkThread | null, gate: ExitGate): Promise<{ pty: Terminal; threadId: number; fromThread?: FromThread }> {
  const ptyOpts = { name: opts.env.TERM ?? 'xterm-256color', cols: opts.cols, rows: opts.rows, cwd: opts.cwd, env: opts.env, encoding };
  if (thread && native) {
    const captured: { args: ForkArgs | null } = { args: null };
    const inThread = withNativeFork(
      (...a) => {
        captured.args = a.slice(0, 10) as ForkArgs;
        throw new Captured();
      },
      () => {
        try {
          return nodePty.spawn(command, args, ptyOpts);
        } catch (err) {
          if (err instanceof Captured) return null;
          throw err;
        }
      },
    );
    // node-pty did not call the native fork we swapped (a node-pty that changed): it forked
    // itself, and that terminal is used, its exit told as node-pty tells it.
    if (inThread || !captured.args) {
      gate.release();
      return { pty: inThread!, threadId: 0 };
    }
    let forked: Forked | null = null;
    try {
      forked = await thread.fork(captured.args);
    } catch (err) {
      // The thread could not start or died: fork here, as node-pty does. Slower for the loop,
      // but terminals still start.
      if (!(err instanceof ForkThreadUnavailable)) throw err;
    }
    if (forked) {
      const f = forked;
      const t = thread;
      // The thread's waitpid returning is the leader's end: told to the session, then to node-pty.
      let leaderEnded = false;
      const leaderListeners: (() => void)[] = [];
      const pty = withNativeFork(
        (...a) => {
          const onexit = gate.hold(a[10]);
          f.onExit((exitCode, signal) => {
            leaderEnded = true;
            for (const l of leaderListeners.splice(0)) l();
            onexit(exitCode, signal);
          });
          return { fd: f.fd, pid: f.pid, pty: f.pty };
        },
        () => nodePty.spawn(command, args, ptyOpts),
      );
      const fromThread: FromThread = {
        onLeaderExit: (listener) => {
          if (leaderEnded) setImmediate(listener);
          else leaderListeners.push(listener);
        },
        sessionProcesses: (forksBefore) => t.sessionProcesses(f.pid, forksBefore),
      };
      return { pty, threadId: f.threadId, fromThread };
    }
  }
  // Forked here, by node-pty's own native fork, with only its exit callback held.
  const real = native?.fork;
  if (!real) {
    gate.release();
    return { pty: nodePty.spawn(command, args, ptyOpts), threadId: 0 };
  }
  return { pty: withNativeFork((...a) => real.call(native, ...(a.slice(0, 10) as ForkArgs), gate.hold(a[10])), () => nodePty.spawn(command, args, ptyOpts)), threadId: 0 };
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

function withSlaveHeld({ pty, threadId, fromThread }: { pty: Terminal; threadId: number; fromThread?: FromThread }, gate: ExitGate): NodePtyProcess {
  // On Linux the master side can read EIO while output is still buffered when the last holder
  // of the slave side exits with it, and node-pty then drops that tail (microsoft/node-pty#726,
  // #85). Holding the slave open ourselves means the master never sees EIO in that race; the
  // session lets go (release) once it has seen the leader gone, by which time what it wrote has
  // reached the master side, and node-pty reports the exit as soon as that is read.
  // O_NOCTTY: it must not become our controlling terminal; libuv opens with O_CLOEXEC, so no
  // child inherits it.
  let slave: number | null = null;
  const ptsName = (pty as unknown as { ptsName?: unknown }).ptsName;
  if (process.platform === 'linux' && typeof ptsName === 'string') {
    try {
      slave = openSync(ptsName, constants.O_RDWR | constants.O_NOCTTY);
    } catch {
      slave = null;
    }
  }
  const closeSlave = () => {
    if (slave === null) return;
    try {
      closeSync(slave);
    } catch {
      // Already closed.
    }
    slave = null;
  };
  gate.onRelease(closeSlave);
  if (slave === null) gate.release();
  // Never left open past the terminal's end, whoever forked it.
  pty.onExit(closeSlave);
  return Object.assign(pty, { release: () => gate.release(), forkedOnThread: threadId }, fromThread ?? {}) as NodePtyProcess;
}

