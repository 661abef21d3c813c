// The answer to a batch decision, item by item: each was checked on its own (its hash, its
// state), so some may be refused while the rest went through.
import type { ApprovalsStore } from '../../stores/approvals-store.ts';
import { SafeText } from '../../components/safe-text.tsx';

export function BatchResults({ batch, onDismiss }: { batch: NonNullable<ApprovalsStore['batch']>; onDismiss(): void }) {
  const ok = batch.results.filter((r) => r.ok).length;
  const failed = batch.results.length - ok;
  return (
    <section className="panel batch-results" data-testid="batch-results" aria-labelledby="batch-results-heading">
      <h2 id="batch-results-heading" className="panel-title">
        Batch {batch.action === 'approve' ? 'approval' : 'denial'}
        <span className="panel-note" data-testid="batch-summary">
          {ok} {batch.action === 'approve' ? 'approved' : 'denied'}
          {failed > 0 ? `, ${failed} refused` : ''}
        </span>
        <span className="approval-spacer" />
        <button type="button" className="button button-small" onClick={onDismiss}>
          Dismiss
        </button>
      </h2>
      <ul className="batch-list">
        {batch.results.map((r) => (
          <li key={r.id} data-testid="batch-result" data-id={r.id} data-ok={r.ok} className={r.ok ? 'ok-text' : 'danger-text'}>
            <span className="mono">
              <SafeText text={r.tool} />
            </span>{' '}
            <span className="muted">
              (<SafeText text={r.agent} />)
            </span>
            : <SafeText text={r.message} />
          </li>
        ))}
      </ul>
    </section>
  );
}
