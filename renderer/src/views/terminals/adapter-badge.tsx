// The adapter's view of a terminal: its state and confidence, the evidence (and a waiting
// question) on hover. The session list and the open terminal's facts both show it.
import { SafeText, safeTitle } from '../../components/safe-text.tsx';
import { adapterStateLabel, type AdapterSessionView } from '../../stores/terminals-store.ts';

export function AdapterBadge({ a, testId = 'terminal-adapter-state' }: { a: AdapterSessionView; testId?: string }) {
  const c = a.classification;
  const detail = [a.plugin, c?.evidence, a.asking ? `asking: ${a.asking.question}` : null, a.ended ? a.ended.message : null].filter(Boolean).join(' — ');
  return (
    <span className="terminal-row-adapter" data-testid={testId} data-state={a.state === 'ended' ? 'ended' : (c?.state ?? 'starting')} title={safeTitle(detail)}>
      <SafeText text={adapterStateLabel(a)} />
    </span>
  );
}
