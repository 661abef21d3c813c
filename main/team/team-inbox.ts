// A member's side of the team inbox. Each ask the host's approval queue raises is published to
// team_asks (best effort: the local inbox stays the truth), the host LISTENs for decisions on its
// own asks, and a decision is applied to the local item only when it carries a valid signature of
// a registered operator and is bound to the item's call: its call id, argument hash, tool, agent,
// session and working directory. When the local item closes (decided here, expired, its agent gone) the team ask is
// closed too, so no other console can decide it any more.
//
// SECURITY: this host's database credentials are readable by its own agents, so anything in the
// team database may have been written with them. A decision row is therefore never trusted for
// what it says, only for what its signature proves (signatureProblem); a refused one is recorded
// (`team.decision-refused`) and the item keeps waiting. Applying a decision without that check
// would let an agent approve its own calls by inserting a row. A signed decision that is not about
// this item's call (its ask showed the operator another tool, agent, session or folder, or another call:
// the ask was written with these credentials before this host published its own) denies the call:
// the operator decided on something else, and nothing they signed covers it.
//
// Outages never open the gate: with PostgreSQL unreachable nothing here decides anything; the local
// inbox works as on a single machine, publishing and listening retry every second, and decisions
// stored meanwhile are read on reconnect.
import type { PoolClient } from 'pg';
import type { ApprovalItem, RecordFn } from '../approvals/types.js';
import type { ShownAsk } from './decision-signature.js';
import type { ApprovalQueue } from '../approvals/approval-queue.js';
import { canonicalArgs } from '../approvals/args-match.js';
import { openTeamPool, describePgError, type Pool } from './team-db.js';
import { requireTeamSchema, TeamSchemaMismatch } from './migrations/migrate.js';
import { DECIDED_CHANNEL, decisionFor, decisionsOnOpenAsks, signatureProblem, type TeamDecision } from './team-decisions.js';

/** Nothing here polls faster: a failed publish or a dropped LISTEN is retried after this. */
const RETRY_MS = 1_000;

/**
 * Something else a member follows in the team database over the inbox's one listening connection
 * (the team policy): told on every (re)connect, and on each notification on its channel.
 */
export interface TeamFollower {
  readonly channel: string;
  /** Reads what changed; a failure is retried with the inbox's reconnect. */
  sync(pool: Pool): Promise<void>;
  /** The listening connection dropped. */
  disconnected(): void;
}

export interface TeamInboxDeps {
  url: string;
  member: string;
  approvals: Pick<ApprovalQueue, 'list' | 'get' | 'approve' | 'deny' | 'denyByHost'>;
  /** Subscribes to changes of the local inbox; returns the unsubscribe. */
  onChanged: (fn: () => void) => () => void;
  record: RecordFn;
  log: (msg: string, err?: unknown) => void;
  followers?: readonly TeamFollower[];
}

export interface TeamInbox {
  /** True while the inbox listens for decisions: asks reach other operators and their answers come back. */
  listening(): boolean;
  close(): Promise<void>;
}

/** What a signed decision was made on that `item`'s call is not, as a phrase; null when it is about this very call. */
function notThisCall(d: { callId: string; argsHash: string }, shown: ShownAsk, item: ApprovalItem): string | null {
  const c = item.call;
  const q = (v: string) => JSON.stringify(v);
  const differs = [
    shown.tool !== c.tool ? `tool ${q(shown.tool)}, not this call's ${q(c.tool)}` : null,
    shown.agent !== c.agent ? `agent ${q(shown.agent)}, not this call's ${q(c.agent)}` : null,
    shown.session !== c.session ? `session ${q(shown.session)}, not this call's ${q(c.session)}` : null,
    shown.cwd !== c.cwd ? `working directory ${q(shown.cwd)}, not this call's ${q(c.cwd)}` : null,
    d.callId !== c.id ? `call ${q(d.callId)}, not this one (${q(c.id)})` : null,
    d.argsHash !== item.argsHash ? `arguments hash ${d.argsHash.slice(0, 12)}…, not this call's ${item.argsHash.slice(0, 12)}…` : null,
  ].filter((x) => x !== null);
  return differs.length > 0 ? differs.join('; ') : null;
}

