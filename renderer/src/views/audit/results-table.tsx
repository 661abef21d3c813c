// The search results as a virtualized table: a fixed row height, only the rows in view (plus a
// few either side) in the DOM, the next page fetched by the `before` cursor as the end of what is
// loaded comes into view. A million matching events cost the DOM the same ~40 rows as ten.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useClient } from '../../app/client-context.ts';
import { agentTool, decisionOf, summarize } from '../../lib/audit-summary.ts';
import { formatDateTime, formatEventTime, isoTime } from '../../lib/format.ts';
import { useAuditStore } from '../../stores/audit-store.ts';
import { loadMore, openEvent } from '../../sync/audit-actions.ts';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';

/** Must match .audit-row's height in audit.css. */
export const ROW_HEIGHT = 28;
const OVERSCAN = 10;
/** Fetch the next page when the view is this many rows from the end of what is loaded. */
const PREFETCH_ROWS = 60;

export function ResultsTable() {
  const client = useClient();
  const { events, filter, nextBefore, searching, selectedSeq } = useAuditStore(
    useShallow((s) => ({ events: s.events, filter: s.filter, nextBefore: s.nextBefore, searching: s.searching, selectedSeq: s.selected?.seq ?? null })),
  );
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
  const last = Math.min(events.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);

  useEffect(() => {
    if (nextBefore !== null && !searching && last >= events.length - PREFETCH_ROWS) void loadMore(client);
  }, [client, last, events.length, nextBefore, searching]);

  const select = useCallback(
    (index: number) => {
      const e = events[index];
      if (!e) return;
      void openEvent(client, e.seq);
      const el = scroller.current;
      if (!el) return;
      const top = index * ROW_HEIGHT;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
    },
    [client, events],
  );

  const onKeyDown = (ev: KeyboardEvent<HTMLDivElement>) => {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp' && ev.key !== 'Home' && ev.key !== 'End') return;
    ev.preventDefault();
    const at = selectedSeq === null ? -1 : events.findIndex((e) => e.seq === selectedSeq);
    const next = ev.key === 'Home' ? 0 : ev.key === 'End' ? events.length - 1 : ev.key === 'ArrowDown' ? at + 1 : Math.max(0, at - 1);
    select(Math.min(events.length - 1, next));
  };

  const now = Date.now();
  const rows = [];
  for (let i = first; i < last; i++) {
    const e = events[i]!;
    const decision = decisionOf(e);
    rows.push(
      <div
        key={e.seq}
        role="row"
        aria-rowindex={i + 2}
        aria-selected={e.seq === selectedSeq}
        className="audit-row"
        data-testid="audit-row"
        data-seq={e.seq}
        style={{ transform: `translateY(${i * ROW_HEIGHT}px)` }}
        onClick={() => select(i)}
      >
        <span role="cell" className="mono audit-col-time">
          <time dateTime={isoTime(e.ts)} title={formatDateTime(e.ts)}>
            {formatEventTime(e.ts, now)}
          </time>
        </span>
        {/* Type, actor and the payload's strings are the agent's words: hidden characters as tokens. */}
        <span role="cell" className="mono audit-col-type" title={safeTitle(e.type)}>
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
        <span role="cell" className="audit-col-summary">
          <SafeText text={summarize(e)} />
        </span>
      </div>,
    );
  }

  return (
    <div className="audit-table" role="table" aria-label="Audit events" aria-rowcount={events.length + 1}>
      <div role="rowgroup">
        <div role="row" className="audit-row audit-head">
          <span role="columnheader">Time</span>
          <span role="columnheader">Type</span>
          <span role="columnheader">Actor</span>
          <span role="columnheader">Agent · tool</span>
          <span role="columnheader">Decision</span>
          <span role="columnheader">Summary</span>
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
        <div className="audit-spacer" style={{ height: events.length * ROW_HEIGHT + (nextBefore !== null ? ROW_HEIGHT : 0) }}>
          {rows}
          {nextBefore !== null ? (
            <div className="audit-row audit-loading-row muted" style={{ transform: `translateY(${events.length * ROW_HEIGHT}px)` }}>
              Loading older events…
            </div>
          ) : null}
        </div>
      </div>
    </div>
  );
}
