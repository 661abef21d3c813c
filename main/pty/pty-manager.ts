// PTY sessions of the host: the built-in `shell` tool, tools with `pty = true`, and shells an
// operator opens from the Terminals view. A plain class: the spawn function, the clock, the
// audit sink and the event sink are passed in (the host wires them to node-pty, its audit store
// and its event bus).
//
// Consoles are identified by a key the host derives from the connection ("serve-3",
// "electron"); attach, ack, input, resize and take-over are per console.
import { randomBytes } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { systemClock, type Clock } from '../audit/audit-store.js';
import { forkCount } from '../core/proc-scan.js';
import { DEFAULT_PTY_LIMITS, type PtyLimits } from './limits.js';
import { nodePtySpawn } from './node-pty-spawn.js';
import { PtyRefusal, PtySession } from './pty-session.js';
import type { TypedPiece } from './typing.js';
import type { PtyAttachment, PtyAuditEvent, PtyEvents, PtyExit, PtyFinished, PtyOutputEvent, PtyProcess, PtySessionInfo, PtySpawn, PtyStartOptions } from './types.js';

export { PtyRefusal };

export interface PtyManagerOptions {
  /** Records an audit event (the host's audit store). */
  record: (event: PtyAuditEvent) => void;
  /** Where output and list changes go (the host's event bus). */
  events: PtyEvents;
  spawn?: PtySpawn;
  clock?: Clock;
  limits?: Partial<PtyLimits>;
  log?: (msg: string, err?: unknown) => void;
  /** The host's environment, the base of an operator shell's (default: process.env). */
  baseEnv?: NodeJS.ProcessEnv;
}

export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;

export class PtyManager {
  private readonly sessions = new Map<string, PtySession>();
  /** Exited sessions, oldest first, so the oldest can be forgotten. */
  private readonly finished: string[] = [];
  private readonly spawn: PtySpawn;
  private readonly clock: Clock;
  readonly limits: PtyLimits;
  private readonly log: (msg: string, err?: unknown) => void;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private closed = false;
  /** Starts whose program is being spawned: close() waits for them, then ends what they started. */
  private readonly starting = new Set<Promise<unknown>>();
  /** Listeners besides the consoles (terminal adapters' screens): they see the same batches. */
  private readonly outputTaps = new Set<(event: PtyOutputEvent) => void>();

  constructor(private readonly opts: PtyManagerOptions) {
    this.spawn = opts.spawn ?? nodePtySpawn;
    this.clock = opts.clock ?? systemClock;
    this.limits = { ...DEFAULT_PTY_LIMITS, ...opts.limits };
    this.log = opts.log ?? ((m, e) => console.error(`gatehouse: ${m}`, e ?? ''));
    this.baseEnv = opts.baseEnv ?? process.env;
  }

  /** The operator's shell: $GATEHOUSE_SHELL, else $SHELL, when it can be run; else /bin/sh. */
  defaultShell(): string {
    for (const shell of [this.baseEnv.GATEHOUSE_SHELL, this.baseEnv.SHELL]) {
      if (shell && isAbsolute(shell) && isExecutable(shell)) return shell;
    }
    return '/bin/sh';
  }

