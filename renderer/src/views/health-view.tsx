import { EmptyState } from '../components/empty-state.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { useHealthStore } from '../stores/health-store.ts';

export function HealthView() {
  const count = useHealthStore((s) => s.checkers.length);
  return (
    <ViewFrame id="health" title="Health" subtitle="Checker processes: whether they answer, how fast, and whether their circuit breaker is open.">
      {count === 0 ? (
        <EmptyState title="No checkers running">
          No checker plugins are running. Their status, restarts and circuit-breaker state appear here once they start.
        </EmptyState>
      ) : null}
    </ViewFrame>
  );
}
