// One command in a PTY: its output batched into seq-numbered events, kept in a bounded
// scrollback for re-attach, written to the audit log as a transcript, and read only as fast as
// the slowest watching console acknowledges it. Typing needs an explicit take-over.
import { constants as osConstants } from 'node:os';
import type { Clock } from '../audit/audit-store.js';
import { FlowControl } from './flow-control.js';
import type { PtyLimits } from './limits.js';
import { isAlive } from '../core/proc-scan.js';
import { killSession, sessionProcesses } from './process-tree.js';
import { Scrollback } from './scrollback.js';
import { Utf8Stream } from './text.js';
import { Transcript } from './transcript.js';
import { EchoPacedTyping, type TypedPiece } from './typing.js';
import type { PtyAttachment, PtyAuditEvent, PtyController, PtyEvents, PtyExit, PtyOrigin, PtyOutputEvent, PtyProcess, PtySessionInfo, PtyState } from './types.js';

export interface SessionSpec {
  id: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  title: string;
  origin: PtyOrigin;
}

export interface SessionDeps {
  clock: Clock;
  limits: PtyLimits;
  events: PtyEvents;
  /** Every output batch, watched or not (terminal adapters keep a screen of it). */
  tap?: (event: PtyOutputEvent) => void;
  record: (event: PtyAuditEvent) => void;
  log: (msg: string, err?: unknown) => void;
  /** Called once the session has exited and everything about it is recorded. */
  onExit: (session: PtySession) => void;
}

/** A refusal the operator can act on; the host turns it into a readable `rejected` error. */
export class PtyRefusal extends Error {
  constructor(
    readonly reason: 'not_found' | 'not_taken_over' | 'exited' | 'too_large' | 'spawn_failed',
    message: string,
  ) {
    super(message);
  }
}

/** How often to check whether the program is gone (see watchLeader). */
const LEADER_POLL_MS = 20;

const signalNames = new Map<number, string>(Object.entries(osConstants.signals).map(([name, n]) => [n, name]));

export class PtySession {
  readonly id: string;
  readonly spec: SessionSpec;
  readonly startedAt: number;
  private readonly pty: PtyProcess;
  private state: PtyState = 'running';
  private endedAt: number | null = null;
  private exit: PtyExit | null = null;
  /** pty.exited is recorded: exited() resolves at once (the exit itself may be known earlier). */
  private recorded = false;
  private cols: number;
  private rows: number;
  private seq = 0;
  private outputChars = 0;
  private batch: string[] = [];
  private batchChars = 0;
  private batchTimer: NodeJS.Timeout | null = null;
  /** Reading just resumed: the next read goes out at once (see onData). */
  private resumed = false;
  private leaderTimer: NodeJS.Timeout | null = null;
  /** forkCount() before the leader was forked: its exit then reads only /proc entries from its pid up. */
  private readonly forksBefore: number | null;
  private readonly decoder = new Utf8Stream();
  private readonly scrollback: Scrollback;
  private readonly transcript: Transcript;
  private readonly flow: FlowControl;
  private controller: PtyController | null = null;
  private killedBy: string | null = null;
  private readonly exitWaiters: ((exit: PtyExit) => void)[] = [];
  /** The host's own typing in progress (typeInput), which reads the echo of what it wrote. */
  private typing: EchoPacedTyping | null = null;

  /**
   * @param pty the program, already started (the manager spawns it: spawning may be asynchronous).
   * @param forksBefore forkCount() taken before it was forked: its exit then reads only /proc
   *   entries from its pid up (null: all of them).
   */
  constructor(
    spec: SessionSpec,
    pty: PtyProcess,
    forksBefore: number | null,
    private readonly deps: SessionDeps,
  ) {
    this.id = spec.id;
    this.spec = spec;
    this.cols = spec.cols;
    this.rows = spec.rows;
    const { limits } = deps;
    this.scrollback = new Scrollback(limits.scrollbackChars);
    this.transcript = new Transcript(spec.id, limits, (type, payload) => deps.record({ type, actor: 'host', payload }));
    this.flow = new FlowControl(
      limits.highWater,
      limits.lowWater,
      () => this.pty.pause(),
      () => {
        this.pty.resume();
        this.resumed = true;
      },
    );
    this.startedAt = deps.clock.now();
    this.forksBefore = forksBefore;
    this.pty = pty;
    this.pty.onData((chunk) => this.onData(chunk));
    this.pty.onExit((e) => this.onExit(e));
    this.watchLeader();
    deps.record({
      type: 'pty.started',
      actor: spec.origin.actor,
      payload: {
        id: spec.id,
        tool: spec.origin.tool,
        ...(spec.origin.plugin ? { plugin: spec.origin.plugin } : {}),
        ...(spec.origin.callId ? { callId: spec.origin.callId } : {}),
        command: spec.command,
        args: spec.args,
        cwd: spec.cwd,
        cols: spec.cols,
        rows: spec.rows,
        title: spec.title,
        pid: this.pty.pid,
      },
    });
  }

