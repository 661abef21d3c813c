// Wires the client to the stores: connection state, the initial loads on every (re)connect,
// and host events. Views read stores only; nothing here polls.
import { coalesce } from '../lib/coalesce.ts';
import { errorMessage } from '../lib/error-message.ts';
import { initialAuditState, useAuditStore } from '../stores/audit-store.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import { initialHealthState, useHealthStore } from '../stores/health-store.ts';
import { initialApprovalsState, useApprovalsStore } from '../stores/approvals-store.ts';
import { initialGrantsState, useGrantsStore } from '../stores/grants-store.ts';
import { initialPluginsState, usePluginsStore } from '../stores/plugins-store.ts';
import { initialPolicyState, usePolicyStore } from '../stores/policy-store.ts';
import { useSettingsStore } from '../stores/settings-store.ts';
import { applyJobs, initialJobsState, useJobsStore } from '../stores/jobs-store.ts';
import { loadJobs } from './jobs-actions.ts';
import type { GatehouseClient } from '../transport/client.ts';
import type { ConnectionState } from '../transport/types.ts';
import { notifyNewApprovals } from './approval-notifications.ts';
import { loadApprovals, loadGrants } from './approvals-actions.ts';
import { loadChainState, refreshHead, reloadShownEvents, runSearch } from './audit-actions.ts';
import { loadHealth } from './health-actions.ts';
import { loadPluginList, refreshOpenPlugin } from './plugins-actions.ts';
import { loadPolicy } from './policy-actions.ts';
import { useUiStore } from '../stores/ui-store.ts';
import { initialGettingStartedState, useGettingStartedStore } from '../stores/getting-started-store.ts';
import { loadGettingStarted, openAtStartIfDue, watchNavigation } from './getting-started-actions.ts';

/** Appends come in bursts (one per committed batch); refresh the Audit view's newest rows at most this often. */
export const TAIL_REFRESH_MS = 250;
/** A hot reload or an enable may name several plugins in quick succession: refetch once. */
export const PLUGINS_REFRESH_MS = 50;
/** A failing plugin changes its breaker and metrics on every call: refetch health at most this often. */
export const HEALTH_REFRESH_MS = 250;
/** A batch decision changes many items at once: refetch the inbox (and grants) once. */
export const APPROVALS_REFRESH_MS = 50;
/** The Getting Started steps follow plugins, the inbox, settings and the audit log: refetch once per burst. */
export const GUIDE_REFRESH_MS = 100;

