// Live grants: "this agent's session may call this tool with these arguments (or this pattern)
// until then", created by session-scoped approvals. Policy asks `findGrant(call)` before asking
// an operator again. Expired and revoked grants are gone; each step is recorded for the audit log.
// With a store, live grants are written as they are made and removed as they end, and `restore`
// brings back the ones that have not expired when the host starts again (`grant.restored`).
import { randomUUID } from 'node:crypto';
import { OperationError } from '../core/operation-error.js';
import type { Extraction, Operation, ToolCall } from '../policy/types.js';
import { canonicalArgs, compileArgumentPattern, hashCanonical } from './args-match.js';
import { GRANT_SCOPES, scopeCovers, targetCovers, type GrantScope, type TargetKind } from './grant-match.js';
import { realTimers, runAt, systemClock, type Clock, type Timers } from './timers.js';
import type { ApprovalPersistence, Grant, RecordFn } from './types.js';

export interface GrantsDeps {
  clock?: Clock;
  timers?: Timers;
  record?: RecordFn;
  changed?: () => void;
  newId?: () => string;
  /** Keeps live grants across restarts. */
  store?: Pick<ApprovalPersistence, 'saveGrant' | 'forgetGrant'>;
  log?: (msg: string, err?: unknown) => void;
}

export interface CreateGrant {
  agent: string;
  session: string;
  tool: string;
  operator: string;
  expiresInMs: number;
  /** Glob over the canonical JSON of the arguments; without it, `argsHash` must be given. */
  argumentPattern?: string | undefined;
  argsHash?: string | undefined;
  approval?: string | null;
  /** The transport the approved call came through; the grant covers calls through it only. */
  source?: ToolCall['source'] | undefined;
  /**
   * A command-prefix, folder or host grant ("don't ask again for …"), its value already
   * normalised (normaliseTarget); without it, an exact-call grant as above.
   */
  target?: { kind: TargetKind; value: string } | undefined;
  /** Default `session`. */
  scope?: GrantScope | undefined;
  /** The commands it allows run outside the box (containment); default contained. */
  uncontained?: boolean | undefined;
  /** A command grant: what the call it is made from does (its extracted operations). */
  operations?: readonly Operation[] | undefined;
  /** A given id (a team grant's, so a restart finds it restored rather than making it twice); default a new one. */
  id?: string | undefined;
}

interface LiveGrant {
  grant: Grant;
  matches: (canonical: string, hash: string, x: Extraction | undefined) => boolean;
  cancelTimer: () => void;
}

export class Grants {
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly recordFn: RecordFn;
  private readonly changedFn: () => void;
  private readonly newId: () => string;
  private readonly store: GrantsDeps['store'] | null;
  private readonly log: (msg: string, err?: unknown) => void;
  private readonly live = new Map<string, LiveGrant>();
  private readonly createdListeners = new Set<(grant: Grant) => void>();

  constructor(deps: GrantsDeps = {}) {
    this.clock = deps.clock ?? systemClock;
    this.timers = deps.timers ?? realTimers;
    this.recordFn = deps.record ?? (() => {});
    this.changedFn = deps.changed ?? (() => {});
    this.newId = deps.newId ?? (() => `grant-${randomUUID()}`);
    this.store = deps.store ?? null;
    this.log = deps.log ?? (() => {});
  }

