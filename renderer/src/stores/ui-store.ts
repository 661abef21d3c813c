// Which view is on screen. Kept in memory only: in the serve shell the URL fragment carries
// the operator token, so the view must not be written to location.hash.
import { create } from 'zustand';

export const viewIds = ['start', 'approvals', 'grants', 'plugins', 'health', 'terminals', 'audit', 'rules', 'settings', 'activity'] as const;
export type ViewId = (typeof viewIds)[number];

export interface UiStore {
  view: ViewId;
  /** A keyboard shortcut switched views: the view's heading takes focus once, then clears this. */
  focusPending: boolean;
  /** A section of the view to scroll to once it shows (e.g. settings' "connect-agent"), then cleared. */
  anchor: string | null;
  setView(view: ViewId, opts?: { focus?: boolean; anchor?: string }): void;
  focusDone(): void;
  anchorDone(): void;
}

export const useUiStore = create<UiStore>()((set) => ({
  view: 'approvals',
  focusPending: false,
  anchor: null,
  setView: (view, opts) => set({ view, focusPending: opts?.focus ?? false, anchor: opts?.anchor ?? null }),
  focusDone: () => set({ focusPending: false }),
  anchorDone: () => set({ anchor: null }),
}));
