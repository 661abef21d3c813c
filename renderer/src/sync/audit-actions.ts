// The Audit domain: the chain (pushed as audit.chain) and the search the Audit view shows,
// loaded on connect and refreshed on audit.appended while the view is open (bindAudit); first
// page, next pages by the `before` cursor, new events on top; one event with its call, a
// session's timeline, the export and the shadow replay.
import type { AuditEventView } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import { AUDIT_PAGE_SIZE, AUDIT_TAIL_LIMIT, filterRequest, initialAuditState, searchRequest, useAuditStore, type AuditFilter, type SessionTimeline } from '../stores/audit-store.ts';
import { useSettingsStore } from '../stores/settings-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { HostCallError } from '../transport/transport-error.ts';
import { bindDomain, latest } from './bind-domain.ts';
import { hostAction } from './host-action.ts';
import { callAsJob, isCancelled, newJobId } from './jobs-actions.ts';

const get = useAuditStore.getState;
const set = useAuditStore.setState;

/** Appends come in bursts (one per committed batch); refresh the Audit view's newest rows at most this often. */
export const TAIL_REFRESH_MS = 250;

/** Each new search (or reconnect) begins here: pages of an older search that arrive late are dropped. */
const search = latest();

export function bindAudit(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    // The search results are only on screen in the Audit view: elsewhere a flood of events (a
    // terminal's transcript) must not become a search every 250 ms. Opening the view refreshes them.
    const tail = d.whileShown('audit', () => refreshHead(client), TAIL_REFRESH_MS);
    d.on('audit.chain', (chain) => set({ chain, chainError: null }));
    d.on('audit.appended', () => tail.request());
    // Secrets masked or raw (auditRaw), from this console's save or another's push: the events
    // loaded were sent the other way.
    d.add(
      useSettingsStore.subscribe((s, prev) => {
        if (s.settings && prev.settings && s.settings.auditRaw !== prev.settings.auditRaw) {
          tail.cancel();
          void reloadShownEvents(client);
        }
      }),
    );
    return {
      load: () => Promise.all([loadChainState(client), runSearch(client)]),
      reset: () => {
        search.supersede();
        set({ ...initialAuditState });
      },
    };
  });
}

export async function loadChainState(client: GatehouseClient): Promise<void> {
  try {
    const chain = await client.call('audit.chainState', {});
    set({ chain, chainError: null });
  } catch (err) {
    set({ chainError: errorMessage(err) });
  }
}

/** The newest events; what the view shows when the host cannot search. */
export async function loadTail(client: GatehouseClient): Promise<void> {
  try {
    const { events } = await client.call('audit.tail', { limit: AUDIT_TAIL_LIMIT });
    set({ events, eventsLoaded: true, tailError: null, total: events.length, totalCapped: false, nextBefore: null, tookMs: null });
  } catch (err) {
    set({ tailError: errorMessage(err) });
  }
}

/** Re-checks the whole chain on the host, as a job (progress, Cancel). The host also pushes the result as `audit.chain`. */
export async function verifyChain(client: GatehouseClient): Promise<void> {
  if (get().verifying) return;
  const job = newJobId('verify');
  set({ verifying: true, verifyJob: job, verifyError: null, verifyNote: null });
  try {
    const chain = await callAsJob(client, 'audit.verify', {}, job);
    set({ chain, chainError: null, verifying: false, verifyJob: null });
  } catch (err) {
    // A cancelled check leaves the chain state as it was; it says how far it got.
    if (isCancelled(err)) set({ verifying: false, verifyJob: null, verifyNote: errorMessage(err) });
    else set({ verifying: false, verifyJob: null, verifyError: errorMessage(err) });
  }
}

/** The host has no such query (an older build): `unavailable`, or an operation refused for that reason. */
const isUnavailable = (err: unknown) =>
  err instanceof HostCallError &&
  (err.code === 'unavailable' || (err.code === 'rejected' && (err.details as { reason?: unknown } | undefined)?.reason === 'unavailable'));

