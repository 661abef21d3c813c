// What a host's consoles read from and write to the team database (the Team view, the Audit
// view's team scope, the inbox's other machines), through this host's own team URL. A pool of its
// own, opened on first use, so the shipper's connections stay free for shipping; a database that
// cannot be reached is an answer with the reason, never a host error.
//
// SECURITY: the URL is this machine's: with a member's role, row-level security shows only that
// member's rows (ownMemberOnly) and refuses to store a decision. Nothing here weakens that.
import type { ParsedRequestOf, ResponseOf } from '../../shared/contract.js';
import { OperationError } from '../core/operation-error.js';
import { describePgError, openTeamPool, type Pool } from './team-db.js';
import { teamSearch } from './team-search.js';
import { ASKS_CHANNEL, pendingAsks } from './team-decisions.js';
import { decideAsk, findAsk, notStored } from './team-decide.js';
import { loadOperatorKey } from './operator-keys.js';
import { UsageError } from '../core/usage-error.js';
import { displayText } from '../../shared/display-text.js';
import type { PoolClient } from 'pg';
import { listMembers } from './team-members.js';
import { shownUrl } from './team-url.js';
import type { TeamOptions } from './team-link.js';
import type { TeamLinkStatus } from './team-shipper.js';

type TeamView = NonNullable<ResponseOf<'team.members'>['team']>;

export interface TeamConsoleDeps extends TeamOptions {
  link: () => TeamLinkStatus;
  log: (msg: string, err?: unknown) => void;
  /** This host's Gatehouse home: its operators/ folder holds the keys decisions are signed with. */
  home: string;
  /** The team inbox changed (an ask published, decided or closed on any member): consoles refetch team.asks. */
  asksChanged?: () => void;
}

/** A dropped LISTEN is tried again after this (as the team inbox does). */
const RELISTEN_MS = 1_000;

export interface TeamConsole {
  members(): Promise<TeamView>;
  /** The Audit view's team scope: `audit.search` with scope 'team', as `gatehouse audit search --team`. */
  search(req: ParsedRequestOf<'audit.search'>): Promise<ResponseOf<'audit.search'>>;
  /** Other members' pending asks, as `gatehouse approvals list --team`. */
  asks(): Promise<ResponseOf<'team.asks'>>;
  /** Signs and stores a decision on another member's ask, as `gatehouse approvals approve|deny ID --team`. */
  decide(req: ParsedRequestOf<'team.decide'>): Promise<ResponseOf<'team.decide'>>;
  /** The pool, opened on first use. */
  pool(): Promise<Pool>;
  close(): Promise<void>;
}

