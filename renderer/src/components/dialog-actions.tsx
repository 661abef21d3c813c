// The footer every confirming dialog shares (Cancel, then the one action that does the work) and
// the error line under its body. One place decides how a busy action looks to a screen reader
// (disabled, aria-busy, its "…ing" label), so a new dialog cannot forget one of them.
import type { ReactNode } from 'react';

export interface DialogActionsProps {
  onCancel(): void;
  /** The confirming button's words, and its words while the work is in flight (kept when absent). */
  label: ReactNode;
  busyLabel?: ReactNode;
  busy: boolean;
  /** A reason besides being busy that the action cannot run yet (no rule loaded, no reason given). */
  blocked?: boolean;
  /** Danger for what cannot be taken back from here (deny, go live); primary otherwise. */
  tone: 'primary' | 'danger';
  confirmTestId: string;
  cancelTestId?: string;
  /** Why the action is or is not available, on hover. */
  confirmTitle?: string;
  /** Submit this form instead of calling onConfirm, so Enter in its fields confirms too. */
  form?: string;
  onConfirm?(): void;
  /** Which button holds the keyboard when the dialog opens; neither: the first control in it. */
  focus?: 'cancel' | 'confirm';
}

export function DialogActions({ onCancel, label, busyLabel, busy, blocked = false, tone, confirmTestId, cancelTestId, confirmTitle, form, onConfirm, focus }: DialogActionsProps) {
  return (
    <>
      <button type="button" className="button" data-testid={cancelTestId} autoFocus={focus === 'cancel'} onClick={onCancel}>
        Cancel
      </button>
      <button
        type={form ? 'submit' : 'button'}
        form={form}
        className={tone === 'danger' ? 'button button-danger' : 'button button-primary'}
        data-testid={confirmTestId}
        disabled={busy || blocked}
        aria-busy={busy}
        autoFocus={focus === 'confirm'}
        title={confirmTitle}
        onClick={form ? undefined : onConfirm}
      >
        {busy && busyLabel !== undefined ? busyLabel : label}
      </button>
    </>
  );
}

/**
 * A failure said where it happened (a dialog's, a panel's, a view's), announced as it appears;
 * nothing when there is none. `prefix` says what failed, before the host's reason.
 */
export function InlineError({ error, prefix, testId, className }: { error: string | null | undefined; prefix?: string; testId?: string; className?: string }) {
  return error ? (
    <p className={className ? `inline-error ${className}` : 'inline-error'} role="alert" data-testid={testId}>
      {prefix ? `${prefix}: ` : null}
      {error}
    </p>
  ) : null;
}
