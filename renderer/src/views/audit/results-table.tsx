// The search results as a virtualized table: a fixed row height, only the rows in view (plus a
// few either side) in the DOM, the next page fetched by the `before` cursor as the end of what is
// loaded comes into view. A million matching events cost the DOM the same ~40 rows as ten.
// Grouped by call, a call's matching events fold under one row that carries the call's outcome
// (read from its own events, fetched with audit.get when the search matched none that decide it).
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { create } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { AuditEventView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { agentTool, decisionOf, summarize } from '../../lib/audit-summary.ts';
import { callOutcome, eventCall, type CallOutcome } from '../../lib/call-waterfall.ts';
import { formatDateTime, formatEventTime, isoTime } from '../../lib/format.ts';
import { isSelected, useAuditStore } from '../../stores/audit-store.ts';
import { loadMore, openEvent, openTeamEvent, getAuditEvent } from '../../sync/audit-actions.ts';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';

/** Must match .audit-row's height in audit.css. */
export const ROW_HEIGHT = 28;
const OVERSCAN = 10;
/** Fetch the next page when the view is this many rows from the end of what is loaded. */
const PREFETCH_ROWS = 60;

const GROUP_KEY = 'gatehouse.audit.groupByCall';

/** Whether results fold under their calls; remembered by this console. */
export const useAuditGrouping = create<{ byCall: boolean; set(byCall: boolean): void }>()((set) => ({
  byCall: (() => {
    try {
      return localStorage.getItem(GROUP_KEY) === 'true';
    } catch {
      return false;
    }
  })(),
  set: (byCall) => {
    try {
      localStorage.setItem(GROUP_KEY, String(byCall));
    } catch {
      // A console without storage still groups; it just forgets on reload.
    }
    set({ byCall });
  },
}));

type Item =
  | { kind: 'event'; key: string; e: AuditEventView; member: boolean }
  | { kind: 'group'; key: string; call: string; events: AuditEventView[]; expanded: boolean };

/** A row's key: a team event's seq is its member's, so the member is part of it. */
const eventKey = (e: AuditEventView) => (e.member === undefined ? `e:${e.seq}` : `e:${e.member}:${e.seq}`);

/** The rows to draw: events as they are, or each call's events folded under one group row at its newest. */
function buildItems(events: readonly AuditEventView[], grouped: boolean, expanded: ReadonlySet<string>): Item[] {
  if (!grouped) return events.map((e) => ({ kind: 'event', key: eventKey(e), e, member: false }));
  const byCall = new Map<string, AuditEventView[]>();
  for (const e of events) {
    const c = eventCall(e);
    if (c === null) continue;
    const list = byCall.get(c);
    if (list) list.push(e);
    else byCall.set(c, [e]);
  }
  const out: Item[] = [];
  const placed = new Set<string>();
  for (const e of events) {
    const c = eventCall(e);
    if (c === null) {
      out.push({ kind: 'event', key: `e:${e.seq}`, e, member: false });
      continue;
    }
    if (placed.has(c)) continue;
    placed.add(c);
    const members = byCall.get(c)!;
    const open = expanded.has(c);
    out.push({ kind: 'group', key: `g:${c}`, call: c, events: members, expanded: open });
    if (open) for (const m of members) out.push({ kind: 'event', key: `e:${m.seq}`, e: m, member: true });
  }
  return out;
}

/** Events that settle what became of a call: with one loaded, the group's outcome needs no fetch. */
const SETTLING = new Set(['call.result', 'call.outcome', 'call.abandoned', 'approval.withdrawn', 'approval.expired']);
const settles = (events: readonly AuditEventView[]) => events.some((e) => SETTLING.has(e.type) || (e.type === 'call.decided' && (e.payload as { decision?: unknown } | null)?.decision !== 'ask'));

/** The columns, each with its class: with an event open, CSS leaves out actor and agent (audit.css). */
const HEADERS = [
  ['time', 'Time'],
  ['type', 'Type'],
  ['actor', 'Actor'],
  ['agent', 'Agent · tool'],
  ['decision', 'Decision'],
  ['summary', 'Summary'],
] as const;

export function ResultsTable() {
  const client = useClient();
  const { events, filter, nextBefore, searching, selectedSeq, selectedMember } = useAuditStore(
    useShallow((s) => ({ events: s.events, filter: s.filter, nextBefore: s.nextBefore, searching: s.searching, selectedSeq: s.selected?.seq ?? null, selectedMember: s.selected?.member })),
  );
  const team = filter.scope === 'team';
  // A team search's calls are other machines': their events cannot be fetched from this host's log to fold them.
  const grouped = useAuditGrouping((s) => s.byCall) && !team;
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const items = useMemo(() => buildItems(events, grouped, expanded), [events, grouped, expanded]);
  const callEvents = useCallEvents();
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(400);
  const topSeq = useRef<number | null>(null);
  const lastFilter = useRef(filter);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    setHeight(el.clientHeight);
    return () => ro.disconnect();
  }, []);

  // A new search starts at the top; new events put on top keep the rows the operator is reading in place.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && lastFilter.current !== filter) {
      lastFilter.current = filter;
      el.scrollTop = 0;
      setScrollTop(0);
    } else if (el && el.scrollTop > 0 && topSeq.current !== null) {
      const moved = events.findIndex((e) => e.seq === topSeq.current);
      if (moved > 0) {
        el.scrollTop += moved * ROW_HEIGHT;
        setScrollTop(el.scrollTop);
      }
    }
    topSeq.current = events[0]?.seq ?? null;
  }, [events, filter]);

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);

  useEffect(() => {
    if (nextBefore !== null && !searching && last >= items.length - PREFETCH_ROWS) void loadMore(client);
  }, [client, last, items.length, nextBefore, searching]);

  // The groups on screen whose loaded events do not say how their call ended: fetch the call.
  const shownGroups = items.slice(first, last).filter((it): it is Extract<Item, { kind: 'group' }> => it.kind === 'group' && !settles(it.events));
  useEffect(() => {
    for (const g of shownGroups) callEvents.want(client, g.call, g.events[0]!.seq);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the joined call ids stand for `shownGroups`, a new array on every render
  }, [client, shownGroups.map((g) => g.call).join('\n')]);

  // The row the keyboard is on: the one picked here while it still matches the open event, else the open event's row.
  const activeIndex = useMemo(() => {
    const selected = selectedSeq === null ? null : { seq: selectedSeq, member: selectedMember };
    const byKey = activeKey === null ? -1 : items.findIndex((it) => it.key === activeKey);
    const it = items[byKey];
    if (it && (it.kind === 'group' ? it.events.some((e) => isSelected(e, selected)) : isSelected(it.e, selected))) return byKey;
    return selected === null ? -1 : items.findIndex((x) => x.kind === 'event' && isSelected(x.e, selected));
  }, [items, activeKey, selectedSeq, selectedMember]);

  const toggle = useCallback((call: string, open?: boolean) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (open ?? !next.has(call)) next.add(call);
      else next.delete(call);
      return next;
    });
  }, []);

  const select = useCallback(
    (index: number) => {
      const it = items[index];
      if (!it) return;
      setActiveKey(it.key);
      // A group opens its call's newest matching event in the detail pane; a team event opens as the search sent it.
      if (it.kind === 'event' && it.e.member !== undefined) openTeamEvent(it.e);
      else void openEvent(client, it.kind === 'group' ? it.events[0]!.seq : it.e.seq);
      const el = scroller.current;
      if (!el) return;
      const top = index * ROW_HEIGHT;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
    },
    [client, items],
  );

  const onKeyDown = (ev: KeyboardEvent<HTMLDivElement>) => {
    const at = activeIndex;
    const cur = items[at];
    // Grouped: right opens the call under the keyboard, left folds it (from one of its events too).
    if (grouped && (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft' || ev.key === 'Enter')) {
      if (!cur) return;
      ev.preventDefault();
      if (cur.kind === 'group') toggle(cur.call, ev.key === 'Enter' ? undefined : ev.key === 'ArrowRight');
      else if (cur.member && ev.key === 'ArrowLeft') {
        const call = eventCall(cur.e);
        const head = items.findIndex((it) => it.kind === 'group' && it.call === call);
        if (call !== null && head >= 0) {
          toggle(call, false);
          select(head);
        }
      }
      return;
    }
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp' && ev.key !== 'Home' && ev.key !== 'End') return;
    ev.preventDefault();
    const next = ev.key === 'Home' ? 0 : ev.key === 'End' ? items.length - 1 : ev.key === 'ArrowDown' ? at + 1 : Math.max(0, at - 1);
    select(Math.min(items.length - 1, next));
  };

  const now = Date.now();
  const rows = [];
  for (let i = first; i < last; i++) {
    const it = items[i]!;
    if (it.kind === 'group') {
      rows.push(<GroupRow key={it.key} item={it} index={i} selected={i === activeIndex} full={callEvents.get(it.call)} now={now} onSelect={() => select(i)} onToggle={() => toggle(it.call)} />);
      continue;
    }
    const e = it.e;
    const decision = decisionOf(e);
    rows.push(
      <div
        key={it.key}
        role="row"
        aria-rowindex={i + 2}
        aria-selected={i === activeIndex}
        className={it.member ? 'audit-row audit-member-row' : 'audit-row'}
        data-testid="audit-row"
        data-seq={e.seq}
        data-member={it.member ? 'true' : undefined}
        style={{ transform: `translateY(${i * ROW_HEIGHT}px)` }}
        onClick={() => select(i)}
      >
        <span role="cell" className="mono audit-col-time">
          <time dateTime={isoTime(e.ts)} title={formatDateTime(e.ts)}>
            {formatEventTime(e.ts, now)}
          </time>
        </span>
        {/* Type, actor and the payload's strings are the agent's words: hidden characters as tokens. */}
        {/* A team event's member leads its type: the actor column gives way to an open event. */}
        <span role="cell" className="mono audit-col-type" title={safeTitle(e.member === undefined ? e.type : `${e.member}: ${e.type}`)}>
          {e.member !== undefined ? (
            <span className="audit-member" data-testid="audit-member">
              <SafeText text={e.member} />
            </span>
          ) : null}
          <SafeText text={e.type} />
        </span>
        <span role="cell" className="audit-col-actor" title={safeTitle(e.actor)}>
          <SafeText text={e.actor} />
        </span>
        <span role="cell" className="audit-col-agent">
          <SafeText text={agentTool(e)} />
        </span>
        <span role="cell" className="audit-col-decision">
          {decision ? (
            <span className="decision" data-decision={decision}>
              <SafeText text={decision} />
            </span>
          ) : null}
        </span>
        <span role="cell" className="audit-col-summary" data-testid="audit-summary">
          <SafeText text={summarize(e)} />
        </span>
      </div>,
    );
  }

  return (
    <div className="audit-table" role="table" aria-label={grouped ? 'Audit events, grouped by call' : 'Audit events'} aria-rowcount={items.length + 1} data-grouped={grouped}>
      <div role="rowgroup">
        <div role="row" className="audit-row audit-head">
          {HEADERS.map(([col, label]) => (
            <span key={col} role="columnheader" className={`audit-col-${col}`}>
              {team && col === 'type' ? 'Member · type' : label}
            </span>
          ))}
        </div>
      </div>
      <div
        ref={scroller}
        role="rowgroup"
        className="audit-scroll"
        data-testid="audit-table"
        data-loaded={events.length}
        data-rendered={last - first}
        tabIndex={0}
        onScroll={(ev) => setScrollTop(ev.currentTarget.scrollTop)}
        onKeyDown={onKeyDown}
      >
        <div className="audit-spacer" style={{ height: items.length * ROW_HEIGHT + (nextBefore !== null ? ROW_HEIGHT : 0) }}>
          {rows}
          {nextBefore !== null ? (
            <div className="audit-row audit-loading-row muted" style={{ transform: `translateY(${items.length * ROW_HEIGHT}px)` }}>
              Loading older events…
            </div>
          ) : null}
        </div>
      </div>
    </div>
  );
}

