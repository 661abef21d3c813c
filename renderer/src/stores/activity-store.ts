// The Activity view's data: the latest decisions read from the audit log (call.decided, and
// approval.requested for a call sent to the inbox). Loaded and refreshed by sync/activity-actions.ts.
import { create } from 'zustand';
import type { AuditEventView } from '../../../shared/contract.ts';

/** How many of the newest decisions the view reads. */
export const ACTIVITY_LIMIT = 300;

export interface ActivityStore {
  /** Newest first. */
  events: AuditEventView[];
  loaded: boolean;
  /** The last read's failure, as a sentence. */
  error: string | null;
}

export const initialActivityState: ActivityStore = { events: [], loaded: false, error: null };

export const useActivityStore = create<ActivityStore>()(() => ({ ...initialActivityState }));
