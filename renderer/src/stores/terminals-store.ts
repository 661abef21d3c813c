// PTY sessions an operator can watch: the host's list, the one open in the pane, and what the
// last action did. Output never goes through the store: it is written straight into xterm.js.
import { create } from 'zustand';
import type { EventPayload, ResponseOf, TerminalSessionView } from '../../../shared/contract.ts';

/** A terminal adapter session: the adapter watching one terminal, with its last classify. */
export type AdapterSessionView = EventPayload<'adapters.changed'>;
export type AdapterPluginView = ResponseOf<'adapter.list'>['plugins'][number];

export type TerminalAction = 'start' | 'take-over' | 'release' | 'interrupt' | 'kill' | 'adapter';

export interface TerminalsStore {
  sessions: TerminalSessionView[];
  loaded: boolean;
  listError: string | null;
  /** The session open in the pane (kept while the operator is on another view). */
  selected: string | null;
  /** An action in flight. */
  busy: TerminalAction | null;
  /** The last action's failure, as a sentence. */
  actionError: string | null;
  /** Adapter sessions by terminal id (a terminal run with an adapter shows its classify state). */
  adapters: Record<string, AdapterSessionView>;
  /** The terminal adapters the host knows, for "Run with adapter". */
  adapterPlugins: AdapterPluginView[];
}

export const initialTerminalsState: TerminalsStore = {
  sessions: [],
  loaded: false,
  listError: null,
  selected: null,
  busy: null,
  actionError: null,
  adapters: {},
  adapterPlugins: [],
};

export const useTerminalsStore = create<TerminalsStore>()(() => ({ ...initialTerminalsState }));

/** Replaces one session in the list (an action's answer arrives before the list is refetched). */
export function upsertSession(session: TerminalSessionView): void {
  useTerminalsStore.setState((s) => {
    const i = s.sessions.findIndex((x) => x.id === session.id);
    if (i < 0) return { sessions: [session, ...s.sessions] };
    const sessions = [...s.sessions];
    sessions[i] = session;
    return { sessions };
  });
}

/** "exit 0", "SIGKILL", "running". */
export function exitLabel(s: TerminalSessionView): string {
  if (s.state === 'running') return s.paused ? 'running (paused)' : 'running';
  if (s.signal) return s.signal;
  return `exit ${s.exitCode ?? '?'}`;
}

export function upsertAdapterSession(a: AdapterSessionView): void {
  useTerminalsStore.setState((s) => ({ adapters: { ...s.adapters, [a.terminal]: a } }));
}

/** "waiting for permission", "ready", … and the adapter's confidence, as the row shows it. */
export function adapterStateLabel(a: AdapterSessionView): string {
  if (a.state === 'ended') return `adapter ended: ${a.ended?.code ?? 'closed'}`;
  if (!a.classification) return 'adapter starting';
  return `${a.classification.state.replace(/_/g, ' ')} (${Math.round(a.classification.confidence * 100)}%)`;
}
