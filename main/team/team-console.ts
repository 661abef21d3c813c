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
import { listMembers } from './team-members.js';
import { shownUrl } from './team-url.js';
import type { TeamOptions } from './team-link.js';
import type { TeamLinkStatus } from './team-shipper.js';

type TeamView = NonNullable<ResponseOf<'team.members'>['team']>;

export interface TeamConsoleDeps extends TeamOptions {
  link: () => TeamLinkStatus;
  log: (msg: string, err?: unknown) => void;
}

export interface TeamConsole {
  members(): Promise<TeamView>;
  /** The Audit view's team scope: `audit.search` with scope 'team', as `gatehouse audit search --team`. */
  search(req: ParsedRequestOf<'audit.search'>): Promise<ResponseOf<'audit.search'>>;
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
      throw new OperationError('team-unreachable', `Could not ${what} in the team database ${shownUrl(deps.url)}: ${describePgError(err)}`);
    }
  };
  return {
    pool,
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
      const p = await opening?.catch(() => null);
      await p?.end();
    },
  };
}