  /** Validates everything first, so a refused grant leaves no trace. */
  create(input: CreateGrant): Grant {
    if (!Number.isFinite(input.expiresInMs) || input.expiresInMs <= 0) {
      throw new OperationError('invalid', `A session grant needs a positive expiry in milliseconds; got ${String(input.expiresInMs)}.`);
    }
    const scope = input.scope ?? 'session';
    if (!(GRANT_SCOPES as readonly string[]).includes(scope)) throw new OperationError('invalid', `scope: unknown grant scope ${JSON.stringify(scope)}; use ${GRANT_SCOPES.join(', ')}.`);
    const target = input.target;
    if (input.id !== undefined && this.live.has(input.id)) throw new OperationError('invalid', `A grant ${input.id} is live already.`);
    const now = this.clock.now();
    const grant: Grant = {
      id: input.id ?? this.newId(),
      agent: input.agent,
      session: input.session,
      tool: input.tool,
      argumentPattern: target ? null : (input.argumentPattern ?? null),
      argsHash: target ? null : input.argumentPattern === undefined ? (input.argsHash ?? null) : null,
      operator: input.operator,
      approval: input.approval ?? null,
      ...(input.source !== undefined ? { source: input.source } : {}),
      ...(target ? { kind: target.kind, value: target.value } : {}),
      ...(scope !== 'session' || target ? { scope } : {}),
      ...(input.uncontained ? { uncontained: true as const } : {}),
      ...(target?.kind === 'command' && input.operations ? { operations: [...input.operations] } : {}),
      createdAt: now,
      expiresAt: now + input.expiresInMs,
    };
    const matches = matcherOf(grant);
    // Written first: an operator told "granted for an hour" must not lose it to a restart unnoticed.
    this.store?.saveGrant(grant);
    const cancelTimer = runAt(this.clock, this.timers, grant.expiresAt, () => this.expire(grant.id));
    this.live.set(grant.id, { grant, matches, cancelTimer });
    this.recordFn('grant.created', `operator:${grant.operator}`, { ...grant });
    this.changedFn();
    for (const fn of this.createdListeners) {
      // A listener (the sweep of waiting calls) failing leaves the grant made and those calls waiting.
      try {
        fn({ ...grant });
      } catch (err) {
        this.log(`after grant ${grant.id} was created, a listener failed`, err);
      }
    }
    return { ...grant };
  }

  /** Called with each grant just created (the host releases the waiting calls it covers); returns the unsubscribe. */
  onCreate(fn: (grant: Grant) => void): () => void {
    this.createdListeners.add(fn);
    return () => {
      this.createdListeners.delete(fn);
    };
  }

  /**
   * A live grant covering the call. An exact-call grant: same agent, session, transport and tool,
   * and arguments that match. A command, folder or host grant: within its scope, and the judge's
   * extraction `x` covered (grant-match.ts); without `x` none of those match. The agent is the
   * authenticated one (the agent token's name) and the session is bound to its transport and
   * namespaced by that agent, so a grant cannot be borrowed by a client that merely names the
   * same agent and session.
   */
  findGrant(call: ToolCall, x?: Extraction): Grant | null {
    let canonical: string;
    try {
      canonical = canonicalArgs(call.arguments);
    } catch {
      return null; // arguments that have no canonical form match no grant
    }
    const hash = hashCanonical(canonical);
    for (const g of [...this.live.values()]) {
      if (this.expireIfDue(g)) continue;
      const { grant } = g;
      if (!scopeCovers(grant, call)) continue;
      if ((grant.kind ?? 'call') === 'call' && grant.tool !== call.tool) continue;
      if (g.matches(canonical, hash, x)) return { ...grant };
    }
    return null;
  }

  /** Live grants, oldest first. */
  list(): Grant[] {
    for (const g of [...this.live.values()]) this.expireIfDue(g);
    return [...this.live.values()].map((g) => ({ ...g.grant }));
  }

  get(id: string): Grant | null {
    const g = this.live.get(id);
    if (!g || this.expireIfDue(g)) return null;
    return { ...g.grant };
  }

  revoke(id: string, operator: string): Grant {
    const g = this.live.get(id);
    if (!g || this.expireIfDue(g)) throw new OperationError('not_found', `There is no live grant ${id}; it may have expired or been revoked already.`);
    // Removed from the store first, and a failure refuses the revocation: a revoked grant that
    // came back after a restart would let calls through that the operator stopped.
    this.store?.forgetGrant(id);
    this.remove(g);
    this.recordFn('grant.revoked', `operator:${operator}`, { id, agent: g.grant.agent, session: g.grant.session, tool: g.grant.tool, ...targetFields(g.grant) });
    this.changedFn();
    return { ...g.grant };
  }

  /** Stops every expiry timer (host shutdown); the store keeps live grants for the next start. */
  close(): void {
    for (const g of this.live.values()) g.cancelTimer();
    this.live.clear();
  }