/** Applies a filter (or re-runs the current one) from the first page. */
export async function runSearch(client: GatehouseClient, patch: Partial<AuditFilter> = {}): Promise<void> {
  const req = search.begin();
  // Re-running the same search keeps the same filter object: views reset their fields and scroll only on a new one.
  const filter = Object.keys(patch).length ? { ...get().filter, ...patch } : get().filter;
  set({ filter, searching: true, searchError: null, exportResult: null, exportError: null, exportNote: null });
  try {
    const page = await client.call('audit.search', { ...searchRequest(filter), limit: AUDIT_PAGE_SIZE });
    if (!req.current()) return;
    set({ events: page.events, eventsLoaded: true, total: page.total, totalCapped: page.totalCapped, tookMs: page.tookMs, nextBefore: page.nextBefore, searching: false, searchUnavailable: null, tailError: null });
  } catch (err) {
    if (!req.current()) return;
    if (isUnavailable(err)) {
      set({ searching: false, searchUnavailable: errorMessage(err) });
      await loadTail(client);
      return;
    }
    // Bad FTS syntax and the like: the operator fixes the query; nothing stale stays listed.
    set({ searching: false, searchError: errorMessage(err), events: [], eventsLoaded: true, total: 0, totalCapped: false, nextBefore: null, tookMs: null });
  }
}

/** The next page, as the table scrolls near the end of what is loaded. */
export async function loadMore(client: GatehouseClient): Promise<void> {
  const s = get();
  if (s.searching || s.nextBefore === null || s.searchUnavailable) return;
  const req = search.follow();
  set({ searching: true });
  try {
    const page = await client.call('audit.search', { ...searchRequest(s.filter), before: s.nextBefore, limit: AUDIT_PAGE_SIZE });
    if (!req.current()) return;
    const last = get().events.at(-1)?.seq ?? Infinity;
    set({ events: [...get().events, ...page.events.filter((e) => e.seq < last)], nextBefore: page.nextBefore, searching: false, tookMs: page.tookMs });
  } catch (err) {
    if (!req.current()) return;
    set({ searching: false, searchError: errorMessage(err) });
  }
}

/** New events were appended: put the ones matching the filter on top, keeping what is loaded. */
export async function refreshHead(client: GatehouseClient): Promise<void> {
  const s = get();
  if (s.searchUnavailable) return loadTail(client);
  if (!s.eventsLoaded || s.searchError) return runSearch(client);
  if (s.searching) return;
  // The team's events are not ordered by this host's seq: the page is read again as a whole.
  if (s.filter.scope === 'team') return runSearch(client);
  const req = search.follow();
  try {
    const page = await client.call('audit.search', { ...searchRequest(s.filter), limit: AUDIT_PAGE_SIZE });
    if (!req.current()) return;
    const current = get().events;
    const top = current[0]?.seq ?? 0;
    const fresh = page.events.filter((e) => e.seq > top);
    // More new events than a page: the loaded pages no longer join up with them; start over.
    const gap = fresh.length === page.events.length && page.nextBefore !== null && current.length > 0;
    set(
      gap
        ? { events: page.events, nextBefore: page.nextBefore, total: page.total, totalCapped: page.totalCapped, tookMs: page.tookMs }
        : { events: fresh.length ? [...fresh, ...current] : current, total: page.total, totalCapped: page.totalCapped, tookMs: page.tookMs },
    );
  } catch (err) {
    if (isUnavailable(err)) return loadTail(client);
  }
}

/**
 * The host masks secrets unless auditRaw is on, when it sends events: what is loaded was sent the
 * other way. Loads the list, the open event and the open session's timeline again (nothing else
 * about them changes: the filter, the selection and the step stay).
 */
export async function reloadShownEvents(client: GatehouseClient): Promise<void> {
  const { selected, timeline } = get();
  const session = timeline && !timeline.loading ? timeline.session : null;
  await Promise.all([
    runSearch(client),
    // A team event came with its search (masked by the team search itself): nothing to read again.
    selected && selected.member === undefined ? openEvent(client, selected.seq) : null,
    session
      ? client.call('audit.session', { session }).then(
          ({ events, truncated }) => {
            if (get().timeline?.session === session) patchTimeline({ events, truncated });
          },
          () => {},
        )
      : null,
  ]);
}

