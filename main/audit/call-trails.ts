// One tool call's trail in the log stays whole or is closed as lost, never half-written.
//
// A call's events (call.received, call.decided, call.result, execution.*, approval.*) are appended
// over several ticks, so they land in several batches. When one batch fails (a full disk, a lock)
// and a later one commits, the log held a call's later events without its earlier ones: after a
// disk-full window a call was on record as allowed *and* denied, with no call.received. This is
// the one point every producer appends through (the store's append gate, AuditStore.gateAppends), so the rule
// holds for the pipeline, the runner, approvals and hook reports alike:
//   - once any event of a call is lost, its later events are not written;
//   - when the log can be written again, the call is closed with one `call.lost` event saying
//     which of its events were lost and which were left out.
// It is also the durability the gateway asks before it runs a tool or answers an agent: whether
// this call's own events are on disk, not whether any batch failed meanwhile (an unrelated failed
// batch turned an allowed call's run into a "runner error" deny, a second decision for one call).
// And it knows which calls are still in flight, so a clean stop closes each of them
// (closeUnfinished) the way the next start closes a crashed run's (open-trails.ts): a call that
// was running or being judged when the host stopped used to keep an open trail for good.
import type { AuditEventInput, Appended } from './audit-store.js';
import { AuditWriteError } from './audit-store.js';
import { closingEvent, type OpenTrail } from './open-trails.js';

/** What the trails need of the store (AuditStore fits). */
export interface TrailStore {
  /** The gate every append of the store passes (AuditStore.gateAppends). */
  /** Installs the gate; returns the store's own append, which only the gate calls. */
  gateAppends(gate: (input: AuditEventInput) => Appended): (input: AuditEventInput) => Appended;
  mark(): number;
  whenDurable(mark: number): Promise<void>;
  /** Hands what is gathered to an idle writer now (AuditStore.sendNow). */
  sendNow(): void;
  writeError(): string | null;
  /** Checks now that the log file is still the one opened (AuditStore.checkFile); why not, or null. */
  checkFile?(): string | null;
  /** The newest failure's sentence, also after writes resumed (a loss is often learnt after). */
  lastWriteError(): string | null;
  readonly headSeq: number;
}

export const CALL_LOST_EVENT = 'call.lost';

/** Lost calls remembered (their later events are left out); the oldest closed ones are forgotten first. */
const MAX_LOST = 10_000;

/**
 * Calls in flight remembered for a clean stop. Every path ends a call with call.result (or one of
 * the closing events), so this holds only what runs now; the bound only stops a path that forgot
 * its end from growing memory (its call is then not closed at the stop: the next verify says so).
 */
const MAX_UNFINISHED = 50_000;

/** The events after which a call's trail is complete. */
const TRAIL_ENDS: ReadonlySet<string> = new Set(['call.result', 'call.abandoned', 'call.interrupted', 'call.lost']);

interface Trail {
  agent: string | null;
  session: string | null;
  tool: string | null;
  decision: string | null;
  executed: boolean;
  /** This call's events not yet known durable. */
  pending: number;
  /** The newest of its batches: they settle in order, so this settles after all earlier ones. */
  latest: Promise<void>;
}

interface LostTrail extends Trail {
  /** The store's sentence when the loss was found (it is gone once writes resume). */
  why: string | null;
  lost: string[];
  dropped: string[];
  closed: boolean;
  closing: boolean;
}

export class CallTrails {
  /** The store's own append, behind the gate. */
  private readonly inner: (input: AuditEventInput) => Appended;
  private readonly open = new Map<string, Trail>();
  private readonly lostCalls = new Map<string, LostTrail>();
  /** Events left out because their call's trail was already broken: they count as failures for mark(). */
  private dropped = 0;
  /** Calls received and not yet ended, with what their closing event needs. */
  private readonly unfinished = new Map<string, OpenTrail>();
  /** Calls closed by closeUnfinished: whatever they append afterwards is left out. */
  private readonly closedAtStop = new Set<string>();

