// A host's link to its team: the pool (pg loaded only now, by a dynamic import) and the shipper
// over the host's own log. createHost starts it only when a team URL is configured; a single
// machine never reaches this file's import of pg.
import type { Clock } from '../core/clock.js';
import type { ChainSource } from './chain-source.js';
import { openTeamPool, type Pool } from './team-db.js';
import { TeamShipper, type LinkChange, type TeamLinkStatus } from './team-shipper.js';

export interface TeamOptions {
  /** postgres://… (from --team without a password, or GATEHOUSE_TEAM_URL). */
  url: string;
  /** This machine's name in the team (default: the host name). */
  member: string;
}

export interface TeamLink {
  status(): TeamLinkStatus;
  /** New rows were committed. */
  nudge(): void;
  close(): Promise<void>;
}

export interface TeamLinkDeps extends TeamOptions {
  source: ChainSource;
  clock: Clock;
  version: string;
  log: (msg: string, err?: unknown) => void;
  /** Link transitions, recorded in the host's own chain. */
  linkChanged: (change: LinkChange) => void;
  batchSize?: number;
}

export function startTeamLink(deps: TeamLinkDeps): TeamLink {
  let shipper: TeamShipper | null = null;
  let pool: Pool | null = null;
  let closed = false;
  const opening = openTeamPool(deps.url, (err) => {
    // A pooled connection the server dropped (a restart): the next batch reconnects; the shipper's own errors carry the state.
    deps.log(`team: a connection to the team database was dropped (${err.message})`);
  }).then((p) => {
    pool = p;
    if (closed) return;
    shipper = new TeamShipper({ source: deps.source, pool: p, clock: deps.clock, member: deps.member, version: deps.version, log: deps.log, linkChanged: deps.linkChanged, ...(deps.batchSize ? { batchSize: deps.batchSize } : {}) });
    shipper.start();
  });
  opening.catch((err: unknown) => deps.log('team: could not load the PostgreSQL client (pg)', err));
  return {
    status: () =>
      shipper?.status() ?? { member: deps.member, link: 'connecting', shippedSeq: null, localHead: deps.source.headSeq(), lag: deps.source.headSeq(), lagMs: 0, lastError: null, since: deps.clock.now(), nextRetryAt: null, shipped: 0 },
    nudge: () => shipper?.nudge(),
    async close() {
      closed = true;
      await opening.catch(() => {});
      await shipper?.close();
      await (pool as Pool | null)?.end();
    },
  };
}

/**
 * The teamOutageAsks setting: with "deny", a call that would wait for an operator is denied while
 * the team database is unreachable (the link is not up, or not yet), since no operator elsewhere
 * can see it. A forked link still reaches the database (only shipping stopped): asks wait as usual.
 */
export function teamOutageRefusal(status: TeamLinkStatus, setting: 'local' | 'deny'): string | null {
  if (setting !== 'deny' || status.link === 'up' || status.link === 'forked') return null;
  const why = status.lastError ? ` (${status.lastError})` : '';
  return `The team database is unreachable${why}, and this machine's teamOutageAsks setting is "deny": a call that needs an operator is denied until the link is back.`;
}
