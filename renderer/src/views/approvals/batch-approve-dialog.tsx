// "Approve all" over calls that delete, write outside their project, reach the network or are
// evasive: a summary of what will run first, as a review shows the change before the merge. The
// risky calls are listed by name; Cancel has the focus, so Enter pressed by habit approves nothing.
// The `a` key on one such call asks with the same dialog (`single`), by the same rule.
import type { ApprovalItemView } from '../../../../shared/contract.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { DialogActions, InlineError } from '../../components/dialog-actions.tsx';
import { SafeText } from '../../components/safe-text.tsx';
import { batchConcerns, oneLineSummary } from '../../lib/call-summary.ts';

const LISTED = 12;

export interface BatchApproveDialogProps {
  items: ApprovalItemView[];
  /** Asked for one row (the `a` key on a call this would stop on): "this call", not a batch. */
  single?: boolean;
  busy: boolean;
  error: string | null;
  onCancel(): void;
  onConfirm(): void;
}

export function BatchApproveDialog({ items, single = false, busy, error, onCancel, onConfirm }: BatchApproveDialogProps) {
  const byTool = new Map<string, number>();
  for (const i of items) byTool.set(i.call.tool, (byTool.get(i.call.tool) ?? 0) + 1);
  const risky = items.map((i) => ({ item: i, concerns: batchConcerns(i) })).filter((r) => r.concerns.length > 0);
  const counts = new Map<string, number>();
  for (const r of risky) for (const c of r.concerns) counts.set(c, (counts.get(c) ?? 0) + 1);
  return (
    <ModalDialog
      title={single && items.length === 1 ? 'Approve this call?' : `Approve ${items.length} call${items.length === 1 ? '' : 's'}?`}
      onCancel={onCancel}
      testId="batch-approve-dialog"
      footer={
        <DialogActions onCancel={onCancel} cancelTestId="batch-approve-cancel" focus="cancel" tone="danger" confirmTestId="batch-approve-confirm" busy={busy} label={single && items.length === 1 ? 'Approve once' : `Approve ${items.length}`} busyLabel="Approving…" onConfirm={onConfirm} />
      }
    >
      <p data-testid="batch-approve-summary">
        {[...byTool].map(([tool, n], i) => (
          <span key={tool}>
            {i > 0 ? ', ' : ''}
            {n} × <span className="mono"><SafeText text={tool} /></span>
          </span>
        ))}
        .
      </p>
      <p className="danger-text" data-testid="batch-approve-concerns">
        {risky.length} of them {[...counts].map(([c, n]) => `${c} (${n})`).join(', ')}:
      </p>
      <ul className="batch-approve-risky">
        {risky.slice(0, LISTED).map(({ item, concerns }) => (
          <li key={item.id} data-testid="batch-approve-risky" data-id={item.id}>
            <span className="mono">
              <SafeText text={oneLineSummary(item)} />
            </span>{' '}
            <span className="muted">
              — <SafeText text={item.call.agent} />: {concerns.join(', ')}
            </span>
          </li>
        ))}
        {risky.length > LISTED ? <li className="muted">… and {risky.length - LISTED} more</li> : null}
      </ul>
      <InlineError error={error} />
    </ModalDialog>
  );
}
