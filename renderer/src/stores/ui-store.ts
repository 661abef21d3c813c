// Which view is on screen. Kept in memory only: in the serve shell the URL fragment carries
// the operator token, so the view must not be written to location.hash.
import { create } from 'zustand';

/**
 * The views are listed once, in views/view-registry.ts, which adds its ids here by declaration
 * merging. This store (and the sync/ code the unit tests load under Node) then need not import
 * the views and their components. In a program without the registry (those tests) any string is
 * a view id; the console's own type-check always has the registry, so a mistyped id fails there.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the registry
export interface RegisteredViews {}
export type ViewId = keyof RegisteredViews extends never ? string : keyof RegisteredViews & string;

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
