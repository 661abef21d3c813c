// What a shadow replay found: how many recorded decisions would change under the policy replayed,
// and each change (recorded → replayed, with the replayed decider and reason). Each change opens
// the call's event in the Audit view. Used by the session timeline and the Rules view's draft replay.
import type { ResponseOf } from '../../../../shared/contract.ts';
import { deciderText } from '../../lib/audit-summary.ts';
import { SafeText } from '../../components/safe-text.tsx';

export interface ReplayResultProps {
  result: ResponseOf<'audit.replay'>;
  /** Opens the call's call.received event. */
  onOpen(seq: number): void;
}

export function ReplayResult({ result, onOpen }: ReplayResultProps) {
  const changes = result.calls.filter((c) => c.changed);
  return (
    <div data-testid="audit-replay-result" data-changed={result.changed} data-calls={result.calls.length}>
      <p>
        {result.calls.length === 0
          ? 'No recorded calls in this range.'
          : result.changed === 0
            ? `All ${result.calls.length} recorded decisions would stay the same.`
            : `${result.changed} of ${result.calls.length} decisions would change:`}
      </p>
      {result.policyProblems.length > 0 ? (
        <p className="inline-error">The policy has problems: {result.policyProblems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}</p>
      ) : null}
      {changes.length > 0 ? (
        <ul className="audit-replay-changes">
          {changes.map((c) => (
            <li key={c.call} data-testid="audit-replay-change" data-call={c.call}>
              <button type="button" className="link-button mono" onClick={() => onOpen(c.seq)}>
                <SafeText text={c.tool} />
              </button>{' '}
              <span className="muted">
                <SafeText text={c.agent} />
              </span>{' '}
              <SafeText text={c.recorded?.decision ?? 'undecided'} /> → <strong>{c.replayed.decision}</strong>{' '}
              <span className="muted">
                ({deciderText(c.replayed.decider) ?? 'policy'}: <SafeText text={c.replayed.reason} />)
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