  /**
   * Becomes the store's append gate, so every producer (which holds the store) goes through it.
   * SECURITY: without it a producer appending past the trails writes half a trail again.
   */
  constructor(private readonly store: TrailStore) {
    this.inner = store.gateAppends((input) => this.append(input));
  }

  append(input: AuditEventInput): Appended {
    const call = callOf(input.payload);
    if (call === null) return this.inner(input);
    if (this.closedAtStop.has(call)) return this.leftOut('the host is shutting down: this call was closed as unfinished');
    this.follow(call, input);
    if (input.type === CALL_LOST_EVENT) return this.inner(input);
    const lost = this.lostCalls.get(call);
    if (lost) {
      // Written alone it would contradict the log (a decision without its call, a second decision).
      lost.dropped.push(input.type);
      note(lost, input);
      return this.leftOut(lost.why ?? this.lostReason(lost));
    }
    let trail = this.open.get(call);
    if (!trail) {
      trail = { agent: null, session: null, tool: null, decision: null, executed: false, pending: 0, latest: Promise.resolve() };
      this.open.set(call, trail);
    }
    note(trail, input);
    const before = this.store.mark();
    const appended = this.inner(input);
    // A batch that failed inside append (an insert on a full disk) has already failed: known now,
    // before the caller's next event of this call, which must not start a new batch alone.
    if (this.store.mark() !== before) {
      this.lose(call, input.type);
      return appended;
    }
    trail.pending++;
    trail.latest = appended.durable;
    const t = trail;
    appended.durable.then(
      () => {
        if (--t.pending === 0 && this.open.get(call) === t) this.open.delete(call);
      },
      () => this.lose(call, input.type),
    );
    return appended;
  }

  /**
   * Resolves once every event of this call appended so far is on disk; rejects, with the log's
   * sentence, when one of them was lost. A tool runs, and an agent is answered, only after this.
   */
  async whenCallDurable(call: string): Promise<void> {
    const trail = this.open.get(call);
    if (trail) {
      this.store.sendNow();
      await trail.latest.catch(() => {});
    }
    const lost = this.lostCalls.get(call);
    // The log's own sentence (what failed, what to do): the agent's deny reads the same as any other.
    if (lost) throw new AuditWriteError(lost.why ?? this.store.lastWriteError() ?? 'the audit log could not write this call\u2019s events');
  }

  /** A mark for whenDurable(): the store's failures plus the events left out here. */
  mark(): number {
    return this.store.mark() + this.dropped;
  }

  async whenDurable(mark: number): Promise<void> {
    await this.store.whenDurable(this.store.mark()).catch(() => {});
    if (this.mark() !== mark) throw new AuditWriteError(this.store.lastWriteError() ?? 'an event could not be written: it belongs to a call whose earlier events the audit log lost');
  }

  writeError(): string | null {
    return this.store.writeError();
  }

  /** Why the log cannot take events now, looked at now: the file no longer the one opened, or appends failing. */
  failure(): string | null {
    return this.store.checkFile?.() ?? this.store.writeError();
  }

  lastWriteError(): string | null {
    return this.store.lastWriteError();
  }

  /** Moves with every event accepted or left out (the dispatcher waits only when an action recorded something). */
  get headSeq(): number {
    return this.store.headSeq + this.dropped;
  }

  /**
   * The host stops cleanly: every call still in flight (received, not ended) is closed now, as
   * the next start would close a crashed run's: `call.interrupted` when its tool was running,
   * `call.abandoned` otherwise, with the decision in force. Anything those calls append later
   * (a result arriving after the runner was stopped) is left out: the trail already ended.
   * Returns how many were closed.
   */
  closeUnfinished(): number {
    const open = [...this.unfinished.values()];
    this.unfinished.clear();
    for (const t of open) {
      const closing = closingEvent(t, 'shutdown');
      this.inner({ type: closing.type, actor: 'host', payload: closing.payload });
      this.closedAtStop.add(t.call);
    }
    return open.length;
  }

  /** The log can be written again (the store's onWriteState(null)): every lost call still open is closed now. */
  resumed(): void {
    for (const [call, lost] of this.lostCalls) if (!lost.closed) this.close(call, lost);
  }

