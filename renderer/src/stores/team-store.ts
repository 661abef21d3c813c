// Team mode as this console sees it: the host's link (loaded with team.status, then pushed as
// team.link) for the status bar, the Team view's members (team.members), and the inbox's other
// machines (team.asks, refetched on team.asksChanged) with the machine filter.
import { create } from 'zustand';
import type { ResponseOf, TeamAskView, TeamLinkView } from '../../../shared/contract.ts';

export type TeamView = ResponseOf<'team.members'>['team'];

export interface TeamStore {
  /** This host's link; null: not in team mode (or not loaded yet). */
  link: TeamLinkView | null;
  /** The Team view's answer: null inside `members` means the host is not in team mode. */
  members: { team: TeamView } | null;
  /** When the members were read (local clock), for "last seen" ages. */
  readAt: number;
  loading: boolean;
  error: string | null;
  /** Other members' pending team asks; null: not in team mode (or not loaded yet). */
  asks: TeamAskView[] | null;
  asksError: string | null;
  /** Local clock minus host clock at the last asks read: deadlines are in host time. */
  asksClockOffset: number;
  /** The inbox's machine filter: '' every machine, else one member's name (this host's own included). */
  machine: string;
  /** A team decision in flight, by askKey. */
  deciding: string | null;
  /** The last team decision's answer (stored, or why not), by askKey. */
  decided: { key: string; ok: boolean; message: string } | null;
}

export const initialTeamState: TeamStore = { link: null, members: null, readAt: 0, loading: false, error: null, asks: null, asksError: null, asksClockOffset: 0, machine: '', deciding: null, decided: null };

/** An ask's key: approval ids are each member's own. */
export const askKey = (a: Pick<TeamAskView, 'member' | 'approvalId'>) => `${a.member}/${a.approvalId}`;

/** How the inbox names the machine of this host's own items: its member name in team mode. */
export function thisMachine(link: TeamLinkView | null): string {
  return link?.member ?? 'this machine';
}

export const useTeamStore = create<TeamStore>()(() => ({ ...initialTeamState }));

/** A reason cut for the status bar; the whole of it is in the item's title and the Team view. */
function short(reason: string): string {
  return reason.length > 60 ? `${reason.slice(0, 59)}…` : reason;
}

/** The status bar's sentence for the link (null: nothing to show, the host is not in team mode). */
export function linkSentence(link: TeamLinkView | null): string | null {
  if (!link) return null;
  switch (link.link) {
    case 'connecting':
      return `Team: connecting as ${link.member}…`;
    case 'up':
      return link.lag === 0 ? `Team: up as ${link.member}, shipped` : `Team: up as ${link.member}, ${link.lag} ${link.lag === 1 ? 'event' : 'events'} to ship`;
    case 'down':
      return `Team link down (${short(link.lastError ?? 'no reason given')}): ${link.lag} ${link.lag === 1 ? 'event waits' : 'events wait'} locally`;
    case 'forked':
      return 'Team link stopped: fork';
    case 'closed':
      return 'Team link closed';
  }
}

/** How far behind a link is, as a phrase: events and the age of the oldest one waiting. */
export function lagText(link: Pick<TeamLinkView, 'lag' | 'lagMs'>): string {
  if (link.lag === 0) return 'none: every event is shipped';
  const age = link.lagMs >= 1000 ? `, oldest ${Math.round(link.lagMs / 1000)} s ago` : '';
  return `${link.lag} ${link.lag === 1 ? 'event' : 'events'}${age}`;
}
