// Preferences of this console itself, not of the host: how its keyboard behaves. Kept in this
// browser profile's (or Electron window's) localStorage, so they survive a reload and differ per
// console, as they should: one operator's terminal habits are not another's.
import { create } from 'zustand';

const TERMINAL_SHORTCUTS_KEY = 'gatehouse.terminalGetsAppShortcuts';

export interface ConsolePrefs {
  /**
   * A focused terminal receives the console's own shortcuts (Alt+0…9) instead of the console:
   * for operators whose shell or editor in the terminal needs those keys. Off by default, so
   * Alt+1 never reaches a root shell by accident.
   */
  terminalGetsShortcuts: boolean;
}

function read(): ConsolePrefs {
  try {
    return { terminalGetsShortcuts: localStorage.getItem(TERMINAL_SHORTCUTS_KEY) === 'true' };
  } catch {
    return { terminalGetsShortcuts: false };
  }
}

export const useConsolePrefs = create<ConsolePrefs>()(() => read());

/** Saves one preference; throws (and changes nothing) when this console cannot store it. */
export function setTerminalGetsShortcuts(on: boolean): void {
  localStorage.setItem(TERMINAL_SHORTCUTS_KEY, String(on));
  useConsolePrefs.setState({ terminalGetsShortcuts: on });
}
