import { breakerHelp, breakerLabel, type BreakerState } from '../../stores/health-store.ts';
import { safeTitle } from '../../components/safe-text.tsx';

/** A breaker's state as a coloured badge; colour follows `data-breaker` in health.css. */
export function BreakerBadge({ state, lastFailure }: { state: BreakerState; lastFailure: string | null }) {
  const title = lastFailure && state !== 'closed' ? `${breakerHelp[state]}\nLast failure: ${safeTitle(lastFailure)}` : breakerHelp[state];
  return (
    <span className="badge breaker-badge" data-breaker={state} data-testid="breaker-state" title={title}>
      {breakerLabel[state]}
    </span>
  );
}
