import { formatDateTime, isoTime } from '../../lib/format.ts';
import { formatCountdown } from '../../stores/health-store.ts';

/**
 * Time an item has left before it expires, by the host's clock: `expiresAt` is host time,
 * `clockOffset` turns it into local time, `now` is the local clock (ticked once a second).
 */
export function ExpiryCountdown({ expiresAt, clockOffset, now, testId }: { expiresAt: number; clockOffset: number; now: number; testId: string }) {
  const at = expiresAt + clockOffset;
  const ms = at - now;
  const urgent = ms < 60_000;
  return (
    <time
      className={urgent ? 'expiry-countdown mono expiry-urgent' : 'expiry-countdown mono'}
      dateTime={isoTime(at)}
      data-testid={testId}
      data-expired={ms <= 0}
      title={`Expires at ${formatDateTime(at)}; an item nobody decides by then expires, and the call never runs.`}
    >
      {ms > 0 ? `${formatCountdown(ms)} left` : 'expiring…'}
    </time>
  );
}
