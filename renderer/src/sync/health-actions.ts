// The Health domain: every plugin's health, loaded on connect and refreshed on the host's
// events (bindHealth), and what the Health view does with it (reset a breaker, restart a
// checker). Every failure lands in the store as a sentence.
import type { HealthRowView } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import { initialHealthState, useHealthStore, type HealthAction } from '../stores/health-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { bindDomain, latest } from './bind-domain.ts';

const get = useHealthStore.getState;
const set = useHealthStore.setState;

/** A failing plugin changes its breaker and metrics on every call: refetch health at most this often. */
export const HEALTH_REFRESH_MS = 250;

/** The list answer to keep: an older load never overwrites a newer load or an action's answer. */
const list = latest();

export function bindHealth(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    const refresh = d.refresher(() => loadHealth(client), HEALTH_REFRESH_MS);
    d.on('health.changed', () => refresh.request());
    // Health has a row per plugin and shows its status: a new, removed or re-enabled plugin changes it.
    d.on('plugins.changed', () => refresh.request());
    return {
      load: () => loadHealth(client),
      reset: () => {
        list.supersede();
        set({ ...initialHealthState });
      },
    };
  });
}

export async function loadHealth(client: GatehouseClient): Promise<void> {
  const req = list.begin();
  try {
    const sent = Date.now();
    const { plugins, now, sandbox } = await client.call('health.list', {});
    const received = Date.now();
    if (!req.current()) return;
    // The host read its clock somewhere between sending and receiving: take the midpoint, so
    // the countdown is off by at most half a round trip whatever the two clocks say.
    const clockOffset = Math.round((sent + received) / 2 - now);
    set({ rows: plugins, sandbox, clockOffset, loaded: true, listError: null });
  } catch (err) {
    if (req.current()) set({ listError: errorMessage(err) });
  }
}

/** Reset (close the breaker, clear its counters) or restart (a checker's processes). */
export async function runHealthAction(client: GatehouseClient, action: HealthAction, name: string): Promise<void> {
  if (get().busy) return;
  set({ busy: { name, action }, actionError: null });
  const sent = list.sent();
  try {
    const row: HealthRowView = action === 'reset' ? await client.call('health.reset', { name }) : await client.call('health.restart', { name });
    // The host also pushes health.changed; show the answer now so the row never lags the click,
    // and drop any list that was asked for before the action (one asked for since still lands).
    sent.answered();
    set((s) => ({
      busy: null,
      rows: s.rows.map((r) => (r.name === row.name ? row : r)),
    }));
  } catch (err) {
    set({
      busy: null,
      actionError: { name, action, message: errorMessage(err) },
    });
  }
}
