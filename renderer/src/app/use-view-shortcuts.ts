// Alt+0…9 open the views in sidebar order (view-registry.ts); a view past the ten digits has a letter (Alt+C: Catalog).
import { useEffect } from 'react';
import { useConsolePrefs } from '../stores/console-prefs-store.ts';
import { useUiStore } from '../stores/ui-store.ts';
import { viewRegistry } from '../views/view-registry.ts';

/**
 * A key the console itself answers (Alt+0…9 opens a view): a focused terminal must not also send
 * it to its shell, where Alt+1 arrives as ESC 1 (`(arg: 1)` in bash) in a root shell.
 */
/** The shortcut a key's physical code stands for: "1" for Digit1 or Numpad1, "C" for KeyC. */
export function shortcutKey(code: string): string | null {
  const m = /^(?:Digit|Numpad)([0-9])$|^Key([A-Z])$/.exec(code);
  return m ? (m[1] ?? m[2]!) : null;
}

export function isAppShortcut(e: KeyboardEvent): boolean {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return false;
  const key = shortcutKey(e.code);
  return key !== null && viewRegistry.some((v) => v.shortcut === key);
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
      const key = shortcutKey(e.code);
      const spec = key !== null ? viewRegistry.find((v) => v.shortcut === key) : undefined;
      if (!spec) return;
      e.preventDefault();
      useUiStore.getState().setView(spec.id, { focus: true });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
