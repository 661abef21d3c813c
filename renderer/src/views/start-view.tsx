// Getting Started: from a new install to a supervised call you can find in the audit log. Each
// step's state comes from the host (gettingStarted.get: the registry, the audit log, the
// settings), so it is done when it really happened, whichever view it was done in.
import { useShallow } from 'zustand/react/shallow';
import { useClient } from '../sync/client-context.ts';
import { ViewFrame } from '../components/view-frame.tsx';
import { doneCount, useGettingStartedStore } from '../stores/getting-started-store.ts';
import { useSettingsStore } from '../stores/settings-store.ts';
import { setDismissed } from '../sync/getting-started-actions.ts';
import { AgentStep } from './start/agent-step.tsx';
import { LiveStep } from './start/live-step.tsx';
import { PluginStep } from './start/plugin-step.tsx';
import { TestCallStep } from './start/test-call-step.tsx';
import '../styles/start.css';
import { InlineError } from '../components/dialog-actions.tsx';

export function StartView() {
  const client = useClient();
  const { guide, loadError, busy, actionError } = useGettingStartedStore(useShallow((s) => ({ guide: s.guide, loadError: s.loadError, busy: s.busy, actionError: s.actionError })));
  const autonomy = useSettingsStore((s) => s.settings?.autonomy ?? null);

  const actions = guide ? (
    guide.dismissed ? (
      <button type="button" className="button button-small" data-testid="start-restore" disabled={busy !== null} onClick={() => void setDismissed(client, false)}>
        Show at start again
      </button>
    ) : (
      <button type="button" className="button button-small" data-testid="start-dismiss" disabled={busy !== null} onClick={() => void setDismissed(client, true)}>
        Dismiss
      </button>
    )
  ) : null;

  return (
    <ViewFrame id="start" title="Getting started" subtitle="Three steps from a new install to a supervised call you can find in the audit log." actions={actions}>
      <InlineError error={loadError} prefix="Could not load the steps" />
      {!guide ? (
        loadError ? null : <p className="muted">The steps appear once the console is connected.</p>
      ) : (
        <>
          <p className="start-intro" data-testid="start-intro">
            {guide.mode === 'dry-run' ? (
              <>
                Gatehouse is in <strong>dry run</strong>: agents’ calls are evaluated, asked about and recorded, never executed.
              </>
            ) : (
              <>
                Gatehouse is <strong>live</strong>: calls that policy allows or you approve are executed.
              </>
            )}{' '}
            {autonomy === 'supervised' ? (
              <>
                Autonomy is <strong>supervised</strong>: anything more than a read waits for you in the inbox.
              </>
            ) : autonomy ? (
              <>
                Autonomy is <strong>{autonomy}</strong>.
              </>
            ) : null}{' '}
            <span className="start-count" data-testid="start-progress" data-done={doneCount(guide)}>
              {doneCount(guide)} of 3 done{guide.completed ? ' — all set.' : '.'}
            </span>
          </p>
          {guide.dismissed ? (
            <p className="muted" data-testid="start-dismissed">
              Dismissed: this panel no longer opens by itself. It stays here under Start in the sidebar.
            </p>
          ) : null}
          <InlineError error={actionError} testId="start-error" />
          <ol className="start-steps">
            <PluginStep plugin={guide.plugin} />
            <AgentStep agent={guide.agent} />
            <TestCallStep guide={guide} />
            <LiveStep mode={guide.mode} />
          </ol>
        </>
      )}
    </ViewFrame>
  );
}
