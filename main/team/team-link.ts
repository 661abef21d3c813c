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
  /** The status moved (link, lag, shipped seq, error), for consoles' status bars: at once on a transition, else at most every STATUS_PUSH_MS. */
  statusChanged?: (status: TeamLinkStatus) => void;
  batchSize?: number;
}

/** Shipping under load settles many times a second: consoles hear of the lag at most this often. */
export const STATUS_PUSH_MS = 250;

/** What a console shows of the status: a push only when one of these moved. */
const shownKey = (s: TeamLinkStatus) => `${s.link}|${s.shippedSeq}|${s.localHead}|${s.lastError}`;

export function startTeamLink(deps: TeamLinkDeps): TeamLink {
  let shipper: TeamShipper | null = null;
  let pool: Pool | null = null;
  let closed = false;
  let pushed = '';
  let pushTimer: NodeJS.Timeout | null = null;
  const status = (): TeamLinkStatus =>
    shipper?.status() ?? { member: deps.member, link: 'connecting', shippedSeq: null, localHead: deps.source.headSeq(), lag: deps.source.headSeq(), lagMs: 0, lastError: null, since: deps.clock.now(), nextRetryAt: null, shipped: 0 };
  const push = () => {
    if (pushTimer) clearTimeout(pushTimer);
    pushTimer = null;
    if (closed || !deps.statusChanged) return;
    const now = status();
    if (shownKey(now) === pushed) return;
    pushed = shownKey(now);
    deps.statusChanged(now);
  };
  const settled = () => {
    if (closed || pushTimer || !deps.statusChanged) return;
    pushTimer = setTimeout(push, STATUS_PUSH_MS);
    pushTimer.unref();
  };
  const linkChanged = (change: LinkChange) => {
    deps.linkChanged(change);
    // A transition (down, up again, forked) is shown at once; the lag can wait for the next push.
    push();
  };
  const opening = openTeamPool(deps.url, (err) => {
    // A pooled connection the server dropped (a restart): the next batch reconnects; the shipper's own errors carry the state.
    deps.log(`team: a connection to the team database was dropped (${err.message})`);
  }).then((p) => {
    pool = p;
    if (closed) return;
    shipper = new TeamShipper({ source: deps.source, pool: p, clock: deps.clock, member: deps.member, version: deps.version, log: deps.log, linkChanged, settled, ...(deps.batchSize ? { batchSize: deps.batchSize } : {}) });
    shipper.start();
  });
  opening.catch((err: unknown) => deps.log('team: could not load the PostgreSQL client (pg)', err));
  return {
    status,
    nudge: () => shipper?.nudge(),
    async close() {
      closed = true;
      if (pushTimer) clearTimeout(pushTimer);
      await opening.catch(() => {});
      await shipper?.close();
      await (pool as Pool | null)?.end();
    },
  };
}

/**
 * The teamOutageAsks setting: with "deny", a call that would wait for an operator is denied while
 * this member's team inbox is not listening (the team database unreachable, or not yet reached):
 * its ask would reach no operator elsewhere, and no decision would come back. Judged by the inbox's
 * own connection, not the shipper's: a shipping link that is up, or stopped by a fork, says nothing
 * about whether asks get through.
 */
export function teamOutageRefusal(listening: boolean, setting: 'local' | 'deny'): string | null {
  if (setting !== 'deny' || listening) return null;
  return `The team database is unreachable (this machine's team inbox is not listening), and this machine's teamOutageAsks setting is "deny": a call that needs an operator is denied until the link is back.`;
}
