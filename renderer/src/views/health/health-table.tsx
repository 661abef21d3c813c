// One row per plugin: its breaker, counters and latency, and the operator's levers.
import { Fragment, memo, useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { HealthRowView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { loadHealth, runHealthAction } from '../../sync/health-actions.ts';
import {
  canReset,
  canRestart,
  failureLabel,
  formatLatency,
  msToProbe,
  totalFailures,
  useHealthStore,
  type FailureKind,
  type HealthStore,
} from '../../stores/health-store.ts';
import { StatusBadge } from '../plugins/status-badge.tsx';
import { BreakerBadge } from './breaker-badge.tsx';
import { LatencySparkline } from './latency-sparkline.tsx';
import { ProbeCountdown } from './probe-countdown.tsx';
import { useSecondTick } from './use-second-tick.ts';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';
import { useMediaQuery } from '../../lib/use-media-query.ts';

/**
 * Below this width the table leaves out Cycle, Blocks and p99 (Cycle and p99 stay in the
 * tooltips of State and p95), so it fits beside the sidebar at 1024 px without sideways scrolling.
 */
const COMPACT = '(max-width: 1279px)';

export function HealthTable() {
  const { rows, clockOffset } = useHealthStore(useShallow((s) => ({ rows: s.rows, clockOffset: s.clockOffset })));
  // Tick only while some countdown is still running (a little past zero, so it turns into
  // "probe on next call" on screen).
  const counting = rows.some((r) => {
    const ms = msToProbe(r.breaker, clockOffset, Date.now());
    return ms !== null && ms > -1000;
  });
  const now = useSecondTick(counting);
  const compact = useMediaQuery(COMPACT);

  return (
    <div className="table-scroll">
      <table className="data-table health-table" data-testid="health-table">
        <thead>
          <tr className="health-groups">
            <th colSpan={2} />
            <th colSpan={compact ? 3 : 4} scope="colgroup">
              Circuit breaker
            </th>
            <th colSpan={compact ? 3 : 4} scope="colgroup">
              Calls
            </th>
            <th colSpan={compact ? 3 : 4} scope="colgroup">
              Latency, ms
            </th>
            <th />
          </tr>
          <tr>
            <th scope="col">Plugin</th>
            <th scope="col">Status</th>
            <th scope="col">State</th>
            <th scope="col" className="num" title="Consecutive failures">
              Failures
            </th>
            {compact ? null : (
              <th scope="col" className="num" title="How many times the breaker has opened since it was last closed by a success or a reset">
                Cycle
              </th>
            )}
            <th scope="col">Next probe</th>
            <th scope="col" className="num">
              Total
            </th>
            <th scope="col" className="num">
              OK
            </th>
            <th scope="col">Failed</th>
            {compact ? null : (
              <th scope="col" className="num" title="Calls a checker blocked">
                Blocks
              </th>
            )}
            <th scope="col" className="num">
              p50
            </th>
            <th scope="col" className="num">
              p95
            </th>
            {compact ? null : (
              <th scope="col" className="num">
                p99
              </th>
            )}
            <th scope="col">Recent</th>
            <th scope="col" className="health-actions" aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            // Only rows that count down see the ticking clock, so the others do not re-render.
            <HealthTableRow key={row.name} row={row} clockOffset={clockOffset} now={row.breaker.state === 'open' ? now : 0} compact={compact} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

const HealthTableRow = memo(function HealthTableRow({ row, clockOffset, now, compact }: { row: HealthRowView; clockOffset: number; now: number; compact: boolean }) {
  const client = useClient();
  const { busy, actionError } = useHealthStore(
    useShallow((s: HealthStore) => ({
      busy: s.busy?.name === row.name ? s.busy.action : null,
      actionError: s.actionError?.name === row.name ? s.actionError : null,
    })),
  );
  const { breaker, metrics } = row;
  const anyBusy = useHealthStore((s) => s.busy !== null);
  const failed = totalFailures(row);
  // Percentiles of no calls are not zero: there is nothing to report yet.
  const called = metrics.calls > 0 || metrics.recent.length > 0;
  useRefreshWhenDue(row);
  const note = breaker.state !== 'closed' && breaker.lastFailure ? breaker.lastFailure : null;

  return (
    <Fragment>
      <tr
        className={note || actionError ? 'health-row health-row-has-note' : 'health-row'}
        data-testid="health-row"
        data-name={row.name}
        data-breaker={breaker.state}
      >
        <td>
          <div className="health-plugin">
            <span className="health-name" title={safeTitle(row.name)}>
              <SafeText text={row.name} />
            </span>
            <span className="health-kind">{row.kind ?? 'unknown kind'}</span>
            {row.processes ? (
              <span
                // Fewer ready than expected matters only for a checker that should be running.
                className={
                  row.status === 'enabled' && row.processes.ready < Math.max(1, row.processes.running) ? 'health-procs health-procs-short' : 'health-procs'
                }
                title={`Checker processes: ${row.processes.ready} ready of ${row.processes.running} running`}
              >
                {row.processes.ready}/{row.processes.running}
              </span>
            ) : null}
          </div>
        </td>
        <td>
          <StatusBadge status={row.status} />
        </td>
        <td title={compact ? `Cycle ${breaker.cycle}: times opened since last closed` : undefined}>
          <BreakerBadge state={breaker.state} lastFailure={breaker.lastFailure} />
        </td>
        <td className={breaker.consecutiveFailures > 0 ? 'num health-alert' : 'num'} data-testid="breaker-failures">
          {breaker.consecutiveFailures}
        </td>
        {compact ? null : <td className="num">{breaker.cycle}</td>}
        <td>
          <ProbeCountdown breaker={breaker} clockOffset={clockOffset} now={now} />
        </td>
        <td className="num">{metrics.calls}</td>
        <td className="num">{metrics.successes}</td>
        <td className="num health-failed" title={failureTitle(row)}>
          <FailureSummary row={row} total={failed} />
        </td>
        {compact ? null : <td className="num">{metrics.blocks}</td>}
        <td className="num">{called ? formatLatency(metrics.p50) : '—'}</td>
        <td className="num" title={compact && called ? `p99 ${formatLatency(metrics.p99)} ms` : undefined}>
          {called ? formatLatency(metrics.p95) : '—'}
        </td>
        {compact ? null : <td className="num">{called ? formatLatency(metrics.p99) : '—'}</td>}
        <td className="health-spark">
          <LatencySparkline recent={metrics.recent} />
          {metrics.fuel ? (
            <span className="health-fuel" data-testid="health-fuel" title={`Fuel of the latest call, of its limit ${metrics.fuel.limit}; mean ${Math.round(metrics.fuel.mean)}`}>
              fuel {metrics.fuel.last}
            </span>
          ) : null}
        </td>
        <td className="health-actions">
          {canReset(row) ? (
            <button
              type="button"
              className="button button-small health-button"
              data-testid="health-reset"
              disabled={anyBusy}
              aria-busy={busy === 'reset'}
              onClick={() => void runHealthAction(client, 'reset', row.name)}
              title="Close the breaker and clear its failure count (audited)"
            >
              {busy === 'reset' ? 'Resetting…' : 'Reset'}
            </button>
          ) : null}
          {canRestart(row) ? (
            <button
              type="button"
              className="button button-small health-button"
              data-testid="health-restart"
              disabled={anyBusy || row.status !== 'enabled'}
              aria-busy={busy === 'restart'}
              onClick={() => void runHealthAction(client, 'restart', row.name)}
              title={
                row.status === 'enabled'
                  ? 'Restart the checker’s processes (init is sent again) and reset its breaker (audited)'
                  : 'Only an enabled checker has processes to restart'
              }
            >
              {busy === 'restart' ? 'Restarting…' : 'Restart'}
            </button>
          ) : null}
        </td>
      </tr>
      {note || actionError ? (
        <tr className="health-note-row" data-name={row.name}>
          <td colSpan={compact ? 12 : 15}>
            {note ? (
              <p className="health-note">
                <span className="health-note-label">Last failure</span> <span className="mono selectable">
                  {/* A plugin's own error output: its escape codes and bidi characters are shown, not obeyed. */}
                  <SafeText text={note} multiline />
                </span>
              </p>
            ) : null}
            {actionError ? (
              <p className="inline-error" role="alert" data-testid="health-action-error">
                Could not {actionError.action} <SafeText text={row.name} />: <SafeText text={actionError.message} />
              </p>
            ) : null}
          </td>
        </tr>
      ) : null}
    </Fragment>
  );
});

const failureKinds = Object.keys(failureLabel) as FailureKind[];

function FailureSummary({ row, total }: { row: HealthRowView; total: number }) {
  if (total === 0) return <span className="muted">0</span>;
  const kinds = failureKinds.filter((k) => row.metrics.failures[k] > 0);
  return (
    <span className="failure-summary">
      <span className="health-alert">{total}</span>
      {kinds.map((k) => (
        <span key={k} className="failure-kind" data-kind={k}>
          {failureLabel[k]} {row.metrics.failures[k]}
        </span>
      ))}
    </span>
  );
}

function failureTitle(row: HealthRowView): string {
  return failureKinds.map((k) => `${failureLabel[k]}: ${row.metrics.failures[k]}`).join('\n');
}

/**
 * The host turns an open breaker half-open lazily, when asked after the cooldown, and pushes
 * nothing at that moment: ask once when this breaker's probe is due so the badge tells the truth.
 * One timer per cooldown, keyed on nextProbeAt alone, so an unchanged answer never re-arms it.
 */
function useRefreshWhenDue(row: HealthRowView): void {
  const client = useClient();
  const due = row.breaker.state === 'open' ? row.breaker.nextProbeAt : null;
  useEffect(() => {
    if (due === null) return;
    const delay = Math.max(0, due + useHealthStore.getState().clockOffset - Date.now()) + 250;
    const timer = setTimeout(() => void loadHealth(client), delay);
    return () => clearTimeout(timer);
  }, [due, client]);
}
