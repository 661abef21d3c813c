// The Activity view's data: the latest decisions read from the audit log (call.decided, and
// approval.requested for a call sent to the inbox), with what each call was: its tool, agent,
// source and command (from its call.received and call.extracted). Loaded and refreshed by
// sync/activity-actions.ts.
import { create } from 'zustand';
import type { AuditEventView } from '../../../shared/contract.ts';

/** How many of the newest events the view reads: decisions and the calls they decide, together. */
export const ACTIVITY_LIMIT = 1000;

/** What a decided call was, as its call.received and call.extracted recorded it. */
export interface ActivityCall {
  tool: string;
  agent: string;
  source: string;
  client?: string | undefined;
  /** The command the judge extracted (redacted as the audit log shows it); empty for a call that runs none. */
  command: string;
}

export interface ActivityStore {
  /** The decisions, newest first. */
  events: AuditEventView[];
  /** By call id: what each decided call was (absent when its events are older than what was read). */
  calls: Record<string, ActivityCall>;
  loaded: boolean;
  /** The last read's failure, as a sentence. */
  error: string | null;
}

export const initialActivityState: ActivityStore = { events: [], calls: {}, loaded: false, error: null };

export const useActivityStore = create<ActivityStore>()(() => ({ ...initialActivityState }));
