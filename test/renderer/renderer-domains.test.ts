// The console's one pattern for pushed data (renderer/src/sync/bind-domain.ts and each domain's
// bindX in sync/): a domain loads when the client connects and on every reconnect, follows the
// host's events, empties itself when a host refuses the console, drops stale answers, and undoes
// every subscription when disposed. Against a real host (SQLite audit log, plugin folders on disk)
// through the real typed client, over a transport that hands calls to the host's dispatcher and
// its events back, the way the Electron shell's IPC does, and that can hold an answer back so a
// test can deliver answers out of order.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../shared/contract.ts';
import { createHost, type Host } from '../../main/host/create-host.ts';
import type { ToolCall } from '../../main/policy/types.ts';
import { initialActivityState, useActivityStore } from '../../renderer/src/stores/activity-store.ts';
import { initialApprovalsState, useApprovalsStore } from '../../renderer/src/stores/approvals-store.ts';
import { initialPluginsState, usePluginsStore } from '../../renderer/src/stores/plugins-store.ts';
import { useUiStore } from '../../renderer/src/stores/ui-store.ts';
import { ACTIVITY_REFRESH_MS, bindActivity } from '../../renderer/src/sync/activity-actions.ts';
import { approveWithGrant, bindApprovals, bindGrants, loadApprovals } from '../../renderer/src/sync/approvals-actions.ts';
import { bindDomain, latest, type DomainBinder } from '../../renderer/src/sync/bind-domain.ts';
import { bindConnection, bindStores, consoleDomains } from '../../renderer/src/sync/bind-stores.ts';
import { bindJobs } from '../../renderer/src/sync/jobs-actions.ts';
import { bindPlugins, loadPluginList, runPluginAction } from '../../renderer/src/sync/plugins-actions.ts';
import { createClient, type GatehouseClient } from '../../renderer/src/transport/client.ts';
import type { ConnectionState, RawEventListener, StateListener, Transport } from '../../renderer/src/transport/types.ts';
import { tempDir } from '../support/temp.ts';
import { eventually } from '../support/wait.ts';
import type { StoreApi, UseBoundStore } from 'zustand';
import { initialAuditState, useAuditStore } from '../../renderer/src/stores/audit-store.ts';
import { initialCatalogState, useCatalogStore } from '../../renderer/src/stores/catalog-store.ts';
import { initialGrantsState, useGrantsStore } from '../../renderer/src/stores/grants-store.ts';
import { initialHealthState, useHealthStore } from '../../renderer/src/stores/health-store.ts';
import { initialPolicyState, usePolicyStore } from '../../renderer/src/stores/policy-store.ts';
import { initialSettingsState, useSettingsStore } from '../../renderer/src/stores/settings-store.ts';
import { initialTerminalsState, useTerminalsStore } from '../../renderer/src/stores/terminals-store.ts';
import { bindAudit } from '../../renderer/src/sync/audit-actions.ts';
import { bindCatalog } from '../../renderer/src/sync/catalog-actions.ts';
import { bindTeam } from '../../renderer/src/sync/team-actions.ts';
import { initialTeamState, useTeamStore } from '../../renderer/src/stores/team-store.ts';
import { bindHealth } from '../../renderer/src/sync/health-actions.ts';
import { bindPolicy } from '../../renderer/src/sync/policy-actions.ts';
import { bindSettings } from '../../renderer/src/sync/settings-actions.ts';
import { bindTerminals } from '../../renderer/src/sync/terminals-actions.ts';
import { saveSetting, useSettingEdits } from '../../renderer/src/views/settings/setting-edits.ts';
import type { MethodName } from '../../shared/contract.ts';
import type { ViewId } from '../../renderer/src/stores/ui-store.ts';

const helloDir = join(import.meta.dirname, '..', '..', 'examples', 'plugins', 'hello');

/** The host's dispatcher and event bus as a console transport; the test sets the connection state. */
class HostTransport implements Transport {
  readonly shell = 'electron' as const;
  readonly calls: string[] = [];
  private state: ConnectionState = 'connecting';
  private readonly states = new Set<StateListener>();
  private readonly holding = new Set<string>();
  private readonly held: { method: string; answer: Promise<Envelope<unknown>>; release(): void }[] = [];

  constructor(private readonly host: Host) {}

