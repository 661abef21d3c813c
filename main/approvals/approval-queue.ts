// The approval inbox on the host side: one queue of asked calls across every agent and session.
// An item waits until an operator approves or denies it, or until it expires — `expired` is its
// own state, the call never runs, and it cannot be approved afterwards. An approval is bound to
// the SHA-256 of the canonical JSON of the exact arguments: the operator quotes the hash they
// were shown, and a different hash is refused. Decided and expired items stay for a bounded
// history. Every step is recorded for the audit log; `changed()` tells views to refresh.
import { randomUUID } from 'node:crypto';
import { OperationError } from '../host/operation-error.js';
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
  ApproveResult,
  BatchResult,
  DenyOptions,
  Grant,
  RecordFn,
} from './types.js';

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
    this.grants = deps.grants ?? new Grants({ clock: this.clock, timers: this.timers, record: this.recordFn, changed: this.changedFn });
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
    if (this.pendingCount >= this.maxPending) {
      throw new OperationError('busy', `The approval inbox already holds ${this.pendingCount} pending calls; decide some before more can be asked.`);
    }
    const canonical = canonicalArgs(req.call.arguments);
    const now = this.clock.now();
    const id = this.newId();
    const item: ApprovalItem = {
      id,
      state: 'pending',
      call: structuredClone(req.call),
      extraction: structuredClone(req.extraction),
      askedBy: structuredClone(req.askedBy),
      reason: req.reason,
      argsHash: hashCanonical(canonical),
      requestedAt: now,
      expiresAt: now + expiresInMs,
      decidedAt: null,
      operator: null,
      scope: null,
      outcome: null,
    };
    let resolve!: (o: ApprovalOutcome) => void;
    const decision = new Promise<ApprovalOutcome>((r) => (resolve = r));
    const entry: Entry = { item, canonical, resolve, cancelTimer: () => {} };
    this.entries.set(id, entry);
    this.pendingCount++;
    entry.cancelTimer = runAt(this.clock, this.timers, item.expiresAt, () => this.expire(entry));
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
    this.recordFn('approval.decided', `operator:${operator}`, { ...decidedPayload(e.item), state: 'denied', operator, reason });
    this.changedFn();
    return snapshot(e.item);
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
   * The agent is gone (an MCP client cancelled the request or its session ended; a hook gave
   * up): the item leaves the pending inbox, its call never runs, and nobody can approve it any
   * more. It ends as `expired` (nobody decided, it did not run) with an `error` decider saying
   * why, recorded as `approval.withdrawn`. False when the item is no longer pending.
   */
  withdraw(id: string, reason: string): boolean {
    const e = this.entries.get(id);
    if (!e) return false;
    this.expireIfDue(e);
    if (e.item.state !== 'pending') return false;
    const why = reason.trim() || 'the agent stopped waiting';
    const outcome: ApprovalOutcome = {
      state: 'expired',
      decider: { kind: 'error', message: `agent gone: ${why}` },
      reason: `Withdrawn before an operator decided: ${why}; the call did not run.`,
    };
    this.finish(e, outcome, null, null);
    this.recordFn('approval.withdrawn', 'host', { ...decidedPayload(e.item), state: 'expired', reason: outcome.reason });
    this.changedFn();
    return true;
  }

  /** Host shutdown: pending calls are denied (fail closed) and timers stopped. */
  close(): void {
    for (const e of [...this.entries.values()]) {
      if (e.item.state !== 'pending') continue;
      const outcome: ApprovalOutcome = {
        state: 'denied',
        decider: { kind: 'error', message: 'Gatehouse shut down before an operator decided' },
        reason: 'Gatehouse shut down before an operator decided; the call did not run.',
      };
      this.finish(e, outcome, null, null);
      this.recordFn('approval.decided', 'host', { ...decidedPayload(e.item), state: 'denied', reason: outcome.reason });
    }
    this.grants.close();
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
    this.history.push(item.id);
    while (this.history.length > this.historyLimit) {
      const old = this.history.shift();
      if (old !== undefined) this.entries.delete(old);
    }
    e.resolve(snapshotOutcome(outcome));
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

