// A confirm dialog for a plugin action the host only takes with a reason, which it writes to
// the audit log: enabling despite a failed scan, trusting a plugin to run unsandboxed.
import { useState, type ReactNode } from 'react';
import { ModalDialog } from '../../components/modal-dialog.tsx';

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
        <>
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="button button-danger" data-testid={`${testId}-confirm`} disabled={!ok || busy} aria-busy={busy} onClick={() => onConfirm(reason.trim())}>
            {busy ? 'Working…' : confirmLabel}
          </button>
        </>
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
      {error ? (
        <p className="inline-error" role="alert">
          {error}
        </p>
      ) : null}
    </ModalDialog>
  );
}
