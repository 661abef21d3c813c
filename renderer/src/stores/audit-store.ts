// The audit chain's state (pushed by the host as `audit.chain`), the search the Audit view shows
// (filter, loaded pages, totals), the open event and the open session timeline.
import { create } from 'zustand';
import type { AuditEventView, ChainState, ResponseOf } from '../../../shared/contract.ts';

/** How many recent events the Audit view shows when the host cannot search. */
export const AUDIT_TAIL_LIMIT = 100;
/** Rows per `audit.search` page. */
export const AUDIT_PAGE_SIZE = 200;

export type TimePreset = '15m' | '1h' | '24h' | '7d' | 'all' | 'custom';
export const timePresets: readonly { id: TimePreset; label: string; ms: number | null }[] = [
  { id: '15m', label: 'Last 15 min', ms: 15 * 60_000 },
  { id: '1h', label: 'Last hour', ms: 60 * 60_000 },
  { id: '24h', label: 'Last 24 h', ms: 24 * 60 * 60_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 24 * 60 * 60_000 },
  { id: 'all', label: 'All time', ms: null },
  { id: 'custom', label: 'Custom…', ms: null },
];

export interface AuditFilter {
  query: string;
  time: TimePreset;
  /** Custom range, epoch ms; null: open. */
  customFrom: number | null;
  customTo: number | null;
  agent: string;
  session: string;
  plugin: string;
  decision: string;
  /** A rule's severity (critical, high, warning, info), or '' for any. */
  severity: string;
  /** One event type, or '' for any. */
  type: string;
  /** This host's own log, or (team mode) every member's events in the team database. */
  scope: 'local' | 'team';
  /** Team scope: one member, or '' for every member. */
  member: string;
}

export const emptyFilter: AuditFilter = { query: '', time: 'all', customFrom: null, customTo: null, agent: '', session: '', plugin: '', decision: '', severity: '', type: '', scope: 'local', member: '' };

export interface EventDetail {
  seq: number;
  /** A team event's member (its seq is that member's); absent for this host's own events. */
  member?: string;
  event: AuditEventView | null;
  related: AuditEventView[];
  loading: boolean;
  error: string | null;
}

export interface SessionTimeline {
  session: string;
  events: AuditEventView[];
  truncated: boolean;
  loading: boolean;
  error: string | null;
  replay: { loading: boolean; job: string | null; error: string | null; note: string | null; result: ResponseOf<'audit.replay'> | null } | null;
}

export interface AuditStore {
  chain: ChainState | null;
  chainError: string | null;
  /** An operator-requested verification is in flight. */
  verifying: boolean;
  /** Its job, for progress and Cancel. */
  verifyJob: string | null;
  verifyError: string | null;
  /** How far a cancelled verification got. */
  verifyNote: string | null;

  /** The filter being edited (applied on submit, facets at once). */
  filter: AuditFilter;
  /** Newest first: the loaded pages of the current search (or the tail, when the host cannot search). */
  events: AuditEventView[];
  eventsLoaded: boolean;
  total: number;
  totalCapped: boolean;
  tookMs: number | null;
  nextBefore: number | null;
  /** A page (first or next) is in flight. */
  searching: boolean;
  /** The host refused the search (bad FTS syntax…): shown under the search box. */
  searchError: string | null;
  /** The host has no search: the view shows the tail instead. */
  searchUnavailable: string | null;
  tailError: string | null;

  selected: EventDetail | null;
  timeline: SessionTimeline | null;
  exporting: boolean;
  exportJob: string | null;
  exportResult: { count: number; truncated: boolean; file: string } | null;
  exportError: string | null;
  /** How far a cancelled export got (nothing was saved). */
  exportNote: string | null;
}

export const initialAuditState: AuditStore = {
  chain: null,
  chainError: null,
  verifying: false,
  verifyJob: null,
  verifyError: null,
  verifyNote: null,
  filter: emptyFilter,
  events: [],
  eventsLoaded: false,
  total: 0,
  totalCapped: false,
  tookMs: null,
  nextBefore: null,
  searching: false,
  searchError: null,
  searchUnavailable: null,
  tailError: null,
  selected: null,
  timeline: null,
  exporting: false,
  exportJob: null,
  exportResult: null,
  exportError: null,
  exportNote: null,
};

export const useAuditStore = create<AuditStore>()(() => ({ ...initialAuditState }));

export type ChainStatus = 'verified' | 'broken' | 'checking' | 'unknown';

/** The status bar's one-word reading of the chain. */
export function chainStatus(s: Pick<AuditStore, 'chain' | 'verifying'>): ChainStatus {
  if (s.chain?.writeError) return 'broken';
  if (s.verifying) return 'checking';
  return s.chain?.state ?? 'unknown';
}

/** The status bar's sentence for the chain. */
export function chainSentence(s: Pick<AuditStore, 'chain' | 'verifying'>): string {
  // A log that cannot be written (a full disk) outranks the chain: every call is denied meanwhile.
  if (s.chain?.writeError) return 'Audit log cannot be written: every call is denied';
  const status = chainStatus(s);
  switch (status) {
    case 'checking':
      return 'Checking audit chain…';
    case 'unknown':
      return 'Audit chain not checked yet';
    case 'verified': {
      const n = s.chain?.checked ?? 0;
      return `Audit chain verified (${n} ${n === 1 ? 'event' : 'events'})`;
    }
    case 'broken':
      return s.chain?.firstBad ? `Audit chain broken at row ${s.chain.firstBad.seq}` : 'Audit chain broken';
  }
}

/** The filter as the host's search request: the export's fields, and the scope with its member facet. */
export function searchRequest(f: AuditFilter, now = Date.now()) {
  const req: ReturnType<typeof filterRequest> & { scope?: 'team'; member?: string } = filterRequest(f, now);
  if (f.scope !== 'team') return req;
  req.scope = 'team';
  if (f.member.trim()) req.member = f.member.trim();
  return req;
}

/** Whether `e` is the event open in the detail pane (a team event is its member's seq). */
export function isSelected(e: AuditEventView, selected: Pick<EventDetail, 'seq' | 'member'> | null): boolean {
  return selected !== null && e.seq === selected.seq && e.member === selected.member;
}

/** The filter as the host's search/export request fields (time presets resolved against `now`). */
export function filterRequest(f: AuditFilter, now = Date.now()) {
  const req: { query: string; from?: number; to?: number; agent?: string; session?: string; plugin?: string; decision?: string; severity?: string; types?: string[] } = { query: f.query.trim() };
  const preset = timePresets.find((p) => p.id === f.time);
  if (preset?.ms) req.from = now - preset.ms;
  if (f.time === 'custom') {
    if (f.customFrom !== null) req.from = f.customFrom;
    if (f.customTo !== null) req.to = f.customTo;
  }
  if (f.agent.trim()) req.agent = f.agent.trim();
  if (f.session.trim()) req.session = f.session.trim();
  if (f.plugin.trim()) req.plugin = f.plugin.trim();
  if (f.decision) req.decision = f.decision;
  if (f.severity) req.severity = f.severity;
  if (f.type) req.types = [f.type];
  return req;
}
