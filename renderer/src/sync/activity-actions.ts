// The Activity domain: the newest decisions, read from the audit log on connect and again on
// audit.appended while the Activity view is open (bindActivity).
import { errorMessage } from '../lib/error-message.ts';
import { ACTIVITY_LIMIT, initialActivityState, useActivityStore } from '../stores/activity-store.ts';
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
    const { events } = await client.call('audit.search', { query: '', types: ['call.decided', 'approval.requested'], limit: ACTIVITY_LIMIT });
    if (req.current()) set({ events, loaded: true, error: null });
  } catch (err) {
    if (req.current()) set({ error: errorMessage(err) });
  }
}
