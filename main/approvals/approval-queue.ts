// The approval inbox on the host side: one queue of asked calls across every agent and session.
// An item waits until an operator approves or denies it, or until it expires — `expired` is its
// own state, the call never runs, and it cannot be approved afterwards. An approval is bound to
// the SHA-256 of the canonical JSON of the exact arguments: the operator quotes the hash they
// were shown, and a different hash is refused. Decided and expired items stay for a bounded
// history. Every step is recorded for the audit log; `changed()` tells views to refresh.
//
// Lifecycle: an item also closes when its agent is gone (`gone`: an MCP cancel, a closed
// connection, the caller's own deadline reached first), and when the host stops (denied, with a
// `call.abandoned` event). With a store, every item and grant is written as it changes, so the
// history and live grants survive a restart, and an item left pending by a crash is closed at the
// next start (`restore`).
import { randomUUID } from 'node:crypto';
import { OperationError } from '../core/operation-error.js';
import type { Rule } from '../policy/types.js';
import { proposeAlwaysRule } from './always-rule.js';
import { canonicalArgs, compileArgumentPattern, hashCanonical } from './args-match.js';
import { Grants } from './grants.js';
import { realTimers, runAt, systemClock, type Clock, type Timers } from './timers.js';
import type {
  ApprovalFilter,
  ApprovalItem,
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalScope,
  ApproveOptions,
  ApprovalPersistence,
  ApproveResult,
  BatchResult,
  DenyOptions,
  Grant,
  RecordFn,
} from './types.js';

/** The `deadlineReason` of an item whose nearest deadline is the approval expiry itself. */
export const APPROVAL_EXPIRY_REASON = 'approval expiry';
/** What a call waiting at shutdown is told. */
export const SHUTDOWN_REASON = 'Gatehouse is shutting down';

export const DEFAULT_APPROVAL_EXPIRY_MS = 10 * 60_000;
export const DEFAULT_GRANT_MS = 60 * 60_000;
export const DEFAULT_HISTORY_LIMIT = 500;
export const DEFAULT_MAX_PENDING = 10_000;

export interface ApprovalQueueDeps {
  clock?: Clock;
  timers?: Timers;
  record?: RecordFn;
  changed?: () => void;
  /** Shared with policy (findGrant); created here when not given. */
  grants?: Grants;
  newId?: () => string;
  defaultExpiresInMs?: number;
  /** Default lifetime of a session grant. */
  defaultGrantMs?: number;
  /** Decided and expired items kept for the inbox's history. */
  historyLimit?: number;
  /** Pending items at most; beyond it a request is refused (and the gateway fails closed). */
  maxPending?: number;
  /** Keeps items and grants across restarts; without it they live in memory only. */
  store?: ApprovalPersistence;
  /** Where a failed write of the store goes (it never changes a decision already made). */
  log?: (msg: string, err?: unknown) => void;
}

interface Entry {
  item: ApprovalItem;
  canonical: string;
  resolve: (o: ApprovalOutcome) => void;
  cancelTimer: () => void;
}

export class ApprovalQueue {
  readonly grants: Grants;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly recordFn: RecordFn;
  private readonly changedFn: () => void;
  private readonly newId: () => string;
  private readonly defaultExpiresInMs: number;
  private readonly defaultGrantMs: number;
  private readonly historyLimit: number;
  private readonly maxPending: number;
  private readonly store: ApprovalPersistence | null;
  private readonly log: (msg: string, err?: unknown) => void;
  /** Insertion order is request order. */
  private readonly entries = new Map<string, Entry>();
  /** Ids of decided and expired items, oldest first. */
  private readonly history: string[] = [];
  private pendingCount = 0;

