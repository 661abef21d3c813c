// Shadow replay of the text in the editor (saved or not) over recorded calls: a time range or one
// session. Nothing runs and nothing changes; the panel lists the decisions that would differ.
import { useState, type FormEvent } from 'react';
import { useClient } from '../../sync/client-context.ts';
import { errorMessage } from '../../lib/error-message.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { openEvent } from '../../sync/audit-actions.ts';
import type { ResponseOf } from '../../../../shared/contract.ts';
import { ReplayResult } from '../audit/replay-result.tsx';
import { JobStatus, useJob } from '../../components/job-progress.tsx';
import { callAsJob, isCancelled, newJobId } from '../../sync/jobs-actions.ts';
import '../../styles/audit.css';
import { InlineError } from '../../components/dialog-actions.tsx';

const ranges = [
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: 'all', label: 'All recorded calls', ms: 0 },
  { id: 'session', label: 'One session…', ms: 0 },
] as const;
type RangeId = (typeof ranges)[number]['id'];

export function ReplayPanel({ text, connected }: { text: string; connected: boolean }) {
  const client = useClient();
  const [range, setRange] = useState<RangeId>('24h');
  const [session, setSession] = useState('');
  const [state, setState] = useState<{ loading: boolean; job: string | null; error: string | null; note: string | null; result: ResponseOf<'audit.replay'> | null }>({ loading: false, job: null, error: null, note: null, result: null });
  const job = useJob(state.job);

  const run = async (e?: FormEvent) => {
    e?.preventDefault();
    if (range === 'session' && !session.trim()) {
      setState({ loading: false, job: null, error: 'Enter the session id to replay (the Audit view shows it on every call).', note: null, result: null });
      return;
    }
    const r = ranges.find((x) => x.id === range)!;
    const scope = range === 'session' ? { session: session.trim() } : r.ms ? { from: Date.now() - r.ms } : {};
    const id = newJobId('replay');
    setState({ loading: true, job: id, error: null, note: null, result: null });
    try {
      const result = await callAsJob(client, 'audit.replay', { ...scope, policyText: text }, id);
      setState({ loading: false, job: null, error: null, note: null, result });
    } catch (err) {
      const cancelled = isCancelled(err);
      setState({ loading: false, job: null, error: cancelled ? null : errorMessage(err), note: cancelled ? errorMessage(err) : null, result: null });
    }
  };

  const open = (seq: number) => {
    useUiStore.getState().setView('audit');
    void openEvent(client, seq);
  };

  return (
    <section className="panel rules-replay" aria-labelledby="rules-replay-heading" data-testid="rules-replay">
      <h2 id="rules-replay-heading" className="panel-title">
        Replay this draft
      </h2>
      <p className="muted">Runs the text in the editor, saved or not, over recorded calls and shows which decisions would change. Nothing is run or saved.</p>
      <form className="rules-replay-form" onSubmit={(e) => void run(e)}>
        <select className="input" aria-label="Calls to replay" data-testid="rules-replay-range" value={range} onChange={(e) => setRange(e.target.value as RangeId)}>
          {ranges.map((r) => (
            <option key={r.id} value={r.id}>
              {r.label}
            </option>
          ))}
        </select>
        {range === 'session' ? (
          <input className="input mono" aria-label="Session id" data-testid="rules-replay-session" value={session} onChange={(e) => setSession(e.target.value)} placeholder="session id" />
        ) : null}
        <button type="submit" className="button button-small" data-testid="rules-replay-run" disabled={!connected || state.loading} aria-busy={state.loading}>
          {state.loading ? 'Replaying…' : 'Replay'}
        </button>
      </form>
      <JobStatus job={job} note={state.note} testId="rules-replay" />
      <InlineError error={state.error} prefix="Replay failed" testId="rules-replay-error" />
      {state.result ? <ReplayResult result={state.result} onOpen={open} /> : null}
    </section>
  );
}
