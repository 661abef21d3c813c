// One rule in force, read in full: its whole name, what it decides and why, the operations and
// the paths, exceptions and hosts it matches, and what the agent is told. Built-in rules are
// locked and live in no file, so this is the only place to read them; it is read-only for every
// rule (a user rule is changed in policy.yaml, where "Show in policy.yaml" puts the cursor).
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { decisionLabel, type RuleView } from '../../stores/policy-store.ts';

/** "policy.yaml:12" → 12; built-in rules and the command line have no line. */
export function ruleLine(origin: string): number | null {
  const m = /:(\d+)$/.exec(origin);
  return m ? Number(m[1]) : null;
}

function Patterns({ items, testId, empty }: { items: readonly string[]; testId: string; empty: string }) {
  if (items.length === 0) return <span className="muted">{empty}</span>;
  return (
    <ul className="rule-patterns mono" data-testid={testId} data-count={items.length}>
      {items.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  );
}

export function RuleDetail({ rule: r, onClose, onReveal }: { rule: RuleView; onClose(): void; onReveal?(line: number): void }) {
  const line = r.source === 'user' ? ruleLine(r.origin) : null;
  return (
    <ModalDialog
      title={r.locked ? 'Built-in rule (locked, read-only)' : 'Rule (read-only here)'}
      onCancel={onClose}
      testId="rule-detail"
      className="rule-detail-dialog"
      footer={
        <>
          {line !== null && onReveal ? (
            <button
              type="button"
              className="button"
              data-testid="rule-detail-reveal"
              onClick={() => {
                onClose();
                onReveal(line);
              }}
            >
              Show in policy.yaml
            </button>
          ) : null}
          <button type="button" className="button button-primary" data-testid="rule-detail-close" onClick={onClose}>
            Close
          </button>
        </>
      }
    >
      <p className="rule-detail-name mono" data-testid="rule-detail-name">
        {r.name}
      </p>
      {r.locked ? (
        <p className="muted" data-testid="rule-detail-locked">
          Built in and locked: always checked before your rules, and no rule in policy.yaml can soften, replace or disable it.
        </p>
      ) : null}
      <dl className="facts rule-detail-facts">
        <dt>What it covers</dt>
        <dd>{r.description || <span className="muted">no description</span>}</dd>
        <dt>Decision</dt>
        <dd>
          <span className={`rule-decision rule-decision-${r.decision}`} data-testid="rule-detail-decision">
            {decisionLabel[r.decision] ?? r.decision}
          </span>{' '}
          <span className="muted">
            severity {r.severity}, priority {r.priority}
            {r.enabled ? '' : ', disabled'}
          </span>
        </dd>
        <dt>Operations</dt>
        <dd className="mono" data-testid="rule-detail-actions">
          {r.actions.join(', ')}
        </dd>
        <dt>Paths</dt>
        <dd>
          <Patterns items={r.paths} testId="rule-detail-paths" empty="none" />
        </dd>
        {r.except.length > 0 ? (
          <>
            <dt>Except</dt>
            <dd>
              <Patterns items={r.except} testId="rule-detail-except" empty="none" />
            </dd>
          </>
        ) : null}
        {r.hosts.length > 0 ? (
          <>
            <dt>Hosts</dt>
            <dd>
              <Patterns items={r.hosts} testId="rule-detail-hosts" empty="none" />
            </dd>
          </>
        ) : null}
        <dt>The agent is told</dt>
        <dd data-testid="rule-detail-message">{r.message || <span className="muted">the rule's name</span>}</dd>
        <dt>Defined in</dt>
        <dd className="mono">{r.source === 'builtin' ? 'Gatehouse itself (built in)' : r.origin}</dd>
        <dt>Matched</dt>
        <dd>
          {r.hits} {r.hits === 1 ? 'time' : 'times'} since the host started
        </dd>
      </dl>
    </ModalDialog>
  );
}