export function startTeamInbox(deps: TeamInboxDeps): TeamInbox {
  const { member, approvals, record, log } = deps;
  const followers = deps.followers ?? [];
  let pool: Pool | null = null;
  let listener: PoolClient | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  /** Asks this run published and has not closed in the team database yet. */
  const published = new Set<string>();
  /** Set after each (re)connect: asks a previous run left open are closed once. */
  let swept = false;
  /** Refusals already recorded (approval id, signature, why): a decision row read again is not logged twice. */
  const refused = new Set<string>();
  let syncing: Promise<void> | null = null;
  let again = false;

  const retry = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connectAndSync();
    }, RETRY_MS);
    timer.unref();
  };

  /** Publishes new local asks and closes finished ones; one run at a time, a change meanwhile runs it again. */
  const sync = (): Promise<void> => {
    if (syncing) {
      again = true;
      return syncing;
    }
    syncing = (async () => {
      do {
        again = false;
        await publishAndClose();
      } while (again && !closed);
    })()
      .catch((err: unknown) => {
        log(`team inbox: could not update the team database, retrying (${describePgError(err)})`);
        retry();
      })
      .finally(() => (syncing = null));
    return syncing;
  };

  const publishAndClose = async () => {
    if (!pool || closed) return;
    const pending = approvals.list({ state: 'pending' });
    const pendingIds = new Set(pending.map((i) => i.id));
    for (const item of pending) {
      if (published.has(item.id)) continue;
      await pool.query(
        `INSERT INTO team_asks (member, approval_id, call_id, agent, session, tool, cwd, arguments, args_hash, reason, asked_at, deadline)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (member, approval_id) DO NOTHING`,
        [member, item.id, item.call.id, item.call.agent, item.call.session, item.call.tool, item.call.cwd, canonicalArgs(item.call.arguments), item.argsHash, item.reason, item.requestedAt, item.deadline],
      );
      published.add(item.id);
    }
    for (const id of [...published]) {
      if (pendingIds.has(id)) continue;
      await pool.query("UPDATE team_asks SET state = $3, closed_at = now() WHERE member = $1 AND approval_id = $2 AND state = 'pending'", [member, id, approvals.get(id)?.state ?? 'gone']);
      published.delete(id);
    }
    if (!swept) {
      // Asks a previous run of this host left open (it crashed, or stopped while the link was down):
      // their local items are closed, so no console may decide them any more.
      await pool.query("UPDATE team_asks SET state = 'gone', closed_at = now() WHERE member = $1 AND state = 'pending' AND NOT (approval_id = ANY($2::text[]))", [member, [...pendingIds]]);
      swept = true;
    }
  };

  const apply = async (d: TeamDecision) => {
    if (!pool || closed || d.member !== member) return;
    const item: ApprovalItem | null = approvals.get(d.approvalId);
    // Closed here meanwhile (decided locally, expired, agent gone): sync closes the team ask.
    if (!item || item.state !== 'pending') return;
    // A live check: a v1 or v2 decision (the labels or the folder unsigned) is refused here too.
    const problem = await signatureProblem(pool, d);
    if (problem !== null || d.shown === null) {
      const why = problem ?? 'it carries no v3 signature';
      const key = `${d.approvalId}\n${d.signature}\n${why}`;
      if (refused.has(key)) return;
      refused.add(key);
      log(`team inbox: refused a decision on ${d.approvalId} claimed by ${d.operator}: ${why}; the call keeps waiting`);
      record('team.decision-refused', 'host', { id: item.id, call: item.call.id, member, operator: d.operator, console: d.console, decision: d.decision, problem: why });
      return;
    }
    const other = notThisCall(d, d.shown, item);
    if (other !== null) {
      const mismatch = `it was signed for ${other}: the ask it was made on is not the one this host published`;
      log(`team inbox: refused a decision on ${d.approvalId} signed by ${d.operator}: ${mismatch}; the call is denied`);
      record('team.decision-refused', 'host', { id: item.id, call: item.call.id, member, operator: d.operator, console: d.console, decision: d.decision, problem: mismatch, denied: true });
      approvals.denyByHost(item.id, `Denied by Gatehouse: operator ${d.operator} decided, from ${d.console}, a team ask that showed ${other}; the ask in the team database was not the one this host published, so nothing ${d.operator} signed covers this call. Ask again.`);
      return;
    }
    const team = { console: d.console, signature: d.signature };
    if (d.decision === 'approved') approvals.approve(item.id, { operator: d.operator, argsHash: d.argsHash, scope: 'once', team });
    else approvals.deny(item.id, { operator: d.operator, reason: d.reason, team });
  };

  // A decision that could not be read or applied now is not dropped: the retry reads every decision
  // on this host's open asks again.
  const applySafely = (d: Promise<TeamDecision | null>) =>
    void d
      .then((x) => (x ? apply(x) : undefined))
      .catch((err: unknown) => {
        log(`team inbox: could not apply a team decision, reading it again (${describePgError(err)})`);
        retry();
      });

  const follow = (f: TeamFollower) => {
    if (!pool || closed) return;
    f.sync(pool).catch((err: unknown) => {
      log(`team inbox: could not read ${f.channel}, reading it again (${describePgError(err)})`);
      retry();
    });
  };

  /** True after the decisions listener dropped (or could not be made), until it listens again and has read what was stored meanwhile. */
  let dropped = false;
  let linking: Promise<void> | null = null;
  let relink = false;
  /**
   * One (re)connect at a time: two overlapping runs (a retry timer firing while a slow connect is
   * still under way) each checked out a listening connection of this small pool, and with the pool
   * exhausted no decision could be read any more. A call meanwhile runs it once more afterwards.
   */
  const connectAndSync = (): Promise<void> => {
    if (linking) {
      relink = true;
      return linking;
    }
    linking = (async () => {
      do {
        relink = false;
        await link();
      } while (relink && !closed);
    })().finally(() => (linking = null));
    return linking;
  };

  const link = async () => {
    if (closed || !pool) return;
    if (!listener) {
      try {
        const c = await pool.connect();
        c.on('notification', (n) => {
          // A follower reads everything again whatever the payload says (anyone may NOTIFY on any
          // channel): the payload is never trusted, and its runs fold together (single-flight.ts).
          const f = followers.find((x) => x.channel === n.channel);
          if (f) return follow(f);
          let p: { member?: unknown; approval?: unknown };
          try {
            p = JSON.parse(n.payload ?? '{}') as typeof p;
          } catch {
            return;
          }
          if (n.channel === DECIDED_CHANNEL && p.member === member && typeof p.approval === 'string' && pool) applySafely(decisionFor(pool, member, p.approval));
        });
        // A dropped connection can report more than one error (the server's "terminating
        // connection", then the socket's end): the client goes back to the pool once. A second
        // release() throws inside this handler, which took the whole host down when PostgreSQL
        // was restarted.
        let released = false;
        const drop = (err: Error) => {
          if (released) return;
          released = true;
          if (listener === c) listener = null;
          c.release(err);
        };
        const lost = (err: Error) => {
          if (released || closed) return;
          log(`team inbox: the connection listening for decisions dropped (${err.message}); reconnecting`);
          drop(err);
          swept = false;
          dropped = true;
          for (const f of followers) f.disconnected();
          retry();
        };
        c.on('error', lost);
        // A connection can also end without an error event (the server closed it between two
        // messages): a listener that only watched for errors stayed "listening" on a dead socket,
        // and heard no decision again.
        c.on('end', () => lost(new Error('the connection ended')));
        try {
          await c.query(`LISTEN ${DECIDED_CHANNEL}`);
          for (const f of followers) await c.query(`LISTEN ${f.channel}`);
        } catch (err) {
          drop(err as Error);
          throw err;
        }
        // The connection can drop as its last LISTEN is answered: when the answer and the server's
        // "terminating connection" arrive in one read, pg reports the error (lost(), above: the
        // connection released, a reconnect due) before this code resumes. Taking it for the listener
        // anyway left this host "listening" on a closed connection for good: the next reconnect
        // kept it, said it listened again, and no decision was heard any more.
        if (released) throw new Error('the connection dropped as it started listening');
        listener = c;
        swept = false;
      } catch (err) {
        log(`team inbox: cannot listen for decisions, retrying (${describePgError(err)})`);
        // Not listening, whether a listener dropped or none was ever made (the team database went
        // down before the first LISTEN): the recovery is logged either way.
        dropped = true;
        retry();
        return;
      }
    }
    await sync();
    // Decisions stored while this host was not listening (or before its LISTEN started).
    if (pool && !closed) {
      try {
        const stored = await decisionsOnOpenAsks(pool, member);
        for (const d of stored) await apply(d);
        if (dropped && listener) {
          dropped = false;
          log(`team inbox: listening for decisions again (${stored.length} stored meanwhile on asks still open here)`);
        }
      } catch (err) {
        log(`team inbox: could not read the team's decisions, retrying (${describePgError(err)})`);
        retry();
      }
      // What was published while this host was not listening (the team policy, team grants). They
      // read the newest schema's tables: a team database not migrated yet is said once per connect,
      // not retried every second. A check that could not be made (PostgreSQL unreachable, the
      // connection cut, the server shutting down) is no mismatch: taken for one, it was said once and
      // never tried again, and the host kept a stale team policy and stale team grants until some
      // other change happened to make it read them.
      let schemaOk = followers.length > 0;
      if (schemaOk) {
        try {
          await requireTeamSchema(pool);
        } catch (err) {
          schemaOk = false;
          if (err instanceof TeamSchemaMismatch) log(`team inbox: no team policy or team grants: ${err.message}`);
          else {
            log(`team inbox: could not check the team database's schema before reading the team policy and team grants, retrying (${describePgError(err)})`);
            retry();
          }
        }
      }
      for (const f of schemaOk ? followers : []) {
        try {
          await f.sync(pool);
        } catch (err) {
          log(`team inbox: could not read ${f.channel}, retrying (${describePgError(err)})`);
          retry();
        }
      }
    }
  };

  const unsubscribe = deps.onChanged(() => void sync());
  const opening = openTeamPool(deps.url, (err) => log(`team inbox: a connection to the team database was dropped (${err.message})`), { max: 3 }).then((p) => {
    pool = p;
    return connectAndSync();
  });
  opening.catch((err: unknown) => log('team inbox: could not load the PostgreSQL client (pg)', err));

  return {
    listening: () => listener !== null && !closed,
    async close() {
      unsubscribe();
      await opening.catch(() => {});
      // The host's last changes (calls answered at shutdown) close their team asks, if the link allows.
      await sync();
      closed = true;
      if (timer) clearTimeout(timer);
      // A connect under way would check out a listener after this release, and pool.end() waits for it.
      await linking;
      listener?.release();
      listener = null;
      await pool?.end();
    },
  };
}
