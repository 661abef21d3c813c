// The Getting Started domain: the steps, loaded on connect and refreshed while the Start view
// is open on the host events that can change a step (bindGettingStarted), and what the panel
// does with the host: enable the example tool after showing its scan, send the test call,
// dismiss or bring the panel back, and the links that take the operator to where each step's
// result shows (inbox, Health, Audit, Settings).
import { errorMessage } from '../lib/error-message.ts';
import { emptyFilter } from '../stores/audit-store.ts';
import { useApprovalsStore } from '../stores/approvals-store.ts';
import { initialGettingStartedState, useGettingStartedStore } from '../stores/getting-started-store.ts';
import { useUiStore, type ViewId } from '../stores/ui-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { CONNECT_AGENT_ANCHOR } from '../lib/view-anchors.ts';
import { runSearch } from './audit-actions.ts';
import { bindDomain, latest } from './bind-domain.ts';
import { requestPlugin } from './plugins-actions.ts';

const get = useGettingStartedStore.getState;
const set = useGettingStartedStore.setState;

/** The arguments of the console's test call to the example tool. */
export const TEST_CALL = { tool: 'hello', arguments: { name: 'Gatehouse' } } as const;

/** The steps follow plugins, the inbox, settings and the audit log: refetch once per burst. */
export const GUIDE_REFRESH_MS = 100;

/** The answer carrying the steps to keep: an older load never overwrites a newer answer. */
const steps = latest();

export function bindGettingStarted(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    // The steps are on screen only in the Start view: elsewhere a change marks them stale.
    const refresh = d.whileShown('start', () => loadGettingStarted(client), GUIDE_REFRESH_MS);
    // A test call's progress and an agent's first call are read from the audit log; the example
    // plugin's state from the plugins; the test call's item from the inbox; the mode from settings.
    d.on('audit.appended', () => refresh.request());
    d.on('plugins.changed', () => refresh.request());
    d.on('approvals.changed', () => refresh.request());
    d.on('settings.changed', () => refresh.request());
    d.add(watchNavigation());
    return {
      load: () => loadGettingStarted(client).then(openAtStartIfDue),
      reset: () => {
        steps.supersede();
        set({ ...initialGettingStartedState });
      },
    };
  });
}

export async function loadGettingStarted(client: GatehouseClient): Promise<void> {
  const req = steps.begin();
  try {
    const guide = await client.call('gettingStarted.get', {});
    if (!req.current()) return;
    set({ guide, loadError: null });
  } catch (err) {
    if (req.current()) set({ loadError: errorMessage(err) });
  }
}

/** The example plugin's scan, shown before it is enabled (plugins.get: findings and problems). */
export async function loadExampleScan(client: GatehouseClient, name: string): Promise<void> {
  try {
    const scan = await client.call('plugins.get', { name });
    set({ scan, scanError: null });
  } catch (err) {
    set({ scan: null, scanError: errorMessage(err) });
  }
}

async function act(name: string, fn: () => Promise<void>): Promise<void> {
  if (get().busy) return;
  set({ busy: name, actionError: null });
  try {
    await fn();
  } catch (err) {
    set({ actionError: errorMessage(err) });
  } finally {
    set({ busy: null });
  }
}

/** Pins the example's files, as the Plugins view's Enable does (audited as plugin.enabled). */
export function enableExample(client: GatehouseClient, name: string): Promise<void> {
  return act('enable', async () => {
    await client.call('plugins.enable', { name });
    await Promise.all([loadGettingStarted(client), loadExampleScan(client, name)]);
  });
}

/** Sends the test call; the host answers once it waits in the inbox (or is already decided). */
export function sendTestCall(client: GatehouseClient): Promise<void> {
  return act('send', async () => {
    const testCall = await client.call('gateway.testCall', { tool: TEST_CALL.tool, arguments: { ...TEST_CALL.arguments } });
    const g = get().guide;
    steps.supersede();
    if (g) set({ guide: { ...g, testCall, testCallDone: testCall.stage === 'decided' || testCall.stage === 'finished' } });
    await loadGettingStarted(client);
  });
}

export function setDismissed(client: GatehouseClient, dismissed: boolean): Promise<void> {
  return act('dismiss', async () => {
    const req = steps.begin();
    const guide = await client.call('gettingStarted.update', { dismissed });
    if (req.current()) set({ guide });
    if (dismissed) useUiStore.getState().setView('approvals');
  });
}

export function setAgentSkipped(client: GatehouseClient, agentSkipped: boolean): Promise<void> {
  return act('skip', async () => {
    const req = steps.begin();
    const guide = await client.call('gettingStarted.update', { agentSkipped });
    if (req.current()) set({ guide });
  });
}

// ---- opening the panel by itself, once per console load -----------------------------------------

let navigated = false;
let decided = false;

/**
 * Call once at start: a view switch, or any click or key press (even on the view already shown),
 * means the operator is already doing something, and the panel must not take the screen from them.
 */
export function watchNavigation(): () => void {
  const acted = () => {
    navigated = true;
  };
  window.addEventListener('pointerdown', acted, { capture: true });
  window.addEventListener('keydown', acted, { capture: true });
  const off = useUiStore.subscribe((s, prev) => {
    if (s.view !== prev.view) navigated = true;
  });
  return () => {
    window.removeEventListener('pointerdown', acted, { capture: true });
    window.removeEventListener('keydown', acted, { capture: true });
    off();
  };
}

/**
 * Opens the panel when the host says it is neither done nor dismissed, unless the operator has
 * already gone somewhere else: the console never pulls a view away from under them.
 */
export function openAtStartIfDue(): void {
  const g = get().guide;
  if (decided || !g) return;
  decided = true;
  if (!g.dismissed && !g.completed && !navigated) useUiStore.getState().setView('start');
}

// ---- links to where each step's result shows ----------------------------------------------------

/** Scrolls to an element of a view once it is on screen, and marks it briefly (data-revealed). */
function reveal(view: ViewId, selector: string): void {
  useUiStore.getState().setView(view);
  let frames = 0;
  const tick = () => {
    const el = document.querySelector<HTMLElement>(selector);
    if (!el) {
      // The view renders on the next frames; give up quietly after half a second.
      if (++frames < 30) requestAnimationFrame(tick);
      return;
    }
    el.scrollIntoView({ block: 'start' });
    el.dataset.revealed = 'true';
    setTimeout(() => delete el.dataset.revealed, 2000);
  };
  requestAnimationFrame(tick);
}

/** Settings, scrolled to Connect an agent (the Settings view handles the anchor). */
export function openConnectAgent(): void {
  useUiStore.getState().setView('settings', { anchor: CONNECT_AGENT_ANCHOR });
}

export function openExampleInPlugins(client: GatehouseClient, name: string): void {
  useUiStore.getState().setView('plugins');
  requestPlugin(client, name);
}

/** The inbox with the test call's item highlighted (while it is pending). */
export function openInboxItem(approval: string | null): void {
  if (approval) useApprovalsStore.setState({ cursor: approval });
  useUiStore.getState().setView('approvals');
}

export function openHealthRow(plugin: string): void {
  reveal('health', `[data-testid="health-row"][data-name="${CSS.escape(plugin)}"]`);
}

/** The Audit view searching the test call's session: every event of the call, and who sent it. */
export function openAuditSession(client: GatehouseClient, session: string): void {
  void runSearch(client, { ...emptyFilter, session });
  useUiStore.getState().setView('audit');
}
