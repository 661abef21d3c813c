// Step 2: connect an agent. Done when the audit log shows an agent's call (MCP, hook or API), or
// when the operator says so (an agent that only listed tools leaves no call on record).
import type { GettingStartedView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { formatAgo, formatDateTime, isoTime } from '../../lib/format.ts';
import { useGettingStartedStore } from '../../stores/getting-started-store.ts';
import { openConnectAgent, setAgentSkipped } from '../../sync/getting-started-actions.ts';
import { StepCard } from './step-card.tsx';
import { SafeText } from '../../components/safe-text.tsx';

const sourceLabel: Record<string, string> = { mcp: 'MCP', hook: 'a Claude Code hook', api: 'the HTTP API' };

export function AgentStep({ agent }: { agent: GettingStartedView['agent'] }) {
  const client = useClient();
  const busy = useGettingStartedStore((s) => s.busy);
  const seen = agent.seen;

  return (
    <StepCard step="agent" n={2} title="Connect an agent" done={agent.done}>
      <p>
        Point Claude Code, Codex or any MCP client at this console. <strong>Settings → Connect an agent</strong> has the MCP URL, the agent token and
        configuration to paste.
      </p>
      <p className="start-status" data-testid="start-agent-status">
        {seen ? (
          <>
            <strong>
              <SafeText text={seen.agent} />
            </strong> sent its first call over {sourceLabel[seen.source] ?? seen.source}{' '}
            <time dateTime={isoTime(seen.at)} title={formatDateTime(seen.at)}>
              {formatAgo(seen.at)}
            </time>
            .
          </>
        ) : agent.skipped ? (
          'Marked done by you; no agent call is on record yet.'
        ) : (
          <span className="muted">No agent has sent a call yet. This step is done by the first one.</span>
        )}
      </p>
      <div className="start-actions">
        <button type="button" className="button button-small" data-testid="start-open-connect" onClick={openConnectAgent}>
          Open Connect an agent
        </button>
        {!seen ? (
          <button type="button" className="button button-small" data-testid="start-agent-skip" disabled={busy !== null} aria-pressed={agent.skipped} onClick={() => void setAgentSkipped(client, !agent.skipped)}>
            {agent.skipped ? 'Not done yet' : 'Mark as done'}
          </button>
        ) : null}
      </div>
    </StepCard>
  );
}
