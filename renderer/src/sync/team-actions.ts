// The Team domain: this host's link (team.status on connect, then each team.link push) for the
// status bar, and the members the Team view lists (team.members), read again when the link moves
// while the view is open, or on Refresh. Failures land in the store as a sentence.
import { errorMessage } from '../lib/error-message.ts';
import { initialTeamState, useTeamStore } from '../stores/team-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { bindDomain, latest } from './bind-domain.ts';

const set = useTeamStore.setState;

/** The link moves with every shipped batch: the members are read again at most this often. */
export const TEAM_REFRESH_MS = 1_000;

const status = latest();
const members = latest();

export function bindTeam(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    const refresh = d.whileShown('team', () => loadTeamMembers(client), TEAM_REFRESH_MS);
    d.on('team.link', (link) => {
      // The push carries the whole link: an answer asked for before it must not overwrite it.
      status.supersede();
      set({ link });
      refresh.request();
    });
    return {
      load: () => Promise.all([loadTeamStatus(client), loadTeamMembers(client)]),
      reset: () => {
        status.supersede();
        members.supersede();
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
