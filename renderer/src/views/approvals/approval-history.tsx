// Decided and expired items: what happened to each, and who or what decided. Expired is its own
// state (nobody decided in time; the call never ran), never shown as a denial; so is "agent gone"
// (the agent stopped waiting before anyone decided: nothing to approve, the call never ran).
import type { ApprovalItemView } from '../../../../shared/contract.ts';
import { describeDecider } from '../../../../shared/decider.ts';
import { formatDateTime, formatEventTime } from '../../lib/format.ts';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';
import { hookOutcomeLabel, useHookOutcomes } from './hook-outcomes.ts';

export const outcomeLabel: Record<'approved' | 'denied' | 'expired' | 'gone', string> = {
  approved: 'Approved',
  denied: 'Denied',
  expired: 'Expired',
  gone: 'Agent gone',
};

export function ApprovalHistory({ items, clockOffset }: { items: ApprovalItemView[]; clockOffset: number }) {
  // Approved Claude Code hook calls: Claude Code ran them (or not) itself; its report says which.
  const ran = useHookOutcomes(items);
  return (
    <section className="panel panel-table approval-history" aria-labelledby="approval-history-heading" data-testid="approval-history">
      <h2 id="approval-history-heading" className="panel-title">
        History <span className="panel-note">decided and expired calls, newest first</span>
      </h2>
      {items.length === 0 ? (
        <p className="muted">Nothing decided yet.</p>
      ) : (
        // Scrolls on its own: focusable, so a keyboard can scroll it (axe scrollable-region-focusable).
        <div className="table-scroll" tabIndex={0} role="region" aria-label="History of decided calls">
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col" className="col-time">
                  When
                </th>
                <th scope="col">Outcome</th>
                <th scope="col">Tool</th>
                <th scope="col">Agent</th>
                <th scope="col">Session</th>
                <th scope="col">Decided by</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => {
                const state = i.outcome?.state ?? (i.state === 'pending' ? 'expired' : i.state);
                const at = (i.decidedAt ?? i.expiresAt) + clockOffset;
                const by = i.outcome ? describeDecider(i.outcome.decider) : i.operator ? `operator ${i.operator}` : '—';
                const reason = i.outcome?.reason ?? '';
                return (
                  <tr key={i.id} data-testid="history-row" data-id={i.id} data-state={state} data-tool={i.call.tool}>
                    <td className="col-time" title={formatDateTime(at)}>
                      {formatEventTime(at)}
                    </td>
                    <td>
                      <span className={`badge outcome-${state}`} data-testid="history-outcome">
                        {outcomeLabel[state]}
                        {state === 'approved' && i.scope && i.scope !== 'once' ? ` (${i.scope})` : ''}
                      </span>
                      {ran.has(i.call.id) ? (
                        <span className={`badge hook-outcome-${ran.get(i.call.id)}`} data-testid="history-ran" title="What Claude Code reported after running the call (PostToolUse)">
                          {hookOutcomeLabel[ran.get(i.call.id)!]}
                        </span>
                      ) : null}
                    </td>
                    <td className="mono" title={safeTitle(i.call.tool)}>
                      <SafeText text={i.call.tool} />
                    </td>
                    <td title={safeTitle(i.call.agent)}>
                      <SafeText text={i.call.agent} />
                    </td>
                    <td className="mono" title={safeTitle(i.call.session)}>
                      <SafeText text={i.call.session} />
                    </td>
                    <td data-testid="history-decider" title={safeTitle(by)}>
                      <SafeText text={by} />
                    </td>
                    <td data-testid="history-reason" title={safeTitle(reason)}>
                      <SafeText text={reason} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
