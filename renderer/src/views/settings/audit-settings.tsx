// The audit log's settings: whether secrets leave the host unmasked (this console, search results,
// exports, `gatehouse audit … --raw`), which asks first, and retention. Each change is saved
// through settings.update like the gateway's settings, and audited by the host.
import { useConnectionStore } from '../../stores/connection-store.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { SettingField } from './setting-field.tsx';
import { NumberSetting, Toggle, type ToggleConfirm } from './setting-controls.tsx';

/** The label docs/ and the CLI's `--raw` refusal name: keep them the same. */
export const AUDIT_RAW_LABEL = 'Show raw audit values';

const rawConfirm: ToggleConfirm = {
  title: 'Show raw audit values?',
  body: (
    <>
      <p>
        Secrets in audit events — API keys, bearer tokens, passwords an agent passed or a tool printed — will be shown <strong>unmasked</strong> in every console attached to this host, in search results and in
        exports, and <code>gatehouse audit … --raw</code> will work.
      </p>
      <p className="muted">The stored events do not change: turning this off masks them again. The change is written to the audit log with your name.</p>
    </>
  ),
  action: 'Show raw values',
};

export function AuditSettings() {
  const loaded = useSettingsStore((s) => s.settings !== null);
  const connected = useConnectionStore((s) => s.state === 'connected');
  const disabled = !connected || !loaded;

  return (
    <section className="panel settings-panel" data-testid="audit-settings" aria-labelledby="audit-settings-heading">
      <h2 id="audit-settings-heading" className="panel-title">
        Audit log
      </h2>
      {loaded ? (
        <div className="settings-grid">
          <SettingField
            name="auditRaw"
            label={AUDIT_RAW_LABEL}
            hint="Off (the default): API keys, tokens and passwords in events are masked wherever they leave the host. The stored events are never changed."
          >
            <Toggle name="auditRaw" label="Show secrets unmasked in the console, search and export" disabled={disabled} confirmOn={rawConfirm} />
          </SettingField>
          <SettingField name="auditRetentionDays" label="Delete events older than" hint="0 keeps all. Pruned at start, on change and hourly; verification then starts from a checkpoint.">
            <NumberSetting name="auditRetentionDays" unit="days" label="Delete audit events older than this many days (0 keeps all)" disabled={disabled} />
          </SettingField>
          <SettingField name="auditMaxEvents" label="Keep at most" hint="0 keeps all. Beyond this many events, the oldest are deleted.">
            <NumberSetting name="auditMaxEvents" unit="events" label="Keep at most this many audit events (0 keeps all)" disabled={disabled} />
          </SettingField>
        </div>
      ) : (
        <p className="muted">The settings appear once the console is connected.</p>
      )}
    </section>
  );
}
