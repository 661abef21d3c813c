// The gateway's settings: mode, autonomy, approvals, tool lists, sandbox, Claude Code hook and
// notifications, each saved through settings.update as soon as it changes.
import { useShallow } from 'zustand/react/shallow';
import { useConnectionStore } from '../../stores/connection-store.ts';
import { useHealthStore } from '../../stores/health-store.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { autonomyHelp, modeHelp } from './setting-edits.ts';
import { SettingField } from './setting-field.tsx';
import { ContainmentChoices, GlobList, NumberSetting, RadioSetting, Toggle } from './setting-controls.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';

export function GatewaySettings() {
  const { settings, loadError } = useSettingsStore(useShallow((s) => ({ settings: s.settings, loadError: s.error })));
  const connected = useConnectionStore((s) => s.state === 'connected');
  const sandbox = useHealthStore((s) => s.sandbox);
  const disabled = !connected || !settings;

  return (
    <section className="panel settings-panel" data-testid="gateway-settings" aria-labelledby="gateway-settings-heading">
      <h2 id="gateway-settings-heading" className="panel-title">
        Gateway {settings ? <span className="panel-note mono selectable">{settings.file}</span> : null}
      </h2>
      <InlineError error={loadError} prefix="Could not load the settings" />
      {settings?.error ? (
        <p className="inline-error" role="alert" data-testid="settings-file-error">
          {settings.error}
        </p>
      ) : null}
      {settings && settings.overridden.length > 0 ? (
        <p className="settings-note" data-testid="settings-overridden">
          Set for this run by command-line options: {settings.overridden.join(', ')}. Changing one here writes the settings file and takes effect now.
        </p>
      ) : null}
      {!settings && !loadError ? <p className="muted">The settings appear once the console is connected.</p> : null}
      {settings ? (
        <div className="settings-grid">
          <RadioSetting
            name="mode"
            label="Mode"
            disabled={disabled}
            choices={[
              { value: 'dry-run', label: 'Dry run', help: modeHelp['dry-run'] },
              { value: 'live', label: 'Live', help: modeHelp.live },
            ]}
          />
          <RadioSetting
            name="autonomy"
            label="Autonomy"
            disabled={disabled}
            confirmFor={(v) =>
              v === 'full' && useSettingsStore.getState().settings?.mode === 'live'
                ? {
                    title: 'Full autonomy while live?',
                    body: (
                      <p>
                        Gatehouse is live: calls run for real. At full autonomy every call that no rule denies or asks runs without an operator, writes, deletes and network calls
                        included. Calls Gatehouse is unsure about still wait for you.
                      </p>
                    ),
                    action: 'Switch to full autonomy',
                  }
                : null
            }
            choices={[
              { value: 'read-only', label: 'Read-only', help: autonomyHelp['read-only'] },
              { value: 'supervised', label: 'Supervised', help: autonomyHelp.supervised },
              { value: 'full', label: 'Full', help: autonomyHelp.full },
            ]}
          />
          <SettingField name="approvalExpiryMinutes" label="Approval expiry" hint="A call nobody decides within this time expires and is denied; it never runs.">
            <NumberSetting name="approvalExpiryMinutes" unit="minutes" label="Approval expiry in minutes" disabled={disabled} />
          </SettingField>
          <SettingField name="sessionGrantMinutes" label="Session grant lifetime" hint="How long an “approve for this session” grant lasts unless the operator picks another time.">
            <NumberSetting name="sessionGrantMinutes" unit="minutes" label="Session grant lifetime in minutes" disabled={disabled} />
          </SettingField>
          <SettingField name="autoApprove" label="Auto-approve tools" hint="Tool-name globs that run without asking, unless a rule denies or asks.">
            <GlobList name="autoApprove" disabled={disabled} placeholder="e.g. read_* or fs-mcp__list_*" />
          </SettingField>
          <SettingField name="alwaysAsk" label="Always ask" hint="Tool-name globs that always wait for an operator, whatever the autonomy level (a rule may still deny).">
            <GlobList name="alwaysAsk" disabled={disabled} placeholder="e.g. shell or *deploy*" />
          </SettingField>
          <SettingField name="requireSandbox" label="Require a sandbox">
            <Toggle name="requireSandbox" label="Refuse to run any plugin without an OS sandbox" disabled={disabled} />
            <span className="sandbox-line" data-testid="settings-sandbox" data-kind={sandbox?.kind ?? 'unknown'}>
              {sandbox ? (
                sandbox.kind === 'bwrap' ? (
                  <>
                    <span className="badge badge-verified">Sandboxed</span> {sandbox.detail}
                  </>
                ) : (
                  <>
                    <span className="badge badge-checking">No sandbox</span> {sandbox.detail}
                    {settings.requireSandbox ? ' — with this on, plugins will not run at all.' : ''}
                  </>
                )
              ) : (
                <span className="muted">Sandbox state unknown until Health loads.</span>
              )}
            </span>
          </SettingField>
          <SettingField
            name="containment"
            group
            label="Contain Bash commands"
            hint="A Claude Code Bash command let through without an operator reading it runs in a box: credentials and Gatehouse's data folder hidden, only the project and temp folders writable. Tick when."
          >
            <ContainmentChoices disabled={disabled} />
            <span className="sandbox-line" data-testid="settings-containment" data-available={sandbox?.containment ? String(sandbox.containment.available) : 'unknown'}>
              {sandbox?.containment ? (
                sandbox.containment.available ? (
                  <>
                    <span className="badge badge-verified">Contained</span> {sandbox.containment.detail}
                  </>
                ) : (
                  <>
                    <span className="badge badge-checking">Containment off</span> {sandbox.containment.detail}
                  </>
                )
              ) : (
                <span className="muted">Containment state unknown until Health loads.</span>
              )}
            </span>
          </SettingField>
          <RadioSetting
            name="hookAsk"
            label="Claude Code: when policy asks"
            disabled={disabled}
            choices={[
              { value: 'agent', label: 'Let Claude Code ask', help: 'The hook answers “ask” at once and Claude Code asks its own user; nothing waits here.' },
              { value: 'inbox', label: 'Wait in this inbox', help: 'The call waits in Approvals until an operator decides, at most until shortly before the hook’s own timeout. Use it for claude -p and CI, where “ask” would be a denial.' },
            ]}
          />
          <RadioSetting
            name="hookAutonomyAllow"
            label="Claude Code: when only autonomy allows"
            disabled={disabled}
            choices={[
              { value: 'defer', label: 'Leave it to Claude Code', help: 'No decision: Claude Code’s own permission rules and prompts still apply. Gatehouse answers “allow” only for an operator, a grant or an allow rule.' },
              { value: 'allow', label: 'Allow', help: 'Answer “allow”, which also switches Claude Code’s own permission prompt off for that call.' },
            ]}
          />
          <RadioSetting
            name="hookUnreachable"
            label="Claude Code: when Gatehouse is not running"
            disabled={disabled}
            choices={[
              { value: 'deny', label: 'Deny', help: 'gatehouse hook denies every call while no host answers (fail closed).' },
              { value: 'ask', label: 'Ask', help: 'gatehouse hook answers “ask”, so Claude Code asks its user instead.' },
            ]}
          />
          <RadioSetting
            name="teamOutageAsks"
            label="Team mode: while the team database is unreachable"
            disabled={disabled}
            choices={[
              { value: 'local', label: 'Wait in this inbox', help: 'A call that needs an operator waits here as on a single machine; operators on other machines cannot see it until the link is back.' },
              { value: 'deny', label: 'Deny', help: 'A call that needs an operator is denied at once, with the reason, until the team database is reachable again.' },
            ]}
          />
          <SettingField name="desktopNotifications" label="Desktop notifications">
            <Toggle name="desktopNotifications" label="Notify me when a call starts waiting for approval" disabled={disabled} />
          </SettingField>
        </div>
      ) : null}
    </section>
  );
}
