// The Activity domain: the newest decisions and the calls they decide, read from the audit log
// on connect and again on audit.appended while the Activity view is open (bindActivity).
import type { AuditEventView } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import { ACTIVITY_LIMIT, initialActivityState, useActivityStore, type ActivityCall } from '../stores/activity-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { bindDomain, latest } from './bind-domain.ts';

const set = useActivityStore.setState;

/** Many appends in a burst (a busy agent) become one read at most this often. */
export const ACTIVITY_REFRESH_MS = 250;

/** The read to keep: an older answer never overwrites a newer one. */
const reads = latest();

export function bindActivity(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    // Only the Activity view shows these: elsewhere an append marks them stale, read on opening it.
    const refresh = d.whileShown('activity', () => loadActivity(client), ACTIVITY_REFRESH_MS);
    d.on('audit.appended', () => refresh.request());
    return {
      load: () => loadActivity(client),
      reset: () => {
        reads.supersede();
        set({ ...initialActivityState });
      },
    };
  });
}

export async function loadActivity(client: GatehouseClient): Promise<void> {
  const req = reads.begin();
  try {
    const { events } = await client.call('audit.search', { query: '', types: [...DECISIONS, ...CALL_FACTS], limit: ACTIVITY_LIMIT });
    if (req.current()) set({ events: events.filter((e) => DECISIONS.includes(e.type)), calls: callsOf(events), loaded: true, error: null });
  } catch (err) {
    if (req.current()) set({ error: errorMessage(err) });
  }
}

const DECISIONS = ['call.decided', 'approval.requested'];
const CALL_FACTS = ['call.received', 'call.extracted'];

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** What each call was: its tool, agent and source from call.received, its command from call.extracted. */
export function callsOf(events: readonly AuditEventView[]): Record<string, ActivityCall> {
  const calls: Record<string, ActivityCall> = {};
  const commands = new Map<string, string>();
  for (const e of events) {
    const p = (e.payload ?? {}) as Record<string, unknown>;
    const call = text(p['call']);
    if (!call) continue;
    if (e.type === 'call.extracted') commands.set(call, text(p['command']));
    if (e.type === 'call.received') calls[call] = { tool: text(p['tool']), agent: text(p['agent']), source: text(p['source']), client: text(p['client']) || undefined, command: '' };
  }
  for (const [call, command] of commands) if (calls[call]) calls[call].command = command;
  return calls;
}
