// The approval inbox: one live queue of pending calls from every agent and session, as a list of
// compact rows (riskiest first, then oldest; grouped by session on demand; virtualised, so a busy
// day's thousands of calls scroll) beside a detail pane for the selected call. Decided from the
// keyboard (j/k or arrows move, a approves, s grants for the session, d denies with a reason,
// Enter opens details), filtered and decided in batches, with the history below. Identical calls
// fold into one row with a count (lib/fold-calls.ts); deciding it decides each of them. Rows are
// picked for a bulk decision with Ctrl/⌘-click, Shift-click or x. `a` on a call "Approve all"
// would stop on (needsSecondLook) asks first too. Decisions are final: an agent has its answer
// the moment the host has the decision, so there is no undo.
// Live: approvals.changed refetches it (bindApprovals, sync/approvals-actions.ts); nothing here polls. Every
// decision carries the argsHash of the item on screen, so it approves exactly what was shown.
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useShallow } from 'zustand/react/shallow';
import type { ApprovalItemView, ProposedRuleView } from '../../../shared/contract.ts';
import { useClient } from '../sync/client-context.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { errorMessage } from '../lib/error-message.ts';
import { filterPending, historyItems, isFiltered, pendingItems, useApprovalsStore } from '../stores/approvals-store.ts';
import { useSettingsStore } from '../stores/settings-store.ts';
import { approveAlways, approveForSession, approveOnce, approveWithGrant, decideBatch, deny, previewGrant, proposeRule } from '../sync/approvals-actions.ts';
import { AlwaysDialog } from './approvals/always-dialog.tsx';
import { ApprovalDetail, type Decision } from './approvals/approval-detail.tsx';
import { ApprovalRow, ROW_HEIGHT, type RowClick } from './approvals/approval-row.tsx';
import { byRiskThenAge, needsSecondLook } from '../lib/call-summary.ts';
import { foldIdentical } from '../lib/fold-calls.ts';
import { BatchApproveDialog } from './approvals/batch-approve-dialog.tsx';
import { FilterChips, type FilterChip } from '../components/filter-chips.tsx';
import { ApprovalHistory } from './approvals/approval-history.tsx';
import { BatchResults } from './approvals/batch-results.tsx';
import { DenyDialog } from './approvals/deny-dialog.tsx';
import { NotificationsButton } from './approvals/notifications-button.tsx';
import { SessionDialog } from './approvals/session-dialog.tsx';
import { GrantDialog, type GrantChoice } from './approvals/grant-dialog.tsx';
import { useSecondTick } from './health/use-second-tick.ts';
import '../styles/approvals.css';
import { SafeText, safeTitle } from '../components/safe-text.tsx';
import { LoadStatus } from '../components/load-status.tsx';
import { thisMachine, useTeamStore } from '../stores/team-store.ts';
import { TeamAsks } from './approvals/team-asks.tsx';

const LIST_WIDTH_KEY = 'gatehouse.inbox.listWidth';

type Dialog =
  | { kind: 'deny'; item: ApprovalItemView }
  | { kind: 'approve-risky'; items: ApprovalItemView[] }
  | { kind: 'batch-deny'; items: ApprovalItemView[] }
  | { kind: 'batch-approve'; items: ApprovalItemView[] }
  | { kind: 'session'; item: ApprovalItemView }
  | { kind: 'grant'; item: ApprovalItemView }
  | { kind: 'always'; item: ApprovalItemView; rule: ProposedRuleView | null; loadError: string | null };

/** Keys typed into a field, or pressed while a dialog is open, are not inbox shortcuts. */
function typing(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  if (t.isContentEditable) return true;
  return t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT';
}

