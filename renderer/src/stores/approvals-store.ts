// The approval inbox: every item the host holds (pending, decided, expired), one queue across
// all agents and sessions. Refetched on `approvals.changed`; never polled. Decisions are in
// sync/approvals-actions.ts.
import { create } from 'zustand';
import type { ApprovalItemView } from '../../../shared/contract.ts';

export type ApprovalState = ApprovalItemView['state'];

export interface ApprovalFilter {
  agent: string;
  tool: string;
  text: string;
}

/** One item's answer in a batch decision. */
export interface BatchOutcome {
  id: string;
  tool: string;
  agent: string;
  ok: boolean;
  /** The new state, or the host's sentence for why this item was refused. */
  message: string;
}

export interface ApprovalsStore {
  /** Everything approvals.list returned, in request order. */
  items: ApprovalItemView[];
  /** Pending items (also pushed with every approvals.changed, so the badge never waits for a refetch). */
  pendingCount: number;
  loaded: boolean;
  listError: string | null;
  /** Local clock minus host clock at the last list (see health-store): countdowns use host time. */
  clockOffset: number;
  filter: ApprovalFilter;
  /** The highlighted pending item (keyboard cursor). */
  cursor: string | null;
  /** Items whose details are open (Enter). */
  expanded: string[];
  /** A decision in flight, by item id ('batch' for a batch). */
  busy: string | null;
  /** The last decision that failed, shown above the list. */
  actionError: string | null;
  /** The last batch's per-item answers. */
  batch: { action: 'approve' | 'deny'; results: BatchOutcome[] } | null;
  /** The list grouped by session (sessions in the order of their riskiest call). */
  groupBySession: boolean;
  /** Rows picked for a bulk decision (Ctrl/Shift-click, x), by their fold key (lib/fold-calls.ts). */
  selected: string[];
}

export const initialApprovalsState: ApprovalsStore = {
  items: [],
  pendingCount: 0,
  loaded: false,
  listError: null,
  clockOffset: 0,
  filter: { agent: '', tool: '', text: '' },
  cursor: null,
  expanded: [],
  busy: null,
  actionError: null,
  batch: null,
  groupBySession: false,
  selected: [],
};

export const useApprovalsStore = create<ApprovalsStore>()(() => ({ ...initialApprovalsState }));

export function pendingItems(items: readonly ApprovalItemView[]): ApprovalItemView[] {
  return items.filter((i) => i.state === 'pending');
}

/** Decided and expired items, most recently settled first. */
export function historyItems(items: readonly ApprovalItemView[]): ApprovalItemView[] {
  return items.filter((i) => i.state !== 'pending').sort((a, b) => settledAt(b) - settledAt(a));
}

function settledAt(i: ApprovalItemView): number {
  return i.decidedAt ?? i.expiresAt;
}

/** Pending items as the filter leaves them, oldest first (the one expiring soonest on top). */
export function filterPending(items: readonly ApprovalItemView[], f: ApprovalFilter): ApprovalItemView[] {
  const q = f.text.trim().toLowerCase();
  return pendingItems(items).filter((i) => {
    if (f.agent && i.call.agent !== f.agent) return false;
    if (f.tool && i.call.tool !== f.tool) return false;
    if (!q) return true;
    const hay = [i.call.agent, i.call.session, i.call.tool, i.reason, JSON.stringify(i.call.arguments ?? {}), ...i.extraction.paths, ...i.extraction.hosts, i.extraction.command];
    return hay.some((s) => s.toLowerCase().includes(q));
  });
}

export function isFiltered(f: ApprovalFilter): boolean {
  return f.agent !== '' || f.tool !== '' || f.text.trim() !== '';
}
