// "Connect an agent": where agents reach this host, the agent token (masked until revealed),
// ready-to-paste configuration, "write it for me" for each agent of shared/agent-integrations.ts, and the tools
// agents see. From gateway.info, refreshed on gateway.toolsChanged. Other views link here with
// setView('settings', { anchor: CONNECT_AGENT_ANCHOR }).
import { useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useConnectionStore } from '../../stores/connection-store.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { CopyButton } from './copy-button.tsx';
import { buildSnippets, maskToken, TOKEN_ENV } from './snippets.ts';
import { AgentConfigDialog } from './agent-config-dialog.tsx';
import { AGENT_DESCRIPTORS, type AgentId } from '../../../../shared/agent-integrations.ts';
import { InlineError } from '../../components/dialog-actions.tsx';
import { CONNECT_AGENT_ANCHOR } from '../../lib/view-anchors.ts';
import { SafeText } from '../../components/safe-text.tsx';

const toolKindLabel = { builtin: 'built-in', tool: 'plugin tool', mcp: 'upstream MCP' } as const;

export function AgentConnect() {
  const { gateway, gatewayError } = useSettingsStore(useShallow((s) => ({ gateway: s.gateway, gatewayError: s.gatewayError })));
  const home = useConnectionStore((s) => s.hostInfo?.home ?? null);
  const [revealed, setRevealed] = useState(false);
  const [writing, setWriting] = useState<AgentId | null>(null);
  const connected = useConnectionStore((s) => s.state === 'connected');
  const snippets = useMemo(
    () => (gateway ? buildSnippets({ mcpUrl: gateway.mcpUrl, hookUrl: gateway.hookUrl, agentToken: gateway.agentToken, home, hookLauncher: gateway.hookLauncher ?? null }) : []),
    [gateway, home],
  );
  const token = gateway?.agentToken ?? null;
  const shown = (text: string) => (token && !revealed ? text.split(token).join(maskToken(token)) : text);

  return (
    <section id={CONNECT_AGENT_ANCHOR} className="panel settings-panel" data-testid="agent-connect" aria-labelledby="agent-connect-heading">
      <h2 id="agent-connect-heading" className="panel-title" tabIndex={-1}>
        Connect an agent <span className="panel-note">agents hold the agent token, which opens only the MCP and hook routes</span>
      </h2>
      <InlineError error={gatewayError} prefix="Could not load where agents connect" />
      {!gateway ? (
        gatewayError ? null : <p className="muted">Appears once the console is connected.</p>
      ) : (
        <>
          <dl className="facts">
            <dt>MCP URL</dt>
            <dd className="mono selectable" data-testid="agent-mcp-url">
              {gateway.mcpUrl ?? <span className="muted">not listening (start with gatehouse serve)</span>}
            </dd>
            <dt>Hook URL</dt>
            <dd className="mono selectable" data-testid="agent-hook-url">
              {gateway.hookUrl ?? <span className="muted">not listening</span>}
            </dd>
            <dt>Agent token</dt>
            <dd className="agent-token-row">
              {token ? (
                <>
                  <span className="mono selectable agent-token" data-testid="agent-token" data-revealed={revealed ? 'true' : 'false'}>
                    {revealed ? token : maskToken(token)}
                  </span>
                  <button type="button" className="button button-small" data-testid="agent-token-reveal" aria-pressed={revealed} onClick={() => setRevealed((r) => !r)}>
                    {revealed ? 'Hide' : 'Reveal'}
                  </button>
                  <CopyButton text={token} label="Copy the agent token" testId="agent-token-copy" />
                </>
              ) : (
                <span className="muted" data-testid="agent-token" data-revealed="false">
                  none (this host does not accept agents over HTTP)
                </span>
              )}
            </dd>
          </dl>
          {AGENT_DESCRIPTORS.map((a, i) => (
            <div key={a.id} className="agent-connect-write">
              <button type="button" className={i === 0 ? 'button button-primary' : 'button'} data-testid={`${a.testIdPrefix}-open`} disabled={!connected} onClick={() => setWriting(a.id)}>
                {a.openLabel}
              </button>
              <span className="field-hint">{a.openHint}</span>
            </div>
          ))}
          {AGENT_DESCRIPTORS.filter((a) => a.id === writing).map((a) => (
            <AgentConfigDialog key={a.id} agent={a} onClose={() => setWriting(null)} mask={shown} />
          ))}
          <div className="snippets">
            {snippets.map((s) => (
              <figure key={s.kind} className="snippet" data-testid="agent-snippet" data-kind={s.kind}>
                <figcaption className="snippet-head">
                  <span className="snippet-title">{s.title}</span>
                  <span className="field-hint">{s.where}</span>
                  <span className="toolbar-spacer" />
                  <CopyButton text={s.text} label={`Copy: ${s.title}`} testId="snippet-copy" />
                </figcaption>
                {/* Focusable: a keyboard user can scroll a snippet wider than its box. */}
                <pre className="snippet-text mono selectable" tabIndex={0}>{shown(s.text)}</pre>
              </figure>
            ))}
            {gateway.hookUrl && token ? (
              <p className="field-hint">
                For the HTTP hook: <code>{`export ${TOKEN_ENV}=${revealed ? token : maskToken(token)}`}</code> before starting Claude Code.
              </p>
            ) : null}
          </div>
          <h3 className="settings-subheading">
            Tools agents see <span className="panel-note">{gateway.tools.length}</span>
          </h3>
          {gateway.tools.length === 0 ? (
            <p className="muted">No tools yet: enable a plugin.</p>
          ) : (
            <ul className="agent-tools">
              {gateway.tools.map((t) => (
                <li key={t.name} className="agent-tool" data-testid="agent-tool" data-name={t.name} data-kind={t.kind}>
                  <span className="mono agent-tool-name">
                    <SafeText text={t.name} />
                  </span>
                  <span className="agent-tool-kind">{t.plugin ? `${toolKindLabel[t.kind]} · ${t.plugin}` : toolKindLabel[t.kind]}</span>
                  {/* Names and descriptions come from plugins' manifests and upstream MCP servers. */}
                  <span className="agent-tool-desc muted">
                    <SafeText text={t.description} multiline />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
