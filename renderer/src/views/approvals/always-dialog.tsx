// "Always": approves the call and adds a user rule to policy.yaml. The operator reads the exact
// YAML that will be appended before anything is written.
import type { ApprovalItemView, ProposedRuleView } from '../../../../shared/contract.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { DialogActions, InlineError } from '../../components/dialog-actions.tsx';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';

export interface AlwaysDialogProps {
  item: ApprovalItemView;
  rule: ProposedRuleView | null;
  loadError: string | null;
  busy: boolean;
  error: string | null;
  onConfirm(): void;
  onCancel(): void;
}

export function AlwaysDialog({ item, rule, loadError, busy, error, onConfirm, onCancel }: AlwaysDialogProps) {
  return (
    <ModalDialog
      title={`Always allow ${safeTitle(item.call.tool)}?`}
      onCancel={onCancel}
      testId="always-dialog"
      className="modal-wide"
      footer={
        <DialogActions onCancel={onCancel} tone="primary" confirmTestId="always-confirm" busy={busy} blocked={!rule} label="Approve and save the rule" busyLabel="Saving…" onConfirm={onConfirm} />
      }
    >
      <p>This approves the call and appends the rule below to policy.yaml. It covers the same tool with exactly this command (or these path arguments) on these paths, from any agent; anything else still asks. You can edit or remove it in the policy file.</p>
      {rule ? (
        <>
          {/* The rule quotes the command: a bidi or zero-width character in it is shown as a token. */}
          <p className="muted">
            <SafeText text={rule.description} />
          </p>
          <pre className="code-block rule-yaml selectable" data-testid="always-yaml">
            <SafeText text={rule.yaml} multiline />
          </pre>
        </>
      ) : loadError ? null : (
        <p className="muted">Asking the host for the rule…</p>
      )}
      <InlineError error={loadError} prefix="Could not prepare the rule" />
      <InlineError error={error} />
    </ModalDialog>
  );
}
