// One waiting call (or several identical ones, folded) as one compact row of the inbox list: risk
// colour, then what it does (tool and a one-line summary, which keep the room), agent, a short
// session, age and the nearest deadline. Fixed height, so thousands of rows virtualise;
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

/** A session id as the row shows it: its first characters (the whole id is in the title). */
export function shortSession(session: string): string {
  // A bound session is "<agent>/<client session>": the client's part is the one that differs.
  const own = session.includes('/') ? session.slice(session.lastIndexOf('/') + 1) : session;
  return own.length > 8 ? own.slice(0, 8) : own;
}

/** How the operator clicked a row: a plain click moves the cursor; Ctrl/⌘ toggles it into the selection, Shift selects a range. */
export interface RowClick {
  id: string;
  toggle: boolean;
  range: boolean;
}

export interface ApprovalRowProps {
  item: ApprovalItemView;
  /** Identical waiting calls folded into this row (1: just this one). */
  count: number;
  /** How many sessions those calls came from. */
  sessions: number;
  active: boolean;
  /** In the multi-selection (Ctrl/Shift-click, x). */
  selected: boolean;
  now: number;
  clockOffset: number;
  domId: string;
  /** The machine the call waits on: this host's member name in team mode; null outside it (no column: every call waits here). */
  machine: string | null;
  top: number;
  onActivate(click: RowClick): void;
}

export const ApprovalRow = memo(function ApprovalRow({ item, count, sessions, active, selected, now, clockOffset, domId, machine, top, onActivate }: ApprovalRowProps) {
  const { call, extraction: x } = item;
  const risk = riskOf(item);
  const summary = oneLineSummary(item);
  const classes = ['approval-row', active ? 'approval-row-active' : '', selected ? 'approval-row-selected' : ''].filter(Boolean).join(' ');
  return (
    <div
      id={domId}
      role="option"
      aria-selected={active || selected}
      className={classes}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}
      data-testid="approval-item"
      data-id={item.id}
      data-tool={call.tool}
      data-agent={call.agent}
      data-session={call.session}
      data-active={active}
      data-selected={selected}
      data-count={count}
      data-evasive={x.evasive}
      data-risk={risk}
      onClick={(e) => onActivate({ id: item.id, toggle: e.ctrlKey || e.metaKey, range: e.shiftKey })}
    >
      <span className={`risk-dot risk-${risk}`} data-testid="approval-risk" title={RISK_LABEL[risk]} aria-label={`risk: ${RISK_LABEL[risk]}`} />
      {/* What the call does comes first and keeps the room: who and when are short and fixed. */}
      <span className="approval-row-what">
        <span className="approval-row-tool mono" data-testid="approval-tool">
          <SafeText text={call.tool} />
        </span>
        <span className="approval-row-summary mono" data-testid="approval-summary" title={safeTitle(summary)}>
          <SafeText text={summary} />
        </span>
      </span>
      <HiddenTextBadge text={`${x.command} ${JSON.stringify(call.arguments ?? null)} ${x.paths.join(' ')}`} />
      {x.evasive ? (
        <span className="badge badge-evasive" data-testid="approval-evasive">
          EVASIVE
        </span>
      ) : null}
      {count > 1 ? (
        <span className="badge approval-row-count" data-testid="approval-count" title={`${count} identical calls wait${sessions > 1 ? ` (from ${sessions} sessions)` : ''}; deciding this row decides each of them`}>
          ×{count}
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
      {machine !== null ? (
        <span className="approval-row-machine muted" data-testid="approval-machine" title={safeTitle(`waits on ${machine}`)}>
          <SafeText text={machine} />
        </span>
      ) : null}
      <span className="approval-row-session mono muted" data-testid="approval-session" title={safeTitle(sessions > 1 ? `${sessions} sessions, the first ${call.session}` : `session ${call.session}`)}>
        {sessions > 1 ? `${sessions} sess.` : <SafeText text={shortSession(call.session)} />}
      </span>
      <span className="approval-row-age muted" data-testid="approval-age" title="Waiting for">
        {age(now - (item.requestedAt + clockOffset))}
      </span>
      <ExpiryCountdown expiresAt={item.deadline} reason={item.deadlineReason} clockOffset={clockOffset} now={now} testId="approval-countdown" compact />
    </div>
  );
});
