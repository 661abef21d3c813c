// Which keys the console itself answers (Alt+0…9 and the letters in view-nav.ts). Below views/
// so that a terminal pane can ask, without importing the app shell that installs the handler
// (app/use-view-shortcuts.ts).
import { useConsolePrefs } from '../stores/console-prefs-store.ts';
import { viewNav } from './view-nav.ts';

/** The shortcut a key's physical code stands for: "1" for Digit1 or Numpad1, "C" for KeyC. */
export function shortcutKey(code: string): string | null {
  const m = /^(?:Digit|Numpad)([0-9])$|^Key([A-Z])$/.exec(code);
  return m ? (m[1] ?? m[2]!) : null;
}

/**
 * A key the console itself answers (Alt+0…9 opens a view): a focused terminal must not also send
 * it to its shell, where Alt+1 arrives as ESC 1 (`(arg: 1)` in bash) in a root shell.
 */
export function isAppShortcut(e: KeyboardEvent): boolean {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return false;
  const key = shortcutKey(e.code);
  return key !== null && viewNav.some((v) => v.shortcut === key);
}

/**
 * Whether a focused terminal keeps this key for its shell. The console's shortcuts stay with the
 * console unless the operator chose, in Settings, to let the terminal have them.
 */
export function terminalKeepsKey(e: KeyboardEvent): boolean {
  return !isAppShortcut(e) || useConsolePrefs.getState().terminalGetsShortcuts;
}
