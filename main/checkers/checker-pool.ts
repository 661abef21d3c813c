// The checker pool: every registered checker sees every tool call at once, over the crust NDJSON
// protocol (docs/protocols.md §2), through its own small pool of long-lived processes.
//
// Verdict. Each checker's answer becomes an outcome: allow (null), block (a valid block result),
// or a failure (crash, timeout, garbage line, over-long line, malformed block, error answer,
// open breaker, full pool, process not ready). Gatehouse fails closed: a failure blocks the call
// unless the checker is optional. The verdict is the blocking outcome of the lowest registration
// order ("when several block, the lowest registration order wins").
//
// Latency policy for "first block wins": the pool resolves as soon as the answer is decided, and
// not before. A block from checker k is final once every checker before k has answered without
// blocking, so the pool waits for the lower-order answers only, never for the higher ones: a block
// from the first checker returns at once, an allow waits for everyone. The verdict is therefore
// deterministic (it never depends on which process happened to answer first), and a block costs
// at most the latency of the slowest checker before it. Answers arriving after the verdict still
// count for breakers and metrics; `failures` lists the failures known when the verdict was made.
//
// Copies. The request is serialized once per call, synchronously, and the same line is written
// to every checker; each process parses its own copy, so no checker can see another's changes,
// and the caller may reuse or change its params object as soon as evaluate() returns.
//
// Processes and time. Each checker has `processes` long-lived processes (default 1); a call goes
// to an idle one, or waits in the checker's queue (bounded: past `maxQueue` it fails at once as
// pool_full). A process has one request in flight at a time, as crust does, unless the checker
// is given `pipeline` > 1. A process has `timeoutMs` (default 5 s) to answer a call once it has
// it; a call waits at most that long again for a busy process, or, while a process is starting,
// until its init is answered or times out (`initTimeoutMs`). So every evaluate() settles in
// bounded time, whatever the checkers do. A process that crashes, hangs past its timeout or
// writes a line that is not a response (or is over 1 MiB) has its process group killed and is
// restarted with `init` replayed: at once if it had answered a call since it was last restarted
// that way, otherwise when the next call needs it, so a crash loop costs one start per call (and
// none once the breaker is open).
//
// Breakers. A crash, timeout, garbage or over-long line, malformed block and error answer count
// against the checker's breaker; so does a failed `init` (once, not once per waiting call). A
// full pool, and a call that expired while waiting for a busy process, do not: that is load, not
// the checker's fault (a probe call counts whatever happens to it, so the half-open breaker
// always gets its decision). An open breaker skips the checker: a breaker_open failure, which
// blocks unless the checker is optional.
import { systemClock, type Clock } from '../core/clock.js';
import { CircuitBreaker, type BreakerSnapshot } from '../runner/circuit-breaker.js';
import type { Outcome, PluginMetrics } from '../runner/metrics.js';
import { CheckerProcess, DEFAULT_CLOSE_GRACE_MS, type Answer, type DeathReport, type ProcessHooks } from './checker-process.js';
import { evaluateLine, parseEvaluateResult, type BlockResult, type EvaluateParams } from '../core/checker-protocol.js';

export const DEFAULT_CHECKER_TIMEOUT_MS = 5000;
/** Calls that may wait for a busy checker, per process. */
export const DEFAULT_QUEUE_PER_PROCESS = 256;

export interface CheckerSpec {
  name: string;
  /** Absolute, or relative to `cwd` (the plugin folder); a bare name not in the folder is looked up on PATH. */
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  config: Record<string, unknown> | null;
  /** A failure of an optional checker lets the call go on (reported in `failures`). */
  optional: boolean;
  /** Processes for this checker, default 1. */
  processes?: number;
  /** How long a process has to answer a call once it has it; default 5000. A call waits at most as long again for a busy process. */
  timeoutMs?: number;
  /** How long a starting process has to answer init; default the larger of timeoutMs and 5000 (interpreters take a while to start). */
  initTimeoutMs?: number;
  /** Calls that may wait when every process is busy; default 256 per process. Past it: pool_full. */
  maxQueue?: number;
  /**
   * Requests each process may have in flight; default 1, the crust behaviour (the next request
   * is written when the previous answer is in). More pipelines requests through a checker that
   * reads its input line by line, which any NDJSON reader does, for throughput under load.
   */
  pipeline?: number;
  /** Wraps the command (the sandbox); identity when absent. */
  wrap?: (command: string, args: string[]) => { command: string; args: string[] };
}

