// Live grants: "this agent's session may call this tool with these arguments (or this pattern)
// until then", created by session-scoped approvals. Policy asks `findGrant(call)` before asking
// an operator again. Expired and revoked grants are gone; each step is recorded for the audit log.
// With a store, live grants are written as they are made and removed as they end, and `restore`
// brings back the ones that have not expired when the host starts again (`grant.restored`).
import { randomUUID } from 'node:crypto';
import { OperationError } from '../core/operation-error.js';
import type { ToolCall } from '../policy/types.js';
import { canonicalArgs, compileArgumentPattern, hashCanonical } from './args-match.js';
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
}

interface LiveGrant {
  grant: Grant;
  matches: (canonical: string, hash: string) => boolean;
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
    const matches = matcher(input.argumentPattern ?? null, input.argsHash ?? null);
    const now = this.clock.now();
    const grant: Grant = {
      id: this.newId(),
      agent: input.agent,
      session: input.session,
      tool: input.tool,
      argumentPattern: input.argumentPattern ?? null,
      argsHash: input.argumentPattern === undefined ? (input.argsHash ?? null) : null,
      operator: input.operator,
      approval: input.approval ?? null,
      ...(input.source !== undefined ? { source: input.source } : {}),
      createdAt: now,
      expiresAt: now + input.expiresInMs,
    };
    // Written first: an operator told "granted for an hour" must not lose it to a restart unnoticed.
    this.store?.saveGrant(grant);
    const cancelTimer = runAt(this.clock, this.timers, grant.expiresAt, () => this.expire(grant.id));
    this.live.set(grant.id, { grant, matches, cancelTimer });
    this.recordFn('grant.created', `operator:${grant.operator}`, { ...grant });
    this.changedFn();
    return { ...grant };
  }

  /**
   * A live grant covering the call: same agent, session, transport and tool, and arguments that
   * match. The agent is the authenticated one (the agent token's name) and the session is bound
   * to its transport and namespaced by that agent, so a grant cannot be borrowed by a client
   * that merely names the same agent and session.
   */
  findGrant(call: ToolCall): Grant | null {
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
      if (grant.agent === call.agent && grant.session === call.session && (grant.source === undefined || grant.source === call.source) && grant.tool === call.tool && g.matches(canonical, hash)) return { ...grant };
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
    this.recordFn('grant.revoked', `operator:${operator}`, { id, agent: g.grant.agent, session: g.grant.session, tool: g.grant.tool });
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
        matches = matcher(g.argumentPattern, g.argsHash);
      } catch (err) {
        this.log(`grant ${g.id} in the store is unreadable; it is dropped`, err);
        this.forget(g.id);
        continue;
      }
      if (now >= g.expiresAt) {
        expired++;
        this.forget(g.id);
        this.recordFn('grant.expired', 'host', { id: g.id, agent: g.agent, session: g.session, tool: g.tool, expiresAt: g.expiresAt });
        continue;
      }
      const grant = { ...g };
      const cancelTimer = runAt(this.clock, this.timers, grant.expiresAt, () => this.expire(grant.id));
      this.live.set(grant.id, { grant, matches, cancelTimer });
      this.recordFn('grant.restored', 'host', { id: grant.id, agent: grant.agent, session: grant.session, tool: grant.tool, operator: grant.operator, expiresAt: grant.expiresAt });
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
    this.recordFn('grant.expired', 'host', { id, agent: g.grant.agent, session: g.grant.session, tool: g.grant.tool, expiresAt: g.grant.expiresAt });
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