  constructor(deps: ApprovalQueueDeps = {}) {
    this.clock = deps.clock ?? systemClock;
    this.timers = deps.timers ?? realTimers;
    this.recordFn = deps.record ?? (() => {});
    this.changedFn = deps.changed ?? (() => {});
    this.newId = deps.newId ?? (() => `appr-${randomUUID()}`);
    this.store = deps.store ?? null;
    this.log = deps.log ?? (() => {});
    this.grants = deps.grants ?? new Grants({ clock: this.clock, timers: this.timers, record: this.recordFn, changed: this.changedFn, ...(deps.store ? { store: deps.store, log: this.log } : {}) });
    this.defaultExpiresInMs = positive(deps.defaultExpiresInMs ?? DEFAULT_APPROVAL_EXPIRY_MS, 'defaultExpiresInMs');
    this.defaultGrantMs = positive(deps.defaultGrantMs ?? DEFAULT_GRANT_MS, 'defaultGrantMs');
    this.historyLimit = Math.max(0, Math.floor(deps.historyLimit ?? DEFAULT_HISTORY_LIMIT));
    this.maxPending = Math.max(1, Math.floor(deps.maxPending ?? DEFAULT_MAX_PENDING));
  }

  request(req: ApprovalRequest): { id: string; decision: Promise<ApprovalOutcome> } {
    const expiresInMs = req.expiresInMs ?? this.defaultExpiresInMs;
    if (!Number.isFinite(expiresInMs) || expiresInMs <= 0) {
      throw new OperationError('invalid', `An approval needs a positive expiry in milliseconds; got ${String(expiresInMs)}.`);
    }
    const callerWaitsMs = req.callerWaitsMs;
    if (callerWaitsMs !== undefined && (!Number.isFinite(callerWaitsMs) || callerWaitsMs <= 0)) {
      throw new OperationError('invalid', `callerWaitsMs must be a positive number of milliseconds (how long the caller waits); got ${String(callerWaitsMs)}.`);
    }
    if (this.pendingCount >= this.maxPending) {
      throw new OperationError('busy', `The approval inbox already holds ${this.pendingCount} pending calls; decide some before more can be asked.`);
    }
    const canonical = canonicalArgs(req.call.arguments);
    const now = this.clock.now();
    const id = this.newId();
    // The caller's own deadline wins when it is nearer: the inbox then counts down to it and says why.
    const callerFirst = callerWaitsMs !== undefined && callerWaitsMs < expiresInMs;
    const expiresAt = now + (callerFirst ? callerWaitsMs : expiresInMs);
    const item: ApprovalItem = {
      id,
      state: 'pending',
      call: structuredClone(req.call),
      extraction: structuredClone(req.extraction),
      askedBy: structuredClone(req.askedBy),
      reason: req.reason,
      argsHash: hashCanonical(canonical),
      requestedAt: now,
      expiresAt,
      deadline: expiresAt,
      deadlineReason: callerFirst ? req.deadlineReason?.trim() || "the caller's own timeout" : APPROVAL_EXPIRY_REASON,
      decidedAt: null,
      operator: null,
      scope: null,
      outcome: null,
    };
    let resolve!: (o: ApprovalOutcome) => void;
    const decision = new Promise<ApprovalOutcome>((r) => (resolve = r));
    const entry: Entry = { item, canonical, resolve, cancelTimer: () => {} };
    // Written before anyone is told: a store that cannot keep the item fails this call closed
    // (the pipeline denies it), instead of a wait that a restart would silently forget.
    this.store?.saveApproval(item);
    this.entries.set(id, entry);
    this.pendingCount++;
    entry.cancelTimer = runAt(this.clock, this.timers, item.expiresAt, () => this.expire(entry));
    const callerDeadline = callerFirst ? { deadline: item.deadline, deadlineReason: item.deadlineReason } : {};
    this.recordFn('approval.requested', 'host', {
      id,
      call: item.call.id,
      agent: item.call.agent,
      session: item.call.session,
      tool: item.call.tool,
      argsHash: item.argsHash,
      askedBy: item.askedBy,
      reason: item.reason,
      expiresAt: item.expiresAt,
      ...callerDeadline,
    });
    this.changedFn();
    return { id, decision };
  }

  get(id: string): ApprovalItem | null {
    const e = this.entries.get(id);
    if (!e) return null;
    this.expireIfDue(e);
    return snapshot(e.item);
  }

