// The one pattern for data the host pushes: each domain (approvals, plugins, health, audit, …)
// has one `bindX(client)` in its own sync/ file, built on bindDomain below, that owns its initial
// load, its refresh on host events and its guard against stale answers, and returns a disposer.
// bindDomain does what every domain needs alike: load on every (re)connect, empty the domain when
// a host refuses this console, cancel pending refreshes at both, and undo everything on dispose.
import type { EventName, EventPayload } from '../../../shared/contract.ts';
import { coalesce, type Coalesced } from '../lib/coalesce.ts';
import { useUiStore, type ViewId } from '../stores/ui-store.ts';
import type { GatehouseClient } from '../transport/client.ts';

/**
 * Keeps only the newest answer. Each `begin()` supersedes the requests before it; an answer is
 * applied only while its `current()` still holds. `supersede()` marks something newer than any
 * request in flight (a push carrying the whole new state, a reset), so a list asked for before it
 * cannot overwrite it. `follow()` continues the newest request without superseding it (the next
 * page of the same search): its answer is dropped once anything newer begins.
 *
 * `sent()` is for an action whose answer carries only part of the state (one decided item, one
 * plugin's summary): taken when the action is sent, its `answered()` drops the lists asked for
 * before that moment, and only those. A list asked for after it (on the host's event for that
 * very action, or for what the action set off: a grant releasing other waiting calls) knows more
 * than the answer does, and still lands.
 */
export interface Latest {
  begin(): Ticket;
  follow(): Ticket;
  supersede(): void;
  sent(): Sent;
}

export interface Sent {
  /** The action's answer is applied now: no list asked for before the action was sent may land. */
  answered(): void;
}

export interface Ticket {
  /** Nothing newer began since this ticket was taken: its answer may be applied. */
  current(): boolean;
}

export function latest(): Latest {
  let seq = 0;
  // Tickets at or below the floor were asked for before an action that has been answered.
  let floor = 0;
  const ticket = (mine: number): Ticket => ({ current: () => mine === seq && mine > floor });
  return {
    begin: () => ticket(++seq),
    follow: () => ticket(seq),
    supersede() {
      seq++;
      floor = Math.max(floor, seq - 1);
    },
    sent() {
      const mark = seq;
      return {
        answered() {
          floor = Math.max(floor, mark);
        },
      };
    },
  };
}

/** A refresh that may be asked for often and runs at most once per interval (see lib/coalesce.ts). */
export type Refresher = Coalesced;

export interface DomainScope {
  readonly client: GatehouseClient;
  /** Follows a host event for the life of the binding. */
  on<E extends EventName>(event: E, handler: (payload: EventPayload<E>) => void): void;
  /** A coalesced refresh; pending runs are dropped on reconnect, on a refused console and on dispose. */
  refresher(task: () => Promise<unknown>, intervalMs: number): Refresher;
  /**
   * A refresh for data only one view shows: requested while another view is on screen it only
   * marks the data stale, and runs when that view opens. A flood of events elsewhere (a
   * terminal's transcript filling the audit log) then costs nothing.
   */
  whileShown(view: ViewId, task: () => Promise<unknown>, intervalMs: number): Refresher;
  /** Anything else to undo on dispose (a store subscription, a window listener). */
  add(off: () => void): void;
}

export interface DomainHooks {
  /** Loads what the domain shows; runs when the client connects and on every reconnect. */
  load(): unknown;
  /** Back to nothing: the host refused this console, and nothing it sent may stay on screen. */
  reset(): void;
}

/** A domain's binding: call it with the client, call what it returns to undo it. */
export type DomainBinder = (client: GatehouseClient) => () => void;

export function bindDomain(client: GatehouseClient, setup: (scope: DomainScope) => DomainHooks): () => void {
  const offs: (() => void)[] = [];
  const refreshers: Refresher[] = [];
  const cancelAll = () => {
    for (const r of refreshers) r.cancel();
  };

  const scope: DomainScope = {
    client,
    on(event, handler) {
      offs.push(client.onEvent(event, handler));
    },
    refresher(task, intervalMs) {
      const r = coalesce(async () => void (await task()), intervalMs);
      refreshers.push(r);
      return r;
    },
    whileShown(view, task, intervalMs) {
      const inner = coalesce(async () => void (await task()), intervalMs);
      let stale = false;
      offs.push(
        useUiStore.subscribe((ui, prev) => {
          if (ui.view === view && prev.view !== view && stale) {
            stale = false;
            inner.request();
          }
        }),
      );
      const r: Refresher = {
        request() {
          if (useUiStore.getState().view === view) inner.request();
          else stale = true;
        },
        cancel() {
          inner.cancel();
          stale = false;
        },
      };
      refreshers.push(r);
      return r;
    },
    add(off) {
      offs.push(off);
    },
  };

  const hooks = setup(scope);
  // A restarted host may have a new pid, new state and new events: load everything again.
  const load = () => {
    cancelAll();
    void hooks.load();
  };
  offs.push(
    client.onStateChange((state, previous) => {
      if (state === previous) return;
      if (state === 'connected') load();
      if (state === 'unauthorized') {
        cancelAll();
        hooks.reset();
      }
    }),
  );
  if (client.getState() === 'connected') load();

  return () => {
    cancelAll();
    for (const off of offs) off();
  };
}
