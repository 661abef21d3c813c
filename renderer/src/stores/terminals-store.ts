// Commands running in a PTY that an operator can watch. Empty until the PTY runner exists.
import { create } from 'zustand';

export interface TerminalSession {
  id: string;
  command: string;
  startedAt: number;
}

export interface TerminalsStore {
  sessions: TerminalSession[];
}

export const useTerminalsStore = create<TerminalsStore>()(() => ({ sessions: [] }));
