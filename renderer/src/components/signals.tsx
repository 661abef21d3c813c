// What needs the operator outside the view they are in: open circuit breakers (Health),
// quarantined plugins (Plugins) and a chain check that failed (Audit), as sidebar badges that stay
// while the condition lasts, and a toast when one starts. Derived from the stores the console
// already keeps live (health.changed, plugins.changed, the chain state); nothing here polls.
import { useEffect, useRef, useState } from 'react';
import type { HealthRowView } from '../../../shared/contract.ts';
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
  /** What the condition does, one sentence per item (the toast lists them). */
  details?: string[];
  /** The toast's link: where the operator fixes it. */
  action?: string;
}

/**
 * What an open breaker does, in the operator's words: a checker fails closed (every call it
 * checks is denied), a tool or server is refused. Only enabled plugins count: a disabled plugin
 * gets no calls, so its breaker denies nothing and raising an alarm for it would be a false one.
 */
export function breakerConsequence(row: Pick<HealthRowView, 'name' | 'kind'>): string {
  switch (row.kind) {
    case 'checker':
      return `Checker ${row.name} is failing: every call it checks is denied`;
    case 'mcp':
      return `MCP server ${row.name} is failing: calls to its tools are refused`;
    default:
      return `Tool ${row.name} is failing: agents' calls to it are refused`;
  }
}

/** The breakers that deny calls now: open or disabled (until reset), on an enabled plugin. */
export function denyingBreakers(rows: readonly HealthRowView[]): HealthRowView[] {
  return rows.filter((r) => r.status === 'enabled' && (r.breaker.state === 'open' || r.breaker.state === 'disabled'));
}

/** The alerts in force, by view. */
export function useSignals(): Partial<Record<ViewId, Signal>> {
  const open = useHealthStore((s) => denyingBreakers(s.rows).map((r) => `${r.name}\t${r.kind ?? ''}`).join('\n'));
  const quarantined = usePluginsStore((s) => s.plugins.filter((p) => p.status === 'quarantined').map((p) => p.name).join('\n'));
  const broken = useAuditStore((s) => chainStatus({ chain: s.chain, verifying: s.verifying }) === 'broken');
  const out: Partial<Record<ViewId, Signal>> = {};
  const openRows = open ? open.split('\n').map((l) => ({ name: l.split('\t')[0]!, kind: (l.split('\t')[1] || null) as HealthRowView['kind'] })) : [];
  const openNames = openRows.map((r) => r.name);
  const qNames = quarantined ? quarantined.split('\n') : [];
  if (openRows.length > 0) {
    const details = openRows.map(breakerConsequence);
    const text = openRows.length === 1 ? details[0]! : `${openRows.length} plugins are failing: calls they handle are denied`;
    out.health = { view: 'health', count: openRows.length, names: openNames, text, details, action: 'Open Health' };
  }
  if (qNames.length > 0) out.plugins = { view: 'plugins', count: qNames.length, names: qNames, text: `${qNames.length} plugin${qNames.length === 1 ? '' : 's'} quarantined` };
  if (broken) out.audit = { view: 'audit', count: 1, names: [], text: 'the audit chain check failed' };
  return out;
}

interface Toast {
  id: number;
  view: ViewId;
  text: string;
  details: string[];
  action: string | null;
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
        // A signal that says what each item does lists those sentences; the others name the items.
        const names = s!.details || s!.names.length === 0 ? '' : `: ${s!.names.slice(0, 3).join(', ')}${s!.names.length > 3 ? '…' : ''}`;
        const details = s!.details && s!.details.length > 1 ? s!.details.slice(0, 3) : [];
        fresh.push({ id: nextToast++, view: s!.view, text: `${s!.text[0]!.toUpperCase()}${s!.text.slice(1)}${names}`, details, action: s!.action ?? null });
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
          <div className="toast-body">
            <p className="toast-text" title={safeTitle(t.text)}>
              <SafeText text={t.text} />
            </p>
            {t.details.length > 0 ? (
              <ul className="toast-details">
                {t.details.map((d) => (
                  <li key={d}>
                    <SafeText text={d} />
                  </li>
                ))}
              </ul>
            ) : null}
            <a
              href={`#${t.view}`}
              className="toast-link"
              data-testid="toast-link"
              onClick={(e) => {
                e.preventDefault();
                setView(t.view, { focus: true });
              }}
            >
              {t.action ?? `Open ${t.view[0]!.toUpperCase()}${t.view.slice(1)}`} →
            </a>
          </div>
          <button type="button" className="toast-close" aria-label="Dismiss" data-testid="toast-dismiss" onClick={() => setToasts((all) => all.filter((x) => x.id !== t.id))}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