export type FailureKind = 'timeout' | 'crash' | 'garbage' | 'malformed' | 'error' | 'breaker_open' | 'pool_full' | 'not_ready';

export interface CheckerFailure {
  checker: string;
  kind: FailureKind;
  message: string;
  optional: boolean;
}

export type CheckerVerdict =
  | { decision: 'allow'; failures: CheckerFailure[] }
  | { decision: 'block'; checker: string; result: BlockResult; failures: CheckerFailure[] }
  | { decision: 'block'; checker: string; failure: CheckerFailure; failures: CheckerFailure[] };

export interface CheckerStatus {
  name: string;
  processes: number;
  ready: number;
  breaker: BreakerSnapshot;
}

export interface CheckerPoolEvent {
  type: string;
  checker: string;
  [k: string]: unknown;
}

export interface CheckerPoolOptions {
  checkers: CheckerSpec[] /* registration order */;
  clock?: Clock;
  /** The breaker of each checker; by default one with the baseline of docs/protocols.md §2 whose changes go to onEvent as 'checker.breaker'. */
  breakers?: (name: string) => CircuitBreaker;
  metrics?: PluginMetrics;
  log?: (msg: string, err?: unknown) => void;
  onEvent?: (e: CheckerPoolEvent) => void;
  /** How long a checker gets to exit after `close` before its group is terminated; default 2000. */
  closeGraceMs?: number;
}

/** Metrics outcome of each failure kind. breaker_open matches the tool runner ('error', 0 ms). */
const FAILURE_OUTCOME: Record<FailureKind, Outcome> = {
  timeout: 'timeout',
  crash: 'crash',
  garbage: 'bad_output',
  malformed: 'bad_output',
  error: 'error',
  breaker_open: 'error',
  pool_full: 'limit',
  not_ready: 'spawn',
};

type CheckerOutcome = { t: 'allow' } | { t: 'block'; result: BlockResult } | { t: 'fail'; failure: CheckerFailure };
const ALLOWED: CheckerOutcome = Object.freeze({ t: 'allow' });

/** One evaluate() in progress. */
class EvalCall {
  readonly outcomes: (CheckerOutcome | undefined)[];
  readonly failures: CheckerFailure[] = [];
  /** Every checker before this index has answered without blocking. */
  next = 0;
  done = false;

  constructor(
    readonly started: number,
    private readonly names: readonly string[],
    private readonly resolve: (v: CheckerVerdict) => void,
  ) {
    this.outcomes = new Array(names.length);
  }

  settle(index: number, outcome: CheckerOutcome): void {
    if (this.done) return;
    this.outcomes[index] = outcome;
    if (outcome.t === 'fail') this.failures.push(outcome.failure);
    const n = this.outcomes.length;
    while (this.next < n) {
      const o = this.outcomes[this.next];
      if (o === undefined) return;
      if (o.t === 'block') return this.finish({ decision: 'block', checker: this.names[this.next]!, result: o.result, failures: this.failures });
      if (o.t === 'fail' && !o.failure.optional) return this.finish({ decision: 'block', checker: this.names[this.next]!, failure: o.failure, failures: this.failures });
      this.next++;
    }
    this.finish({ decision: 'allow', failures: this.failures });
  }

  private finish(v: CheckerVerdict): void {
    this.done = true;
    this.resolve(v);
  }
}

/** A call waiting for, or being answered by, one checker. */
interface Pending {
  call: EvalCall;
  line: string;
  /** Until when it may wait for a busy process (a process that is starting has its own bound). */
  deadline: number;
  probe: boolean;
}

interface Slot {
  index: number;
  proc: CheckerProcess<Pending> | null;
  /** May the next unexpected death be followed by an immediate restart? Renewed by each answer. */
  eager: boolean;
}