export function bindStores(client: GatehouseClient): () => void {
  const tailRefresh = coalesce(() => refreshHead(client), TAIL_REFRESH_MS);
  const pluginsRefresh = coalesce(() => loadPluginList(client), PLUGINS_REFRESH_MS);
  const openPluginRefresh = coalesce(() => refreshOpenPlugin(client), PLUGINS_REFRESH_MS);
  const healthRefresh = coalesce(() => loadHealth(client), HEALTH_REFRESH_MS);
  const approvalsRefresh = coalesce(() => loadApprovals(client), APPROVALS_REFRESH_MS);
  const grantsRefresh = coalesce(() => loadGrants(client), APPROVALS_REFRESH_MS);
  const guideRefresh = coalesce(() => loadGettingStarted(client), GUIDE_REFRESH_MS);
  let tailStale = false;
  // The steps are on screen only in the Start view: elsewhere a change marks them stale.
  let guideStale = false;
  const guideChanged = () => {
    if (useUiStore.getState().view === 'start') guideRefresh.request();
    else guideStale = true;
  };

  const applyState = (state: ConnectionState) => {
    document.documentElement.dataset.connection = state;
    useConnectionStore.setState({ state, detail: client.getDetail() });
  };

  const loadHostInfo = async () => {
    try {
      const hostInfo = await client.call('host.info', {});
      // A console only ever talks to an Electron or a serve host ('cli' is the CLI's own host).
      const shell = hostInfo.shell === 'cli' ? client.shell : hostInfo.shell;
      useConnectionStore.setState({ hostInfo, hostInfoError: null, shell });
    } catch (err) {
      useConnectionStore.setState({ hostInfoError: errorMessage(err) });
    }
  };

  // A restarted host may have a new pid, a new chain head and new events: load everything again.
  const initialLoads = () => {
    useConnectionStore.setState({ stopping: null });
    tailRefresh.cancel();
    pluginsRefresh.cancel();
    openPluginRefresh.cancel();
    healthRefresh.cancel();
    approvalsRefresh.cancel();
    grantsRefresh.cancel();
    guideRefresh.cancel();
    guideStale = false;
    void loadGettingStarted(client).then(openAtStartIfDue);
    void Promise.all([loadHostInfo(), loadJobs(client), loadChainState(client), runSearch(client), loadPluginList(client), refreshOpenPlugin(client), loadHealth(client), loadApprovals(client), loadGrants(client)]);
    const settings = useSettingsStore.getState();
    void Promise.all([settings.load(), settings.loadGateway(), loadPolicy(client)]);
  };

  useConnectionStore.setState({ shell: client.shell });
  useSettingsStore.getState().bind(client);
  applyState(client.getState());

  const offs = [
    client.onStateChange((state, previous) => {
      applyState(state);
      if (state === previous) return;
      if (state === 'connected') initialLoads();
      if (state === 'unauthorized') {
        // Nothing from a host that refused us stays on screen.
        tailRefresh.cancel();
        pluginsRefresh.cancel();
        openPluginRefresh.cancel();
        healthRefresh.cancel();
        approvalsRefresh.cancel();
        grantsRefresh.cancel();
        guideRefresh.cancel();
        useGettingStartedStore.setState({ ...initialGettingStartedState });
        useJobsStore.setState({ ...initialJobsState });
        useAuditStore.setState({ ...initialAuditState });
        usePluginsStore.setState({ ...initialPluginsState });
        useHealthStore.setState({ ...initialHealthState });
        useApprovalsStore.setState({ ...initialApprovalsState });
        useGrantsStore.setState({ ...initialGrantsState });
        useSettingsStore.getState().reset();
        usePolicyStore.setState({ ...initialPolicyState });
        useConnectionStore.setState({ hostInfo: null, hostInfoError: null });
      }
    }),
    client.onEvent('audit.chain', (chain) => useAuditStore.setState({ chain, chainError: null })),
    // The search results are only on screen in the Audit view: elsewhere a flood of events (a
    // terminal's transcript) must not become a search every 250 ms. Opening the view refreshes them.
    client.onEvent('audit.appended', () => {
      if (useUiStore.getState().view === 'audit') tailRefresh.request();
      else tailStale = true;
      // A test call's progress and an agent's first call are read from the audit log.
      guideChanged();
    }),
    useUiStore.subscribe((ui, prev) => {
      if (ui.view === 'audit' && prev.view !== 'audit' && tailStale) {
        tailStale = false;
        tailRefresh.request();
      }
      if (ui.view === 'start' && prev.view !== 'start' && guideStale) {
        guideStale = false;
        guideRefresh.request();
      }
    }),
    watchNavigation(),
    client.onEvent('plugins.changed', ({ names }) => {
      pluginsRefresh.request();
      const open = usePluginsStore.getState().selected;
      // An empty list means "anything may have changed".
      if (open && (names.length === 0 || names.includes(open))) openPluginRefresh.request();
      // Health has a row per plugin and shows its status: a new, removed or re-enabled plugin changes it.
      healthRefresh.request();
      guideChanged();
    }),
    client.onEvent('health.changed', () => healthRefresh.request()),
    client.onEvent('jobs.progress', (job) => applyJobs([job])),
    client.onEvent('approvals.changed', ({ pending, added }) => {
      // The badge and the title follow the push at once; the list follows the refetch.
      useApprovalsStore.setState({ pendingCount: pending });
      approvalsRefresh.request();
      notifyNewApprovals(client.shell, added);
      guideChanged();
    }),
    client.onEvent('grants.changed', () => grantsRefresh.request()),
    client.onEvent('settings.changed', (view) => {
      useSettingsStore.getState().apply(view);
      guideChanged();
    }),
    // Secrets masked or raw (auditRaw), from this console's save or another's push: the events
    // loaded were sent the other way.
    useSettingsStore.subscribe((s, prev) => {
      if (s.settings && prev.settings && s.settings.auditRaw !== prev.settings.auditRaw) {
        tailRefresh.cancel();
        tailStale = false;
        void reloadShownEvents(client);
      }
    }),
    client.onEvent('gateway.toolsChanged', () => void useSettingsStore.getState().loadGateway()),
    // The editor keeps unsaved edits; loadPolicy announces a changed file instead of replacing them.
    client.onEvent('policy.changed', () => void loadPolicy(client)),
    client.onEvent('host.stopping', ({ reason }) => useConnectionStore.setState({ stopping: reason })),
  ];
  if (client.getState() === 'connected') initialLoads();

  return () => {
    tailRefresh.cancel();
    pluginsRefresh.cancel();
    openPluginRefresh.cancel();
    healthRefresh.cancel();
    approvalsRefresh.cancel();
    grantsRefresh.cancel();
    guideRefresh.cancel();
    for (const off of offs) off();
    useSettingsStore.getState().bind(null);
  };
}
