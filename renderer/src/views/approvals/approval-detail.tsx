// The selected call, in the order an operator decides on it: a one-line summary, the agent's own
// description, who sent it here and why, what it touches (operations, paths collapsed past ten,
// hosts), the command highlighted, evasive payloads decoded beside the raw text, a Write/Edit as a
// diff against the file on disk, and the full arguments last. The decision buttons name their keys.
// Everything the agent supplied is drawn through SafeText (hidden characters as ⟨U+…⟩ tokens).
import { Fragment, useState } from 'react';
import type { ApprovalItemView } from '../../../../shared/contract.ts';
import { describeDecider } from '../../../../shared/decider.ts';
import { JsonView } from '../../components/json-view.tsx';
import { HiddenTextBadge, SafeText, safeTitle } from '../../components/safe-text.tsx';
import { PATHS_SHOWN, RISK_LABEL, agentDescription, decodeBase64Payloads, editedFile, oneLineSummary, riskOf } from '../../lib/call-summary.ts';
import { formatDateTime } from '../../lib/format.ts';
import { callSourceLabel } from '../../lib/call-source.ts';
import { FileDiff } from './file-diff.tsx';

export type Decision = 'approve' | 'session' | 'grant' | 'always' | 'deny';

/** Shell words coloured by role; the text of each token is still drawn through SafeText. */
const TOKEN = /(\s+)|('(?:[^'])*'?|"(?:\\.|[^"\\])*"?)|(\|\||&&|[|;&<>]+)|(\$\([^)]*\)?|\$\{[^}]*\}?|\$\w+|`[^`]*`?)|(--?[\w-]+=?)|([^\s'"|;&<>$`]+)/g;

function HighlightedCommand({ command }: { command: string }) {
  const parts: { cls: string; text: string }[] = [];
  let commandWord = true;
  for (const m of command.matchAll(TOKEN)) {
    const [text, space, quoted, op, subst, flag] = m;
    if (space) parts.push({ cls: '', text });
    else if (quoted) parts.push({ cls: 'sh-string', text });
    else if (op) {
      parts.push({ cls: 'sh-op', text });
      commandWord = /[|;&]/.test(op);
      continue;
    } else if (subst) parts.push({ cls: 'sh-subst', text });
    else if (flag && !commandWord) parts.push({ cls: 'sh-flag', text });
    else {
      parts.push({ cls: commandWord ? 'sh-command' : '', text });
    }
    if (!space) commandWord = false;
  }
  return (
    <>
      {parts.map((p, i) =>
        p.cls ? (
          <span key={i} className={p.cls}>
            <SafeText text={p.text} multiline />
          </span>
        ) : (
          <SafeText key={i} text={p.text} multiline />
        ),
      )}
    </>
  );
}

export interface ApprovalDetailProps {
  item: ApprovalItemView;
  /** Identical waiting calls this row stands for (1: just this one): approve and deny decide them all. */
  folded: number;
  /** The sessions those calls came from. */
  sessions: number;
  expanded: boolean;
  busy: boolean;
  clockOffset: number;
  onDecide(item: ApprovalItemView, decision: Decision, viaKey?: boolean): void;
  onToggleDetails(id: string): void;
}