class CheckerGroup implements ProcessHooks<Pending> {
  readonly slots: Slot[];
  readonly timeoutMs: number;
  readonly initTimeoutMs: number;
  readonly maxQueue: number;
  readonly depth: number;
  closed = false;
  /** Processes killed or exited that may not be gone yet: close() waits for them too. */
  private readonly dying = new Set<CheckerProcess<Pending>>();
  private queue: (Pending | undefined)[] = [];
  private qHead = 0;
  private qTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly spec: CheckerSpec,
    readonly order: number,
    readonly breaker: CircuitBreaker,
    private readonly pool: CheckerPool,
  ) {
    const n = spec.processes ?? 1;
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`checker ${spec.name}: processes must be a whole number ≥ 1, not ${n}`);
    this.timeoutMs = spec.timeoutMs ?? DEFAULT_CHECKER_TIMEOUT_MS;
    this.initTimeoutMs = spec.initTimeoutMs ?? Math.max(this.timeoutMs, DEFAULT_CHECKER_TIMEOUT_MS);
    this.maxQueue = spec.maxQueue ?? DEFAULT_QUEUE_PER_PROCESS * n;
    this.depth = spec.pipeline ?? 1;
    if (!Number.isInteger(this.depth) || this.depth < 1) throw new RangeError(`checker ${spec.name}: pipeline must be a whole number ≥ 1, not ${this.depth}`);
    this.slots = Array.from({ length: n }, (_, index) => ({ index, proc: null, eager: true }));
  }

  get queued(): number {
    return this.queue.length - this.qHead;
  }

  spawn(slot: Slot, reason: string): CheckerProcess<Pending> {
    const p = new CheckerProcess<Pending>(
      {
        name: this.spec.name,
        slot: slot.index,
        command: this.spec.command,
        args: this.spec.args,
        cwd: this.spec.cwd,
        env: this.spec.env,
        config: this.spec.config,
        initTimeoutMs: this.initTimeoutMs,
        timeoutMs: this.timeoutMs,
        depth: this.depth,
        ...(this.spec.wrap ? { wrap: this.spec.wrap } : {}),
        ...(this.pool.log ? { log: this.pool.log } : {}),
      },
      this,
    );
    slot.proc = p;
    p.start();
    this.pool.emit({ type: 'checker.spawned', checker: this.spec.name, slot: slot.index, pid: p.pid ?? null, reason });
    return p;
  }

  submit(call: EvalCall, line: string): void {
    const name = this.spec.name;
    if (this.closed) return this.fail(call, 'not_ready', `${name} is not running: the checker pool is closed (the host is shutting down; start it again with gatehouse serve)`);
    const idle = this.pick();
    // A full pool is load, not the checker's fault: refuse before taking a breaker ticket.
    if (idle === null && this.queued >= this.maxQueue) {
      return this.fail(call, 'pool_full', `${name} has ${this.queued} calls waiting for its ${this.slots.length} process${this.slots.length === 1 ? '' : 'es'}; the call was not sent`);
    }
    const ticket = this.breaker.acquire();
    if (!ticket.ok) return this.fail(call, 'breaker_open', `${name} was skipped: its circuit breaker is ${ticket.reason}`);
    const p: Pending = { call, line, deadline: call.started + this.timeoutMs, probe: ticket.probe };
    if (idle !== null) {
      idle.send(p, line);
      return;
    }
    this.queue.push(p);
    this.ensureStarting('a call is waiting');
    this.armQueueTimer();
  }

  /** The process with the fewest requests in flight that can take one more. */
  private pick(): CheckerProcess<Pending> | null {
    let best: CheckerProcess<Pending> | null = null;
    for (const s of this.slots) {
      const p = s.proc;
      if (p === null || !p.canTake()) continue;
      if (p.state === 'idle') return p;
      if (best === null || p.inflight < best.inflight) best = p;
    }
    return best;
  }

  /** Lazy restart: a call is waiting and nothing is starting, so start a dead slot. */
  private ensureStarting(reason: string): void {
    let dead: Slot | null = null;
    for (const s of this.slots) {
      if (s.proc === null) dead ??= s;
      else if (s.proc.state === 'starting') return;
    }
    if (dead !== null && !this.closed) this.spawn(dead, reason);
  }

  private dispatch(proc: CheckerProcess<Pending>): void {
    if (this.queued === 0) return;
    const now = performance.now();
    proc.cork();
    while (this.queued > 0 && proc.canTake()) {
      const p = this.queue[this.qHead]!;
      this.queue[this.qHead++] = undefined;
      if (this.qHead > 1024 && this.qHead * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.qHead);
        this.qHead = 0;
      }
      if (now >= p.deadline) this.expire(p);
      else proc.send(p, p.line);
    }
    proc.uncork();
    if (this.queued === 0) {
      this.queue.length = 0;
      this.qHead = 0;
    }
  }

  private armQueueTimer(): void {
    if (this.qTimer !== null || this.queued === 0) return;
    const head = this.queue[this.qHead]!;
    this.qTimer = setTimeout(this.onQueueTimer, Math.max(0, head.deadline - performance.now()));
  }

  private readonly onQueueTimer = (): void => {
    this.qTimer = null;
    // While a process is starting, its init (bounded by the same timeout) decides what happens to
    // the waiting calls: they are sent, or fail as not_ready with the reason.
    if (this.slots.some((s) => s.proc?.state === 'starting')) return;
    const now = performance.now();
    while (this.queued > 0 && this.queue[this.qHead]!.deadline <= now) {
      const p = this.queue[this.qHead]!;
      this.queue[this.qHead++] = undefined;
      this.expire(p);
    }
    this.armQueueTimer();
  };

  /** A call that waited its whole timeout for a busy process. */
  private expire(p: Pending): void {
    const msg = `${this.spec.name} did not take the call within ${this.timeoutMs} ms: all its processes were busy`;
    if (p.probe) this.breaker.failure(msg, true);
    this.record(p, 'timeout', msg);
  }

  /**
   * The breaker has just opened: the calls already waiting (admitted while it was closed) fail now
   * with its sentence, instead of each waiting for one more restart of a checker in a crash loop
   * and then for its timeout (under load that starved every call for the whole timeout).
   */
  private shedIfOpen(): void {
    if (this.queued === 0) return;
    const reason = this.breaker.refusal();
    if (reason !== null) this.failQueued('breaker_open', `${this.spec.name} was skipped: its circuit breaker is ${reason}`);
  }

  private failQueued(kind: 'not_ready' | 'breaker_open', message: string): void {
    while (this.queued > 0) {
      const p = this.queue[this.qHead]!;
      this.queue[this.qHead++] = undefined;
      if (p.probe) this.breaker.failure(message, true);
      this.record(p, kind, message);
    }
    this.queue.length = 0;
    this.qHead = 0;
  }

  /** Settles a failure of a call that had a breaker ticket (the breaker was told separately). */
  private record(p: Pending, kind: FailureKind, message: string): void {
    this.pool.metrics?.record(this.spec.name, FAILURE_OUTCOME[kind], performance.now() - p.call.started);
    p.call.settle(this.order, { t: 'fail', failure: { checker: this.spec.name, kind, message, optional: this.spec.optional } });
  }

  /** A failure without a breaker ticket: the call was never sent, so it has no latency. */
  private fail(call: EvalCall, kind: FailureKind, message: string): void {
    this.pool.metrics?.record(this.spec.name, FAILURE_OUTCOME[kind], Number.NaN);
    call.settle(this.order, { t: 'fail', failure: { checker: this.spec.name, kind, message, optional: this.spec.optional } });
  }

  // ---- process hooks --------------------------------------------------------------------------

  onReady(proc: CheckerProcess<Pending>): void {
    this.pool.emit({ type: 'checker.ready', checker: this.spec.name, slot: proc.slot, pid: proc.pid ?? null, ms: Math.round(performance.now() - proc.startedAt) });
    if (this.slots[proc.slot]!.proc === proc) this.dispatch(proc);
    this.armQueueTimer();
  }

  onAnswer(proc: CheckerProcess<Pending>, p: Pending, answer: Answer): void {
    const name = this.spec.name;
    const latency = performance.now() - p.call.started;
    const slot = this.slots[proc.slot]!;
    if (answer.ok) {
      if (slot.proc === proc) slot.eager = true;
      const parsed = parseEvaluateResult(answer.result);
      if (parsed.kind === 'allow') {
        this.breaker.success(p.probe);
        this.pool.metrics?.record(name, 'success', latency);
        p.call.settle(this.order, ALLOWED);
      } else if (parsed.kind === 'block') {
        this.breaker.success(p.probe);
        this.pool.metrics?.record(name, 'blocked', latency);
        p.call.settle(this.order, { t: 'block', result: parsed.result });
      } else {
        const message = `${name} ${parsed.message}`;
        this.breaker.failure(message, p.probe);
        this.pool.metrics?.record(name, 'bad_output', latency);
        p.call.settle(this.order, { t: 'fail', failure: { checker: name, kind: 'malformed', message, optional: this.spec.optional } });
      }
    } else {
      this.breaker.failure(answer.message, p.probe);
      this.pool.metrics?.record(name, answer.outcome, latency);
      p.call.settle(this.order, { t: 'fail', failure: { checker: name, kind: answer.kind, message: answer.message, optional: this.spec.optional } });
      this.shedIfOpen();
    }
    if (slot.proc === proc && proc.canTake()) this.dispatch(proc);
  }

  onDead(proc: CheckerProcess<Pending>, why: DeathReport, orphans: Pending[]): void {
    const slot = this.slots[proc.slot]!;
    const current = slot.proc === proc;
    if (orphans.length > 0) {
      // Written behind the request that failed: not at fault, so they wait for another turn
      // (ahead of later calls, in their order), or expire.
      if (this.closed) for (const p of orphans) this.record(p, 'not_ready', `${this.spec.name} is shutting down`);
      else {
        this.queue.splice(this.qHead, 0, ...orphans);
        this.shedIfOpen();
        for (const s of this.slots) if (s.proc !== null && s.proc !== proc && s.proc.canTake()) this.dispatch(s.proc);
        this.armQueueTimer();
      }
    }
    this.dying.add(proc);
    void proc.gone().then(() => this.dying.delete(proc));
    this.pool.emit({
      type: why.expected ? 'checker.exited' : 'checker.failed',
      checker: this.spec.name,
      slot: proc.slot,
      pid: proc.pid ?? null,
      kind: why.kind,
      message: why.message,
      duringInit: why.duringInit,
      stderr: why.stderr.slice(-500),
    });
    if (!current) return;
    slot.proc = null;
    if (why.expected || this.closed) return;
    if (why.duringInit) {
      // A checker that cannot start counts once per attempt, and is restarted only when a call
      // needs it: a crash loop costs one start per call, and none once the breaker is open.
      this.breaker.failure(why.message, false);
      this.shedIfOpen();
      // With another process alive, the waiting calls go to it, or expire; no new start here,
      // which could loop on a checker that dies at once.
      if (!this.slots.some((s) => s.proc !== null)) this.failQueued('not_ready', `${this.spec.name} is not ready: ${why.message.slice(this.spec.name.length + 1)}`);
      else this.armQueueTimer();
      return;
    }
    // Died after a good start: restart at once (init replayed) if it answered since the last
    // such restart, otherwise when the next call needs it.
    if (slot.eager || this.queued > 0) {
      slot.eager = false;
      this.spawn(slot, `restart after ${why.kind}`);
    }
  }

  async start(): Promise<void> {
    const procs = this.slots.map((s) => s.proc ?? this.spawn(s, 'start'));
    await Promise.all(procs.map((p) => p.initDone));
  }

  async restart(graceMs: number): Promise<void> {
    const old = this.slots.map((s) => s.proc);
    const fresh = this.slots.map((s) => {
      s.eager = true;
      return this.spawn(s, 'operator restart');
    });
    await Promise.all([...fresh.map((p) => p.initDone), ...old.map((p) => p?.close(graceMs))]);
  }

  async close(graceMs: number): Promise<void> {
    this.closed = true;
    if (this.qTimer !== null) clearTimeout(this.qTimer);
    this.qTimer = null;
    this.failQueued('not_ready', `${this.spec.name} is shutting down`);
    await Promise.all(this.slots.map((s) => s.proc?.close(graceMs)));
    await Promise.all([...this.dying].map((p) => p.gone()));
  }

  ready(): number {
    let n = 0;
    for (const s of this.slots) if (s.proc !== null && (s.proc.state === 'idle' || s.proc.state === 'busy')) n++;
    return n;
  }

  pids(): number[] {
    return this.slots.flatMap((s) => (s.proc?.pid !== undefined ? [s.proc.pid] : []));
  }
}

