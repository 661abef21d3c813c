// The Terminals domain: the host's PTY sessions, listed on connect and on every reconnect and
// refreshed on terminals.changed (bindTerminals), and the operator's actions. Failures land in
// the store as sentences.
import { errorMessage } from '../lib/error-message.ts';
import { initialTerminalsState, upsertAdapterSession, upsertSession, useTerminalsStore, type TerminalAction } from '../stores/terminals-store.ts';
import { bindDomain, latest } from './bind-domain.ts';
import type { GatehouseClient } from '../transport/client.ts';

const set = useTerminalsStore.setState;
const get = useTerminalsStore.getState;

/** Starts, exits and take-overs come in bursts: refetch at most this often. */
export const TERMINALS_REFRESH_MS = 50;

/** The list answer to keep: an older list never overwrites a newer one. */
const list = latest();
/** The same for the adapters the host knows. */
const adapterList = latest();

export async function loadTerminals(client: GatehouseClient): Promise<void> {
  const req = list.begin();
  try {
    const { sessions } = await client.call('terminals.list', {});
    if (req.current()) set({ sessions, loaded: true, listError: null });
  } catch (err) {
    if (req.current()) set({ listError: errorMessage(err) });
  }
}

export function bindTerminals(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    const refresh = d.refresher(() => loadTerminals(client), TERMINALS_REFRESH_MS);
    d.on('terminals.changed', () => refresh.request());
    d.on('adapters.changed', (a) => upsertAdapterSession(a));
    // An adapter dropped into a plugins folder, removed, edited or found by a rescan: the host says
    // plugins.changed (adapters.changed is only for running adapter sessions), and "Run with
    // adapter" must offer what the host has now, without a reload.
    const adapterRefresh = d.refresher(() => loadAdapterPlugins(client), TERMINALS_REFRESH_MS);
    d.on('plugins.changed', () => adapterRefresh.request());
    return {
      load: async () => {
        await Promise.all([loadTerminals(client), loadAdapters(client)]);
      },
      reset: () => {
        list.supersede();
        adapterList.supersede();
        set({ ...initialTerminalsState });
      },
    };
  });
}

async function act<T>(action: TerminalAction, run: () => Promise<T>): Promise<T | null> {
  if (get().busy) return null;
  set({ busy: action, actionError: null });
  try {
    return await run();
  } catch (err) {
    set({ actionError: errorMessage(err) });
    return null;
  } finally {
    set({ busy: null });
  }
}

/** "New shell": the operator's own shell on the host, opened in the pane. */
export async function startShell(client: GatehouseClient, size: { cols: number; rows: number }): Promise<void> {
  const session = await act('start', () => client.call('terminals.start', size));
  if (!session) return;
  upsertSession(session);
  set({ selected: session.id });
}

export async function takeOver(client: GatehouseClient, id: string): Promise<boolean> {
  const session = await act('take-over', () => client.call('terminals.takeOver', { id }));
  if (session) upsertSession(session);
  return session !== null;
}

/** Hands the terminal back: this console stops typing into it (recorded in the audit log). */
export async function releaseTerminal(client: GatehouseClient, id: string): Promise<boolean> {
  const session = await act('release', () => client.call('terminals.release', { id }));
  if (session) upsertSession(session);
  return session !== null;
}

/**
 * Ctrl-C to the session's foreground program, the gentle step before Kill. Typing needs the
 * session taken over (the host refuses input otherwise), so this takes it over first; both are
 * recorded in the audit log with the operator's name.
 */
export async function interruptTerminal(client: GatehouseClient, id: string, youControl: boolean): Promise<void> {
  if (!youControl && !(await takeOver(client, id))) return;
  await act('interrupt', () => client.call('terminals.input', { id, data: '\x03' }));
}

export async function killTerminal(client: GatehouseClient, id: string): Promise<void> {
  const session = await act('kill', () => client.call('terminals.kill', { id }));
  if (session) upsertSession(session);
}

/** The adapters the host knows and the adapter sessions running now. */
export async function loadAdapters(client: GatehouseClient): Promise<void> {
  await Promise.all([loadAdapterPlugins(client), loadAdapterSessions(client)]);
}

/** The adapters "Run with adapter" offers; an older list never overwrites a newer one. */
async function loadAdapterPlugins(client: GatehouseClient): Promise<void> {
  const req = adapterList.begin();
  try {
    const { plugins } = await client.call('adapter.list', {});
    if (req.current()) set({ adapterPlugins: plugins });
  } catch (err) {
    if (req.current()) set({ actionError: `Could not load the terminal adapters: ${errorMessage(err)}` });
  }
}

async function loadAdapterSessions(client: GatehouseClient): Promise<void> {
  try {
    const { sessions } = await client.call('adapter.live', {});
    set({ adapters: Object.fromEntries(sessions.map((a) => [a.terminal, a])) });
  } catch (err) {
    set({ actionError: `Could not load the terminal adapter sessions: ${errorMessage(err)}` });
  }
}

/**
 * "Run with adapter": the adapter's default target, or the command typed (split on spaces), in a
 * new terminal the adapter supervises; its permission questions reach the inbox.
 */
export async function startWithAdapter(client: GatehouseClient, plugin: string, commandLine: string): Promise<boolean> {
  const words = commandLine.trim().split(/\s+/).filter(Boolean);
  const started = await act('adapter', () => client.call('adapter.start', { plugin, supervise: true, ...(words.length ? { command: words[0]!, args: words.slice(1) } : {}) }));
  if (!started) return false;
  upsertAdapterSession(started);
  set({ selected: started.terminal });
  await loadTerminals(client);
  return true;
}

/** Keystrokes for the shell; a refusal (this console lost control) lands in the store as a sentence. */
export function typeIntoTerminal(client: GatehouseClient, id: string, data: string): void {
  client.call('terminals.input', { id, data }).catch((err: unknown) => set({ actionError: errorMessage(err) }));
}

/**
 * The pane's size in cells. A failed resize is dropped: the next resize or take-over sends the
 * size again, and a refusal is the non-controller's (the controller's size wins).
 */
export function resizeTerminal(client: GatehouseClient, id: string, cols: number, rows: number): void {
  client.call('terminals.resize', { id, cols, rows }).catch(() => {});
}