  /** Pending, decided and expired items (history is bounded), in request order. */
  list(filter: ApprovalFilter = {}): ApprovalItem[] {
    this.expireDue();
    const out: ApprovalItem[] = [];
    for (const { item } of this.entries.values()) {
      if (filter.state !== undefined && item.state !== filter.state) continue;
      if (filter.agent !== undefined && item.call.agent !== filter.agent) continue;
      if (filter.session !== undefined && item.call.session !== filter.session) continue;
      if (filter.tool !== undefined && item.call.tool !== filter.tool) continue;
      out.push(snapshot(item));
    }
    return out;
  }

  pendingSize(): number {
    this.expireDue();
    return this.pendingCount;
  }

  approve(id: string, opts: ApproveOptions): ApproveResult {
    const e = this.pendingEntry(id, 'approved');
    const { item } = e;
    // Security: the operator decided on the arguments they saw. Without this check an approval
    // shown for one set of arguments could release a call carrying others.
    if (opts.argsHash !== item.argsHash) {
      throw new OperationError(
        'stale',
        `Approval ${id} was not approved: the arguments you saw (hash ${short(opts.argsHash)}) are not this call's (hash ${short(item.argsHash)}). Reload the item and decide again.`,
      );
    }
    const operator = requireOperator(opts.operator);
    const scope: ApprovalScope = opts.scope;
    let grant: Grant | undefined;
    let rule: Rule | undefined;
    if (scope === 'session') {
      // Validated before anything changes: a pattern that does not even cover this call is a mistake.
      if (opts.argumentPattern !== undefined && !compileArgumentPattern(opts.argumentPattern)(e.canonical)) {
        throw new OperationError('invalid', `The argument pattern ${JSON.stringify(opts.argumentPattern)} does not match this call's arguments ${e.canonical}; a session grant must cover the call it approves.`);
      }
      grant = this.grants.create({
        agent: item.call.agent,
        session: item.call.session,
        tool: item.call.tool,
        operator,
        expiresInMs: opts.sessionExpiresInMs ?? this.defaultGrantMs,
        argumentPattern: opts.argumentPattern,
        argsHash: item.argsHash,
        approval: id,
        source: item.call.source,
      });
    } else if (scope === 'always') {
      rule = proposeAlwaysRule({ id, call: item.call, extraction: item.extraction, argsHash: item.argsHash, operator });
    } else if (scope !== 'once') {
      throw new OperationError('invalid', `Unknown approval scope ${JSON.stringify(scope)}; use once, session or always.`);
    }
    const outcome: ApprovalOutcome = {
      state: 'approved',
      decider: { kind: 'operator', operator },
      reason: `Approved by ${operator} (${scopeText(scope, grant)}).`,
      ...(grant ? { grant } : {}),
      ...(rule ? { rule } : {}),
    };
    this.finish(e, outcome, operator, scope);
    this.recordFn('approval.decided', `operator:${operator}`, {
      ...decidedPayload(item),
      state: 'approved',
      operator,
      scope,
      ...teamPayload(opts.team),
      ...(grant ? { grant: grant.id, grantExpiresAt: grant.expiresAt, argumentPattern: grant.argumentPattern } : {}),
      ...(rule ? { rule: rule.name } : {}),
    });
    this.changedFn();
    return { item: snapshot(item), ...(grant ? { grant: { ...grant } } : {}), ...(rule ? { rule: structuredClone(rule) } : {}) };
  }

  deny(id: string, opts: DenyOptions): ApprovalItem {
    const e = this.pendingEntry(id, 'denied');
    const operator = requireOperator(opts.operator);
    const reason = typeof opts.reason === 'string' ? opts.reason.trim() : '';
    if (reason === '') throw new OperationError('invalid', `Approval ${id} was not denied: a denial needs a reason, which the agent is shown.`);
    const outcome: ApprovalOutcome = { state: 'denied', decider: { kind: 'operator', operator }, reason };
    this.finish(e, outcome, operator, null);
    this.recordFn('approval.decided', `operator:${operator}`, { ...decidedPayload(e.item), state: 'denied', operator, reason, ...teamPayload(opts.team) });
    this.changedFn();
    return snapshot(e.item);
  }

