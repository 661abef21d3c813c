// Activity: every decision as it is made — allowed, denied, asked, expired — with its decider (a
// rule, a checker, autonomy, a grant, an operator), live. Calls denied by rules never reach the
// inbox; this is where they show without a search. Read from the audit log (call.decided, and
// approval.requested for a call sent to the inbox: its "ask"), refreshed
// on audit.appended while the view is open, filterable by decision and text like Audit.
import { useEffect, useMemo, useState } from 'react';
import type { AuditEventView, DeciderView } from '../../../shared/contract.ts';
import { describeDecider } from '../../../shared/decider.ts';
import { useClient } from '../app/client-context.ts';
import { FilterChips, type FilterChip } from '../components/filter-chips.tsx';
import { SafeText } from '../components/safe-text.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { coalesce } from '../lib/coalesce.ts';
import { errorMessage } from '../lib/error-message.ts';
import { formatEventTime } from '../lib/format.ts';

interface Decided {
  call: string;
  decision: string;
  decider: DeciderView;
  reason: string;
}

const LIMIT = 300;

/** One row's facts: a call.decided as it is; an approval.requested is the "ask" that sent a call to the inbox. */
function decided(e: AuditEventView): Decided {
  const p = e.payload as Record<string, unknown>;
  if (e.type === 'approval.requested') return { call: String(p['call'] ?? ''), decision: 'ask', decider: p['askedBy'] as DeciderView, reason: String(p['reason'] ?? '') };
  return p as unknown as Decided;
}

export function ActivityView() {
  const client = useClient();
  const [events, setEvents] = useState<AuditEventView[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [decision, setDecision] = useState('');
  const [text, setText] = useState('');

  useEffect(() => {
    let live = true;
    const load = (): Promise<void> =>
      client.call('audit.search', { query: '', types: ['call.decided', 'approval.requested'], limit: LIMIT }).then(
        (r) => {
          if (!live) return;
          setEvents(r.events);
          setError(null);
        },
        (err: unknown) => {
          if (live) setError(errorMessage(err));
        },
      );
    void load();
    // Many appends in a burst (a busy agent) become one read.
    const refresh = coalesce(load, 250);
    const off = client.onEvent('audit.appended', () => refresh.request());
    return () => {
      live = false;
      off();
      refresh.cancel();
    };
  }, [client]);

  const rows = useMemo(() => {
    const q = text.trim().toLowerCase();
    return events
      .map((e) => ({ e, p: decided(e) }))
      .filter(({ p }) => (!decision || p.decision === decision) && (!q || `${p.reason} ${describeDecider(p.decider)} ${p.call}`.toLowerCase().includes(q)));
  }, [events, decision, text]);

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
        <input type="search" className="input approval-filter-text" placeholder="Filter by reason, decider, call…" aria-label="Filter decisions by text" data-testid="activity-filter-text" value={text} onChange={(e) => setText(e.target.value)} />
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
      {error ? (
        <p className="inline-error" role="alert">
          Could not read the decisions: {error}
        </p>
      ) : null}
      <table className="data-table activity-table" data-testid="activity-table">
        <thead>
          <tr>
            <th>Time</th>
            <th>Decision</th>
            <th>Decider</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ e, p }) => (
            <tr key={e.seq} data-testid="activity-row" data-decision={p.decision} data-seq={e.seq}>
              <td className="mono">{formatEventTime(e.ts)}</td>
              <td>
                <span className={`outcome-${p.decision === 'allow' ? 'approved' : p.decision === 'deny' ? 'denied' : 'expired'}`}>{p.decision}</span>
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
