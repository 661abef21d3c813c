import type { BreakerSnapshotView } from '../../../../shared/contract.ts';
import { formatDateTime, isoTime } from '../../lib/format.ts';
import { formatCountdown, msToProbe } from '../../stores/health-store.ts';

/**
 * Time to the breaker's next probe. `now` is the local clock (ticked once a second by the
 * table); `clockOffset` turns the host's times into local ones.
 */
export function ProbeCountdown({ breaker, clockOffset, now }: { breaker: BreakerSnapshotView; clockOffset: number; now: number }) {
  if (breaker.state === 'closed') return <span className="muted">—</span>;
  if (breaker.state === 'half_open') {
    return (
      <span
        className="probe-due"
        data-testid="breaker-countdown"
        data-due="true"
        title="The next call is the probe: success closes the breaker, failure re-opens it with a longer cooldown."
      >
        probe on next call
      </span>
    );
  }
  if (breaker.state === 'disabled') {
    return (
      <span className="probe-never" data-testid="breaker-countdown" data-due="false" title="No more probes: only an operator reset closes this breaker.">
        until reset
      </span>
    );
  }
  const ms = msToProbe(breaker, clockOffset, now);
  if (ms === null) return <span className="muted">—</span>;
  const at = breaker.nextProbeAt! + clockOffset;
  const opened = breaker.openedAt !== null ? `Opened ${formatDateTime(breaker.openedAt + clockOffset)}; ` : '';
  if (ms <= 0) {
    return (
      <span
        className="probe-due"
        data-testid="breaker-countdown"
        data-due="true"
        title={`${opened}the cooldown is over: the next call is let through as a probe.`}
      >
        probe on next call
      </span>
    );
  }
  return (
    <time
      className="probe-countdown mono"
      dateTime={isoTime(at)}
      data-testid="breaker-countdown"
      data-due="false"
      title={`${opened}next probe at ${formatDateTime(at)}`}
    >
      {formatCountdown(ms)}
    </time>
  );
}
