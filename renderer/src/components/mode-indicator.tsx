// The gateway's mode, always on screen: dry-run (calls are evaluated and shown, never run) or
// live (approved calls run). Switching asks first; the host writes the switch to the audit log.
import { useState } from 'react';
import { errorMessage } from '../lib/error-message.ts';
import { useSettingsStore } from '../stores/settings-store.ts';
import { useClient } from '../app/client-context.ts';
import { updateSettings } from '../sync/settings-actions.ts';
import { ModalDialog } from './modal-dialog.tsx';

type Mode = 'dry-run' | 'live';

export const modeHelp: Record<Mode, string> = {
  'dry-run': 'Dry run: agents’ calls are evaluated and shown, never executed.',
  live: 'Live: calls that policy allows or an operator approves are executed.',
};

export function ModeIndicator() {
  const settings = useSettingsStore((s) => s.settings);
  const client = useClient();
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!settings) {
    return (
      <span className="status-item status-mode" data-testid="status-mode" data-mode="">
        Mode —
      </span>
    );
  }
  const mode = settings.mode;
  const next: Mode = mode === 'live' ? 'dry-run' : 'live';
  const overridden = settings.overridden.includes('mode');
  const switchMode = async () => {
    setBusy(true);
    setError(null);
    try {
      await updateSettings(client, { mode: next });
      setConfirm(false);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className="status-item status-mode"
        data-testid="status-mode"
        data-mode={mode}
        title={`${modeHelp[mode]} Autonomy: ${settings.autonomy}.${overridden ? ' Set for this run on the command line.' : ''} Click to switch.`}
        onClick={() => {
          setError(null);
          setConfirm(true);
        }}
      >
        <span className="mode-badge" data-testid="status-mode-label">
          {mode === 'live' ? 'LIVE' : 'DRY RUN'}
        </span>
        <span className="status-label">autonomy</span> <span data-testid="status-autonomy">{settings.autonomy}</span>
      </button>
      {confirm ? (
        <ModalDialog
          title={next === 'live' ? 'Switch to live mode?' : 'Switch to dry-run mode?'}
          onCancel={() => setConfirm(false)}
          testId="mode-dialog"
          footer={
            <>
              {/* Going live, the keyboard starts on Cancel: an Enter pressed by habit keeps dry run. */}
              <button type="button" className="button" data-testid="mode-cancel" autoFocus={next === 'live'} onClick={() => setConfirm(false)}>
                Cancel
              </button>
              <button type="button" className={next === 'live' ? 'button button-danger' : 'button button-primary'} data-testid="mode-confirm" disabled={busy} aria-busy={busy} autoFocus={next !== 'live'} onClick={() => void switchMode()}>
                {busy ? 'Switching…' : next === 'live' ? 'Go live' : 'Switch to dry run'}
              </button>
            </>
          }
        >
          <p>{modeHelp[next]}</p>
          <p className="muted" data-testid="mode-dialog-now">
            Now: {modeHelp[mode]} The switch is written to the audit log with your name{overridden ? '; this run was started with the mode on the command line, and the switch replaces it' : ''}.
          </p>
          {error ? (
            <p className="inline-error" role="alert">
              {error}
            </p>
          ) : null}
        </ModalDialog>
      ) : null}
    </>
  );
}
