// A denial needs a reason: the agent is shown it. Enter submits; the host refuses an empty one.
import { useState } from 'react';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { DialogActions, InlineError } from '../../components/dialog-actions.tsx';

export interface DenyDialogProps {
  /** "hello from claude-code", or "3 calls" for a batch. */
  what: string;
  busy: boolean;
  error: string | null;
  onConfirm(reason: string): void;
  onCancel(): void;
}

export function DenyDialog({ what, busy, error, onConfirm, onCancel }: DenyDialogProps) {
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  const ok = reason.trim().length > 0;
  const submit = () => {
    setTried(true);
    if (ok && !busy) onConfirm(reason.trim());
  };
  return (
    <ModalDialog
      title={`Deny ${what}`}
      onCancel={onCancel}
      testId="deny-dialog"
      footer={
        <DialogActions onCancel={onCancel} tone="danger" confirmTestId="deny-confirm" form="deny-form" busy={busy} label="Deny" busyLabel="Denying…" />
      }
    >
      <form
        id="deny-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label className="field">
          <span className="field-label">Reason (the agent reads it)</span>
          <input
            className="input"
            data-testid="deny-reason"
            maxLength={2000}
            value={reason}
            autoFocus
            aria-invalid={tried && !ok}
            onChange={(e) => setReason(e.target.value)}
            placeholder="e.g. not during the release freeze; ask in #ops first"
          />
        </label>
        {tried && !ok ? (
          <p className="field-error" role="alert" data-testid="deny-reason-required">
            A denial needs a reason; the agent is shown it.
          </p>
        ) : null}
      </form>
      <InlineError error={error} />
    </ModalDialog>
  );
}