  /**
   * The host denies a waiting call itself, no operator having denied it (team mode: a signed team
   * decision made on an ask that was not this call, team-inbox.ts). Recorded as `approval.decided`
   * by the host, as a shutdown's denials are; `reason` is what the agent is told.
   */
  denyByHost(id: string, reason: string): ApprovalItem {
    const e = this.pendingEntry(id, 'denied');
    const outcome: ApprovalOutcome = { state: 'denied', decider: { kind: 'error', message: reason }, reason };
    this.finish(e, outcome, null, null);
    this.recordFn('approval.decided', 'host', { ...decidedPayload(e.item), state: 'denied', reason });
    this.changedFn();
    return snapshot(e.item);
  }

  /**
   * A grant created after this call started waiting covers it now, as the judge found when it
   * judged the call again (CallPipeline.releaseWaiting): the call is approved by that grant, not
   * by an operator, and recorded so (`approval.decided` by `grant:<id>`). False when the item is
   * no longer pending (decided, expired, gone meanwhile). Refused when the grant has ended
   * (revoked or expired meanwhile): a grant the operator took back releases nothing.
   */
  releaseByGrant(id: string, grantId: string): boolean {
    const e = this.entries.get(id);
    if (!e) return false;
    this.expireIfDue(e);
    if (e.item.state !== 'pending') return false;
    const grant = this.grants.get(grantId);
    if (!grant) throw new OperationError('state', `Grant ${grantId} has ended (revoked or expired); approval ${id} keeps waiting for an operator.`);
    const outcome: ApprovalOutcome = {
      state: 'approved',
      decider: { kind: 'grant', grant: grant.id },
      reason: `Allowed by grant ${grant.id}, made by ${grant.operator} while this call waited.`,
      grant,
    };
    this.finish(e, outcome, null, null);
    this.recordFn('approval.decided', `grant:${grant.id}`, { ...decidedPayload(e.item), state: 'approved', grant: grant.id, decider: outcome.decider });
    this.changedFn();
    return true;
  }

  /**
   * Approve a selection, once or for the session, each item checked on its own against the hash
   * the operator was shown. `always` is not offered in batch: each rule is shown before saving.
   */
  approveMany(selection: readonly { id: string; argsHash: string }[], opts: { operator: string; scope: 'once' | 'session'; sessionExpiresInMs?: number }): BatchResult[] {
    return selection.map(({ id, argsHash }) =>
      attempt(id, () =>
        this.approve(id, {
          operator: opts.operator,
          argsHash,
          scope: opts.scope,
          ...(opts.sessionExpiresInMs !== undefined ? { sessionExpiresInMs: opts.sessionExpiresInMs } : {}),
        }).item,
      ),
    );
  }

  denyMany(ids: readonly string[], opts: DenyOptions): BatchResult[] {
    return ids.map((id) => attempt(id, () => this.deny(id, opts)));
  }

  /**
   * The agent is gone (an MCP client cancelled the request or its session ended; a hook's
   * connection closed or its own timeout came first): the item leaves the pending inbox as `gone`,
   * its call never runs, and nobody can approve it any more. Recorded as `approval.withdrawn`
   * with the reason. False when the item is no longer pending.
   */
  withdraw(id: string, reason: string): boolean {
    const e = this.entries.get(id);
    if (!e) return false;
    this.expireIfDue(e);
    if (e.item.state !== 'pending') return false;
    this.gone(e, reason.trim() || 'the agent stopped waiting');
    return true;
  }

  /**
   * Host shutdown: every waiting call is denied ("Gatehouse is shutting down": its caller, still
   * connected, is answered before the transports close) and closed with `call.abandoned`. Timers
   * stop; the store keeps the history and live grants for the next start.
   */
  close(): void {
    this.abandonPending('host shut down');
    this.grants.close();
  }

  /** Denies every pending item because the host stops; returns how many there were. */
  abandonPending(why: 'host shut down'): number {
    let n = 0;
    for (const e of [...this.entries.values()]) {
      if (e.item.state !== 'pending') continue;
      n++;
      const outcome: ApprovalOutcome = {
        state: 'denied',
        decider: { kind: 'error', message: SHUTDOWN_REASON },
        reason: `${SHUTDOWN_REASON}; the call did not run. Ask again once it is back.`,
      };
      this.finish(e, outcome, null, null);
      this.recordFn('approval.decided', 'host', { ...decidedPayload(e.item), state: 'denied', reason: outcome.reason });
      this.recordFn('call.abandoned', 'host', { call: e.item.call.id, approval: e.item.id, agent: e.item.call.agent, session: e.item.call.session, tool: e.item.call.tool, reason: why, answered: true, decision: 'deny' });
    }
    if (n > 0) this.changedFn();
    return n;
  }