  /** Keeps the in-flight table: what a closing event would say of the call, or that it ended. */
  private follow(call: string, input: AuditEventInput): void {
    if (TRAIL_ENDS.has(input.type)) {
      this.unfinished.delete(call);
      return;
    }
    const p = input.payload as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    if (input.type === 'call.received') {
      if (this.unfinished.size >= MAX_UNFINISHED) {
        const oldest = this.unfinished.keys().next().value;
        if (oldest !== undefined) this.unfinished.delete(oldest);
      }
      this.unfinished.set(call, { call, agent: str(p.agent), session: str(p.session), tool: str(p.tool), decision: null, running: null });
      return;
    }
    const t = this.unfinished.get(call);
    if (!t) return;
    if (input.type === 'call.decided') t.decision = str(p.decision);
    else if (input.type === 'execution.started') t.running = { plugin: str(p.plugin), tool: str(p.tool) };
    else if (input.type === 'execution.ended') t.running = null;
  }

  private leftOut(why: string): Appended {
    this.dropped++;
    const durable = Promise.reject(new AuditWriteError(why));
    durable.catch(() => {});
    return { seq: this.store.headSeq, hash: '', durable };
  }

  private lose(call: string, type: string): void {
    const known = this.lostCalls.get(call);
    if (known) {
      if (!known.closed) known.lost.push(type);
      return;
    }
    const trail = this.open.get(call);
    this.open.delete(call);
    // Closed by call.lost only: an abandoned event now would be a later event of a broken trail.
    this.unfinished.delete(call);
    const lost: LostTrail = {
      ...(trail ?? { agent: null, session: null, tool: null, decision: null, executed: false, pending: 0, latest: Promise.resolve() }),
      why: this.store.lastWriteError(),
      lost: [type],
      dropped: [],
      closed: false,
      closing: false,
    };
    this.lostCalls.set(call, lost);
    if (this.lostCalls.size > MAX_LOST) {
      for (const [id, l] of this.lostCalls) {
        if (this.lostCalls.size <= MAX_LOST) break;
        if (l.closed) this.lostCalls.delete(id);
      }
    }
    // A one-off failure (the next batch committed already): closed at once; else when writes resume.
    if (this.store.writeError() === null) queueMicrotask(() => this.close(call, lost));
  }

  private close(call: string, lost: LostTrail): void {
    if (lost.closed || lost.closing) return;
    lost.closing = true;
    const appended = this.inner({
      type: CALL_LOST_EVENT,
      actor: 'host',
      payload: {
        call,
        agent: lost.agent,
        session: lost.session,
        tool: lost.tool,
        decision: lost.decision,
        executed: lost.executed,
        lost: [...lost.lost],
        dropped: [...lost.dropped],
        reason: this.lostReason(lost),
      },
    });
    appended.durable.then(
      () => {
        lost.closed = true;
        lost.closing = false;
      },
      () => {
        lost.closing = false;
      },
    );
  }

  private lostReason(lost: LostTrail): string {
    const why = lost.why ?? this.store.lastWriteError();
    return `events of this call were in a batch the audit log could not write${why ? ` (${why})` : ''}; its later events were left out so the log holds no half trail. ${lost.executed ? 'The tool had already run.' : 'The call did not run on Gatehouse\u2019s say, and its agent was answered deny.'}`;
  }
}

function callOf(payload: unknown): string | null {
  const call = (payload as { call?: unknown } | null | undefined)?.call;
  return typeof call === 'string' && call !== '' ? call : null;
}

/** What the closing event says of the call: who, which tool, the last decision, whether it ran. */
function note(t: Trail, input: AuditEventInput): void {
  const p = input.payload as Record<string, unknown>;
  if (input.type === 'call.received') {
    t.agent = typeof p.agent === 'string' ? p.agent : null;
    t.session = typeof p.session === 'string' ? p.session : null;
    t.tool = typeof p.tool === 'string' ? p.tool : null;
  }
  if ((input.type === 'call.decided' || input.type === 'call.result') && typeof p.decision === 'string') t.decision = p.decision;
  if (input.type === 'execution.started' || (input.type === 'call.result' && p.executed === true)) t.executed = true;
}