  invoke(method: string, params: unknown): Promise<Envelope<unknown>> {
    this.calls.push(method);
    // The host answers at once; a held answer only reaches the console on release().
    const answer = this.host.dispatcher.dispatch(method, params, { console: 'electron', operator: 'tester' });
    if (!this.holding.delete(method)) return answer;
    return new Promise((resolve) => this.held.push({ method, answer, release: () => void answer.then(resolve) }));
  }
  /** The next answer to `method` waits for release(). */
  hold(method: string): void {
    this.holding.add(method);
  }
  /** The held answer, as the host gave it, and the function that delivers it. */
  async heldAnswer(method: string): Promise<{ envelope: Envelope<unknown>; release(): void }> {
    await eventually(() => expect(this.held.some((h) => h.method === method)).toBe(true));
    const i = this.held.findIndex((h) => h.method === method);
    const [h] = this.held.splice(i, 1);
    return { envelope: await h!.answer, release: h!.release };
  }
  onEvent(listener: RawEventListener): () => void {
    return this.host.bus.subscribe(listener);
  }
  onState(listener: StateListener): () => void {
    this.states.add(listener);
    return () => this.states.delete(listener);
  }
  getState(): ConnectionState {
    return this.state;
  }
  getDetail(): string | null {
    return null;
  }
  setState(next: ConnectionState): void {
    const previous = this.state;
    this.state = next;
    for (const l of this.states) l(next, previous);
  }
  start(): void {}
  close(): void {}
  count(method: string): number {
    return this.calls.filter((m) => m === method).length;
  }
}

/** The real client, counting the subscriptions a binding holds (a disposed binding holds none). */
function counting(client: GatehouseClient): GatehouseClient & { subscriptions(): number } {
  let live = 0;
  const track = (off: () => void) => {
    live++;
    let done = false;
    return () => {
      if (!done) live--;
      done = true;
      off();
    };
  };
  return {
    ...client,
    onEvent: (name, cb) => track(client.onEvent(name, cb)),
    onStateChange: (cb) => track(client.onStateChange(cb)),
    subscriptions: () => live,
  };
}

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});
beforeEach(() => {
  usePluginsStore.setState({ ...initialPluginsState });
  useActivityStore.setState({ ...initialActivityState });
  useApprovalsStore.setState({ ...initialApprovalsState });
  useUiStore.setState({ view: 'approvals' });
});