export function startTeamConsole(deps: TeamConsoleDeps): TeamConsole {
  let opening: Promise<Pool> | null = null;
  let closed = false;
  const pool = (): Promise<Pool> => {
    if (closed) return Promise.reject(new Error('the host is stopping'));
    // A console's read must not wait minutes on a dead server: the pool's connect timeout applies.
    opening ??= openTeamPool(deps.url, (err) => deps.log(`team: a console connection to the team database was dropped (${err.message})`), { max: 3 });
    return opening;
  };
  /** Runs `fn` on the team database; a failure is refused with the database's reason (the URL without its password). */
  const onTeam = async <T>(what: string, fn: (p: Pool) => Promise<T>): Promise<T> => {
    try {
      return await fn(await pool());
    } catch (err) {
      if (err instanceof OperationError) throw err;
      if (err instanceof UsageError) throw new OperationError('team-decide', err.message);
      throw new OperationError('team-unreachable', `Could not ${what} in the team database ${shownUrl(deps.url)}: ${describePgError(err)}`);
    }
  };
  // The team inbox's NOTIFYs, so consoles hear of asks on other machines without polling. Notifications
  // are not filtered by row-level security, but they only say "read again": team.asks reads what the role may.
  let listener: PoolClient | null = null;
  let relisten: NodeJS.Timeout | null = null;
  const listen = async (): Promise<void> => {
    if (closed || !deps.asksChanged) return;
    const again = () => {
      listener = null;
      if (closed || relisten) return;
      relisten = setTimeout(() => {
        relisten = null;
        void listen();
      }, RELISTEN_MS);
      relisten.unref();
    };
    let held: PoolClient | null = null;
    let gone = false;
    // The connection is thrown away (never pooled again) once, whichever way it failed.
    const drop = () => {
      if (gone || !held) return;
      gone = true;
      held.release(true);
    };
    try {
      const c = await (await pool()).connect();
      if (closed) {
        c.release();
        return;
      }
      held = c;
      listener = c;
      c.on('notification', (n) => n.channel === ASKS_CHANNEL && deps.asksChanged?.());
      // A server restart drops the connection: LISTEN is tried anew.
      c.on('error', () => {
        if (gone) return;
        drop();
        again();
      });
      await c.query(`LISTEN ${ASKS_CHANNEL}`);
      // Whatever changed while nobody listened (an outage, the start) is read again.
      deps.asksChanged();
    } catch {
      // LISTEN failed (the connection dropped as the pool handed it out, team-db.ts, or the server
      // refused it): kept checked out, each try would have held one of the pool's few connections.
      drop();
      again();
    }
  };
  void listen();
  return {
    pool,
    async asks() {
      try {
        // This host's own asks are in its local inbox (approvals.list): listed once, there.
        const asks = (await pendingAsks(await pool())).filter((a) => a.member !== deps.member).map(({ state: _state, ...a }) => a);
        return { asks, now: Date.now(), error: null };
      } catch (err) {
        return { asks: [], now: Date.now(), error: describePgError(err) };
      }
    },
    async decide(req) {
      try {
        // No key, or several: the operator is told to run gatehouse operator create NAME (operator-keys.ts).
        const key = loadOperatorKey(deps.home, req.operator);
        return await onTeam('store the decision', async (p) => {
          const ask = await findAsk(p, req.approvalId, req.member);
          const r = await decideAsk(p, { ask, decision: req.decision, ...(req.reason !== undefined ? { reason: req.reason } : {}), hash: req.argsHash, key, console: deps.member, now: Date.now() });
          const refused = notStored(ask, r);
          const verb = req.decision === 'approved' ? 'Approved' : 'Denied';
          return { outcome: r.outcome, operator: key.name, message: refused ?? `${verb} ${displayText(ask.approvalId)} on ${displayText(ask.member)} as ${displayText(key.name)}: ${displayText(ask.tool)}; ${displayText(ask.member)} applies it once it has checked the signature.` };
        });
      } catch (err) {
        if (err instanceof UsageError) throw new OperationError('team-decide', err.message);
        throw err;
      }
    },
    search(req) {
      // Facets the team database does not hold yet are refused, not silently dropped: a result
      // that ignored the operator's filter would read as if it had applied it.
      if (req.severity) throw new OperationError('team-facet', 'The severity facet is not available in the team scope yet: clear it, or search this host\'s own log (scope Local).');
      if (req.before !== undefined) throw new OperationError('team-facet', 'Paging is not available in the team scope yet: narrow the search with the time range or facets.');
      return onTeam('search', (p) =>
        teamSearch(p, {
          query: req.query,
          limit: req.limit,
          ...(req.member ? { member: req.member } : {}),
          ...(req.agent ? { agent: req.agent } : {}),
          ...(req.session ? { session: req.session } : {}),
          ...(req.plugin ? { plugin: req.plugin } : {}),
          ...(req.decision ? { decision: req.decision } : {}),
          ...(req.types?.length ? { types: req.types } : {}),
          ...(req.from !== undefined ? { from: req.from } : {}),
          ...(req.to !== undefined ? { to: req.to } : {}),
        }),
      );
    },
    async members() {
      const base = { member: deps.member, url: shownUrl(deps.url), link: deps.link() };
      try {
        const p = await pool();
        const [members, own] = await Promise.all([listMembers(p), p.query<{ own: string | null }>('SELECT team_my_member() AS own')]);
        // team_my_member() names the member a member's role is held to (migration 3); null for a console or owner role.
        return { ...base, members, ownMemberOnly: own.rows[0]?.own != null, error: null };
      } catch (err) {
        return { ...base, members: null, ownMemberOnly: false, error: describePgError(err) };
      }
    },
    async close() {
      closed = true;
      if (relisten) clearTimeout(relisten);
      listener?.release();
      const p = await opening?.catch(() => null);
      await p?.end();
    },
  };
}
