// Activity: every decision as it is made — allowed, denied, asked, expired — with the call it
// decides (tool, command, agent and source) and its decider (a rule, a checker, autonomy, a
// grant, an operator), live. Calls denied by rules never reach the
// inbox; this is where they show without a search. Read from the audit log (call.decided, and
// approval.requested for a call sent to the inbox: its "ask"), refreshed on audit.appended while
// the view is open (sync/activity-actions.ts), filterable by decision and text like Audit.
import { useMemo, useState } from 'react';
import type { AuditEventView, DeciderView } from '../../../shared/contract.ts';
import { describeDecider } from '../../../shared/decider.ts';
import { FilterChips, type FilterChip } from '../components/filter-chips.tsx';
import { SafeText, safeTitle } from '../components/safe-text.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { callSourceLabel } from '../lib/call-source.ts';
import { formatEventTime } from '../lib/format.ts';
import { useActivityStore } from '../stores/activity-store.ts';
import { InlineError } from '../components/dialog-actions.tsx';

interface Decided {
  call: string;
  decision: string;
  decider: DeciderView;
  reason: string;
}

/** One row's facts: a call.decided as it is; an approval.requested is the "ask" that sent a call to the inbox. */
function decided(e: AuditEventView): Decided {
  const p = e.payload as Record<string, unknown>;
  if (e.type === 'approval.requested') return { call: String(p['call'] ?? ''), decision: 'ask', decider: p['askedBy'] as DeciderView, reason: String(p['reason'] ?? '') };
  return p as unknown as Decided;
}

export function ActivityView() {
  const events = useActivityStore((s) => s.events);
  const calls = useActivityStore((s) => s.calls);
  const error = useActivityStore((s) => s.error);
  const [decision, setDecision] = useState('');
  const [text, setText] = useState('');

  const rows = useMemo(() => {
    const q = text.trim().toLowerCase();
    return events
      .map((e) => {
        const p = decided(e);
        return { e, p, c: calls[p.call] };
      })
      .filter(({ p, c }) => (!decision || p.decision === decision) && (!q || `${p.reason} ${describeDecider(p.decider)} ${p.call} ${c ? `${c.tool} ${c.agent} ${c.command}` : ''}`.toLowerCase().includes(q)));
  }, [events, calls, decision, text]);

  const chips: FilterChip[] = [
    ...(decision ? [{ key: 'decision', label: 'decision', value: decision, onRemove: () => setDecision('') }] : []),
    ...(text.trim() ? [{ key: 'text', label: 'text', value: text.trim(), onRemove: () => setText('') }] : []),
  ];

  return (
    <ViewFrame id="activity" title="Activity" subtitle="Every decision as it is made, with who made it: rules, checkers, autonomy, grants and operators.">
      <div className="approval-filters" role="search">
        <select className="input" aria-label="Only this decision" data-testid="activity-filter-decision" value={decision} onChange={(e) => setDecision(e.target.value)}>
          <option value="">All decisions</option>
          <option value="allow">allow</option>
          <option value="deny">deny</option>
          <option value="ask">ask</option>
          <option value="expired">expired</option>
        </select>
        <input type="search" className="input approval-filter-text" placeholder="Filter by tool, agent, command, reason, decider…" aria-label="Filter decisions by text" data-testid="activity-filter-text" value={text} onChange={(e) => setText(e.target.value)} />
        <span className="muted" data-testid="activity-count" data-count={rows.length}>
          {rows.length} of the last {events.length} decisions
        </span>
      </div>
      <FilterChips
        chips={chips}
        onClearAll={() => {
          setDecision('');
          setText('');
        }}
        testId="activity-filter-chips"
      />
      <InlineError error={error} prefix="Could not read the decisions" />
      <table className="data-table activity-table" data-testid="activity-table">
        <thead>
          <tr>
            <th>Time</th>
            <th>Decision</th>
            <th>Call</th>
            <th>Agent</th>
            <th>Decider</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ e, p, c }) => (
            <tr key={e.seq} data-testid="activity-row" data-decision={p.decision} data-seq={e.seq}>
              <td className="mono">{formatEventTime(e.ts)}</td>
              <td>
                <span className={`outcome-${p.decision === 'allow' ? 'approved' : p.decision === 'deny' ? 'denied' : 'expired'}`}>{p.decision}</span>
              </td>
              <td className="activity-call" data-testid="activity-call" title={c ? safeTitle(c.command || c.tool) : p.call}>
                {c ? (
                  <>
                    <span className="mono activity-tool" data-testid="activity-tool">
                      <SafeText text={c.tool} />
                    </span>{' '}
                    {c.command ? (
                      <span className="mono muted" data-testid="activity-command">
                        <SafeText text={c.command} />
                      </span>
                    ) : null}
                  </>
                ) : (
                  // Its call.received is older than what was read: the id still finds it in Audit.
                  <span className="mono muted">{p.call}</span>
                )}
              </td>
              <td data-testid="activity-agent">
                {c ? (
                  <>
                    <SafeText text={c.agent} /> <span className="muted">via {callSourceLabel(c)}</span>
                  </>
                ) : (
                  '—'
                )}
              </td>
              <td data-testid="activity-decider">
                <SafeText text={describeDecider(p.decider)} />
              </td>
              <td data-testid="activity-reason">
                <SafeText text={p.reason} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ViewFrame>
  );
}