export function ApprovalsView() {
  const client = useClient();
  const { items, loaded, listError, clockOffset, filter, cursor, expanded, busy, actionError, batch, groupBySession, selected } = useApprovalsStore(
    useShallow((s) => ({
      items: s.items,
      loaded: s.loaded,
      listError: s.listError,
      clockOffset: s.clockOffset,
      filter: s.filter,
      cursor: s.cursor,
      expanded: s.expanded,
      busy: s.busy,
      actionError: s.actionError,
      batch: s.batch,
      groupBySession: s.groupBySession,
      selected: s.selected,
    })),
  );
  const sessionMinutes = useSettingsStore((s) => s.settings?.sessionGrantMinutes ?? 60);
  const team = useTeamStore(
    useShallow((s) => ({ link: s.link, asks: s.asks, asksError: s.asksError, clockOffset: s.asksClockOffset, machine: s.machine, deciding: s.deciding, decided: s.decided })),
  );
  // This host's items are this machine's: its member name in team mode.
  const ownMachine = thisMachine(team.link);
  const localShown = team.machine === '' || team.machine === ownMachine;
  const teamAsks = useMemo(() => (team.asks ?? []).filter((a) => team.machine === '' || a.member === team.machine), [team.asks, team.machine]);
  const machines = useMemo(() => [...new Set([ownMachine, ...(team.asks ?? []).map((a) => a.member), ...(team.machine ? [team.machine] : [])])], [ownMachine, team.asks, team.machine]);
  const pending = useMemo(() => pendingItems(items), [items]);
  // Riskiest first, then oldest; grouped, sessions follow their riskiest call.
  const shown = useMemo(() => {
    if (!localShown) return [];
    const sorted = filterPending(items, filter).sort(byRiskThenAge);
    if (!groupBySession) return sorted;
    const order = new Map<string, number>();
    for (const i of sorted) if (!order.has(i.call.session)) order.set(i.call.session, order.size);
    return sorted.sort((a, b) => order.get(a.call.session)! - order.get(b.call.session)! || byRiskThenAge(a, b));
  }, [items, filter, groupBySession, localShown]);
  // Identical calls as one row each; the list, the cursor and the selection work on these rows.
  const groups = useMemo(() => foldIdentical(shown, groupBySession), [shown, groupBySession]);
  const groupOfItem = useMemo(() => {
    const m = new Map<string, number>();
    groups.forEach((g, i) => g.items.forEach((item) => m.set(item.id, i)));
    return m;
  }, [groups]);
  // Rows picked that are still on screen (a decided or filtered-out row leaves the selection).
  const picked = useMemo(() => {
    const keys = new Set(selected);
    return groups.filter((g) => keys.has(g.key));
  }, [groups, selected]);
  const pickedKeys = useMemo(() => new Set(picked.map((g) => g.key)), [picked]);
  const batchTarget = useMemo(() => (picked.length > 0 ? picked.flatMap((g) => g.items) : shown), [picked, shown]);
  const history = useMemo(() => historyItems(items), [items]);
  // The selected agent or tool stays an option after its last call is decided: otherwise the
  // select reads "All" while the old filter still hides everything ("1 waiting · 0 shown").
  const agents = useMemo(() => [...new Set([...pending.map((i) => i.call.agent), ...(filter.agent ? [filter.agent] : [])])].sort(), [pending, filter.agent]);
  const tools = useMemo(() => [...new Set([...pending.map((i) => i.call.tool), ...(filter.tool ? [filter.tool] : [])])].sort(), [pending, filter.tool]);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const now = useSecondTick(pending.length > 0 || teamAsks.length > 0);
  const idPrefix = useId();
  const domId = (id: string) => `${idPrefix}-${id}`;

  // The highlight stays on its item; when that item leaves (decided, expired), it moves to the
  // one that took its place, so deciding down the list is a, a, a.
  const lastIndex = useRef(0);
  const listRef = useRef<HTMLDivElement>(null);
  let activeIndex = cursor ? (groupOfItem.get(cursor) ?? -1) : -1;
  if (activeIndex < 0) activeIndex = Math.min(lastIndex.current, groups.length - 1);
  const activeGroup = activeIndex >= 0 ? groups[activeIndex]! : null;
  const active = activeGroup?.lead ?? null;
  useEffect(() => {
    if (activeIndex >= 0) lastIndex.current = activeIndex;
  }, [activeIndex]);
  // Rows of the virtual list: a session header before each session's calls when grouped.
  const rows = useMemo(() => {
    const out: ({ kind: 'item'; index: number } | { kind: 'session'; session: string; count: number })[] = [];
    groups.forEach((g, index) => {
      const session = g.lead.call.session;
      if (groupBySession && (index === 0 || groups[index - 1]!.lead.call.session !== session)) {
        out.push({ kind: 'session', session, count: shown.filter((i) => i.call.session === session).length });
      }
      out.push({ kind: 'item', index });
    });
    return out;
  }, [groups, shown, groupBySession]);
  const rowOfItem = useMemo(() => {
    const m = new Map<number, number>();
    rows.forEach((r, i) => r.kind === 'item' && m.set(r.index, i));
    return m;
  }, [rows]);
  // The list's width: dragged by the separator, remembered across restarts of the console.
  const [listWidth, setListWidth] = useState<number | null>(() => {
    const saved = Number(localStorage.getItem(LIST_WIDTH_KEY));
    return Number.isFinite(saved) && saved >= 280 ? saved : null;
  });
  const startResize = (e: React.PointerEvent<HTMLDivElement>) => {
    const list = listRef.current;
    if (!list) return;
    e.preventDefault();
    const left = list.getBoundingClientRect().left;
    const max = (list.parentElement?.getBoundingClientRect().width ?? 1200) - 320;
    const move = (ev: PointerEvent) => setListWidth(Math.round(Math.max(280, Math.min(max, ev.clientX - left))));
    const up = (ev: PointerEvent) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      const w = Math.round(Math.max(280, Math.min(max, ev.clientX - left)));
      localStorage.setItem(LIST_WIDTH_KEY, String(w));
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };
  const resizeBy = (dx: number) => {
    const w = Math.max(280, (listWidth ?? listRef.current?.getBoundingClientRect().width ?? 480) + dx);
    setListWidth(w);
    localStorage.setItem(LIST_WIDTH_KEY, String(w));
  };
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => listRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  useEffect(() => {
    const row = rowOfItem.get(activeIndex);
    if (row !== undefined) virtualizer.scrollToIndex(row, { align: 'auto' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the selection moves: a list that changes under the operator does not jump
  }, [active?.id]);

  const setCursor = useCallback((id: string | null) => useApprovalsStore.setState({ cursor: id }), []);
  // The call on screen is pinned as soon as it is shown, the first one and each one that takes a
  // decided call's place: otherwise the highlight follows a position in the list, and a call an
  // agent sends meanwhile that sorts above it (riskier, or in an earlier session) slides into that
  // position, under the key the operator is pressing for the call they read.
  const activeId = active?.id ?? null;
  useEffect(() => {
    if (activeId !== null && cursor !== activeId) setCursor(activeId);
  }, [activeId, cursor, setCursor]);
  const toggleSelected = useCallback((key: string) => useApprovalsStore.setState((s) => ({ selected: s.selected.includes(key) ? s.selected.filter((k) => k !== key) : [...s.selected, key] })), []);
  const onRowClick = useCallback(
    ({ id, toggle, range }: RowClick) => {
      const to = groupOfItem.get(id);
      if (to === undefined) return;
      if (range && activeIndex >= 0) {
        // Shift-click: every row from the cursor to the clicked one joins the selection.
        const [from, end] = activeIndex <= to ? [activeIndex, to] : [to, activeIndex];
        const keys = groups.slice(from, end + 1).map((g) => g.key);
        useApprovalsStore.setState((s) => ({ selected: [...new Set([...s.selected, ...keys])] }));
      } else if (toggle) toggleSelected(groups[to]!.key);
      setCursor(id);
    },
    [groupOfItem, activeIndex, groups, toggleSelected, setCursor],
  );
  const toggleDetails = useCallback((id: string) => {
    useApprovalsStore.setState((s) => ({ expanded: s.expanded.includes(id) ? s.expanded.filter((x) => x !== id) : [...s.expanded, id] }));
  }, []);

  // Stable for the grant dialog's effect, which asks again only when the candidate changes.
  const grantItem = dialog?.kind === 'grant' ? dialog.item : null;
  const grantPreview = useCallback((c: Omit<GrantChoice, 'minutes'>) => previewGrant(client, grantItem!, c), [client, grantItem]);

  const closeDialog = useCallback(() => {
    setDialog(null);
    useApprovalsStore.setState({ actionError: null });
  }, []);

  const onDecide = useCallback(
    (item: ApprovalItemView, decision: Decision, viaKey = false) => {
      setCursor(item.id);
      useApprovalsStore.setState({ actionError: null });
      // A folded row stands for every identical call in it: approve and deny decide them all.
      const g = groups[groupOfItem.get(item.id) ?? -1];
      const all = g && g.lead.id === item.id ? g.items : [item];
      if (decision === 'approve') {
        // A key pressed by habit stops where "Approve all" would (one rule: needsSecondLook).
        if (viaKey && all.some(needsSecondLook)) setDialog({ kind: 'approve-risky', items: all });
        else if (all.length > 1) void decideBatch(client, 'approve', all);
        else void approveOnce(client, item);
      } else if (decision === 'deny') {
        setDialog(all.length > 1 ? { kind: 'batch-deny', items: all } : { kind: 'deny', item });
      } else if (decision === 'session') {
        setDialog({ kind: 'session', item });
      } else if (decision === 'grant') {
        setDialog({ kind: 'grant', item });
      } else {
        setDialog({ kind: 'always', item, rule: null, loadError: null });
        proposeRule(client, item).then(
          (rule) => setDialog((d) => (d?.kind === 'always' && d.item.id === item.id ? { ...d, rule } : d)),
          (err: unknown) => setDialog((d) => (d?.kind === 'always' && d.item.id === item.id ? { ...d, loadError: errorMessage(err) } : d)),
        );
      }
    },
    [client, setCursor, groups, groupOfItem],
  );

  // A closed dialog gives the focus back to what had it (the sidebar button, when the view was
  // opened by a click): the inbox keys that follow (Enter for details) want it in the list.
  const hadDialog = useRef(false);
  useEffect(() => {
    if (dialog) {
      hadDialog.current = true;
      return;
    }
    if (!hadDialog.current) return;
    hadDialog.current = false;
    // With nothing left pending there is no list yet: leave the sidebar button, so the Enter that
    // follows a new item opens its details.
    if (listRef.current) listRef.current.focus({ preventScroll: true });
    else if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
  }, [dialog]);

  // Inbox keys, while this view is on screen and no dialog or field has them.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
      if (dialog || document.querySelector('dialog[open]') || typing(e)) return;
      const move = (to: number) => {
        e.preventDefault();
        const next = groups[Math.max(0, Math.min(groups.length - 1, to))];
        if (next) setCursor(next.lead.id);
        // Moving takes the keyboard into the inbox (off the sidebar button), so Enter opens details.
        if (document.activeElement !== listRef.current) listRef.current?.focus({ preventScroll: true });
      };
      switch (e.key) {
        case 'j':
        case 'ArrowDown':
          return move(activeIndex + 1);
        case 'k':
        case 'ArrowUp':
          return move(activeIndex - 1);
      }
      if (e.key === 'Escape' && selected.length > 0) {
        e.preventDefault();
        return useApprovalsStore.setState({ selected: [] });
      }
      if (!active || !activeGroup || e.repeat) return;
      switch (e.key) {
        case 'a':
          e.preventDefault();
          return onDecide(active, 'approve', true);
        case 'x':
          e.preventDefault();
          return toggleSelected(activeGroup.key);
        case 'd':
          e.preventDefault();
          return onDecide(active, 'deny');
        case 's':
          e.preventDefault();
          return onDecide(active, 'session');
        case 'g':
          e.preventDefault();
          return onDecide(active, 'grant');
        case 'Enter': {
          // Enter on a focused button is that button's; elsewhere it opens the details.
          const t = e.target as HTMLElement | null;
          if (t && (t.tagName === 'BUTTON' || t.tagName === 'A')) return;
          e.preventDefault();
          return toggleDetails(active.id);
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [dialog, groups, active, activeGroup, activeIndex, selected.length, onDecide, setCursor, toggleDetails, toggleSelected]);

  const setFilter = (patch: Partial<typeof filter>) => useApprovalsStore.setState((s) => ({ filter: { ...s.filter, ...patch } }));
  const setMachine = (machine: string) => useTeamStore.setState({ machine });
  const filtered = isFiltered(filter) || !localShown;
  const chips: FilterChip[] = [
    ...(team.machine ? [{ key: 'machine', label: 'machine', value: team.machine, onRemove: () => setMachine('') }] : []),
    ...(filter.agent ? [{ key: 'agent', label: 'agent', value: filter.agent, onRemove: () => setFilter({ agent: '' }) }] : []),
    ...(filter.tool ? [{ key: 'tool', label: 'tool', value: filter.tool, onRemove: () => setFilter({ tool: '' }) }] : []),
    ...(filter.text.trim() ? [{ key: 'text', label: 'text', value: filter.text.trim(), onRemove: () => setFilter({ text: '' }) }] : []),
  ];
  const dialogBusy = busy !== null;
  const batchLabel = picked.length > 0 ? 'selected' : filtered ? 'shown' : 'all';

  return (
    <ViewFrame id="approvals" title="Approvals" subtitle="Tool calls from every agent and session that wait for an operator's decision." actions={<NotificationsButton />}>
      <LoadStatus loaded={loaded} error={listError} failed="Could not load the inbox" waiting="The inbox appears once the console is connected." />

      {loaded ? (
        <section className="panel approval-queue" aria-labelledby="approval-queue-heading">
          <h2 id="approval-queue-heading" className="panel-title">
            Pending
            <span className="panel-note" data-testid="approvals-pending-count" data-count={pending.length}>
              {pending.length} waiting{filtered ? ` · ${shown.length} shown` : ''}
              {groups.length < shown.length ? <span data-testid="approvals-row-count"> · {groups.length} rows</span> : null}
            </span>
            <span className="approval-spacer" />
            <span className="muted approval-keys" aria-hidden="true">
              <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>a</kbd> approve · <kbd>s</kbd> session · <kbd>g</kbd> don't ask again · <kbd>d</kbd> deny · <kbd>x</kbd> select · <kbd>↵</kbd> details
            </span>
          </h2>

          <div className="approval-filters" role="search">
            {team.asks !== null ? (
              <select className="input" aria-label="Only calls from this machine" data-testid="approvals-filter-machine" value={team.machine} onChange={(e) => setMachine(e.target.value)}>
                <option value="">All machines</option>
                {machines.map((m) => (
                  <option key={m} value={m}>
                    {safeTitle(m)}
                    {m === ownMachine ? ' (this host)' : ''}
                  </option>
                ))}
              </select>
            ) : null}
            <select className="input" aria-label="Only calls from this agent" data-testid="approvals-filter-agent" value={filter.agent} onChange={(e) => setFilter({ agent: e.target.value })}>
              <option value="">All agents</option>
              {agents.map((a) => (
                <option key={a} value={a}>
                  {/* An option holds text only: hidden characters as \u escapes. */}
                  {safeTitle(a)}
                </option>
              ))}
            </select>
            <select className="input" aria-label="Only calls of this tool" data-testid="approvals-filter-tool" value={filter.tool} onChange={(e) => setFilter({ tool: e.target.value })}>
              <option value="">All tools</option>
              {tools.map((t) => (
                <option key={t} value={t}>
                  {safeTitle(t)}
                </option>
              ))}
            </select>
            <input
              type="search"
              className="input approval-filter-text"
              placeholder="Filter by arguments, path, host, session…"
              aria-label="Filter pending calls by text"
              data-testid="approvals-filter-text"
              value={filter.text}
              onChange={(e) => setFilter({ text: e.target.value })}
            />
            <label className="approval-group-toggle">
              <input type="checkbox" data-testid="approvals-group-session" checked={groupBySession} onChange={(e) => useApprovalsStore.setState({ groupBySession: e.target.checked })} /> Group by session
            </label>
            <span className="approval-spacer" />
            {picked.length > 0 ? (
              <span className="approval-selection" data-testid="approvals-selection" data-count={batchTarget.length}>
                {picked.length} row{picked.length === 1 ? '' : 's'} selected
                <button type="button" className="link-button" data-testid="approvals-selection-clear" onClick={() => useApprovalsStore.setState({ selected: [] })}>
                  Clear
                </button>
              </span>
            ) : null}
            <button type="button" className="button button-small" data-testid="batch-approve" disabled={batchTarget.length === 0 || dialogBusy} onClick={() => (batchTarget.some(needsSecondLook) ? setDialog({ kind: 'batch-approve', items: batchTarget }) : void decideBatch(client, 'approve', batchTarget))}>
              Approve {batchLabel} ({batchTarget.length})
            </button>
            <button type="button" className="button button-small button-danger" data-testid="batch-deny" disabled={batchTarget.length === 0 || dialogBusy} onClick={() => setDialog({ kind: 'batch-deny', items: batchTarget })}>
              Deny {batchLabel} ({batchTarget.length})…
            </button>
          </div>

          <FilterChips
            chips={chips}
            onClearAll={() => {
              setFilter({ agent: '', tool: '', text: '' });
              setMachine('');
            }}
            testId="approvals-filter-chips"
          />

          {actionError && !dialog ? (
            <p className="inline-error" role="alert" data-testid="approvals-error">
              {actionError}
            </p>
          ) : null}

          {pending.length === 0 ? (
            <EmptyState title="Nothing to decide">No tool calls are waiting. Calls that policy sends to an operator appear here.</EmptyState>
          ) : shown.length === 0 ? (
            <p className="muted" data-testid="approvals-none-shown">
              No pending call matches the filters above; remove a chip or Clear all to see the {pending.length} waiting.
            </p>
          ) : (
            <div className="approval-split" style={listWidth ? { gridTemplateColumns: `${listWidth}px 8px minmax(320px, 1fr)` } : undefined}>
              <div
                ref={listRef}
                className="approval-list"
                tabIndex={-1}
                role="listbox"
                aria-label="Pending calls, riskiest first"
                aria-activedescendant={active ? domId(active.id) : undefined}
                data-testid="approval-list"
                aria-multiselectable="true"
                data-rows={groups.length}
                data-calls={shown.length}
              >
                <div className="approval-list-inner" style={{ height: virtualizer.getTotalSize() }}>
                  {virtualizer.getVirtualItems().map((v) => {
                    const row = rows[v.index]!;
                    if (row.kind === 'session') {
                      return (
                        <div key={`s:${row.session}`} className="approval-group-head" role="presentation" style={{ transform: `translateY(${v.start}px)`, height: ROW_HEIGHT }} data-testid="approval-group" data-session={row.session}>
                          <span className="muted">session </span>
                          <span className="mono">
                            <SafeText text={row.session} />
                          </span>
                          <span className="muted"> · {row.count} waiting</span>
                        </div>
                      );
                    }
                    const g = groups[row.index]!;
                    const item = g.lead;
                    return (
                      <ApprovalRow
                        key={g.key}
                        item={item}
                        count={g.items.length}
                        sessions={g.sessions}
                        active={item.id === active?.id}
                        selected={pickedKeys.has(g.key)}
                        now={now}
                        clockOffset={clockOffset}
                        domId={domId(item.id)}
                        machine={team.link ? ownMachine : null}
                        top={v.start}
                        onActivate={onRowClick}
                      />
                    );
                  })}
                </div>
              </div>
              <div
                className="approval-split-handle"
                role="separator"
                aria-orientation="vertical"
                aria-label="Resize the list (← →)"
                aria-valuenow={Math.round(listWidth ?? listRef.current?.getBoundingClientRect().width ?? 480)}
                aria-valuemin={280}
                aria-valuetext={listWidth ? `list ${listWidth} pixels wide` : 'list at its default width'}
                tabIndex={0}
                data-testid="approval-split-handle"
                onPointerDown={startResize}
                onKeyDown={(e) => {
                  if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
                    e.preventDefault();
                    e.stopPropagation();
                    resizeBy(e.key === 'ArrowLeft' ? -24 : 24);
                  }
                }}
              />
              {active && activeGroup ? (
                <ApprovalDetail key={active.id} item={active} folded={activeGroup.items.length} sessions={activeGroup.sessions} expanded={expanded.includes(active.id)} busy={busy !== null} clockOffset={clockOffset} onDecide={onDecide} onToggleDetails={toggleDetails} />
              ) : null}
            </div>
          )}
        </section>
      ) : null}

      {loaded && team.asks !== null ? (
        <TeamAsks asks={teamAsks} total={team.asks.length} error={team.asksError} clockOffset={team.clockOffset} now={now} deciding={team.deciding} decided={team.decided} />
      ) : null}

      {batch ? <BatchResults batch={batch} onDismiss={() => useApprovalsStore.setState({ batch: null })} /> : null}

      {loaded ? <ApprovalHistory items={history} clockOffset={clockOffset} /> : null}

      {dialog?.kind === 'deny' ? (
        <DenyDialog
          what={`${safeTitle(dialog.item.call.tool)} from ${safeTitle(dialog.item.call.agent)}`}
          busy={dialogBusy}
          error={actionError}
          onCancel={closeDialog}
          onConfirm={(reason) => void deny(client, dialog.item, reason).then((ok) => ok && setDialog(null))}
        />
      ) : null}
      {dialog?.kind === 'batch-deny' ? (
        <DenyDialog
          what={`${dialog.items.length} call${dialog.items.length === 1 ? '' : 's'}`}
          busy={dialogBusy}
          error={actionError}
          onCancel={closeDialog}
          onConfirm={(reason) => void decideBatch(client, 'deny', dialog.items, reason).then((ok) => ok && setDialog(null))}
        />
      ) : null}
      {dialog?.kind === 'batch-approve' ? (
        <BatchApproveDialog items={dialog.items} busy={dialogBusy} error={actionError} onCancel={closeDialog} onConfirm={() => void decideBatch(client, 'approve', dialog.items).then((ok) => ok && setDialog(null))} />
      ) : null}
      {dialog?.kind === 'approve-risky' ? (
        <BatchApproveDialog
          items={dialog.items}
          single
          busy={dialogBusy}
          error={actionError}
          onCancel={closeDialog}
          onConfirm={() => void (dialog.items.length > 1 ? decideBatch(client, 'approve', dialog.items) : approveOnce(client, dialog.items[0]!)).then((ok) => ok && setDialog(null))}
        />
      ) : null}
      {dialog?.kind === 'session' ? (
        <SessionDialog
          item={dialog.item}
          defaultMinutes={sessionMinutes}
          busy={dialogBusy}
          error={actionError}
          onCancel={closeDialog}
          onConfirm={(opts) => void approveForSession(client, dialog.item, opts).then((ok) => ok && setDialog(null))}
        />
      ) : null}
      {dialog?.kind === 'grant' ? (
        <GrantDialog
          item={dialog.item}
          busy={dialogBusy}
          error={actionError}
          clockOffset={clockOffset}
          preview={grantPreview}
          onCancel={closeDialog}
          onConfirm={(choice: GrantChoice) => void approveWithGrant(client, dialog.item, choice).then((ok) => ok && setDialog(null))}
        />
      ) : null}
      {dialog?.kind === 'always' ? (
        <AlwaysDialog
          item={dialog.item}
          rule={dialog.rule}
          loadError={dialog.loadError}
          busy={dialogBusy}
          error={actionError}
          onCancel={closeDialog}
          onConfirm={() => void approveAlways(client, dialog.item).then((ok) => ok && setDialog(null))}
        />
      ) : null}
    </ViewFrame>
  );
}