  get running(): boolean {
    return this.state === 'running';
  }

  get pid(): number {
    return this.pty.pid;
  }

  /** Resolves when the program has exited and its output is all recorded. */
  exited(): Promise<PtyExit> {
    if (this.recorded) return Promise.resolve(this.exit!);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  info(viewer?: string): PtySessionInfo {
    const s = this.spec;
    return {
      id: s.id,
      title: s.title,
      command: s.command,
      args: s.args,
      cwd: s.cwd,
      tool: s.origin.tool,
      actor: s.origin.actor,
      callId: s.origin.callId ?? null,
      state: this.state,
      pid: this.pty.pid,
      startedAt: this.startedAt,
      endedAt: this.endedAt,
      exitCode: this.exit?.exitCode ?? null,
      signal: this.exit?.signal ?? null,
      cols: this.cols,
      rows: this.rows,
      controller: this.controller,
      youControl: viewer !== undefined && this.controller?.console === viewer,
      paused: this.flow.isPaused,
      outputChars: this.outputChars,
      killedBy: this.killedBy,
      watchers: this.flow.watchers,
    };
  }

  /** Starts sending output to `viewer`; returns what it missed. Attaching again starts over. */
  attach(viewer: string): PtyAttachment {
    // Whatever was read before this attach goes into the buffer, not into an event the new
    // console would also count: events after this point carry higher seqs.
    this.flushBatch();
    if (this.running) this.flow.watch(viewer);
    return { session: this.info(viewer), buffer: this.scrollback.text(), seq: this.seq, truncated: this.scrollback.dropped > 0 };
  }

  detach(viewer: string): void {
    this.flow.unwatch(viewer);
  }

  ack(viewer: string, chars: number): void {
    this.flow.ack(viewer, chars);
  }

  /** For tests and the bench: the chars `viewer` has not acknowledged (undefined: not attached). */
  unacked(viewer: string): number | undefined {
    return this.flow.unackedOf(viewer);
  }

  behind(): number {
    return this.flow.behind();
  }

  input(viewer: string, data: string): void {
    if (!this.running) throw new PtyRefusal('exited', `Terminal ${this.id} has exited; there is nothing to type into.`);
    if (this.controller?.console !== viewer) {
      const who = this.controller ? ` ${this.controller.operator} took it over from another console.` : '';
      throw new PtyRefusal('not_taken_over', `Typing into terminal ${this.id} needs a take-over first, so that it is on record who typed.${who} Use “Take over”.`);
    }
    this.pty.write(data);
  }

  /**
   * Input from the host itself, not from a console: a terminal adapter's keys. No take-over
   * applies (no operator is typing); consoles go through `input`, a tool's arguments through
   * `typeInput`.
   */
  feed(data: string): void {
    if (!this.running) throw new PtyRefusal('exited', `Terminal ${this.id} has exited; its input could not be written.`);
    this.pty.write(data);
  }

  /**
   * A program's input typed by the host (a `pty = true` tool's arguments), piece by piece, each
   * once the echo of those before it was read (typing.ts says why). Returns at once; typing
   * ends with the last piece or with the program.
   */
  typeInput(pieces: readonly TypedPiece[]): void {
    if (!this.running) throw new PtyRefusal('exited', `Terminal ${this.id} has exited; its input could not be written.`);
    this.typing?.stop();
    const typing = new EchoPacedTyping(pieces, {
      write: (text) => this.pty.write(text),
      readingPaused: () => this.flow.isPaused,
      waitMs: this.deps.limits.typingEchoWaitMs,
      onDone: () => {
        if (this.typing === typing) this.typing = null;
      },
    });
    this.typing = typing;
    typing.start();
  }

  /** Resizes when `viewer` may: the controller, or any watcher while nobody has taken over. */
  resize(viewer: string, cols: number, rows: number): boolean {
    if (!this.running) return false;
    if (this.controller ? this.controller.console !== viewer : !this.flow.isWatching(viewer)) return false;
    if (cols === this.cols && rows === this.rows) return true;
    try {
      this.pty.resize(cols, rows);
    } catch (err) {
      this.deps.log(`terminal ${this.id}: resize failed`, err);
      return false;
    }
    this.cols = cols;
    this.rows = rows;
    return true;
  }

  takeOver(viewer: string, operator: string): PtySessionInfo {
    if (!this.running) throw new PtyRefusal('exited', `Terminal ${this.id} has exited; there is nothing to take over.`);
    const previous = this.controller;
    this.controller = { operator, console: viewer, at: this.deps.clock.now() };
    this.deps.record({
      type: 'pty.take-over',
      actor: `operator:${operator}`,
      payload: { id: this.id, console: viewer, previous: previous ? { operator: previous.operator, console: previous.console } : null },
    });
    this.deps.events.changed({ id: this.id, change: 'controller' });
    return this.info(viewer);
  }

  /**
   * The controlling console hands the terminal back: nobody types until someone takes it over
   * again. Only the controller can release (another console would take over instead); recorded,
   * as the take-over was, so the audit log says when the operator stopped typing.
   */
  release(viewer: string, operator: string): PtySessionInfo {
    if (this.controller?.console !== viewer) throw new PtyRefusal('not_taken_over', `Terminal ${this.id} is not taken over by this console, so there is nothing to release.`);
    this.controller = null;
    this.deps.record({ type: 'pty.release', actor: `operator:${operator}`, payload: { id: this.id, console: viewer } });
    this.deps.events.changed({ id: this.id, change: 'controller' });
    return this.info(viewer);
  }

  /** A console went away: it no longer watches, and no longer types. */
  forget(viewer: string): void {
    this.flow.unwatch(viewer);
    if (this.controller?.console === viewer && this.running) {
      this.controller = null;
      this.deps.events.changed({ id: this.id, change: 'controller' });
    }
  }

  /** SIGKILL to every process of the session; resolves once the exit is recorded. */
  async kill(by: string, timeoutMs = 5000): Promise<PtyExit | null> {
    if (!this.running) return this.exited();
    this.killedBy ??= by;
    const signalled = killSession(this.pty.pid);
    this.deps.record({ type: 'pty.killed', actor: by, payload: { id: this.id, pid: this.pty.pid, processes: signalled } });
    // What it wrote before dying is still read, even if no console is acknowledging.
    this.flow.drain();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
    try {
      return await Promise.race([this.exited(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private onData(chunk: string | Uint8Array): void {
    const text = this.decoder.write(chunk);
    if (text.length === 0) return;
    this.typing?.read(text);
    this.batch.push(text);
    this.batchChars += text.length;
    this.outputChars += text.length;
    // Counted as read, not as sent: the pause must come before the next read, not 5 ms later.
    this.flow.sent(text.length);
    // Paused, nothing more comes until the consoles catch up: waiting out the window would only
    // delay the acknowledgments that resume it. Just resumed, the consoles have next to nothing
    // left to parse (under the low-water mark): the first read goes out at once rather than after
    // a full batch, which at PTY speed is a millisecond or more of every console sitting idle.
    const firstAfterResume = this.resumed;
    this.resumed = false;
    if (firstAfterResume || this.batchChars >= this.deps.limits.batchMaxChars || this.flow.isPaused) this.flushBatch();
    else if (!this.batchTimer) this.batchTimer = setTimeout(() => this.flushBatch(), this.deps.limits.batchMs);
  }

  private flushBatch(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    if (this.batchChars === 0) return;
    const data = this.batch.length === 1 ? this.batch[0]! : this.batch.join('');
    this.batch = [];
    this.batchChars = 0;
    const seq = ++this.seq;
    this.scrollback.append(data);
    this.transcript.write(data);
    // Consoles that are not attached do not need the bytes; they re-attach from the scrollback.
    if (this.flow.watchers > 0) this.deps.events.output({ id: this.id, seq, data });
    this.deps.tap?.({ id: this.id, seq, data });
  }

  /**
   * node-pty reports an exit only after reading the master side to its end, or 200 ms after the
   * process died, when it gives up and drops the rest. Paused, we are not reading, so that grace
   * would cost what the program wrote last; and the spawn may hold the PTY open (see
   * node-pty-spawn.ts). So the session watches the leader: once it is gone, reading resumes
   * regardless of consoles (what is left is bounded by the kernel's PTY buffer), and once a poll
   * interval passes with nothing more to read, the PTY is let go and the exit follows.
   * A program forked on the fork thread is reported gone by that thread (its waitpid returned);
   * others are polled in /proc, a file read on the event loop per session per poll.
   */
  private watchLeader(): void {
    if (this.pty.onLeaderExit) {
      this.pty.onLeaderExit(() => {
        if (this.running) this.leaderGone();
      });
      return;
    }
    this.leaderTimer = setInterval(() => {
      if (!isAlive(this.pty.pid)) this.leaderGone();
    }, LEADER_POLL_MS);
    this.leaderTimer.unref();
  }

  private leaderGone(): void {
    this.stopLeaderWatch();
    this.flow.drain();
    let readAtLastPoll = this.outputChars;
    this.leaderTimer = setInterval(() => {
      if (this.outputChars !== readAtLastPoll) {
        readAtLastPoll = this.outputChars;
        return;
      }
      // Nothing read for an interval, as the timers see it. But after a stall of the loop (a
      // loaded machine, a GC) the timers run before the reads that waited out the stall, and
      // letting go then can lose the program's last output (the EIO above). So it is let go
      // only if a turn of the loop's I/O, which comes before an immediate, reads nothing either.
      const seen = this.outputChars;
      setImmediate(() => {
        if (!this.running || this.leaderTimer === null) return;
        if (this.outputChars !== seen) {
          readAtLastPoll = this.outputChars;
          return;
        }
        this.stopLeaderWatch();
        this.pty.release?.();
      });
    }, LEADER_POLL_MS);
    this.leaderTimer.unref();
  }

  private stopLeaderWatch(): void {
    if (this.leaderTimer) clearInterval(this.leaderTimer);
    this.leaderTimer = null;
  }

  private onExit(e: { exitCode: number; signal?: number }): void {
    if (!this.running) return;
    this.stopLeaderWatch();
    this.typing?.stop();
    const rest = this.decoder.end();
    if (rest) {
      this.batch.push(rest);
      this.batchChars += rest.length;
      this.outputChars += rest.length;
    }
    this.flushBatch();
    const signal = e.signal ? (signalNames.get(e.signal) ?? `signal ${e.signal}`) : null;
    this.exit = { exitCode: signal ? null : e.exitCode, signal };
    this.state = 'exited';
    this.endedAt = this.deps.clock.now();
    // A PTY session ends with its leader: what it left running in its session goes too, as
    // with the one-shot runner. (Anything that ignored SIGHUP would otherwise live on unseen.)
    // Finding it reads /proc (a file per process since the leader): the fork thread reads it
    // when the program was forked there, off the event loop; the exit is recorded (and waiters
    // hear of it) once that answer is in.
    const leader = this.pty.pid;
    const here = () => sessionProcesses(leader, new Set(), this.forksBefore);
    const onThread = this.pty.sessionProcesses?.(this.forksBefore);
    if (!onThread) {
      this.finishExit(here());
      return;
    }
    void onThread.then(
      (pids) => this.finishExit(pids ?? here()),
      () => this.finishExit(here()),
    );
  }

  private finishExit(leftPids: number[]): void {
    const exit = this.exit!;
    const left = leftPids.length;
    if (left > 0) killSession(this.pty.pid);
    const summary = this.transcript.finish();
    this.deps.record({
      type: 'pty.exited',
      actor: 'host',
      payload: {
        id: this.id,
        exitCode: exit.exitCode,
        signal: exit.signal,
        durationMs: this.endedAt! - this.startedAt,
        outputChars: summary.totalChars,
        transcriptChars: summary.recordedChars,
        droppedChars: summary.droppedChars,
        ...(summary.tail !== null ? { tail: summary.tail } : {}),
        ...(left > 0 ? { leftoverProcessesKilled: left } : {}),
        ...(this.killedBy ? { killedBy: this.killedBy } : {}),
      },
    });
    this.scrollback.shrink(this.deps.limits.finishedScrollbackChars);
    this.controller = null;
    this.recorded = true;
    for (const w of this.exitWaiters.splice(0)) w(exit);
    this.deps.events.changed({ id: this.id, change: 'exited' });
    this.deps.onExit(this);
  }
}
