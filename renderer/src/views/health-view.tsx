// Health: every plugin's circuit breaker, counters and latency, and whether plugins run in the
// sandbox. Live: health.changed and plugins.changed refresh it; nothing here polls the host.
import { useShallow } from 'zustand/react/shallow';
import { EmptyState } from '../components/empty-state.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { useHealthStore } from '../stores/health-store.ts';
import { HealthTable } from './health/health-table.tsx';
import { HealthHistory } from './health/health-history.tsx';
import { SandboxStatus } from './health/sandbox-status.tsx';
import { LoadStatus } from '../components/load-status.tsx';

export function HealthView() {
  const { rows, loaded, listError, sandbox } = useHealthStore(
    useShallow((s) => ({
      rows: s.rows,
      loaded: s.loaded,
      listError: s.listError,
      sandbox: s.sandbox,
    })),
  );
  const notClosed = rows.filter((r) => r.breaker.state !== 'closed').length;

  return (
    <ViewFrame id="health" title="Health" subtitle="Every plugin’s circuit breaker, calls, failures and latency, now and over the last hour, and the sandbox plugins run in.">
      <SandboxStatus sandbox={sandbox} />
      <LoadStatus loaded={loaded} error={listError} failed="Could not load plugin health" waiting="Plugin health appears once the console is connected." errorClassName="health-list-error" />
      {loaded && rows.length === 0 ? (
        <EmptyState title="No plugins yet">
          Plugins appear here once the host finds them in a plugins folder. Each gets a circuit breaker and counters from its first call.
        </EmptyState>
      ) : null}
      {rows.length > 0 ? (
        <section className="panel panel-table health-panel" aria-labelledby="health-heading">
          <h2 id="health-heading" className="panel-title">
            Plugins
            <span className="panel-note" data-testid="health-summary">
              {rows.length} plugin{rows.length === 1 ? '' : 's'} ·{' '}
              {notClosed === 0 ? 'all breakers closed' : `${notClosed} breaker${notClosed === 1 ? '' : 's'} not closed`}
            </span>
          </h2>
          <HealthTable />
        </section>
      ) : null}
      <HealthHistory />
    </ViewFrame>
  );
}