export function ApprovalDetail({ item, folded, sessions, expanded, busy, clockOffset, onDecide, onToggleDetails }: ApprovalDetailProps) {
  const { call, extraction: x } = item;
  const [allPaths, setAllPaths] = useState(false);
  const risk = riskOf(item);
  const description = agentDescription(item);
  const decoded = decodeBase64Payloads(`${x.command} ${x.content}`);
  const paths = allPaths ? x.paths : x.paths.slice(0, PATHS_SHOWN);
  const argsText = JSON.stringify(call.arguments ?? null);
  return (
    <section className="approval-detail" data-testid="approval-detail" data-id={item.id} data-risk={risk} aria-label="Selected call">
      <div className="approval-actions">
        <button type="button" className="button button-small button-primary" data-testid="approval-approve" disabled={busy} onClick={() => onDecide(item, 'approve')} aria-keyshortcuts="A">
          {folded > 1 ? `Approve all ${folded}` : 'Approve once'} <kbd>a</kbd>
        </button>
        <button type="button" className="button button-small" data-testid="approval-session" disabled={busy} onClick={() => onDecide(item, 'session')} aria-keyshortcuts="S">
          For this session… <kbd>s</kbd>
        </button>
        <button type="button" className="button button-small" data-testid="approval-grant" disabled={busy} onClick={() => onDecide(item, 'grant')} aria-keyshortcuts="G" title="Approve, and don't ask again for this command prefix, folder or host">
          Don't ask again for… <kbd>g</kbd>
        </button>
        <button type="button" className="button button-small" data-testid="approval-always" disabled={busy} onClick={() => onDecide(item, 'always')}>
          Always…
        </button>
        <button type="button" className="button button-small button-danger" data-testid="approval-deny" disabled={busy} onClick={() => onDecide(item, 'deny')} aria-keyshortcuts="D">
          {folded > 1 ? `Deny all ${folded}…` : 'Deny…'} <kbd>d</kbd>
        </button>
        <button type="button" className="button button-small approval-details-toggle" data-testid="approval-details-toggle" aria-expanded={expanded} onClick={() => onToggleDetails(item.id)} aria-keyshortcuts="Enter">
          {expanded ? 'Hide details' : 'Details'} <kbd>↵</kbd>
        </button>
      </div>

      <h3 className={`approval-detail-summary mono risk-text-${risk}`} data-testid="approval-detail-summary">
        <SafeText text={oneLineSummary(item)} />
      </h3>
      {folded > 1 ? (
        <p className="approval-folded" data-testid="approval-folded" data-count={folded}>
          <strong>{folded} identical calls</strong> wait{sessions > 1 ? ` (from ${sessions} sessions)` : ''}: same agent, tool, folder and arguments. Approve or deny decides each of them, each recorded on its own; "for this session" and "don't ask again" decide this one, and the grant then releases the others it covers.
        </p>
      ) : null}
      <p className="muted approval-detail-who">
        <span className="mono">
          <SafeText text={call.tool} />
        </span>{' '}
        from <SafeText text={call.agent} />
        {call.client !== undefined && call.client !== call.agent ? (
          <span title="What the client says it is; the agent is the name of the token it used">
            {' '}
            (<SafeText text={call.client} />)
          </span>
        ) : null}{' '}
        · session <SafeText text={call.session} /> · via <span data-testid="approval-source">{callSourceLabel(call)}</span> · {RISK_LABEL[risk]}
        <HiddenTextBadge text={`${x.command} ${argsText} ${x.paths.join(' ')}`} testId="approval-detail-hidden-text" />
      </p>

      {description ? (
        <blockquote className="approval-description" data-testid="approval-description" title="The agent's own description of this call: its claim, not what Gatehouse found">
          <span className="muted">The agent says: </span>
          <SafeText text={description} />
        </blockquote>
      ) : null}

      <p className="approval-asked" data-testid="approval-asked-by">
        <span className="muted">Asked by </span>
        <strong>{describeDecider(item.askedBy)}</strong>
        <span className="muted">: </span>
        <SafeText text={item.reason} />
      </p>

      <dl className="approval-facts">
        <dt>Operations</dt>
        <dd data-testid="approval-operations">
          {x.operations.length > 0 ? (
            x.operations.map((op) => (
              <span key={op} className="op-chip" data-op={op}>
                {op}
              </span>
            ))
          ) : (
            <span className="muted">none known</span>
          )}
        </dd>
        {x.paths.length > 0 ? (
          <>
            <dt>Paths</dt>
            <dd className="mono" data-testid="approval-paths" data-count={x.paths.length}>
              {paths.map((p, i) => (
                <Fragment key={i}>
                  {i > 0 ? '\n' : null}
                  <SafeText text={p} />
                </Fragment>
              ))}
              {x.paths.length > PATHS_SHOWN ? (
                <>
                  {'\n'}
                  <button type="button" className="link-button" data-testid="approval-paths-more" onClick={() => setAllPaths((v) => !v)}>
                    {allPaths ? 'Show the first ten' : `… and ${x.paths.length - PATHS_SHOWN} more (${x.paths.length} paths)`}
                  </button>
                </>
              ) : null}
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
            <dd className="mono approval-command" data-testid="approval-command">
              <HighlightedCommand command={x.command} />
            </dd>
          </>
        ) : null}
        {x.evasive ? (
          <>
            <dt className="danger-text">Evasive</dt>
            <dd className="danger-text" data-testid="approval-evasive-reasons" title={safeTitle(x.evasiveReasons.join('; '))}>
              {x.evasiveReasons.length > 0 ? <SafeText text={x.evasiveReasons.join('; ')} /> : 'Static analysis cannot see through this command.'}
            </dd>
          </>
        ) : null}
        {decoded.length > 0 ? (
          <>
            <dt>Decoded</dt>
            <dd data-testid="approval-decoded">
              {decoded.map((d, i) => (
                <div key={i} className="approval-decoded" data-testid="approval-decoded-payload">
                  <span className="mono muted" data-testid="approval-decoded-raw">
                    <SafeText text={d.raw} />
                  </span>
                  <span className="muted"> base64 → </span>
                  <span className="mono danger-text" data-testid="approval-decoded-text">
                    <SafeText text={d.decoded} multiline />
                  </span>
                </div>
              ))}
            </dd>
          </>
        ) : null}
      </dl>

      {editedFile(item) ? <FileDiff item={item} /> : null}

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
    </section>
  );
}
