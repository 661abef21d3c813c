// How often the host refreshes every catalog (settings.catalogRefreshHours, default 6; 0 only when
// asked). Saved through settings.update like every setting, so the change is audited; the host
// reads it at each refresh, so it applies from the next one.
import { useEffect, useId, useState } from 'react';
import { useClient } from '../../sync/client-context.ts';
import { updateSettings } from '../../sync/settings-actions.ts';
import { errorMessage } from '../../lib/error-message.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';

export const DEFAULT_REFRESH_HOURS = 6;

export function RefreshSchedule() {
  const client = useClient();
  const id = useId();
  const saved = useSettingsStore((s) => (s.settings ? (s.settings.catalogRefreshHours ?? DEFAULT_REFRESH_HOURS) : null));
  const [text, setText] = useState('');
  const [note, setNote] = useState<{ error: boolean; text: string } | null>(null);
  useEffect(() => {
    if (saved !== null) setText(String(saved));
  }, [saved]);

  const save = async () => {
    const hours = Number(text);
    if (text.trim() === '' || !Number.isFinite(hours) || hours < 0 || hours > 720) {
      setNote({ error: true, text: 'Refresh every: give a number of hours from 0 to 720 (0 refreshes only when asked).' });
      return;
    }
    try {
      await updateSettings(client, { catalogRefreshHours: hours });
      setNote({ error: false, text: hours === 0 ? 'Saved: catalogs refresh only when asked.' : `Saved: every ${hours} h.` });
    } catch (err) {
      setNote({ error: true, text: errorMessage(err) });
    }
  };

  return (
    <form
      className="catalog-schedule"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label className="field field-inline" htmlFor={`${id}-hours`}>
        <span className="field-label">Refresh every</span>
      </label>
      <input id={`${id}-hours`} className="input catalog-hours" data-testid="catalog-refresh-hours" inputMode="decimal" value={text} disabled={saved === null} aria-describedby={`${id}-note`} onChange={(e) => setText(e.target.value)} />
      <span>hours</span>
      <button type="submit" className="button button-small" data-testid="catalog-refresh-hours-save" disabled={saved === null || text === String(saved)}>
        Save
      </button>
      <span id={`${id}-note`} role="status" className={note?.error ? 'field-error' : 'field-hint'} data-testid="catalog-refresh-hours-note">
        {note?.text ?? 'Revocations apply and updates are found at each refresh; 0 refreshes only when asked.'}
      </span>
    </form>
  );
}