  /**
   * At start, with what the store kept: decided items return to the history (oldest first, as
   * bounded as ever), and an item still pending was left by a host that stopped without closing
   * it (a crash, a kill): it is closed now as denied, recorded as `call.abandoned` ("host stopped
   * unexpectedly"; nobody could be answered, its transport died with that host). Returns how many
   * were closed so.
   */
  restore(items: readonly ApprovalItem[]): { history: number; abandoned: number } {
    let abandoned = 0;
    let history = 0;
    const ordered = [...items].sort((a, b) => (a.decidedAt ?? a.requestedAt) - (b.decidedAt ?? b.requestedAt));
    for (const saved of ordered) {
      if (this.entries.has(saved.id)) continue;
      const item = structuredClone(saved);
      // Items kept by an earlier version lack the deadline: it was the expiry.
      item.deadline ??= item.expiresAt;
      item.deadlineReason ??= APPROVAL_EXPIRY_REASON;
      if (item.state === 'pending') {
        abandoned++;
        const reason = 'Gatehouse stopped unexpectedly before an operator decided; the call did not run.';
        item.state = 'denied';
        item.decidedAt = this.clock.now();
        item.outcome = { state: 'denied', decider: { kind: 'error', message: 'host stopped unexpectedly' }, reason };
        this.recordFn('call.abandoned', 'host', { call: item.call.id, approval: item.id, agent: item.call.agent, session: item.call.session, tool: item.call.tool, reason: 'host stopped unexpectedly', answered: false, decision: 'deny' });
        this.persist(item);
      } else history++;
      this.entries.set(item.id, { item, canonical: '', resolve: () => {}, cancelTimer: () => {} });
      this.pushHistory(item.id);
    }
    if (abandoned + history > 0) this.changedFn();
    return { history, abandoned };
  }

  // ---- internals ------------------------------------------------------------------------------

  private pendingEntry(id: string, verb: 'approved' | 'denied'): Entry {
    const e = this.entries.get(id);
    if (!e) throw new OperationError('not_found', `There is no approval ${id}; it may have been decided long ago and left the history.`);
    this.expireIfDue(e);
    const { item } = e;
    if (item.state === 'expired') {
      throw new OperationError('state', `Approval ${id} cannot be ${verb}: it expired at ${new Date(item.expiresAt).toISOString()} without a decision, and the call did not run. The agent has to ask again.`);
    }
    if (item.state === 'gone') {
      throw new OperationError('state', `Approval ${id} cannot be ${verb}: its agent is gone (${item.outcome?.reason ?? 'it stopped waiting'}). Nobody is waiting for this call; it did not run and never will.`);
    }
    if (item.state !== 'pending') {
      throw new OperationError('state', `Approval ${id} cannot be ${verb}: it was already ${item.state} by ${item.operator ?? 'the host'}.`);
    }
    return e;
  }

  private finish(e: Entry, outcome: ApprovalOutcome, operator: string | null, scope: ApprovalScope | null): void {
    e.cancelTimer();
    const { item } = e;
    item.state = outcome.state;
    item.decidedAt = this.clock.now();
    item.operator = operator;
    item.scope = scope;
    item.outcome = outcome;
    this.pendingCount--;
    this.persist(item);
    this.pushHistory(item.id);
    e.resolve(snapshotOutcome(outcome));
  }

  private pushHistory(id: string): void {
    this.history.push(id);
    while (this.history.length > this.historyLimit) {
      const old = this.history.shift();
      if (old === undefined) continue;
      this.entries.delete(old);
      try {
        this.store?.forgetApproval(old);
      } catch (err) {
        this.log(`approval ${old} could not be removed from the store`, err);
      }
    }
  }

  // After the decision: a failed write must not undo or delay it (the audit log has it anyway).
  private persist(item: ApprovalItem): void {
    try {
      this.store?.saveApproval(item);
    } catch (err) {
      this.log(`approval ${item.id} could not be saved; the inbox history may miss it after a restart`, err);
    }
  }

