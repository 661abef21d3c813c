// Step 4 (optional): dry run versus live, and the switch (settings.update; audited by the host).
import { useState } from 'react';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { modeHelp } from '../../components/mode-indicator.tsx';
import { errorMessage } from '../../lib/error-message.ts';
import { useClient } from '../../app/client-context.ts';
import { updateSettings } from '../../sync/settings-actions.ts';
import { StepCard } from './step-card.tsx';

export function LiveStep({ mode }: { mode: 'dry-run' | 'live' }) {
  const client = useClient();
  const [confirm, setConfirm] = useState<'dry-run' | 'live' | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async (next: 'dry-run' | 'live') => {
    setBusy(true);
    setError(null);
    try {
      await updateSettings(client, { mode: next });
      setConfirm(null);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <StepCard step="live" n={4} title="Go live, when you are ready" done={mode === 'live'} optional>
      <p>
        {mode === 'live'
          ? 'Now live: calls that policy allows or you approve are executed, in the sandbox. Switch back to dry run any time.'
          : 'Now in dry run: even an approved call is not executed. Live executes what policy allows or you approve, in the sandbox.'}{' '}
        Each switch is recorded in the audit log; the status bar always shows the mode.
      </p>
      <div className="start-actions">
        {mode === 'live' ? (
          <button type="button" className="button button-small" data-testid="start-dry-run" onClick={() => setConfirm('dry-run')}>
            Back to dry run…
          </button>
        ) : (
          <button type="button" className="button button-small" data-testid="start-go-live" onClick={() => setConfirm('live')}>
            Go live…
          </button>
        )}
      </div>
      {confirm ? (
        <ModalDialog
          title={confirm === 'live' ? 'Switch to live mode?' : 'Switch to dry-run mode?'}
          onCancel={() => setConfirm(null)}
          testId="start-mode-dialog"
          footer={
            <>
              {/* Going live, the keyboard starts on Cancel: an Enter pressed by habit keeps dry run. */}
              <button type="button" className="button" autoFocus={confirm === 'live'} onClick={() => setConfirm(null)}>
                Cancel
              </button>
              <button
                type="button"
                className={confirm === 'live' ? 'button button-danger' : 'button button-primary'}
                data-testid="start-mode-confirm"
                disabled={busy}
                aria-busy={busy}
                autoFocus={confirm !== 'live'}
                onClick={() => void go(confirm)}
              >
                {confirm === 'live' ? 'Go live' : 'Switch to dry run'}
              </button>
            </>
          }
        >
          <p>{modeHelp[confirm]}</p>
          {error ? (
            <p className="inline-error" role="alert">
              {error}
            </p>
          ) : null}
        </ModalDialog>
      ) : null}
    </StepCard>
  );
}
