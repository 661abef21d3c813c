// Settings of this console itself (not the host's): how the keyboard behaves in a focused
// terminal. Saved in this console's storage at once; the field says whether it was saved, as the
// host's settings do, and announces it to screen readers.
import { useEffect, useState } from 'react';
import { errorMessage } from '../../lib/error-message.ts';
import { setTerminalGetsShortcuts, useConsolePrefs } from '../../stores/console-prefs-store.ts';
import { SAVED_SHOWN_MS, SaveState, type SaveStateValue } from './setting-field.tsx';

/** The label docs/ use: keep them the same. */
export const TERMINAL_SHORTCUTS_LABEL = 'Terminal receives app shortcuts';

export function ConsoleSettings() {
  const on = useConsolePrefs((s) => s.terminalGetsShortcuts);
  const [state, setState] = useState<SaveStateValue>('idle');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (state !== 'saved') return;
    const t = setTimeout(() => setState('idle'), SAVED_SHOWN_MS);
    return () => clearTimeout(t);
  }, [state]);

  const change = (next: boolean) => {
    try {
      setTerminalGetsShortcuts(next);
      setError(null);
      setState('saved');
    } catch (err) {
      // Storage full or disabled (a private window): nothing changed, and the field says why.
      setError(`This console could not store the choice: ${errorMessage(err)}`);
      setState('failed');
    }
  };

  return (
    <section className="panel settings-panel" data-testid="console-settings" aria-labelledby="console-settings-heading">
      <h2 id="console-settings-heading" className="panel-title">
        This console
      </h2>
      <div className="settings-grid">
        <div className="setting" data-testid="setting-terminalGetsShortcuts">
          <div className="setting-head">
            <span className="field-label" id="terminal-shortcuts-label">
              {TERMINAL_SHORTCUTS_LABEL}
            </span>
            <SaveState state={state} />
          </div>
          <label className="toggle">
            <input type="checkbox" data-testid="setting-toggle" checked={on} aria-describedby="terminal-shortcuts-hint" onChange={(e) => change(e.target.checked)} />
            <span>Send Alt+0…9 to a focused terminal's shell instead of switching views</span>
          </label>
          <span className="field-hint" id="terminal-shortcuts-hint">
            Off by default: then Alt+1 in a terminal opens Approvals and never reaches the shell. On: the shell gets the keys (bash reads Alt+1 as a digit argument); click outside the terminal to
            use them for views again. Kept by this browser profile or desktop window, not by the host.
          </span>
          {error ? (
            <p className="field-error" role="alert" data-testid="setting-error">
              {error}
            </p>
          ) : null}
        </div>
      </div>
    </section>
  );
}
