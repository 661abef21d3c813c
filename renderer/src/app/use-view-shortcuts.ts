// Alt+0…9 open the views in sidebar order (components/view-nav.ts); a view past the ten digits has a letter (Alt+C: Catalog).
import { useEffect } from 'react';
import { useConsolePrefs } from '../stores/console-prefs-store.ts';
import { useUiStore } from '../stores/ui-store.ts';
import { viewNav } from '../components/view-nav.ts';
import { shortcutKey } from '../components/view-shortcuts.ts';

export function useViewShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.repeat) return;
      // The operator gave these keys to a focused terminal: its shell has them, not the console.
      if (useConsolePrefs.getState().terminalGetsShortcuts && e.target instanceof Element && e.target.closest('.xterm')) return;
      // e.code, not e.key: on macOS Alt+1 types "¡", and layouts differ on the digit row.
      const key = shortcutKey(e.code);
      const spec = key !== null ? viewNav.find((v) => v.shortcut === key) : undefined;
      if (!spec) return;
      e.preventDefault();
      useUiStore.getState().setView(spec.id, { focus: true });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
