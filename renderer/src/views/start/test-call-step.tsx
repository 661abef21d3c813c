// Step 3: a test call from the console itself, through the real gateway as agent console-test,
// and its progress as the audit log records it: sent → (waiting in the inbox →) decided → result.
import type { ReactNode } from 'react';
import type { GettingStartedView, TestCallView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { useGettingStartedStore } from '../../stores/getting-started-store.ts';
import { openAuditSession, openHealthRow, openInboxItem, sendTestCall, TEST_CALL } from '../../sync/getting-started-actions.ts';
import { StepCard } from './step-card.tsx';

export function TestCallStep({ guide }: { guide: GettingStartedView }) {
  const client = useClient();
  const busy = useGettingStartedStore((s) => s.busy);
  const tc = guide.testCall;
  const canSend = guide.plugin.done;
  const inFlight = tc !== null && (tc.stage === 'sent' || tc.stage === 'waiting');

  return (
    <StepCard step="test" n={3} title="Send a test call and watch it go through" done={guide.testCallDone}>
      <p>
        The console calls <code>{TEST_CALL.tool}</code> with <code>{JSON.stringify(TEST_CALL.arguments)}</code> as the agent <strong>console-test</strong>,
        through the same policy, inbox and audit log as any agent. As shipped, <code>{TEST_CALL.tool}</code> only reads: while the sandbox
        holds it (no write paths, no hosts), autonomy <em>supervised</em> lets it through without asking. Without the sandbox, or given
        a write path, it waits for you in the inbox.
      </p>
      <div className="start-actions">
        <button
          type="button"
          className={tc ? 'button button-small' : 'button button-primary button-small'}
          data-testid="start-send"
          disabled={!canSend || busy !== null || inFlight}
          aria-busy={busy === 'send'}
          title={canSend ? undefined : `Enable ${guide.plugin.name} first (step 1)`}
          onClick={() => void sendTestCall(client)}
        >
          {tc ? 'Send another' : 'Send a test call'}
        </button>
        {!canSend ? <span className="muted">Enable {guide.plugin.name} first.</span> : null}
      </div>
      {tc ? <Progress tc={tc} /> : null}
    </StepCard>
  );
}

type StageState = 'done' | 'current' | 'todo';

function Progress({ tc }: { tc: TestCallView }) {
  const client = useClient();
  const asked = tc.approval !== null;
  const decided = tc.stage === 'decided' || tc.stage === 'finished';
  const inbox: StageState = decided ? 'done' : tc.stage === 'waiting' ? 'current' : 'todo';
  const result: StageState = tc.stage === 'finished' ? 'done' : decided ? 'current' : 'todo';

  return (
    <div className="start-test-call" data-testid="test-call" data-call={tc.call} data-stage={tc.stage} data-approval-state={tc.approvalState ?? ''} data-executed={tc.executed === null ? '' : String(tc.executed)}>
      <ol className="start-progress" aria-label="The test call's progress">
        <Stage id="sent" state="done" label="Sent">
          call <code className="selectable">{tc.call}</code> from agent <strong>{tc.agent}</strong>, session <code className="selectable">{tc.session}</code>
          {tc.recorded > 0 ? <span className="muted"> — {tc.recorded} audit events so far</span> : null}
        </Stage>
        <Stage id="inbox" state={inbox} label={asked || !decided ? 'Inbox' : 'Decided'}>
          {tc.stage === 'sent' ? (
            <span className="muted">being evaluated…</span>
          ) : tc.approvalState === 'pending' ? (
            <>
              <strong>Waiting for you in the inbox.</strong> Open it and press <kbd>a</kbd> to approve or <kbd>d</kbd> to deny.
            </>
          ) : tc.approvalState === 'approved' ? (
            <>
              <strong>Approved</strong> by {tc.approvedBy}.
            </>
          ) : tc.approvalState === 'denied' ? (
            <>
              <strong>Denied</strong> by {tc.approvedBy}
              {tc.reason ? `: ${tc.reason}` : '.'}
            </>
          ) : tc.approvalState === 'expired' ? (
            <>
              <strong>Expired</strong>: nobody decided in time, so it never ran.
            </>
          ) : decided ? (
            <>
              Not asked: <strong>{tc.decision === 'allow' ? 'allowed' : 'denied'}</strong> by {tc.decidedBy ?? 'the host'}
              {tc.reason && tc.decision !== 'allow' ? `: ${tc.reason}` : '.'}
            </>
          ) : null}
        </Stage>
        <Stage id="result" state={result} label="Result">
          {tc.stage !== 'finished' ? (
            <span className="muted">{decided ? 'running…' : 'after the decision'}</span>
          ) : tc.executed ? (
            tc.ok ? (
              <>
                <strong>Executed</strong>
                {tc.output ? (
                  <>
                    : <code className="selectable">{tc.output}</code>
                  </>
                ) : '.'}
              </>
            ) : (
              <>
                <strong className="danger-text">Executed and failed</strong>
                {tc.reason ? `: ${tc.reason}` : '.'}
              </>
            )
          ) : tc.decision === 'allow' && tc.mode === 'dry-run' ? (
            <>
              <strong>Not executed: dry-run.</strong> In live mode it would have run.
            </>
          ) : (
            <>
              <strong>Not executed</strong> ({tc.decision === 'expired' ? 'expired' : 'denied'}).
            </>
          )}
        </Stage>
      </ol>
      <div className="start-links">
        <span className="muted">See it in:</span>
        <button type="button" className="link-button" data-testid="start-open-inbox" onClick={() => openInboxItem(tc.approvalState === 'pending' ? tc.approval : null)}>
          the inbox
        </button>
        {tc.plugin ? (
          <button type="button" className="link-button" data-testid="start-open-health" onClick={() => openHealthRow(tc.plugin!)}>
            Health: {tc.plugin}
          </button>
        ) : null}
        <button type="button" className="link-button" data-testid="start-open-audit" onClick={() => openAuditSession(client, tc.session)}>
          the audit log
        </button>
      </div>
    </div>
  );
}

function Stage({ id, state, label, children }: { id: string; state: StageState; label: string; children: ReactNode }) {
  return (
    <li className="start-stage" data-testid="test-call-stage" data-stage={id} data-state={state}>
      <span className="start-stage-label">{label}</span>
      <span className="start-stage-text">{children}</span>
    </li>
  );
}
