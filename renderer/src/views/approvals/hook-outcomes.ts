// What became of approved Claude Code hook calls: Claude Code runs them itself, so whether one ran
// is known only from its PostToolUse report (the `call.outcome` audit event). Fetched for the
// history's hook calls and refreshed as events are appended; a call without a report reads
// "outcome unknown", never "did not run".
import { useEffect, useMemo, useState } from 'react';
import type { ApprovalItemView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { searchAudit } from '../../sync/audit-actions.ts';

export type HookOutcome = 'executed' | 'failed' | 'unknown';

export const hookOutcomeLabel: Record<HookOutcome, string> = {
  executed: 'ran',
  failed: 'failed',
  unknown: 'outcome unknown',
};

/** call id → what Claude Code reported, for the approved hook calls among `items`. */
export function useHookOutcomes(items: ApprovalItemView[]): Map<string, HookOutcome> {
  const client = useClient();
  const calls = useMemo(() => items.filter((i) => i.call.source === 'hook' && (i.outcome?.state ?? i.state) === 'approved').map((i) => i.call.id), [items]);
  const [reported, setReported] = useState<Map<string, HookOutcome>>(new Map());
  const key = calls.join(',');
  useEffect(() => {
    if (calls.length === 0) return;
    let live = true;
    const load = () =>
      searchAudit(client, { types: ['call.outcome'], limit: 1000 }).then(
        (page) => {
          if (!live) return;
          const next = new Map<string, HookOutcome>();
          for (const e of page.events) {
            const p = (e.payload ?? {}) as { call?: unknown; outcome?: unknown };
            if (typeof p.call === 'string' && !next.has(p.call)) next.set(p.call, p.outcome === 'failed' ? 'failed' : 'executed');
          }
          setReported(next);
        },
        () => {},
      );
    void load();
    // Appends come in bursts: one reload a second at most.
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = client.onEvent('audit.appended', () => {
      timer ??= setTimeout(() => {
        timer = null;
        void load();
      }, 1000);
    });
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
      off();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` stands for `calls`
  }, [client, key]);
  return useMemo(() => new Map(calls.map((c) => [c, reported.get(c) ?? 'unknown'])), [calls, reported]);
}
