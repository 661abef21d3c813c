// One checker process speaking the crust NDJSON protocol (docs/protocols.md §2): spawned in its own
// process group, `init` sent first, then requests — one in flight at a time unless the pool asks
// for pipelining — then `close`.
//
// Pipelining (depth > 1) writes the next requests before the previous answers arrive; answers
// come back in order, as from any checker that reads its input line by line. Each request still
// gets the full timeout, counted from when the checker is done with the one before it (the time
// it can have started on it), and a failure is blamed on the request at the head, the one the
// checker was working on; the ones behind it go back to the pool unharmed.
//
// An instance is one OS process: it never restarts itself. When the process has to go (it
// crashed, hung past a deadline, wrote a line that is not a protocol message, or a line over the
// cap) the instance kills its whole group, reports why, and is done; the pool decides whether
// and when a new instance takes the slot (and replays `init` by starting one).
//
// Containment: `detached: true` makes the process lead a new process group (and session), so
// process.kill(-pid) reaches everything it forked. The group is killed whenever the leader exits,
// which is what keeps a backgrounded grandchild from outliving its checker.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Outcome } from '../runner/metrics.js';
import { LineSplitter, MAX_LINE_BYTES } from './line-splitter.js';
import { groupHasLiveMembers, signalGroup } from './process-group.js';
import { describeJson } from '../core/checker-protocol.js';
import { formatBytes } from '../../shared/format.js';

export const STDERR_TAIL_CHARS = 2000;
export const DEFAULT_CLOSE_GRACE_MS = 2000;
/** How long close() waits for a killed group's last members to disappear. */
const GROUP_GONE_WAIT_MS = 2000;

export type ProcessState = 'starting' | 'idle' | 'busy' | 'closing' | 'dead';

/** Why a request or the process failed; `not_ready` = the process could not be started at all. */
export type ProcessFailureKind = 'timeout' | 'crash' | 'garbage' | 'error' | 'not_ready';

export type Answer = { ok: true; result: unknown } | { ok: false; kind: Exclude<ProcessFailureKind, 'not_ready'>; outcome: Outcome; message: string };

export interface DeathReport {
  kind: ProcessFailureKind;
  /** The metrics outcome: 'limit' for an over-long line, otherwise the kind's. */
  outcome: Outcome;
  message: string;
  /** The process died before answering init. */
  duringInit: boolean;
  /** Death was asked for (close, restart): not a failure. */
  expected: boolean;
  stderr: string;
}

export interface ProcessHooks<T> {
  /** init was answered: the process is idle and can take a request. */
  onReady(p: CheckerProcess<T>): void;
  /** A request got its answer (or failed). Afterwards p.canTake() says whether it can take more. */
  onAnswer(p: CheckerProcess<T>, request: T, answer: Answer): void;
  /**
   * The process is gone (called once, after onAnswer for the request it failed on). `orphans`
   * are requests written behind that one (pipelining only): unanswered, and not at fault.
   */
  onDead(p: CheckerProcess<T>, why: DeathReport, orphans: T[]): void;
}

export interface CheckerProcessOptions {
  /** The checker's name: sent in init, and named in every message. */
  name: string;
  /** Position in the checker's pool of processes, for the pool's bookkeeping. */
  slot: number;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  config: Record<string, unknown> | null;
  /** How long init may take. */
  initTimeoutMs: number;
  /** How long a request may take, counted from when the checker can have started on it. */
  timeoutMs: number;
  /** Requests in flight at once; 1 (the default) is the crust behaviour. */
  depth?: number;
  lineCap?: number;
  wrap?: (command: string, args: string[]) => { command: string; args: string[] };
  log?: (msg: string, err?: unknown) => void;
}

/**
 * The command as the process sees it: a path containing a separator, or a bare name that exists
 * in the plugin folder, is relative to the plugin folder; any other bare name (python3, node) is
 * looked up on PATH.
 */
export function resolveCommand(command: string, cwd: string): string {
  if (isAbsolute(command)) return command;
  if (command.includes('/') || command.includes('\\') || existsSync(resolve(cwd, command))) return resolve(cwd, command);
  return command;
}

