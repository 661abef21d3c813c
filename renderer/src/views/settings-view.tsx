// Settings: how the gateway treats agents' calls (mode, autonomy, approval lists, hook
// behaviour…), what the audit log shows and keeps, how agents connect, and the host this console
// is attached to. Every change goes through settings.update; settings.changed keeps the view
// current, from any console.
import { useEffect } from 'react';
import { ViewFrame } from '../components/view-frame.tsx';
import { formatAgo, formatDateTime, isoTime } from '../lib/format.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import { useUiStore } from '../stores/ui-store.ts';
import { AgentConnect } from './settings/agent-connect.tsx';
import { AgentTokens } from './settings/agent-tokens.tsx';
import { AuditSettings } from './settings/audit-settings.tsx';
import { ConsoleSettings } from './settings/console-settings.tsx';
import { GatewaySettings } from './settings/gateway-settings.tsx';
import '../styles/settings.css';

export function SettingsView() {
  const info = useConnectionStore((s) => s.hostInfo);
  const error = useConnectionStore((s) => s.hostInfoError);
  const state = useConnectionStore((s) => s.state);
  const anchor = useUiStore((s) => s.anchor);
  // Another view linked to a section (e.g. Getting Started → "connect-agent"): show it, and put
  // the keyboard on its heading. The URL fragment is not used: it carries the operator token.
  useEffect(() => {
    if (!anchor) return;
    const section = document.getElementById(anchor);
    if (section) {
      section.scrollIntoView({ block: 'start' });
      section.querySelector<HTMLElement>('h2[tabindex]')?.focus({ preventScroll: true });
    }
    useUiStore.getState().anchorDone();
  }, [anchor]);

  return (
    <ViewFrame id="settings" title="Settings" subtitle="How the gateway treats agents’ calls, what the audit log shows and keeps, how agents connect, and the host this console is attached to.">
      <GatewaySettings />
      <AuditSettings />
      <ConsoleSettings />
      <AgentConnect />
      <AgentTokens />
      <section className="panel" data-testid="host-info" aria-labelledby="host-info-heading">
        <h2 id="host-info-heading" className="panel-title">
          Host
        </h2>
        {info ? (
          <dl className="facts">
            <dt>Version</dt>
            <dd data-field="version">{info.version}</dd>
            <dt>Shell</dt>
            <dd data-field="shell">{info.shell === 'serve' ? 'serve (browser console)' : 'electron (desktop window)'}</dd>
            <dt>Home folder</dt>
            <dd data-field="home" className="mono selectable">
              {info.home}
            </dd>
            <dt>Operator</dt>
            <dd data-field="operator">{info.operator}</dd>
            <dt>Process id</dt>
            <dd data-field="pid" className="mono">
              {info.pid}
            </dd>
            <dt>Started</dt>
            <dd data-field="started">
              <time dateTime={isoTime(info.startedAt)} title={formatAgo(info.startedAt)}>
                {formatDateTime(info.startedAt)}
              </time>
            </dd>
          </dl>
        ) : error ? (
          <p className="inline-error" role="alert">
            Could not load host info: {error}
          </p>
        ) : (
          <p className="muted">{state === 'connected' ? 'Loading host info…' : 'Host info appears once the console is connected.'}</p>
        )}
      </section>
    </ViewFrame>
  );
}