  /**
   * At start: grants the store kept come back live until their own expiry (`grant.restored`);
   * those that expired while the host was stopped are recorded as expired and dropped.
   */
  restore(saved: readonly Grant[]): { restored: Grant[]; expired: number } {
    const restored: Grant[] = [];
    let expired = 0;
    const now = this.clock.now();
    for (const g of saved) {
      if (this.live.has(g.id)) continue;
      let matches: LiveGrant['matches'];
      try {
        matches = matcherOf(g);
      } catch (err) {
        this.log(`grant ${g.id} in the store is unreadable; it is dropped`, err);
        this.forget(g.id);
        continue;
      }
      if (now >= g.expiresAt) {
        expired++;
        this.forget(g.id);
        this.recordFn('grant.expired', 'host', { id: g.id, agent: g.agent, session: g.session, tool: g.tool, ...targetFields(g), expiresAt: g.expiresAt });
        continue;
      }
      const grant = { ...g };
      const cancelTimer = runAt(this.clock, this.timers, grant.expiresAt, () => this.expire(grant.id));
      this.live.set(grant.id, { grant, matches, cancelTimer });
      this.recordFn('grant.restored', 'host', { id: grant.id, agent: grant.agent, session: grant.session, tool: grant.tool, ...targetFields(grant), operator: grant.operator, expiresAt: grant.expiresAt });
      restored.push({ ...grant });
    }
    if (restored.length + expired > 0) this.changedFn();
    return { restored, expired };
  }

  // The timer is the usual path; the lazy check keeps a grant from matching after its expiry
  // even when the timer is late (a busy event loop, a clock that moved).
  private expireIfDue(g: LiveGrant): boolean {
    if (this.clock.now() < g.grant.expiresAt) return false;
    this.expire(g.grant.id);
    return true;
  }

  private expire(id: string): void {
    const g = this.live.get(id);
    if (!g) return;
    this.remove(g);
    this.recordFn('grant.expired', 'host', { id, agent: g.grant.agent, session: g.grant.session, tool: g.grant.tool, ...targetFields(g.grant), expiresAt: g.grant.expiresAt });
    this.changedFn();
  }

  private remove(g: LiveGrant): void {
    g.cancelTimer();
    this.live.delete(g.grant.id);
    this.forget(g.grant.id);
  }

  private forget(id: string): void {
    try {
      this.store?.forgetGrant(id);
    } catch (err) {
      // Harmless when it fails: at the next start an ended grant is either expired or revoked
      // again by the operator; a revoked one would return, so say so loudly.
      this.log(`grant ${id} could not be removed from the store; it may return after a restart until its expiry`, err);
    }
  }
}

/** What the audit log says about a command, folder or host grant beside its id. */
function targetFields(g: Grant): Record<string, unknown> {
  return g.kind && g.kind !== 'call' ? { kind: g.kind, value: g.value ?? null, scope: g.scope ?? 'session' } : g.scope ? { scope: g.scope } : {};
}

/** The matcher of a grant, new or kept: its target kind when it has one, else its arguments. */
function matcherOf(g: Pick<Grant, 'kind' | 'value' | 'scope' | 'argumentPattern' | 'argsHash' | 'operations'>): LiveGrant['matches'] {
  if (g.scope !== undefined && !(GRANT_SCOPES as readonly string[]).includes(g.scope)) throw new OperationError('invalid', `scope: unknown grant scope ${JSON.stringify(g.scope)}.`);
  const kind = g.kind ?? 'call';
  if (kind === 'call') return matcher(g.argumentPattern, g.argsHash);
  if ((kind !== 'command' && kind !== 'path' && kind !== 'host') || typeof g.value !== 'string' || g.value === '') {
    throw new OperationError('invalid', `kind: a ${String(kind)} grant needs a value; it has ${JSON.stringify(g.value)}.`);
  }
  const value = g.value;
  // No extraction, no match: these grants judge what the call touches, not how it is spelled.
  const granted = g.operations;
  return (_canonical, _hash, x) => x !== undefined && targetCovers(kind, value, x, granted).ok;
}

function matcher(argumentPattern: string | null, argsHash: string | null): LiveGrant['matches'] {
  if (argumentPattern !== null) {
    const m = compileArgumentPattern(argumentPattern);
    return (canonical) => m(canonical);
  }
  if (typeof argsHash === 'string' && /^[0-9a-f]{64}$/.test(argsHash)) {
    const want = argsHash;
    return (_canonical, hash) => hash === want;
  }
  throw new OperationError('invalid', 'A grant needs either an argument pattern or the SHA-256 of the exact arguments.');
}
