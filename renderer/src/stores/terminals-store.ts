// PTY sessions an operator can watch: the host's list, the one open in the pane, and what the
// last action did. Output never goes through the store: it is written straight into xterm.js.
import { create } from 'zustand';
import type { TerminalSessionView } from '../../../shared/contract.ts';

export type TerminalAction = 'start' | 'take-over' | 'interrupt' | 'kill';

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
}

export const initialTerminalsState: TerminalsStore = {
  sessions: [],
  loaded: false,
  listError: null,
  selected: null,
  busy: null,
  actionError: null,
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
