// What needs the operator outside the view they are in: open circuit breakers (Health),
// quarantined plugins (Plugins) and a chain check that failed (Audit), as sidebar badges that stay
// while the condition lasts, and a toast when one starts. Derived from the stores the console
// already keeps live (health.changed, plugins.changed, the chain state); nothing here polls.
import { useEffect, useRef, useState } from 'react';
import { chainStatus, useAuditStore } from '../stores/audit-store.ts';
import { useHealthStore } from '../stores/health-store.ts';
import { usePluginsStore } from '../stores/plugins-store.ts';
import { useUiStore, type ViewId } from '../stores/ui-store.ts';
import { SafeText, safeTitle } from './safe-text.tsx';

export interface Signal {
  view: ViewId;
  count: number;
  /** Said in the badge's label and the toast. */
  text: string;
  names: string[];
}

/** The alerts in force, by view. */
export function useSignals(): Partial<Record<ViewId, Signal>> {
  const open = useHealthStore((s) => s.rows.filter((r) => r.breaker.state === 'open').map((r) => r.name).join('\n'));
  const quarantined = usePluginsStore((s) => s.plugins.filter((p) => p.status === 'quarantined').map((p) => p.name).join('\n'));
  const broken = useAuditStore((s) => chainStatus({ chain: s.chain, verifying: s.verifying }) === 'broken');
  const out: Partial<Record<ViewId, Signal>> = {};
  const openNames = open ? open.split('\n') : [];
  const qNames = quarantined ? quarantined.split('\n') : [];
  if (openNames.length > 0) out.health = { view: 'health', count: openNames.length, names: openNames, text: `${openNames.length} circuit breaker${openNames.length === 1 ? '' : 's'} open` };
  if (qNames.length > 0) out.plugins = { view: 'plugins', count: qNames.length, names: qNames, text: `${qNames.length} plugin${qNames.length === 1 ? '' : 's'} quarantined` };
  if (broken) out.audit = { view: 'audit', count: 1, names: [], text: 'the audit chain check failed' };
  return out;
}

interface Toast {
  id: number;
  view: ViewId;
  text: string;
}

let nextToast = 1;

/** A toast when a signal starts or grows; each closes on click or after the operator opens its view. */
export function SignalToasts() {
  const signals = useSignals();
  const view = useUiStore((s) => s.view);
  const setView = useUiStore((s) => s.setView);
  const [toasts, setToasts] = useState<Toast[]>([]);
  const seen = useRef<Record<string, string>>({});
  const key = JSON.stringify(Object.values(signals).map((s) => [s!.view, s!.names, s!.count]));
  useEffect(() => {
    const now: Record<string, string> = {};
    const fresh: Toast[] = [];
    for (const s of Object.values(signals)) {
      const id = `${s!.count}:${s!.names.join(',')}`;
      now[s!.view] = id;
      if (seen.current[s!.view] !== id && (seen.current[s!.view] === undefined || s!.count >= Number(seen.current[s!.view]!.split(':')[0]))) {
        const names = s!.names.length > 0 ? `: ${s!.names.slice(0, 3).join(', ')}${s!.names.length > 3 ? '…' : ''}` : '';
        fresh.push({ id: nextToast++, view: s!.view, text: `${s!.text[0]!.toUpperCase()}${s!.text.slice(1)}${names}` });
      }
    }
    seen.current = now;
    if (fresh.length > 0) setToasts((t) => [...t.filter((x) => !fresh.some((f) => f.view === x.view)), ...fresh]);
    // Signals that ended take their toasts with them.
    setToasts((t) => t.filter((x) => now[x.view] !== undefined));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` stands for `signals`, a new object on every render
  }, [key]);
  // Opening the view is reading the toast.
  useEffect(() => setToasts((t) => t.filter((x) => x.view !== view)), [view]);
  if (toasts.length === 0) return null;
  return (
    <div className="toasts" role="status" aria-live="polite" data-testid="toasts">
      {toasts.map((t) => (
        <div key={t.id} className="toast" data-testid="toast" data-view={t.view}>
          <button type="button" className="toast-body" title={safeTitle(t.text)} onClick={() => setView(t.view, { focus: true })}>
            <SafeText text={t.text} />
          </button>
          <button type="button" className="toast-close" aria-label="Dismiss" data-testid="toast-dismiss" onClick={() => setToasts((all) => all.filter((x) => x.id !== t.id))}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
