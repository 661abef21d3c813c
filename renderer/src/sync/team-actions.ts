// The Team domain: this host's link (team.status on connect, then each team.link push) for the
// status bar, the members the Team view lists (team.members), read again when the link moves
// while the view is open, or on Refresh, and the inbox's other machines (team.asks on each
// team.asksChanged) with their decisions. Failures land in the store as a sentence.
import type { TeamAskView } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import { askKey, initialTeamState, useTeamStore } from '../stores/team-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { bindDomain, latest } from './bind-domain.ts';

const set = useTeamStore.setState;

/** The link moves with every shipped batch: the members are read again at most this often. */
export const TEAM_REFRESH_MS = 1_000;

const status = latest();
const members = latest();
const asks = latest();

/** Asks change in bursts (an ask published, then closed once decided): refetch at most this often. */
export const ASKS_REFRESH_MS = 50;

export function bindTeam(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    const refresh = d.whileShown('team', () => loadTeamMembers(client), TEAM_REFRESH_MS);
    d.on('team.link', (link) => {
      // The push carries the whole link: an answer asked for before it must not overwrite it.
      status.supersede();
      set({ link });
      refresh.request();
    });
    const asksRefresh = d.refresher(() => loadTeamAsks(client), ASKS_REFRESH_MS);
    d.on('team.asksChanged', () => asksRefresh.request());
    return {
      load: () => Promise.all([loadTeamStatus(client), loadTeamMembers(client), loadTeamAsks(client)]),
      reset: () => {
        status.supersede();
        members.supersede();
        asks.supersede();
        set({ ...initialTeamState });
      },
    };
  });
}

export async function loadTeamStatus(client: GatehouseClient): Promise<void> {
  const req = status.begin();
  try {
    const link = await client.call('team.status', {});
    if (req.current()) set({ link });
  } catch {
    // An older host without team.status: nothing to show in the status bar.
    if (req.current()) set({ link: null });
  }
}

export async function loadTeamMembers(client: GatehouseClient): Promise<void> {
  const req = members.begin();
  set({ loading: true });
  try {
    const answer = await client.call('team.members', {});
    if (!req.current()) return;
    set({ members: answer, readAt: Date.now(), loading: false, error: null });
  } catch (err) {
    if (req.current()) set({ loading: false, error: errorMessage(err) });
  }
}

export async function loadTeamAsks(client: GatehouseClient): Promise<void> {
  const req = asks.begin();
  try {
    const sent = Date.now();
    const answer = await client.call('team.asks', {});
    if (!req.current()) return;
    // The host read its clock between sending and receiving: the midpoint, as the inbox does.
    const offset = Math.round((sent + Date.now()) / 2 - answer.now);
    set({ asks: answer.asks, asksError: answer.error, asksClockOffset: offset });
  } catch (err) {
    if (req.current()) set({ asksError: errorMessage(err) });
  }
}

/**
 * Decides another member's ask, signed on the host with its operator key; bound to the arguments
 * hash of the ask on screen. The list follows the host's team.asksChanged push.
 */
export async function decideTeamAsk(client: GatehouseClient, ask: TeamAskView, decision: 'approved' | 'denied', reason?: string): Promise<boolean> {
  const key = askKey(ask);
  set({ deciding: key, decided: null });
  try {
    const r = await client.call('team.decide', { member: ask.member, approvalId: ask.approvalId, argsHash: ask.argsHash, decision, ...(reason !== undefined ? { reason } : {}) });
    set({ deciding: null, decided: { key, ok: r.outcome === 'stored', message: r.message } });
    return r.outcome === 'stored';
  } catch (err) {
    set({ deciding: null, decided: { key, ok: false, message: errorMessage(err) } });
    return false;
  }
}
