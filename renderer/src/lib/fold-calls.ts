// Identical waiting calls, folded into one row of the inbox: fifteen copies of the same
// `git push --force` are one decision, not fifteen rows. Identical means the same agent, tool,
// working folder and arguments (the host's argsHash: the SHA-256 of their canonical JSON, so key
// order and spacing do not matter); the working folder counts because `rm -rf build` in two
// projects deletes two folders. Sessions may differ: the row says how many. Grouped by session,
// only calls of one session fold. Deciding a folded row decides each of its calls on its own
// (approvals.batch: each checked against its own hash and recorded on its own).
import type { ApprovalItemView } from '../../../shared/contract.ts';

export interface FoldedCalls {
  /** Stable while the group lives: agent, tool, folder, argsHash (and session when grouped). */
  key: string;
  /** The first call in list order: the one the row and the detail pane show. */
  lead: ApprovalItemView;
  /** Every call in the group, in list order (lead first). */
  items: ApprovalItemView[];
  /** How many distinct sessions the calls came from. */
  sessions: number;
}

export function foldKey(item: ApprovalItemView, bySession: boolean): string {
  const c = item.call;
  return JSON.stringify([c.agent, c.tool, c.cwd, item.argsHash, bySession ? c.session : null]);
}

/** Folds identical calls, keeping the order of `sorted` (each group where its first call was). */
export function foldIdentical(sorted: readonly ApprovalItemView[], bySession: boolean): FoldedCalls[] {
  const groups = new Map<string, FoldedCalls>();
  for (const item of sorted) {
    const key = foldKey(item, bySession);
    const g = groups.get(key);
    if (g) g.items.push(item);
    else groups.set(key, { key, lead: item, items: [item], sessions: 0 });
  }
  for (const g of groups.values()) g.sessions = new Set(g.items.map((i) => i.call.session)).size;
  return [...groups.values()];
}