/** A call's own events, fetched once per call (audit.get returns an event with the rest of its call). */
function useCallEvents() {
  const cache = useRef(new Map<string, AuditEventView[] | 'loading' | 'failed'>());
  const [, bump] = useState(0);
  return useMemo(
    () => ({
      get: (call: string): AuditEventView[] | null => {
        const v = cache.current.get(call);
        return Array.isArray(v) ? v : null;
      },
      want: (client: ReturnType<typeof useClient>, call: string, seq: number) => {
        if (cache.current.has(call)) return;
        cache.current.set(call, 'loading');
        getAuditEvent(client, { seq }).then(
          ({ event, related }) => {
            cache.current.set(call, [event, ...related].sort((a, b) => a.seq - b.seq));
            bump((n) => n + 1);
          },
          // Not fatal: the group then reads from what the search loaded.
          () => cache.current.set(call, 'failed'),
        );
      },
    }),
    [],
  );
}

function GroupRow({
  item,
  index,
  selected,
  full,
  now,
  onSelect,
  onToggle,
}: {
  item: Extract<Item, { kind: 'group' }>;
  index: number;
  selected: boolean;
  full: AuditEventView[] | null;
  now: number;
  onSelect: () => void;
  onToggle: () => void;
}) {
  const loaded = [...item.events].sort((a, b) => a.seq - b.seq);
  const events = full ?? loaded;
  const outcome: CallOutcome = callOutcome(events);
  const newest = item.events[0]!;
  const received = events.find((e) => e.type === 'call.received');
  const who = agentTool(received ?? events.find((e) => agentTool(e) !== '') ?? newest);
  const n = item.events.length;
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      className="audit-row audit-group-row"
      data-testid="audit-group"
      data-call={item.call}
      data-count={n}
      data-outcome={outcome.tone}
      data-expanded={item.expanded}
      style={{ transform: `translateY(${index * ROW_HEIGHT}px)` }}
      onClick={onSelect}
    >
      <span role="cell" className="mono audit-col-time">
        <time dateTime={isoTime(newest.ts)} title={formatDateTime(newest.ts)}>
          {formatEventTime(newest.ts, now)}
        </time>
      </span>
      <span role="cell" className="audit-col-type">
        <button
          type="button"
          className="link-button audit-group-toggle"
          data-testid="audit-group-toggle"
          aria-expanded={item.expanded}
          tabIndex={-1}
          onClick={(ev) => {
            ev.stopPropagation();
            onToggle();
          }}
        >
          <span aria-hidden="true">{item.expanded ? '▾' : '▸'}</span> {n} {n === 1 ? 'event' : 'events'}
        </button>
      </span>
      <span role="cell" className="mono audit-col-actor" title={item.call}>
        {item.call}
      </span>
      <span role="cell" className="audit-col-agent">
        <SafeText text={who} />
      </span>
      <span role="cell" className="audit-col-decision">
        <span className={`decision wf-tone-${outcome.tone}`} data-testid="audit-group-outcome" title={outcome.label}>
          {outcome.label}
        </span>
      </span>
      <span role="cell" className="audit-col-summary">
        {received ? <SafeText text={summarize(received)} /> : <span className="muted">{full ? '' : 'loading the call…'}</span>}
      </span>
    </div>
  );
}
