// One waiting call as one compact row of the inbox list: risk colour, tool, a one-line summary,
// agent, session, age and the nearest deadline. Fixed height, so thousands of rows virtualise;
// everything else about the call is in the detail pane beside the list.
// Agent-supplied text (tool, summary, agent, session) goes through SafeText.
import { memo } from 'react';
import type { ApprovalItemView } from '../../../../shared/contract.ts';
import { HiddenTextBadge, SafeText, safeTitle } from '../../components/safe-text.tsx';
import { RISK_LABEL, oneLineSummary, riskOf } from '../../lib/call-summary.ts';
import { ExpiryCountdown } from './countdown.tsx';

export const ROW_HEIGHT = 36;

function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h`;
}

export interface ApprovalRowProps {
  item: ApprovalItemView;
  active: boolean;
  now: number;
  clockOffset: number;
  domId: string;
  top: number;
  onActivate(id: string): void;
}

export const ApprovalRow = memo(function ApprovalRow({ item, active, now, clockOffset, domId, top, onActivate }: ApprovalRowProps) {
  const { call, extraction: x } = item;
  const risk = riskOf(item);
  const summary = oneLineSummary(item);
  return (
    <div
      id={domId}
      role="option"
      aria-selected={active}
      className={active ? 'approval-row approval-row-active' : 'approval-row'}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}
      data-testid="approval-item"
      data-id={item.id}
      data-tool={call.tool}
      data-agent={call.agent}
      data-session={call.session}
      data-active={active}
      data-evasive={x.evasive}
      data-risk={risk}
      onClick={() => onActivate(item.id)}
    >
      <span className={`risk-dot risk-${risk}`} data-testid="approval-risk" title={RISK_LABEL[risk]} aria-label={`risk: ${RISK_LABEL[risk]}`} />
      <span className="approval-row-tool mono" data-testid="approval-tool">
        <SafeText text={call.tool} />
      </span>
      <span className="approval-row-summary mono" data-testid="approval-summary" title={safeTitle(summary)}>
        <SafeText text={summary} />
      </span>
      <HiddenTextBadge text={`${x.command} ${JSON.stringify(call.arguments ?? null)} ${x.paths.join(' ')}`} />
      {x.evasive ? (
        <span className="badge badge-evasive" data-testid="approval-evasive">
          EVASIVE
        </span>
      ) : null}
      <span className="approval-row-agent" title={safeTitle(call.client !== undefined && call.client !== call.agent ? `${call.agent} (the client says it is ${call.client})` : call.agent)}>
        <span data-testid="approval-agent">
          <SafeText text={call.agent} />
        </span>
        {/* The agent is the token's name; what the client says it is is only a label. */}
        {call.client !== undefined && call.client !== call.agent ? (
          <span className="muted" data-testid="approval-client">
            {' '}
            (<SafeText text={call.client} />)
          </span>
        ) : null}
      </span>
      <span className="approval-row-session mono muted" data-testid="approval-session" title={safeTitle(call.session)}>
        <SafeText text={call.session} />
      </span>
      <span className="approval-row-age muted" data-testid="approval-age" title="Waiting for">
        {age(now - (item.requestedAt + clockOffset))}
      </span>
      <ExpiryCountdown expiresAt={item.deadline} reason={item.deadlineReason} clockOffset={clockOffset} now={now} testId="approval-countdown" />
    </div>
  );
});
