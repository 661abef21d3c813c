// Health's last hour: a card per plugin with its calls, failures, latency and breaker state a
// minute, so an operator sees when a plugin started failing, not only that it is failing now.
import { useShallow } from 'zustand/react/shallow';
import type { HealthMinuteView, HealthRowView } from '../../../../shared/contract.ts';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';
import { breakerLabel, formatLatency, useHealthStore } from '../../stores/health-store.ts';
import { HistoryChart } from './history-chart.tsx';

export interface HourSummary {
  calls: number;
  errors: number;
  /** The slowest minute's mean latency; null without timed calls. */
  slowestMs: number | null;
  /** Minutes the breaker was not closed. */
  minutesNotClosed: number;
}

export function summarise(hour: readonly HealthMinuteView[]): HourSummary {
  let calls = 0;
  let errors = 0;
  let slowestMs: number | null = null;
  let minutesNotClosed = 0;
  for (const b of hour) {
    calls += b.calls;
    errors += b.errors;
    if (b.meanMs !== null) slowestMs = Math.max(slowestMs ?? 0, b.meanMs);
    if (b.breaker !== 'closed') minutesNotClosed++;
  }
  return { calls, errors, slowestMs, minutesNotClosed };
}

function sentence(row: HealthRowView, s: HourSummary): string {
  const parts = [`${row.name}, last hour: ${s.calls} call${s.calls === 1 ? '' : 's'}, ${s.errors} failed`];
  if (s.slowestMs !== null) parts.push(`slowest minute averaged ${formatLatency(s.slowestMs)} ms`);
  parts.push(s.minutesNotClosed === 0 ? 'breaker closed throughout' : `breaker not closed for ${s.minutesNotClosed} minute${s.minutesNotClosed === 1 ? '' : 's'}, now ${breakerLabel[row.breaker.state].toLowerCase()}`);
  return parts.join('; ');
}

export function HealthHistory() {
  const rows = useHealthStore(useShallow((s) => s.rows.filter((r) => (r.history?.length ?? 0) > 0)));
  if (rows.length === 0) return null;
  return (
    <section className="panel health-history" aria-labelledby="health-history-heading" data-testid="health-history">
      <h2 id="health-history-heading" className="panel-title">
        Last hour
        <span className="panel-note">
          a minute a bar: <span className="history-key history-key-calls">calls</span> <span className="history-key history-key-errors">failed</span>{' '}
          <span className="history-key history-key-latency">mean latency</span> and the breaker under each chart
        </span>
      </h2>
      <ul className="history-grid">
        {rows.map((row) => {
          const hour = row.history!;
          const s = summarise(hour);
          return (
            <li key={row.name} className="history-card" data-testid="history-card" data-name={row.name} data-calls={s.calls} data-errors={s.errors}>
              <div className="history-head">
                <span className="history-name" title={safeTitle(row.name)}>
                  <SafeText text={row.name} />
                </span>
                <span className="history-numbers">
                  {s.calls} call{s.calls === 1 ? '' : 's'} · <span className={s.errors > 0 ? 'health-alert' : undefined}>{s.errors} failed</span>
                  {s.slowestMs !== null ? ` · ≤ ${formatLatency(s.slowestMs)} ms` : ''}
                </span>
              </div>
              <HistoryChart hour={hour} label={sentence(row, s)} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}