async function startHost(settings?: Record<string, unknown>): Promise<{ host: Host; home: string; transport: HostTransport; client: ReturnType<typeof counting> }> {
  const home = join(tempDir('gatehouse-domains-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  if (settings) writeFileSync(join(home, 'settings.json'), JSON.stringify(settings));
  cpSync(helloDir, join(home, 'plugins', 'hello'), { recursive: true });
  const host = createHost({ home, shell: 'electron', log: () => {}, projectDir: home });
  hosts.push(host);
  await host.ready;
  const transport = new HostTransport(host);
  return { host, home, transport, client: counting(createClient(transport)) };
}

const pluginNames = () => usePluginsStore.getState().plugins.map((p) => p.name);

describe('latest(): the one stale-answer guard', () => {
  it('keeps only the newest request, and a follow-up of it, until something newer begins or supersedes', () => {
    const guard = latest();
    const first = guard.begin();
    expect(first.current()).toBe(true);
    const second = guard.begin();
    expect(first.current()).toBe(false);
    expect(second.current()).toBe(true);
    // The next page of the same search is as current as the search itself.
    const page = guard.follow();
    expect(page.current()).toBe(true);
    guard.supersede();
    expect(second.current()).toBe(false);
    expect(page.current()).toBe(false);
  });

  it("an action's answer drops the lists asked for before it was sent, never one asked for since", () => {
    const guard = latest();
    const before = guard.begin();
    const sent = guard.sent();
    sent.answered();
    expect(before.current()).toBe(false);

    const sentAgain = guard.sent();
    const since = guard.begin();
    sentAgain.answered();
    expect(since.current()).toBe(true);
  });
});

describe('a domain binding against a real host', () => {
  it('loads on connect and on every reconnect, follows pushes, empties on a refused console, and lets go of everything when disposed', async () => {
    const { host, transport, client } = await startHost();
    const dispose = bindPlugins(client);
    // Not connected yet: nothing is asked.
    expect(transport.count('plugins.list')).toBe(0);

    transport.setState('connected');
    await eventually(() => expect(usePluginsStore.getState().listLoaded).toBe(true));
    expect(pluginNames()).toEqual(['hello']);

    // A plugin scaffolded from another console: the host pushes plugins.changed and the list follows.
    await host.dispatcher.dispatch('plugins.create', { name: 'fresh', lang: 'sh' }, { console: 'cli', operator: 'someone-else' });
    await eventually(() => expect(pluginNames()).toContain('fresh'));

    // A restarted host may hold anything: a reconnect loads again.
    const before = transport.count('plugins.list');
    transport.setState('reconnecting');
    transport.setState('connected');
    await eventually(() => expect(transport.count('plugins.list')).toBeGreaterThan(before));

    // A host that refuses this console: nothing it sent stays.
    transport.setState('unauthorized');
    expect(usePluginsStore.getState()).toMatchObject({ plugins: [], listLoaded: false });

    expect(client.subscriptions()).toBeGreaterThan(0);
    dispose();
    expect(client.subscriptions()).toBe(0);
  });

  it('drops a list that was asked for before an action whose answer is already shown', async () => {
    const { transport, client } = await startHost();
    transport.setState('connected');
    await loadPluginList(client);
    expect(usePluginsStore.getState().plugins.find((p) => p.name === 'hello')?.status).not.toBe('enabled');

    transport.hold('plugins.list');
    const staleLoad = loadPluginList(client);
    // The host answered before the enable below: its list says hello is not enabled.
    const stale = await transport.heldAnswer('plugins.list');
    const staleHello = (stale.envelope as { ok: true; result: { plugins: { name: string; status: string }[] } }).result.plugins.find((p) => p.name === 'hello');
    expect(staleHello?.status).not.toBe('enabled');

    expect(await runPluginAction(client, 'enable', 'hello')).toEqual({ kind: 'done' });
    expect(usePluginsStore.getState().plugins.find((p) => p.name === 'hello')?.status).toBe('enabled');

    // The older list arrives last; the enable's answer stays on screen.
    stale.release();
    await staleLoad;
    expect(usePluginsStore.getState().plugins.find((p) => p.name === 'hello')?.status).toBe('enabled');
  });

  it("a grant's answer arriving after the inbox was asked for again keeps the calls the grant released out of the inbox", async () => {
    // On a loaded machine, "Don't ask again" answers the console after the grant's sweep released
    // the other waiting calls and after the console, told by the host, asked for the inbox again.
    // That list is newer than the answer (which carries one item): it must land.
    const { host, home, transport, client } = await startHost({ mode: 'dry-run', autonomy: 'supervised', hookAsk: 'inbox' });
    const dispose = bindApprovals(client);
    transport.setState('connected');
    const cmd = (id: string, command: string) => {
      const call: Omit<ToolCall, 'receivedAt'> = { id, agent: 'claude', session: 's1', tool: 'Bash', arguments: { command }, cwd: home, source: 'hook' };
      return host.gateway.call(call, { execute: false });
    };
    const calls = [cmd('c-1', 'npm test'), cmd('c-2', 'npm test -- --shard=1'), cmd('c-3', 'npm test -- --shard=2'), cmd('c-4', 'npm run lint')];
    await eventually(() => expect(host.approvals.list({ state: 'pending' })).toHaveLength(4));
    await loadApprovals(client);
    expect(useApprovalsStore.getState().pendingCount).toBe(4);
    const first = useApprovalsStore.getState().items.find((i) => i.call.id === 'c-1')!;

    transport.hold('approvals.grant');
    transport.hold('approvals.list');
    const deciding = approveWithGrant(client, first, { kind: 'command', value: 'npm test', scope: 'session', minutes: 30 });
    // The host has released the two shards by the grant; the console's refetch is on its way.
    for (const c of calls.slice(0, 3)) expect((await c).decision).toBe('allow');
    const list = await transport.heldAnswer('approvals.list');
    const grant = await transport.heldAnswer('approvals.grant');
    grant.release();
    expect(await deciding).toBe(true);
    list.release();
    await eventually(() => expect(useApprovalsStore.getState().items.filter((i) => i.state === 'pending').map((i) => i.call.id)).toEqual(['c-4']));
    expect(useApprovalsStore.getState().pendingCount).toBe(1);
    dispose();
    await host.dispatcher.dispatch('approvals.deny', { id: host.approvals.list({ state: 'pending' })[0]!.id, reason: 'end of test' }, { console: 'electron', operator: 'tester' });
    await calls[3];
  });

  it('a settings change shows at once while the host saves it, and goes back with the reason when the host refuses it', async () => {
    const { transport, client } = await startHost();
    useSettingsStore.setState({ ...initialSettingsState });
    useSettingEdits.setState({ pending: [], fieldErrors: {}, drafts: {} });
    const dispose = bindSettings(client);
    transport.setState('connected');
    await eventually(() => expect(useSettingsStore.getState().loaded).toBe(true));
    const shown = () => useSettingEdits.getState().drafts.containment ?? useSettingsStore.getState().settings?.containment;
    expect(shown()).toEqual(['full', 'grants']);

    // The answer is on its way: the box the operator clicked is already ticked (a checkbox that
    // waits for the round trip looks dead, and Playwright's check() calls it a failed click).
    transport.hold('settings.update');
    const saving = saveSetting(client, { containment: ['supervised', 'full', 'grants'] });
    expect(shown()).toEqual(['supervised', 'full', 'grants']);
    expect(useSettingEdits.getState().pending).toEqual(['containment']);
    (await transport.heldAnswer('settings.update')).release();
    expect(await saving).toBe(true);
    expect(useSettingEdits.getState().drafts).toEqual({});
    expect(shown()).toEqual(['supervised', 'full', 'grants']);

    // Refused: the field shows the host's value again, with its sentence.
    expect(await saveSetting(client, { approvalExpiryMinutes: -4 })).toBe(false);
    expect(useSettingEdits.getState().drafts).toEqual({});
    expect(useSettingsStore.getState().settings?.approvalExpiryMinutes).not.toBe(-4);
    expect(useSettingEdits.getState().fieldErrors.approvalExpiryMinutes).toMatch(/approvalExpiryMinutes/);
    dispose();
  });

  it('refreshes data one view shows only while that view is open, and catches up when it opens', async () => {
    const { host, transport, client } = await startHost();
    const dispose = bindActivity(client);
    transport.setState('connected');
    await eventually(() => expect(useActivityStore.getState().loaded).toBe(true));
    const searches = transport.count('audit.search');
    expect(searches).toBe(1);

    // A control refresh with the same interval, bound after the Activity domain to the same
    // event: timers of equal delay run in the order they were set, so once it has run, a refresh
    // the Activity domain had (wrongly) scheduled would have run too.
    let controlRan!: () => void;
    const control = new Promise<void>((resolve) => (controlRan = resolve));
    const disposeControl = bindDomain(client, (d) => {
      const r = d.refresher(async () => controlRan(), ACTIVITY_REFRESH_MS);
      d.on('audit.appended', () => r.request());
      return { load: () => undefined, reset: () => undefined };
    });
    // The Approvals view is on screen; the host appends to its audit log (an operator enables a plugin).
    await host.dispatcher.dispatch('plugins.enable', { name: 'hello' }, { console: 'cli', operator: 'tester' });
    await control;
    expect(transport.count('audit.search')).toBe(searches);

    // Opening the view reads what it missed.
    useUiStore.getState().setView('activity');
    await eventually(() => expect(transport.count('audit.search')).toBe(searches + 1));
    disposeControl();
    dispose();
  });
});

/**
 * Every other domain's bind, each against its own real host: nothing asked before the connection,
 * its load on connect, a change made from another console followed (the push the domain listens
 * to, with its view open when it refetches only while shown), its store back to the initial
 * state when the host refuses the console, and no subscription left once disposed. Getting
 * started is not here: its bind watches the window's pointer and keys, which Node has not.
 */
interface DomainCase {
  bind: DomainBinder;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each case has its own store type
  store: UseBoundStore<StoreApi<any>>;
  initial: object;
  loads: MethodName;
  loaded(state: never): boolean;
  /** A change from another console (method and request) and what the console then shows or asks; null where no such change is cheap to make. */
  push: { view?: ViewId; act: [MethodName, unknown]; then: { refetches: MethodName } | { shows(state: never): boolean } } | null;
}

const pluginCreated: [MethodName, unknown] = ['plugins.create', { name: 'fresh', lang: 'sh' }];
const refreshHoursSet: [MethodName, unknown] = ['settings.update', { catalogRefreshHours: 5 }];
const domains: Record<string, DomainCase> = {
  settings: {
    bind: bindSettings,
    store: useSettingsStore,
    initial: initialSettingsState,
    loads: 'settings.get',
    loaded: (s: typeof initialSettingsState) => s.loaded && s.gateway !== null,
    push: { act: refreshHoursSet, then: { shows: (s: typeof initialSettingsState) => s.settings?.catalogRefreshHours === 5 } },
  },
  grants: { bind: bindGrants, store: useGrantsStore, initial: initialGrantsState, loads: 'grants.list', loaded: (s: typeof initialGrantsState) => s.loaded, push: null },
  health: {
    bind: bindHealth,
    store: useHealthStore,
    initial: initialHealthState,
    loads: 'health.list',
    loaded: (s: typeof initialHealthState) => s.loaded,
    push: { act: pluginCreated, then: { refetches: 'health.list' } },
  },
  // A host outside team mode: the Team view learns it is not in a team (members.team null); team-console.test.ts covers one that is.
  team: { bind: bindTeam, store: useTeamStore, initial: initialTeamState, loads: 'team.members', loaded: (s: typeof initialTeamState) => s.members !== null && s.members.team === null, push: null },
  policy: { bind: bindPolicy, store: usePolicyStore, initial: initialPolicyState, loads: 'policy.get', loaded: (s: typeof initialPolicyState) => s.policy !== null, push: null },
  catalog: {
    bind: bindCatalog,
    store: useCatalogStore,
    initial: initialCatalogState,
    loads: 'catalog.sources',
    loaded: (s: typeof initialCatalogState) => s.sources !== null,
    push: { view: 'catalog', act: pluginCreated, then: { refetches: 'catalog.sources' } },
  },
  terminals: {
    bind: bindTerminals,
    store: useTerminalsStore,
    initial: initialTerminalsState,
    loads: 'terminals.list',
    loaded: (s: typeof initialTerminalsState) => s.loaded,
    push: { act: pluginCreated, then: { refetches: 'adapter.list' } },
  },
  audit: {
    bind: bindAudit,
    store: useAuditStore,
    initial: initialAuditState,
    loads: 'audit.chainState',
    loaded: (s: typeof initialAuditState) => s.chain !== null && s.eventsLoaded,
    push: { view: 'audit', act: refreshHoursSet, then: { refetches: 'audit.search' } },
  },
};

describe("each domain's bind against a real host", () => {
  beforeEach(() => {
    for (const d of Object.values(domains)) d.store.setState({ ...d.initial });
  });

  it.each(Object.keys(domains))('%s: loads on connect, follows a change from another console, empties when refused, lets go when disposed', async (name) => {
    const d = domains[name]!;
    const { host, transport, client } = await startHost();
    useUiStore.setState({ view: d.push?.view ?? 'approvals' });
    const dispose = d.bind(client);
    expect(transport.count(d.loads)).toBe(0);

    transport.setState('connected');
    await eventually(() => expect(d.loaded(d.store.getState() as never)).toBe(true));
    expect(transport.count(d.loads)).toBeGreaterThan(0);

    if (d.push) {
      const then = d.push.then;
      const before = 'refetches' in then ? transport.count(then.refetches) : 0;
      const answer = await host.dispatcher.dispatch(d.push.act[0], d.push.act[1], { console: 'cli', operator: 'someone-else' });
      expect(answer.ok, JSON.stringify(answer)).toBe(true);
      if ('refetches' in then) await eventually(() => expect(transport.count(then.refetches)).toBeGreaterThan(before));
      else await eventually(() => expect(then.shows(d.store.getState() as never)).toBe(true));
    }

    transport.setState('unauthorized');
    expect(d.store.getState()).toMatchObject(d.initial);

    expect(client.subscriptions()).toBeGreaterThan(0);
    dispose();
    expect(client.subscriptions()).toBe(0);
  });
});

describe('bindStores: the console binds the registry', () => {
  it("binds the connection, the jobs and each view's own domain, and undoes them in reverse", async () => {
    const { transport, client } = await startHost();
    const order: string[] = [];
    const binder =
      (name: string): DomainBinder =>
      (c) => {
        expect(c).toBe(client);
        order.push(`bind ${name}`);
        return () => order.push(`undo ${name}`);
      };
    // Adding a view is one registry entry: its `bind` is all bindStores needs.
    const domains = consoleDomains([{ bind: binder('inbox') }, {}, { bind: binder('new-view') }]);
    expect(domains.slice(0, 2)).toEqual([bindConnection, bindJobs]);
    const dispose = bindStores(client, domains.slice(2));
    expect(order).toEqual(['bind inbox', 'bind new-view']);
    dispose();
    expect(order).toEqual(['bind inbox', 'bind new-view', 'undo new-view', 'undo inbox']);
    expect(transport.calls).toEqual([]);
  });
});
