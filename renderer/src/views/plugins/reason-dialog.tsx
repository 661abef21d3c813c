// A confirm dialog for a plugin action the host only takes with a reason, which it writes to
// the audit log: enabling despite a failed scan, trusting a plugin to run unsandboxed.
import { useState, type ReactNode } from 'react';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { DialogActions, InlineError } from '../../components/dialog-actions.tsx';

export interface ReasonDialogProps {
  title: string;
  /** What the action does and what it risks. */
  children: ReactNode;
  reasonLabel: string;
  placeholder: string;
  confirmLabel: string;
  /** Prefix of the test ids: `${testId}-dialog`, `${testId}-reason`, `${testId}-confirm`. */
  testId: string;
  busy: boolean;
  error: string | null;
  onConfirm(reason: string): void;
  onCancel(): void;
}

export function ReasonDialog({ title, children, reasonLabel, placeholder, confirmLabel, testId, busy, error, onConfirm, onCancel }: ReasonDialogProps) {
  const [reason, setReason] = useState('');
  const ok = reason.trim().length > 0;
  return (
    <ModalDialog
      title={title}
      onCancel={onCancel}
      testId={`${testId}-dialog`}
      footer={
        <DialogActions onCancel={onCancel} tone="danger" confirmTestId={`${testId}-confirm`} busy={busy} blocked={!ok} label={confirmLabel} busyLabel="Working…" onConfirm={() => onConfirm(reason.trim())} />
      }
    >
      {children}
      <label className="field">
        <span className="field-label">{reasonLabel}</span>
        <textarea
          className="input textarea"
          data-testid={`${testId}-reason`}
          rows={3}
          maxLength={2000}
          value={reason}
          autoFocus
          onChange={(e) => setReason(e.target.value)}
          placeholder={placeholder}
        />
      </label>
      <InlineError error={error} />
    </ModalDialog>
  );
}