  /** The host's environment for a program an operator starts, with what a terminal needs. */
  operatorEnv(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.baseEnv)) if (typeof v === 'string') env[k] = v;
    return env;
  }

  /**
   * Starts a command in a new PTY. The runner calls this for `pty = true` tools and the
   * built-in shell tool; the host calls it for an operator's "New shell". Resolves once the
   * program is running (node-pty's fork happens off the event loop: node-pty-spawn.ts).
   * Rejects with PtyRefusal('spawn_failed') when the command or the folder does not exist.
   */
  async start(opts: PtyStartOptions): Promise<PtySessionInfo> {
    return (await this.startSession(opts)).info();
  }

  /** Resolves when the session has exited and its transcript is recorded. */
  exited(id: string): Promise<PtyExit> {
    return this.session(id).exited();
  }

  /**
   * A session's exit and the output it kept, for the tools that run a program in a terminal and
   * answer with what it printed (gateway/shell-tool.ts, runner/pty-tool.ts). The output is read
   * from the session itself the moment its exit is recorded, not looked up by id afterwards: a
   * finished session is forgotten once `maxFinished` others have finished after it, and a tool that
   * awaited its sandbox's clean-up between the exit and the read found it gone under load (the
   * soak, ~25 terminals ending a second: a command that ran was answered "There is no terminal").
   */
  async exitWithOutput(id: string): Promise<PtyFinished> {
    const s = this.session(id);
    const exit = await s.exited();
    // After the exit the session is no longer watched: attaching only reads its kept scrollback.
    const viewer = `host:finished:${id}`;
    const { buffer, truncated } = s.attach(viewer);
    s.detach(viewer);
    return { exit, output: buffer, truncated };
  }

  list(viewer?: string): PtySessionInfo[] {
    return [...this.sessions.values()].map((s) => s.info(viewer)).sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : -1));
  }

  get(id: string, viewer?: string): PtySessionInfo {
    return this.session(id).info(viewer);
  }

  attach(id: string, viewer: string): PtyAttachment {
    return this.session(id).attach(viewer);
  }

  detach(id: string, viewer: string): void {
    this.sessions.get(id)?.detach(viewer);
  }

  ack(id: string, viewer: string, chars: number): void {
    this.sessions.get(id)?.ack(viewer, chars);
  }

  input(id: string, viewer: string, data: string): void {
    if (data.length > this.limits.maxInputChars) {
      throw new PtyRefusal('too_large', `Input of ${data.length} chars is over the ${this.limits.maxInputChars}-char limit; paste it in parts.`);
    }
    this.session(id).input(viewer, data);
  }

  /** The host's own input to a program (a terminal adapter's keys): no console, so no take-over. */
  feed(id: string, data: string): void {
    this.session(id).feed(data);
  }

  /** A `pty = true` tool's input, typed piece by piece at the pace of its echo (typing.ts). */
  typeInput(id: string, pieces: readonly TypedPiece[]): void {
    this.session(id).typeInput(pieces);
  }

  resize(id: string, viewer: string, cols: number, rows: number): boolean {
    return this.session(id).resize(viewer, cols, rows);
  }

  takeOver(id: string, viewer: string, operator: string): PtySessionInfo {
    return this.session(id).takeOver(viewer, operator);
  }

  release(id: string, viewer: string, operator: string): PtySessionInfo {
    return this.session(id).release(viewer, operator);
  }

  /** Kills the session's processes (SIGKILL, the whole session); `by` is the audit actor. */
  async kill(id: string, by: string): Promise<PtySessionInfo> {
    const s = this.session(id);
    await s.kill(by);
    return s.info();
  }

  /** For tests and the bench: what `viewer` has not acknowledged. */
  unacked(id: string, viewer: string): number | undefined {
    return this.sessions.get(id)?.unacked(viewer);
  }

  /** For the bench: the unacknowledged chars of the attached console furthest behind (0: all caught up). */
  behind(id: string): number {
    return this.sessions.get(id)?.behind() ?? 0;
  }

  /** A console disconnected: it stops counting for flow control and loses any take-over. */
  consoleLeft(viewer: string): void {
    for (const s of this.sessions.values()) s.forget(viewer);
  }

  /** Every output batch of every session, whether a console watches or not; returns the unsubscribe. */
  tapOutput(listener: (event: PtyOutputEvent) => void): () => void {
    this.outputTaps.add(listener);
    return () => this.outputTaps.delete(listener);
  }

  /** Kills every running session and waits for their transcripts to be recorded. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A start in flight registers its session (refusing the caller); then it is killed with the rest.
    await Promise.allSettled([...this.starting]);
    await Promise.all([...this.sessions.values()].filter((s) => s.running).map((s) => s.kill('host', 2000)));
  }

  private session(id: string): PtySession {
    const s = this.sessions.get(id);
    if (!s) throw new PtyRefusal('not_found', `There is no terminal ${id}; it may have ended and been forgotten. Refresh the Terminals list.`);
    return s;
  }

  private async startSession(opts: PtyStartOptions): Promise<PtySession> {
    if (this.closed) throw new PtyRefusal('spawn_failed', 'The host is stopping; no new terminal can start.');
    const cwd = opts.cwd ?? homedir();
    if (!isDirectory(cwd)) throw new PtyRefusal('spawn_failed', `Cannot start ${opts.command}: the folder ${cwd} does not exist.`);
    const env = { ...(opts.env ?? this.operatorEnv()) };
    const resolved = resolveCommand(opts.command, cwd, env.PATH ?? '');
    if (!resolved) throw new PtyRefusal('spawn_failed', `Cannot start ${opts.command}: no such program${opts.command.includes('/') ? '' : ' on PATH'}, or it is not executable.`);
    env.TERM ??= 'xterm-256color';
    env.COLORTERM ??= 'truecolor';
    const args = opts.args ?? [];
    const id = `pty-${randomBytes(5).toString('hex')}`;
    const cols = clampSize(opts.cols, DEFAULT_COLS);
    const rows = clampSize(opts.rows, DEFAULT_ROWS);
    const forksBefore = forkCount();
    const spawning = (async () => this.spawn(opts.command, args, { cwd, env, cols, rows }))();
    this.starting.add(spawning);
    let pty: PtyProcess;
    try {
      pty = await spawning;
    } catch (err) {
      throw new PtyRefusal('spawn_failed', `Cannot start ${opts.command}: ${(err as Error).message}.`);
    } finally {
      this.starting.delete(spawning);
    }
    const session = this.createSession(id, opts, cwd, env, args, cols, rows, pty, forksBefore);
    this.sessions.set(id, session);
    this.opts.events.changed({ id, change: 'started' });
    if (this.closed) {
      // The host began stopping while the program was forked: it is recorded, and close() ends it.
      throw new PtyRefusal('spawn_failed', 'The host is stopping; no new terminal can start.');
    }
    return session;
  }

  private createSession(id: string, opts: PtyStartOptions, cwd: string, env: Record<string, string>, args: string[], cols: number, rows: number, pty: PtyProcess, forksBefore: number | null): PtySession {
    return new PtySession(
      {
        id,
        command: opts.command,
        args,
        cwd,
        env,
        cols,
        rows,
        title: opts.title ?? [opts.command, ...args].join(' '),
        origin: opts.origin,
      },
      pty,
      forksBefore,
      {
        clock: this.clock,
        limits: this.limits,
        events: this.opts.events,
        tap: (e) => {
          for (const t of this.outputTaps) t(e);
        },
        record: this.opts.record,
        log: this.log,
        onExit: (s) => this.onSessionExit(s),
      },
    );
  }

  private onSessionExit(s: PtySession): void {
    this.finished.push(s.id);
    while (this.finished.length > this.limits.maxFinished) this.sessions.delete(this.finished.shift()!);
  }
}

function clampSize(n: number | undefined, fallback: number): number {
  if (n === undefined || !Number.isFinite(n)) return fallback;
  return Math.max(1, Math.min(1000, Math.trunc(n)));
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The program execvp would run, or null: node-pty reports a missing one only as output. */
function resolveCommand(command: string, cwd: string, path: string): string | null {
  if (command.includes('/')) {
    const full = isAbsolute(command) ? command : join(cwd, command);
    return isExecutable(full) ? full : null;
  }
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, command);
    if (isExecutable(full)) return full;
  }
  return null;
}
