// Team mode (docs/team.md): this host's link to the team database (state, member, lag, the last
// error) and the team's members as `gatehouse team status` lists them, read with this host's own
// team URL. A member's database role sees only its own member (row-level security): the view says
// so rather than pass one row off as the whole team. Outside team mode: how to join one.
import { useShallow } from 'zustand/react/shallow';
import type { TeamLinkView, TeamMemberView } from '../../../shared/contract.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { InlineError } from '../components/dialog-actions.tsx';
import { SafeText } from '../components/safe-text.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { formatAgo, formatDateTime, isoTime } from '../lib/format.ts';
import { useClient } from '../sync/client-context.ts';
import { loadTeamMembers } from '../sync/team-actions.ts';
import { lagText, useTeamStore } from '../stores/team-store.ts';

/** A member not seen for this long has stopped shipping (as `gatehouse team status --stale`'s default). */
const STALE_MS = 10 * 60_000;

const linkLabel = { connecting: 'Connecting…', up: 'Up', down: 'Down', forked: 'Stopped (fork)', closed: 'Closed' } as const;
const linkBadge = { connecting: 'checking', up: 'verified', down: 'broken', forked: 'broken', closed: 'unknown' } as const;

export function TeamView() {
  const client = useClient();
  const { members, link, readAt, loading, error } = useTeamStore(useShallow((s) => ({ members: s.members, link: s.link, readAt: s.readAt, loading: s.loading, error: s.error })));
  const team = members?.team ?? null;
  const refresh = (
    <button type="button" className="button" data-testid="team-refresh" disabled={loading} onClick={() => void loadTeamMembers(client)}>
      Refresh
    </button>
  );

  return (
    <ViewFrame id="team" title="Team" subtitle="Hosts sharing one audit trail and one inbox in PostgreSQL: this host's link, and how far each member has shipped." actions={members?.team ? refresh : undefined}>
      <InlineError error={error} prefix="Could not read the team" />
      {!members && !error ? <p className="muted">The team appears once the console is connected.</p> : null}
      {members && !team ? (
        <EmptyState title="This host is not in a team">
          Start it with a team database to share its audit trail and inbox: <code>gatehouse serve --team postgres://USER@HOST/DATABASE --team-member NAME</code> (the password in <code>GATEHOUSE_TEAM_URL</code>,{' '}
          <code>PGPASSFILE</code> or <code>~/.pgpass</code>, never on the command line). Create the schema first with <code>gatehouse team init</code>; docs/team.md says how.
        </EmptyState>
      ) : null}
      {team ? <LinkPanel link={link ?? team.link} url={team.url} /> : null}
      {team ? (
        <section className="panel panel-table" aria-labelledby="team-members-heading">
          <h2 id="team-members-heading" className="panel-title">
            Members <span className="panel-note">{team.members ? team.members.length : ''}</span>
          </h2>
          {team.error ? (
            <p className="inline-error team-note" role="alert" data-testid="team-members-error">
              The team database could not be read: <SafeText text={team.error} />
            </p>
          ) : null}
          {team.ownMemberOnly ? (
            <p className="muted team-note" data-testid="team-own-only">
              This machine's database role sees its own member only (row-level security): the other members are listed with a console role's URL, or by <code>gatehouse team status</code> from an operator's machine.
            </p>
          ) : null}
          {team.members && team.members.length === 0 ? <p className="muted team-note">No member has shipped yet.</p> : null}
          {team.members && team.members.length > 0 ? <MembersTable members={team.members} self={team.member} readAt={readAt} /> : null}
        </section>
      ) : null}
    </ViewFrame>
  );
}

function LinkPanel({ link, url }: { link: TeamLinkView; url: string }) {
  return (
    <section className="panel" aria-labelledby="team-link-heading" data-testid="team-link" data-state={link.link}>
      <h2 id="team-link-heading" className="panel-title">
        This host's link{' '}
        <span className={`badge badge-${linkBadge[link.link]}`} data-testid="team-link-badge">
          {linkLabel[link.link]}
        </span>
      </h2>
      <dl className="facts">
        <dt>Member</dt>
        <dd className="mono" data-testid="team-link-member">
          <SafeText text={link.member} />
        </dd>
        <dt>Team database</dt>
        <dd className="mono">
          <SafeText text={url} />
        </dd>
        <dt>Shipped</dt>
        <dd className="mono">
          {link.shippedSeq === null ? 'not known yet' : `to row ${link.shippedSeq}`} of {link.localHead} (this run: {link.shipped})
        </dd>
        <dt>Lag</dt>
        <dd data-testid="team-link-lag" data-lag={link.lag}>
          {lagText(link)}
        </dd>
        <dt>Since</dt>
        <dd>
          <time dateTime={isoTime(link.since)} title={formatDateTime(link.since)}>
            {formatAgo(link.since)}
          </time>
        </dd>
        {link.lastError ? (
          <>
            <dt>{link.link === 'forked' ? 'Stopped because' : 'Last error'}</dt>
            <dd className="inline-error" data-testid="team-link-error">
              <SafeText text={link.lastError} />
            </dd>
          </>
        ) : null}
        {link.nextRetryAt !== null ? (
          <>
            <dt>Next try</dt>
            <dd>{formatDateTime(link.nextRetryAt)}; events wait in this host's own log meanwhile, and calls are judged here as always.</dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

function MembersTable({ members, self, readAt }: { members: TeamMemberView[]; self: string; readAt: number }) {
  return (
    <div className="table-scroll">
      <table className="data-table team-members" data-testid="team-members">
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Last shipped</th>
            <th scope="col">Local head</th>
            <th scope="col">Lag</th>
            <th scope="col">Last seen</th>
            <th scope="col">Version</th>
            <th scope="col">Policy</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => {
            // Ages by the database's clock at the read: members' clocks may differ from this one.
            const seen = readAt - m.seenAgoMs;
            const state = m.seenAgoMs > STALE_MS ? 'stopped shipping' : m.lag > 0 ? 'behind' : 'up to date';
            return (
              <tr key={m.name} data-testid="team-member" data-member={m.name}>
                <td className="mono">
                  <SafeText text={m.name} />
                  {m.name === self ? <span className="panel-note"> (this host)</span> : null}
                </td>
                <td className="mono" data-testid="team-member-shipped">
                  {m.shippedSeq}
                </td>
                <td className="mono">{m.localHeadSeq}</td>
                <td className="mono" data-testid="team-member-lag">
                  {m.lag}
                </td>
                <td>
                  <time dateTime={isoTime(seen)} title={formatDateTime(seen)}>
                    {formatAgo(seen, readAt)}
                  </time>
                </td>
                <td className="mono">{m.version !== null ? <SafeText text={m.version} /> : '—'}</td>
                <td className="mono" data-testid="team-member-policy">{m.policyVersion !== null ? `v${m.policyVersion}` : '—'}</td>
                <td data-testid="team-member-state">{state}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