  /**
   * `label` starts the decider's message, which reaches the agent (the hook's answer names its
   * decider): an agent still waiting for its answer must not read "agent gone" (deadline path).
   */
  private gone(e: Entry, why: string, headline = 'Agent gone before an operator decided', label = 'agent gone'): void {
    const outcome: ApprovalOutcome = {
      state: 'gone',
      decider: { kind: 'error', message: `${label}: ${why}` },
      reason: `${headline}: ${why}; the call did not run.`,
    };
    this.finish(e, outcome, null, null);
    this.recordFn('approval.withdrawn', 'host', { ...decidedPayload(e.item), state: 'gone', reason: outcome.reason });
    this.changedFn();
  }

  private expireDue(): void {
    for (const e of [...this.entries.values()]) this.expireIfDue(e);
  }

  // The timer is the usual path; this check means an item past its expiry is never approved,
  // even when the timer has not fired yet (a busy event loop, a clock that moved).
  private expireIfDue(e: Entry): void {
    if (e.item.state === 'pending' && this.clock.now() >= e.item.expiresAt) this.expire(e);
  }

  private expire(e: Entry): void {
    if (e.item.state !== 'pending') return;
    // The caller's own deadline came first: it is about to give up, so the item is closed as
    // gone (its caller still gets the answer, a denial, before its timeout ends).
    if (e.item.deadlineReason !== APPROVAL_EXPIRY_REASON) {
      // The agent is still waiting here: it is told its wait ran out, not that it is gone.
      this.gone(e, `${e.item.deadlineReason} ends at ${new Date(e.item.deadline).toISOString()}, before an operator decided`, 'The time this agent waits ran out before an operator decided', 'wait ran out');
      return;
    }
    const minutes = (e.item.expiresAt - e.item.requestedAt) / 60_000;
    const outcome: ApprovalOutcome = {
      state: 'expired',
      // Nobody decided: the decider stays whoever asked, and the state says it expired.
      decider: e.item.askedBy,
      reason: `No operator decided within ${Number.isInteger(minutes) ? minutes : minutes.toFixed(2)} minute${minutes === 1 ? '' : 's'}; the call expired and did not run.`,
    };
    this.finish(e, outcome, null, null);
    this.recordFn('approval.expired', 'host', { ...decidedPayload(e.item), state: 'expired', expiresAt: e.item.expiresAt });
    this.changedFn();
  }
}

function positive(n: number, name: string): number {
  if (!Number.isFinite(n) || n <= 0) throw new RangeError(`${name} must be a positive number of milliseconds, got ${String(n)}`);
  return n;
}

function requireOperator(op: string): string {
  if (typeof op !== 'string' || op.trim() === '') throw new OperationError('invalid', 'A decision needs the name of the operator who made it.');
  return op;
}

function short(hash: string): string {
  return typeof hash === 'string' && hash !== '' ? `${hash.slice(0, 12)}…` : '(none)';
}

function scopeText(scope: ApprovalScope, grant: Grant | undefined): string {
  if (scope === 'session' && grant) return `for this session until ${new Date(grant.expiresAt).toISOString()}, grant ${grant.id}`;
  if (scope === 'always') return 'always, as a new rule';
  return 'once';
}

function decidedPayload(item: ApprovalItem): Record<string, unknown> {
  return { id: item.id, call: item.call.id, agent: item.call.agent, session: item.call.session, tool: item.call.tool, argsHash: item.argsHash };
}

function teamPayload(team: ApproveOptions['team']): Record<string, unknown> {
  return team ? { console: team.console, teamSignature: team.signature } : {};
}

function attempt(id: string, fn: () => ApprovalItem): BatchResult {
  try {
    return { id, ok: true, item: fn() };
  } catch (err) {
    if (err instanceof OperationError) return { id, ok: false, error: { reason: err.reason, message: err.message } };
    throw err;
  }
}

function snapshot(item: ApprovalItem): ApprovalItem {
  return structuredClone(item);
}

function snapshotOutcome(o: ApprovalOutcome): ApprovalOutcome {
  return structuredClone(o);
}

