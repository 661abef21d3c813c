// Alt+0…9 open the views in sidebar order (view-registry.ts).
import { useEffect } from 'react';
import { useConsolePrefs } from '../stores/console-prefs-store.ts';
import { useUiStore } from '../stores/ui-store.ts';
import { viewRegistry } from '../views/view-registry.ts';

/**
 * A key the console itself answers (Alt+0…9 opens a view): a focused terminal must not also send
 * it to its shell, where Alt+1 arrives as ESC 1 (`(arg: 1)` in bash) in a root shell.
 */
export function isAppShortcut(e: KeyboardEvent): boolean {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return false;
  const m = /^(?:Digit|Numpad)([0-9])$/.exec(e.code);
  return m !== null && viewRegistry.some((v) => v.shortcut === m[1]);
}

/**
 * Whether a focused terminal keeps this key for its shell. The console's shortcuts stay with the
 * console unless the operator chose, in Settings, to let the terminal have them.
 */
export function terminalKeepsKey(e: KeyboardEvent): boolean {
  return !isAppShortcut(e) || useConsolePrefs.getState().terminalGetsShortcuts;
}

export function useViewShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.repeat) return;
      // The operator gave these keys to a focused terminal: its shell has them, not the console.
      if (useConsolePrefs.getState().terminalGetsShortcuts && e.target instanceof Element && e.target.closest('.xterm')) return;
      // e.code, not e.key: on macOS Alt+1 types "¡", and layouts differ on the digit row.
      const m = /^(?:Digit|Numpad)([0-9])$/.exec(e.code);
      const spec = m ? viewRegistry.find((v) => v.shortcut === m[1]) : undefined;
      if (!spec) return;
      e.preventDefault();
      useUiStore.getState().setView(spec.id, { focus: true });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
