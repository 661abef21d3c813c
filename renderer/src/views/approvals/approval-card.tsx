// One pending call, with everything the operator decides on: who asks, which tool, the exact
// arguments, what policy extracted (operations, paths, hosts, evasive constructs), who asked
// for a decision and why, and the time left. The decision buttons name their keys.
// Everything the agent supplied (tool, agent, session, command, paths, hosts, reasons, arguments) is
// drawn through SafeText: a bidi override or zero-width character shows as a ⟨U+…⟩ token, and a
// command holding one gets a HIDDEN CHARACTERS badge, so what the operator reads is what runs.
import { Fragment, memo } from 'react';
import type { ApprovalItemView } from '../../../../shared/contract.ts';
import { describeDecider } from '../../../../shared/decider.ts';
import { formatDateTime } from '../../lib/format.ts';
import { ExpiryCountdown } from './countdown.tsx';
import { JsonView } from '../../components/json-view.tsx';
import { HiddenTextBadge, SafeText, safeTitle } from '../../components/safe-text.tsx';

export type Decision = 'approve' | 'session' | 'always' | 'deny';

export interface ApprovalCardProps {
  item: ApprovalItemView;
  active: boolean;
  expanded: boolean;
  busy: boolean;
  now: number;
  clockOffset: number;
  domId: string;
  onActivate(id: string): void;
  onDecide(item: ApprovalItemView, decision: Decision): void;
  onToggleDetails(id: string): void;
}

export const ApprovalCard = memo(function ApprovalCard({ item, active, expanded, busy, now, clockOffset, domId, onActivate, onDecide, onToggleDetails }: ApprovalCardProps) {
  const { call, extraction: x } = item;
  // What the warning is about: the command as extracted, and the raw arguments (a tool's own fields).
  const argsText = JSON.stringify(call.arguments ?? null);
  return (
    <li
      id={domId}
      className={active ? 'approval-card approval-card-active' : 'approval-card'}
      data-testid="approval-item"
      data-id={item.id}
      data-tool={call.tool}
      data-agent={call.agent}
      data-active={active}
      data-evasive={x.evasive}
      aria-current={active ? 'true' : undefined}
      onClick={() => onActivate(item.id)}
    >
      <div className="approval-head">
        <span className="approval-tool mono" data-testid="approval-tool">
          <SafeText text={call.tool} />
        </span>
        <HiddenTextBadge text={`${x.command ?? ''} ${argsText} ${x.paths.join(' ')}`} />
        {x.evasive ? (
          <span className="badge badge-evasive" data-testid="approval-evasive" title={safeTitle(x.evasiveReasons.join('; ')) || 'Static analysis cannot see through this command.'}>
            EVASIVE
          </span>
        ) : null}
        <span className="approval-who">
          <span data-testid="approval-agent">
            <SafeText text={call.agent} />
          </span>
          {/* The agent is the token's name; what the client says it is is only a label. */}
          {call.client !== undefined && call.client !== call.agent ? (
            <span className="muted" data-testid="approval-client" title="What the client says it is; the agent is the name of the token it used">
              {' '}
              (<SafeText text={call.client} />)
            </span>
          ) : null}
          <span className="muted"> · session </span>
          <span className="mono" data-testid="approval-session" title={safeTitle(call.session)}>
            <SafeText text={call.session} />
          </span>
          <span className="muted"> · via {call.source}</span>
        </span>
        <span className="approval-spacer" />
        {/* The nearest deadline: the approval expiry, or the agent's own timeout when that comes first. */}
        <ExpiryCountdown expiresAt={item.deadline} reason={item.deadlineReason} clockOffset={clockOffset} now={now} testId="approval-countdown" />
      </div>

      <p className="approval-asked" data-testid="approval-asked-by">
        <span className="muted">Asked by </span>
        <strong>{describeDecider(item.askedBy)}</strong>
        <span className="muted">: </span>
        <SafeText text={item.reason} />
      </p>

      <dl className="approval-facts">
        <dt>Operations</dt>
        <dd data-testid="approval-operations">
          {x.operations.length > 0 ? x.operations.map((op) => (
            <span key={op} className="op-chip" data-op={op}>
              {op}
            </span>
          )) : <span className="muted">none known</span>}
        </dd>
        {x.paths.length > 0 ? (
          <>
            <dt>Paths</dt>
            <dd className="mono" data-testid="approval-paths">
              {x.paths.map((p, i) => (
                <Fragment key={i}>
                  {i > 0 ? '\n' : null}
                  <SafeText text={p} />
                </Fragment>
              ))}
            </dd>
          </>
        ) : null}
        {x.hosts.length > 0 ? (
          <>
            <dt>Hosts</dt>
            <dd className="mono" data-testid="approval-hosts">
              <SafeText text={x.hosts.join(', ')} />
            </dd>
          </>
        ) : null}
        {x.command ? (
          <>
            <dt>Command</dt>
            <dd className="mono" data-testid="approval-command">
              <SafeText text={x.command} multiline />
            </dd>
          </>
        ) : null}
        {x.evasive ? (
          <>
            <dt className="danger-text">Evasive</dt>
            <dd className="danger-text" data-testid="approval-evasive-reasons">
              {x.evasiveReasons.length > 0 ? <SafeText text={x.evasiveReasons.join('; ')} /> : 'Static analysis cannot see through this command.'}
            </dd>
          </>
        ) : null}
      </dl>

      <div className="approval-args">
        <span className="approval-args-label muted">Arguments</span>
        <JsonView value={call.arguments ?? null} testId="approval-arguments" />
      </div>

      {expanded ? (
        <dl className="facts approval-details" data-testid="approval-details">
          <dt>Approval</dt>
          <dd className="mono">{item.id}</dd>
          <dt>Call</dt>
          <dd className="mono">{call.id}</dd>
          <dt>Arguments hash</dt>
          <dd className="mono" data-testid="approval-args-hash">
            {item.argsHash}
          </dd>
          <dt>Working directory</dt>
          <dd className="mono">
            <SafeText text={call.cwd} />
          </dd>
          <dt>Received</dt>
          <dd>{formatDateTime(call.receivedAt + clockOffset)}</dd>
          <dt>Deadline</dt>
          <dd data-testid="approval-deadline">
            {formatDateTime(item.deadline + clockOffset)} <span className="muted">({item.deadlineReason})</span>
          </dd>
        </dl>
      ) : null}

      <div className="approval-actions" onClick={(e) => e.stopPropagation()}>
        <button type="button" className="button button-small button-primary" data-testid="approval-approve" disabled={busy} onClick={() => onDecide(item, 'approve')} aria-keyshortcuts="A">
          Approve once <kbd>a</kbd>
        </button>
        <button type="button" className="button button-small" data-testid="approval-session" disabled={busy} onClick={() => onDecide(item, 'session')} aria-keyshortcuts="S">
          For this session… <kbd>s</kbd>
        </button>
        <button type="button" className="button button-small" data-testid="approval-always" disabled={busy} onClick={() => onDecide(item, 'always')}>
          Always…
        </button>
        <button type="button" className="button button-small button-danger" data-testid="approval-deny" disabled={busy} onClick={() => onDecide(item, 'deny')} aria-keyshortcuts="D">
          Deny… <kbd>d</kbd>
        </button>
        <button type="button" className="button button-small approval-details-toggle" data-testid="approval-details-toggle" aria-expanded={expanded} onClick={() => onToggleDetails(item.id)} aria-keyshortcuts="Enter">
          {expanded ? 'Hide details' : 'Details'} <kbd>↵</kbd>
        </button>
      </div>
    </li>
  );
});
