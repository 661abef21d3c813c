// The gateway's mode, always on screen: dry-run (calls are evaluated and shown, never run) or
// live (approved calls run). Switching asks first; the host writes the switch to the audit log.
import { useEffect, useState } from 'react';
import { useSettingsStore } from '../stores/settings-store.ts';
import { modeHelp, ModeSwitchDialog, type Mode } from './mode-switch-dialog.tsx';

let openSwitch: () => void = () => {};

/** Opens the switch's confirmation, as a click on the indicator does (the command palette's "Go live…"). */
export function requestModeSwitch(): void {
  openSwitch();
}

export function ModeIndicator() {
  const settings = useSettingsStore((s) => s.settings);
  const [confirm, setConfirm] = useState(false);
  // Published from an effect, not during render (as the palette's shortcut sheet is).
  useEffect(() => {
    openSwitch = () => setConfirm(true);
    return () => {
      openSwitch = () => {};
    };
  }, []);
  if (!settings) {
    return (
      <span className="status-item status-mode" data-testid="status-mode" data-mode="">
        Mode —
      </span>
    );
  }
  const mode = settings.mode;
  const next: Mode = mode === 'live' ? 'dry-run' : 'live';
  const overridden = settings.overridden.includes('mode');
  return (
    <>
      <button
        type="button"
        className="status-item status-mode"
        data-testid="status-mode"
        data-mode={mode}
        title={`${modeHelp[mode]} Autonomy: ${settings.autonomy}.${overridden ? ' Set for this run on the command line.' : ''} Click to switch.`}
        onClick={() => setConfirm(true)}
      >
        <span className="mode-badge" data-testid="status-mode-label">
          {mode === 'live' ? 'LIVE' : 'DRY RUN'}
        </span>
        <span className="status-label">autonomy</span> <span data-testid="status-autonomy">{settings.autonomy}</span>
      </button>
      {confirm ? (
        <ModeSwitchDialog next={next} onClose={() => setConfirm(false)} testId="mode-dialog" confirmTestId="mode-confirm" cancelTestId="mode-cancel" busyLabel="Switching…">
          <p className="muted" data-testid="mode-dialog-now">
            Now: {modeHelp[mode]} The switch is written to the audit log with your name{overridden ? '; this run was started with the mode on the command line, and the switch replaces it' : ''}.
          </p>
        </ModeSwitchDialog>
      ) : null}
    </>
  );
}