export class CheckerPool {
  readonly metrics: PluginMetrics | undefined;
  readonly log: ((msg: string, err?: unknown) => void) | undefined;
  private readonly groups: CheckerGroup[];
  private readonly names: string[];
  private readonly onEvent: ((e: CheckerPoolEvent) => void) | undefined;
  private readonly closeGraceMs: number;
  private closing: Promise<void> | null = null;

  constructor(opts: CheckerPoolOptions) {
    this.metrics = opts.metrics;
    this.log = opts.log;
    this.onEvent = opts.onEvent;
    this.closeGraceMs = opts.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
    const clock = opts.clock ?? systemClock;
    const seen = new Set<string>();
    for (const c of opts.checkers) {
      if (seen.has(c.name)) throw new Error(`checker ${c.name} is registered twice; checker names must be unique`);
      seen.add(c.name);
    }
    this.names = opts.checkers.map((c) => c.name);
    this.groups = opts.checkers.map((spec, order) => {
      const breaker =
        opts.breakers?.(spec.name) ??
        new CircuitBreaker({ clock, onChange: (next, prev) => this.emit({ type: 'checker.breaker', checker: spec.name, state: next.state, prev: prev.state, snapshot: next }) });
      return new CheckerGroup(spec, order, breaker, this);
    });
  }

