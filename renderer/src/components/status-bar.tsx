import { useShallow } from 'zustand/react/shallow';
import { chainSentence, chainStatus, useAuditStore } from '../stores/audit-store.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import { jobAmount, jobPercent, runningJobs, useJobsStore } from '../stores/jobs-store.ts';
import type { ConnectionState } from '../transport/types.ts';
import { viewNav } from './view-nav.ts';
import { ModeIndicator } from './mode-indicator.tsx';
import { SafeText, safeTitle } from './safe-text.tsx';
import { lagText, linkSentence, useTeamStore } from '../stores/team-store.ts';
import type { TeamLinkView } from '../../../shared/contract.ts';

/** The link's details on hover: the reason it is down, when it tries again, the lag. */
function linkTitle(link: TeamLinkView): string {
  const lines = [`Member ${link.member}; lag: ${lagText(link)}.`];
  if (link.lastError) lines.push(`${link.link === 'forked' ? 'Stopped' : 'Reason'}: ${safeTitle(link.lastError)}`);
  if (link.nextRetryAt !== null) lines.push(`Tries again at ${new Date(link.nextRetryAt).toLocaleTimeString()}.`);
  lines.push(`Open the Team view (Alt+${viewNav.find((v) => v.id === 'team')?.shortcut ?? '?'}) for the members.`);
  return lines.join('\n');
}

export const connectionLabel: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  unauthorized: 'Unauthorized',
};

export function StatusBar() {
  const { state, detail, shell, hostInfo } = useConnectionStore(
    useShallow((s) => ({ state: s.state, detail: s.detail, shell: s.shell, hostInfo: s.hostInfo })),
  );
  const { chain, verifying } = useAuditStore(useShallow((s) => ({ chain: s.chain, verifying: s.verifying })));
  const chainState = chainStatus({ chain, verifying });
  const jobs = useJobsStore(useShallow(runningJobs));
  const link = useTeamStore((s) => s.link);
  const team = linkSentence(link);
  const chainTitle = chain?.writeError
    ? safeTitle(chain.writeError)
    : chain?.state === 'broken' && chain.firstBad ? `Row ${chain.firstBad.seq}: ${safeTitle(chain.firstBad.reason)}` : `Open the Audit view (Alt+${viewNav.find((v) => v.id === 'audit')?.shortcut ?? '?'}) to verify again`;

  return (
    <footer className="status-bar">
      <span className="status-item status-connection" data-testid="status-connection" data-state={state} title={detail ?? undefined} aria-live="polite">
        {connectionLabel[state]}
      </span>
      <span className="status-item status-chain" data-testid="status-chain" data-state={chainState} title={chainTitle} aria-live="polite">
        {chainSentence({ chain, verifying })}
      </span>
      <ModeIndicator />
      {link && team ? (
        <span className="status-item status-team" data-testid="status-team" data-state={link.link} data-lag={link.lag} title={linkTitle(link)} aria-live="polite">
          <SafeText text={team} />
        </span>
      ) : null}
      {jobs.length > 0 ? (
        <span className="status-item status-jobs" data-testid="status-jobs" title={jobs.map((j) => `${j.title}: ${jobAmount(j)} (by ${j.by})`).join('\n')} aria-live="polite">
          {jobs[0]!.title} {jobPercent(jobs[0]!)}%{jobs.length > 1 ? ` (+${jobs.length - 1} more)` : ''}
        </span>
      ) : null}
      <span className="status-spacer" />
      {hostInfo ? (
        <span className="status-item status-muted" title={`Host process ${hostInfo.pid}, operator ${hostInfo.operator}`}>
          {hostInfo.operator} · v{hostInfo.version}
        </span>
      ) : null}
      <span className="status-item status-muted">
        <span className="status-label">Shell</span>{' '}
        <span data-testid="status-shell" data-shell={shell ?? ''}>
          {shell ?? '—'}
        </span>
      </span>
    </footer>
  );
}
