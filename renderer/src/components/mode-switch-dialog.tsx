// Asking before the gateway's mode changes, from the status bar and from Getting started alike:
// the same words, the same focus rule and the same settings.update, so the two cannot drift.
import { useState, type ReactNode } from 'react';
import { errorMessage } from '../lib/error-message.ts';
import { useClient } from '../sync/client-context.ts';
import { updateSettings } from '../sync/settings-actions.ts';
import { DialogActions, InlineError } from './dialog-actions.tsx';
import { ModalDialog } from './modal-dialog.tsx';

export type Mode = 'dry-run' | 'live';

export const modeHelp: Record<Mode, string> = {
  'dry-run': 'Dry run: agents’ calls are evaluated and shown, never executed.',
  live: 'Live: calls that policy allows or an operator approves are executed.',
};

export interface ModeSwitchDialogProps {
  next: Mode;
  onClose(): void;
  testId: string;
  confirmTestId: string;
  cancelTestId?: string;
  /** Words on the button while the switch is in flight; without them it keeps its label. */
  busyLabel?: string;
  /** Said under the help for the mode being switched to. */
  children?: ReactNode;
}

export function ModeSwitchDialog({ next, onClose, testId, confirmTestId, cancelTestId, busyLabel, children }: ModeSwitchDialogProps) {
  const client = useClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const switchMode = async () => {
    setBusy(true);
    setError(null);
    try {
      await updateSettings(client, { mode: next });
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <ModalDialog
      title={next === 'live' ? 'Switch to live mode?' : 'Switch to dry-run mode?'}
      onCancel={onClose}
      testId={testId}
      footer={
        // Going live, the keyboard starts on Cancel: an Enter pressed by habit keeps dry run.
        <DialogActions
          onCancel={onClose}
          cancelTestId={cancelTestId}
          focus={next === 'live' ? 'cancel' : 'confirm'}
          tone={next === 'live' ? 'danger' : 'primary'}
          confirmTestId={confirmTestId}
          busy={busy}
          busyLabel={busyLabel}
          label={next === 'live' ? 'Go live' : 'Switch to dry run'}
          onConfirm={() => void switchMode()}
        />
      }
    >
      <p>{modeHelp[next]}</p>
      {children}
      <InlineError error={error} />
    </ModalDialog>
  );
}
