// What a host's consoles read from and write to the team database (the Team view, the Audit
// view's team scope, the inbox's other machines), through this host's own team URL. A pool of its
// own, opened on first use, so the shipper's connections stay free for shipping; a database that
// cannot be reached is an answer with the reason, never a host error.
//
// SECURITY: the URL is this machine's: with a member's role, row-level security shows only that
// member's rows (ownMemberOnly) and refuses to store a decision. Nothing here weakens that.
import type { ResponseOf } from '../../shared/contract.js';
import { describePgError, openTeamPool, type Pool } from './team-db.js';
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
  return {
    pool,
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
