// Step 4 (optional): dry run versus live, and the switch (settings.update; audited by the host).
import { useState } from 'react';
import { ModeSwitchDialog } from '../../components/mode-switch-dialog.tsx';
import { StepCard } from './step-card.tsx';

export function LiveStep({ mode }: { mode: 'dry-run' | 'live' }) {
  const [confirm, setConfirm] = useState<'dry-run' | 'live' | null>(null);

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
      {confirm ? <ModeSwitchDialog next={confirm} onClose={() => setConfirm(null)} testId="start-mode-dialog" confirmTestId="start-mode-confirm" /> : null}
    </StepCard>
  );
}