export class CheckerProcess<T> {
  state: ProcessState = 'starting';
  pid: number | undefined;
  readonly slot: number;
  /** Settles when init is answered (true) or the process died first (false). */
  readonly initDone: Promise<boolean>;
  readonly startedAt = performance.now();

  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly splitter: LineSplitter;
  private stderr = '';
  /** Requests written and not yet answered, oldest first (from fifoHead on). */
  private fifo: T[] = [];
  private fifoHead = 0;
  /** When the request at the head became the head: written to an idle process, or its predecessor answered. */
  private headSince = 0;
  private readonly depth: number;
  private readonly timeoutMs: number;
  private readonly initDeadline: number;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private closeRequested = false;
  private closeGraceMs = DEFAULT_CLOSE_GRACE_MS;
  private closeAcked = false;
  private closePromise: Promise<void> | null = null;
  private gonePromise: Promise<void> | null = null;
  private exited = false;
  private readonly exitWaiters: (() => void)[] = [];
  private resolveInit!: (ok: boolean) => void;

  constructor(
    private readonly opts: CheckerProcessOptions,
    private readonly hooks: ProcessHooks<T>,
  ) {
    this.slot = opts.slot;
    this.depth = opts.depth ?? 1;
    this.timeoutMs = opts.timeoutMs;
    this.initDeadline = this.startedAt + opts.initTimeoutMs;
    this.initDone = new Promise((r) => (this.resolveInit = r));
    this.splitter = new LineSplitter(
      opts.lineCap ?? MAX_LINE_BYTES,
      (line) => this.onLine(line),
      (bytes) => this.die('garbage', `wrote a line over the ${formatBytes(opts.lineCap ?? MAX_LINE_BYTES)} line cap (${formatBytes(bytes)} read before giving up) and was stopped`, 'limit'),
    );
  }

