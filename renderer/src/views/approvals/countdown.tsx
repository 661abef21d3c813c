import { formatDateTime, isoTime } from '../../lib/format.ts';
import { formatCountdown } from '../../stores/health-store.ts';

/**
 * Time an item has left before it closes, by the host's clock: `expiresAt` is host time (the
 * nearest deadline), `clockOffset` turns it into local time, `now` is the local clock (ticked once
 * a second). `reason` says whose deadline it is when it is the agent's own timeout (`compact`: in
 * a word, for a list row).
 */
export function ExpiryCountdown({ expiresAt, reason, clockOffset, now, testId, compact = false }: { expiresAt: number; reason?: string; clockOffset: number; now: number; testId: string; compact?: boolean }) {
  const agents = reason !== undefined && reason !== 'approval expiry';
  const at = expiresAt + clockOffset;
  const ms = at - now;
  const urgent = ms < 60_000;
  return (
    <time
      className={urgent ? 'expiry-countdown mono expiry-urgent' : 'expiry-countdown mono'}
      dateTime={isoTime(at)}
      data-testid={testId}
      data-expired={ms <= 0}
      data-deadline-reason={reason}
      title={
        agents
          ? `The agent stops waiting at ${formatDateTime(at)} (${reason}); Gatehouse answers it with a denial just before, and the call never runs.`
          : `Expires at ${formatDateTime(at)}; an item nobody decides by then expires, and the call never runs.`
      }
    >
      {/* Compact (an inbox row): the deadline must fit beside the command; the title says whose it is. */}
      {ms > 0 ? `${formatCountdown(ms)} left${agents ? (compact ? ' (agent)' : ' (agent timeout)') : ''}` : 'expiring…'}
    </time>
  );
}
