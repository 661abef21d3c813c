// What a shadow replay found: how many recorded decisions would change under the policy replayed,
// and one row per changed call, plus every call still waiting for an operator (marked). A row says
// which call it is (time, tool, command or arguments, agent, session) and its decision then and
// now, each with who decided; it opens the call's event in the Audit view. Used by the session
// timeline and the Rules view's draft replay.
import type { ResponseOf } from '../../../../shared/contract.ts';
import { deciderText } from '../../lib/audit-summary.ts';
import { formatEventTime, isoTime } from '../../lib/format.ts';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';

export interface ReplayResultProps {
  result: ResponseOf<'audit.replay'>;
  /** Opens the call's call.received event. */
  onOpen(seq: number): void;
}

type Row = ResponseOf<'audit.replay'>['calls'][number];

function Decision({ d, waiting }: { d: Row['recorded']; waiting?: boolean }) {
  if (!d) return <span className="muted">not recorded</span>;
  return (
    <>
      <strong>{d.decision}</strong> <span className="muted">({deciderText(d.decider) ?? 'policy'})</span>
      {waiting ? <> <span className="badge" data-testid="audit-replay-waiting">waiting</span></> : null}
    </>
  );
}

export function ReplayResult({ result, onOpen }: ReplayResultProps) {
  const rows = result.calls.filter((c) => c.changed || c.waiting);
  const waiting = result.calls.filter((c) => c.waiting).length;
  return (
    <div data-testid="audit-replay-result" data-changed={result.changed} data-calls={result.calls.length}>
      <p>
        {result.calls.length === 0
          ? 'No recorded calls in this range.'
          : result.changed === 0
            ? `All ${result.calls.length} recorded decisions would stay the same.`
            : `${result.changed} of ${result.calls.length} decisions would change:`}
        {waiting > 0 ? ` ${waiting} ${waiting === 1 ? 'call is' : 'calls are'} still waiting for an operator.` : null}
      </p>
      {result.policyProblems.length > 0 ? (
        <p className="inline-error">The policy has problems: {result.policyProblems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}</p>
      ) : null}
      {rows.length > 0 ? (
        <table className="audit-replay-changes">
          <thead>
            <tr>
              <th>Time</th>
              <th>Call</th>
              <th>Agent · session</th>
              <th>Recorded</th>
              <th>Replayed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.call} data-testid="audit-replay-change" data-call={c.call} data-changed={c.changed} data-waiting={c.waiting}>
                <td className="mono">
                  <time dateTime={isoTime(c.ts)}>{formatEventTime(c.ts)}</time>
                </td>
                <td>
                  <button type="button" className="link-button mono" title="Open this call in the Audit view" onClick={() => onOpen(c.seq)}>
                    <SafeText text={c.tool} />
                    {c.command ? (
                      <>
                        {': '}
                        <SafeText text={c.command} />
                      </>
                    ) : null}
                  </button>
                </td>
                <td className="muted">
                  <SafeText text={c.agent} /> · <SafeText text={c.session} />
                </td>
                <td>
                  <Decision d={c.recorded} waiting={c.waiting} />
                </td>
                <td title={safeTitle(c.replayed.reason)}>
                  <Decision d={c.replayed} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
