// What the Health view does with the host: load every plugin's health, reset a breaker, restart
// a checker. Every failure lands in the store as a sentence.
import type { HealthRowView } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import { useHealthStore, type HealthAction } from '../stores/health-store.ts';
import type { GatehouseClient } from '../transport/client.ts';

const get = useHealthStore.getState;
const set = useHealthStore.setState;

/** Bumped by every load and every action answer: an older answer never overwrites a newer one. */
let generation = 0;

export async function loadHealth(client: GatehouseClient): Promise<void> {
  const mine = ++generation;
  try {
    const sent = Date.now();
    const { plugins, now, sandbox } = await client.call('health.list', {});
    const received = Date.now();
    if (mine !== generation) return;
    // The host read its clock somewhere between sending and receiving: take the midpoint, so
    // the countdown is off by at most half a round trip whatever the two clocks say.
    const clockOffset = Math.round((sent + received) / 2 - now);
    set({ rows: plugins, sandbox, clockOffset, loaded: true, listError: null });
  } catch (err) {
    if (mine === generation) set({ listError: errorMessage(err) });
  }
}

/** Reset (close the breaker, clear its counters) or restart (a checker's processes). */
export async function runHealthAction(client: GatehouseClient, action: HealthAction, name: string): Promise<void> {
  if (get().busy) return;
  set({ busy: { name, action }, actionError: null });
  try {
    const row: HealthRowView = action === 'reset' ? await client.call('health.reset', { name }) : await client.call('health.restart', { name });
    // The host also pushes health.changed; show the answer now so the row never lags the click,
    // and drop any list that was asked for before the action.
    generation++;
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