  /** Spawns every process and sends init; resolves when each has answered or failed (bounded by its timeout). */
  async start(): Promise<void> {
    await Promise.all(this.groups.map((g) => g.start()));
  }

  /** Never rejects for anything a checker does; rejects only when `params` cannot be serialized (a host bug). */
  evaluate(params: EvaluateParams): Promise<CheckerVerdict> {
    // Serialized once, now: the copy every checker gets, immune to later changes of `params`.
    let line: string;
    try {
      line = evaluateLine(params);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise((resolve) => {
      const call = new EvalCall(performance.now(), this.names, resolve);
      if (this.groups.length === 0) return call.settle(0, ALLOWED);
      for (const g of this.groups) g.submit(call, line);
    });
  }

  /** Graceful close in reverse registration order. Later evaluate() calls are blocked (not_ready). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const g of this.groups) g.closed = true;
      for (let i = this.groups.length - 1; i >= 0; i--) await this.groups[i]!.close(this.closeGraceMs);
    })();
    return this.closing;
  }

  status(): CheckerStatus[] {
    return this.groups.map((g) => ({ name: g.spec.name, processes: g.slots.length, ready: g.ready(), breaker: g.breaker.snapshot() }));
  }

  /** Replaces every process of a checker (init replayed); the old ones finish their call and close. */
  async restart(name: string): Promise<void> {
    const g = this.groups.find((x) => x.spec.name === name);
    if (!g) throw new Error(`no checker named ${name}; registered: ${this.names.join(', ') || 'none'}`);
    if (g.closed) throw new Error(`checker ${name} cannot be restarted: the pool is closed`);
    await g.restart(this.closeGraceMs);
  }

  /** The breaker of a checker, for operator resets. */
  breaker(name: string): CircuitBreaker | undefined {
    return this.groups.find((x) => x.spec.name === name)?.breaker;
  }

  /** Process ids (= process group ids) of the live processes of a checker. */
  pids(name: string): number[] {
    return this.groups.find((x) => x.spec.name === name)?.pids() ?? [];
  }

  /** @internal */
  emit(e: CheckerPoolEvent): void {
    if (!this.onEvent) return;
    try {
      this.onEvent(e);
    } catch (err) {
      this.log?.(`checker pool: an event listener threw on ${e.type}`, err);
    }
  }
}
