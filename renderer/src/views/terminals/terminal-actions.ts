// The Terminals domain: the host's PTY sessions, listed on connect and on every reconnect and
// refreshed on terminals.changed (bindTerminals), and the operator's actions. Failures land in
// the store as sentences.
import { errorMessage } from '../../lib/error-message.ts';
import { initialTerminalsState, upsertSession, useTerminalsStore, type TerminalAction } from '../../stores/terminals-store.ts';
import { bindDomain, latest } from '../../sync/bind-domain.ts';
import type { GatehouseClient } from '../../transport/client.ts';

const set = useTerminalsStore.setState;
const get = useTerminalsStore.getState;

/** Starts, exits and take-overs come in bursts: refetch at most this often. */
export const TERMINALS_REFRESH_MS = 50;

/** The list answer to keep: an older list never overwrites a newer one. */
const list = latest();

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
    return {
      load: () => loadTerminals(client),
      reset: () => {
        list.supersede();
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