/** Opens one event in the detail pane, with the other events of its call. */
export async function openEvent(client: GatehouseClient, seq: number): Promise<void> {
  const known = get().events.find((e) => e.seq === seq) ?? get().timeline?.events.find((e) => e.seq === seq) ?? null;
  set({ selected: { seq, event: known, related: [], loading: true, error: null } });
  try {
    const { event, related } = await client.call('audit.get', { seq });
    if (get().selected?.seq !== seq) return;
    set({ selected: { seq, event, related, loading: false, error: null } });
  } catch (err) {
    if (get().selected?.seq !== seq) return;
    set({ selected: { seq, event: known, related: [], loading: false, error: errorMessage(err) } });
  }
}

/**
 * Opens an event of the team scope in the detail pane: it came with the search, and its seq is its
 * member's, so nothing is read from this host's log (audit.get would answer with another event).
 */
export function openTeamEvent(event: AuditEventView): void {
  set({ selected: { seq: event.seq, ...(event.member !== undefined ? { member: event.member } : {}), event, related: [], loading: false, error: null } });
}

export function closeEvent(): void {
  set({ selected: null });
}

/** The session an event belongs to: its own payload, or its call's `call.received`. */
export function sessionOf(event: AuditEventView | null, related: readonly AuditEventView[] = []): string | null {
  for (const e of event ? [event, ...related] : related) {
    const p = e.payload as Record<string, unknown> | null;
    if (p && typeof p.session === 'string' && p.session) return p.session;
  }
  return null;
}

const patchTimeline = (patch: Partial<SessionTimeline>) => {
  const t = get().timeline;
  if (t) set({ timeline: { ...t, ...patch } });
};

/** Opens a session's timeline (the Audit view draws it as a waterfall of its calls). */
export async function openSession(client: GatehouseClient, session: string): Promise<void> {
  set({ timeline: { session, events: [], truncated: false, loading: true, error: null, replay: null } });
  try {
    const { events, truncated } = await client.call('audit.session', { session });
    if (get().timeline?.session !== session) return;
    patchTimeline({ events, truncated, loading: false });
  } catch (err) {
    if (get().timeline?.session !== session) return;
    patchTimeline({ loading: false, error: errorMessage(err) });
  }
}

export function closeSession(): void {
  set({ timeline: null });
}

/** Shadow mode: today's policy over the session's recorded calls. */
export async function replaySession(client: GatehouseClient): Promise<void> {
  const t = get().timeline;
  if (!t) return;
  const session = t.session;
  const job = newJobId('replay');
  patchTimeline({ replay: { loading: true, job, error: null, note: null, result: null } });
  try {
    const result = await callAsJob(client, 'audit.replay', { session }, job);
    if (get().timeline?.session === session) patchTimeline({ replay: { loading: false, job: null, error: null, note: null, result } });
  } catch (err) {
    if (get().timeline?.session !== session) return;
    const cancelled = isCancelled(err);
    patchTimeline({ replay: { loading: false, job: null, error: cancelled ? null : errorMessage(err), note: cancelled ? errorMessage(err) : null, result: null } });
  }
}

const pad = (n: number) => String(n).padStart(2, '0');
function exportName(now: Date): string {
  return `gatehouse-audit-${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}.jsonl`;
}

/** The current filter as redacted JSONL, saved as a file (a Blob and a download link; Electron saves it the same way). */
export async function exportFilter(client: GatehouseClient): Promise<void> {
  if (get().exporting) return;
  const job = newJobId('export');
  set({ exporting: true, exportJob: job, exportError: null, exportResult: null, exportNote: null });
  try {
    const { jsonl, count, truncated } = await callAsJob(client, 'audit.export', filterRequest(get().filter), job);
    const file = exportName(new Date());
    const url = URL.createObjectURL(new Blob([jsonl], { type: 'application/x-ndjson' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = file;
    a.rel = 'noopener';
    document.body.appendChild(a);
    a.click();
    a.remove();
    // The download has its own reference once started; the object URL is no longer needed.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    set({ exporting: false, exportJob: null, exportResult: { count, truncated, file } });
  } catch (err) {
    if (isCancelled(err)) set({ exporting: false, exportJob: null, exportNote: errorMessage(err) });
    else set({ exporting: false, exportJob: null, exportError: errorMessage(err) });
  }
}

// Reads for panels outside the Audit view's own state (an expanded row, the approvals' hook outcomes).
export const getAuditEvent = hostAction('audit.get');
export const searchAudit = hostAction('audit.search');