  /** Spawns the process and sends init. Failures are reported through the hooks, never thrown. */
  start(): void {
    const base = resolveCommand(this.opts.command, this.opts.cwd);
    const { command, args } = this.opts.wrap ? this.opts.wrap(base, this.opts.args) : { command: base, args: this.opts.args };
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(command, args, { cwd: this.opts.cwd, env: this.opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      queueMicrotask(() => this.die('not_ready', `could not be started (${(err as Error).message})`));
      this.exited = true;
      return;
    }
    this.child = child;
    this.pid = child.pid;
    child.on('error', (err) => {
      // Only spawn failures arrive here with no pid; later errors (kill on a dead pid) are moot.
      if (this.pid === undefined) {
        this.exited = true;
        this.die('not_ready', `could not be started: ${err.message}`);
        for (const w of this.exitWaiters.splice(0)) w();
      } else this.opts.log?.(`checker ${this.opts.name}: process error`, err);
    });
    // A process that stops reading makes our writes fail with EPIPE; its exit reports the rest.
    child.stdin.on('error', () => {});
    child.stdout.on('error', () => {});
    child.stderr.on('error', () => {});
    if (this.depth > 1) {
      // Answers that arrive together make room for requests that leave together.
      child.stdout.on('data', (chunk: Buffer) => {
        child.stdin.cork();
        this.splitter.push(chunk);
        child.stdin.uncork();
      });
    } else child.stdout.on('data', (chunk: Buffer) => this.splitter.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    // The leader's exit takes its group with it (a backgrounded child would otherwise keep our
    // pipes open, and 'close' would never come). 'close' comes after the last stdout byte is
    // read, so an answer written just before exiting is not lost.
    child.on('exit', () => this.killGroup('SIGKILL'));
    child.on('close', (code, signal) => {
      this.exited = true;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.die('crash', `${how}${this.state === 'starting' ? ' before answering init' : ''}`);
      for (const w of this.exitWaiters.splice(0)) w();
    });
    child.stdin.write(`{"method":"init","params":${JSON.stringify({ name: this.opts.name, config: this.opts.config })}}\n`);
    this.armFor(this.initDeadline);
  }

  /** The last characters the process wrote to stderr. */
  stderrTail(): string {
    return this.stderr;
  }

  /** Requests written and not yet answered. */
  get inflight(): number {
    return this.fifo.length - this.fifoHead;
  }

  /** Ready, not closing, and below its pipelining depth. */
  canTake(): boolean {
    return (this.state === 'idle' || (this.state === 'busy' && this.fifo.length - this.fifoHead < this.depth)) && !this.closeRequested;
  }

  /** Sends one request; only when canTake(). `line` ends with a newline. */
  send(request: T, line: string): void {
    if (!this.canTake()) throw new Error(`checker ${this.opts.name}: send while ${this.state}${this.closeRequested ? ' (closing)' : ''}`);
    if (this.state === 'idle') {
      this.state = 'busy';
      this.headSince = performance.now();
      this.armFor(this.headSince + this.timeoutMs);
    }
    this.fifo.push(request);
    this.child!.stdin.write(line);
  }

  /** Hold writes until uncork(), to send several requests in one write. */
  cork(): void {
    this.child?.stdin.cork();
  }

  uncork(): void {
    this.child?.stdin.uncork();
  }

  /**
   * Graceful close: after the request in flight (if any) is answered, send `close`, end stdin,
   * and wait for the process to exit; TERM the group after `graceMs`, KILL it after another.
   * Resolves once the process and every member of its group are gone.
   */
  close(graceMs = DEFAULT_CLOSE_GRACE_MS): Promise<void> {
    if (this.closePromise) return this.closePromise;
    this.closeRequested = true;
    this.closeGraceMs = graceMs;
    if (this.state === 'idle') this.sendClose();
    else if (this.state === 'starting') this.die('crash', 'was closed before answering init');
    // 'busy': onLine or the deadline moves on; 'dead': only the exit is left to wait for.
    this.closePromise = this.gone();
    return this.closePromise;
  }

  /** Resolves once the process has exited and its group has no live member left. */
  gone(): Promise<void> {
    this.gonePromise ??= this.waitExit().then(() => this.waitGroupGone());
    return this.gonePromise;
  }

  private sendClose(): void {
    this.state = 'closing';
    this.child!.stdin.write('{"method":"close"}\n');
    this.child!.stdin.end();
    this.clearTimer();
    const term = setTimeout(() => {
      this.opts.log?.(`checker ${this.opts.name} did not exit within ${this.closeGraceMs} ms of close${this.closeAcked ? '' : ' (and did not answer it)'}; terminating its process group`);
      this.killGroup('SIGTERM');
      const kill = setTimeout(() => this.killGroup('SIGKILL'), this.closeGraceMs);
      kill.unref();
      this.exitWaiters.push(() => clearTimeout(kill));
    }, this.closeGraceMs);
    term.unref();
    this.exitWaiters.push(() => clearTimeout(term));
  }

  private onLine(line: string): void {
    const state = this.state;
    if (state === 'busy') {
      const msg = parseEnvelope(line);
      if (msg === null) return; // a blank line
      if (msg.kind === 'garbage') return this.die('garbage', msg.message);
      const request = this.shift();
      if (this.fifoHead === this.fifo.length) {
        this.fifo.length = 0;
        this.fifoHead = 0;
        this.state = 'idle';
        if (this.closeRequested) this.sendClose();
      } else {
        // The checker is on the next request now: its timeout starts here.
        this.headSince = performance.now();
      }
      this.hooks.onAnswer(this, request, msg.kind === 'result' ? { ok: true, result: msg.result } : { ok: false, kind: 'error', outcome: 'error', message: `${this.opts.name} answered with an error: ${msg.error}` });
      return;
    }
    if (state === 'starting') {
      const msg = parseEnvelope(line);
      if (msg === null) return;
      if (msg.kind === 'garbage') return this.die('garbage', `${msg.message} instead of answering init`);
      if (msg.kind === 'error') return this.die('error', `refused init: ${msg.error}`);
      if (msg.result !== 'ok') this.opts.log?.(`checker ${this.opts.name} answered init with ${describeJson(msg.result)} instead of "ok"; taking it as ready`);
      this.clearTimer();
      this.state = 'idle';
      this.resolveInit(true);
      if (this.closeRequested) return this.sendClose();
      this.hooks.onReady(this);
      return;
    }
    if (state === 'closing') {
      const msg = parseEnvelope(line);
      if (msg !== null && msg.kind === 'result') this.closeAcked = true;
      return;
    }
    if (state === 'idle') {
      const msg = parseEnvelope(line);
      if (msg === null) return;
      this.die('garbage', `wrote a line nobody asked for (${preview(line)})`);
    }
  }

  /** The one way to 'dead': kill the group, fail the request in flight, report. */
  private die(kind: ProcessFailureKind, message: string, outcome?: Outcome): void {
    if (this.state === 'dead') return;
    const prev = this.state;
    this.state = 'dead';
    this.splitter.stop();
    this.clearTimer();
    this.killGroup('SIGKILL');
    const expected = this.closeRequested;
    const tail = this.stderr.trim();
    const full = `${this.opts.name} ${message}${tail && (kind === 'crash' || kind === 'not_ready' || kind === 'garbage') && !expected ? ` (stderr: ${tail.slice(-300)})` : ''}`;
    const o: Outcome = outcome ?? OUTCOME_OF[kind];
    const request = this.fifoHead < this.fifo.length ? this.shift() : null;
    const orphans = this.fifo.slice(this.fifoHead);
    this.fifo = [];
    this.fifoHead = 0;
    if (prev === 'starting') this.resolveInit(false);
    if (request !== null) this.hooks.onAnswer(this, request, { ok: false, kind: kind === 'not_ready' ? 'crash' : kind, outcome: o, message: full });
    this.hooks.onDead(this, { kind, outcome: o, message: full, duringInit: prev === 'starting', expected, stderr: this.stderr }, orphans);
  }

  private shift(): T {
    const request = this.fifo[this.fifoHead]!;
    this.fifo[this.fifoHead++] = undefined as T;
    return request;
  }

  private armFor(deadline: number): void {
    // One timer per process, re-armed lazily: the head's deadline only moves later, so a timer
    // set for an earlier one fires first and re-arms for the current one. This keeps
    // setTimeout/clearTimeout off the per-request path.
    if (this.timer !== null && this.timerAt <= deadline) return;
    this.clearTimer();
    this.timerAt = deadline;
    this.timer = setTimeout(this.onTimer, Math.max(0, deadline - performance.now()));
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  private readonly onTimer = (): void => {
    this.timer = null;
    this.timerAt = Infinity;
    const now = performance.now();
    if (this.state === 'starting') {
      if (now >= this.initDeadline) this.die('timeout', `did not answer init within ${this.opts.initTimeoutMs} ms`);
      else this.armFor(this.initDeadline);
    } else if (this.state === 'busy') {
      const deadline = this.headSince + this.timeoutMs;
      if (now >= deadline) this.die('timeout', `did not answer within ${Math.round(now - this.headSince)} ms and was stopped`);
      else this.armFor(deadline);
    }
  };

  private killGroup(signal: NodeJS.Signals): void {
    if (this.pid !== undefined) signalGroup(this.pid, signal);
  }

  private waitExit(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((r) => this.exitWaiters.push(r));
  }

  /** Members of the group the leader left behind die with the SIGKILL sent at its exit; wait until the kernel has them gone. */
  private async waitGroupGone(): Promise<void> {
    if (this.pid === undefined) return;
    const until = performance.now() + GROUP_GONE_WAIT_MS;
    let delay = 1;
    while (groupHasLiveMembers(this.pid)) {
      if (performance.now() > until) {
        this.opts.log?.(`checker ${this.opts.name}: process group ${this.pid} still has members ${GROUP_GONE_WAIT_MS} ms after SIGKILL`);
        return;
      }
      this.killGroup('SIGKILL');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 50);
    }
  }
}

const OUTCOME_OF: Record<ProcessFailureKind, Outcome> = { timeout: 'timeout', crash: 'crash', garbage: 'bad_output', error: 'error', not_ready: 'spawn' };

export type Envelope = { kind: 'result'; result: unknown } | { kind: 'error'; error: string } | { kind: 'garbage'; message: string };

/** One response line: exactly one of result and error. null for a blank line. */
export function parseEnvelope(line: string): Envelope | null {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    if (line.trim() === '') return null;
    return { kind: 'garbage', message: `wrote a line that is not JSON (${preview(line)})` };
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return { kind: 'garbage', message: `wrote ${describeJson(msg)} where a response object was due` };
  const hasResult = Object.hasOwn(msg, 'result');
  const hasError = Object.hasOwn(msg, 'error');
  if (hasResult === hasError) return { kind: 'garbage', message: `wrote a response with ${hasResult ? 'both' : 'neither of'} "result" and "error" (${preview(line)})` };
  if (hasResult) return { kind: 'result', result: (msg as { result: unknown }).result };
  const error = (msg as { error: unknown }).error;
  return { kind: 'error', error: typeof error === 'string' ? error : JSON.stringify(error) };
}

function preview(line: string): string {
  const head = line.slice(0, 60).replace(/\s+/g, ' ');
  return `"${head}${line.length > 60 ? '…' : ''}"`;
}

