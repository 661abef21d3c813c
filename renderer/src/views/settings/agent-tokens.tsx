// "Agent tokens": one named token per agent, so the inbox, grants and the audit log name the agent
// by the token it holds, never by what the client says it is. A new token is shown here once
// (the host keeps only its SHA-256); revoking one refuses it from the next request on. Through
// agents.tokens.list/create/revoke, the same methods `gatehouse agent token …` uses.
import { useCallback, useEffect, useState } from 'react';
import type { ResponseOf } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { createAgentToken, listAgentTokens, revokeAgentToken } from '../../sync/settings-actions.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { errorMessage } from '../../lib/error-message.ts';
import { formatAgo, formatDateTime, isoTime } from '../../lib/format.ts';
import { useConnectionStore } from '../../stores/connection-store.ts';
import { CopyButton } from './copy-button.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';

type TokenInfo = ResponseOf<'agents.tokens.list'>['tokens'][number];

/** The host's rule (agent-tokens.ts), checked here too so a mistake is said before sending. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function AgentTokens() {
  const client = useClient();
  const connected = useConnectionStore((s) => s.state === 'connected');
  const [tokens, setTokens] = useState<TokenInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setTokens((await listAgentTokens(client, {})).tokens);
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [client]);

  useEffect(() => {
    if (connected) void load();
  }, [connected, load]);

  const trimmed = name.trim();
  const nameProblem = trimmed === '' ? null : !NAME.test(trimmed) ? 'Use 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit.' : trimmed.toLowerCase() === 'default' ? '"default" is the token in serve.json.' : null;

  async function create() {
    setBusy(true);
    try {
      const r = await createAgentToken(client, { name: trimmed });
      setCreated({ name: r.name, token: r.token });
      setName('');
      await load();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  async function revoke(which: string) {
    setBusy(true);
    try {
      await revokeAgentToken(client, { name: which });
      setRevoking(null);
      await load();
    } catch (err) {
      setError(errorMessage(err));
      setRevoking(null);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section id="agent-tokens" className="panel settings-panel" data-testid="agent-tokens" aria-labelledby="agent-tokens-heading">
      <h2 id="agent-tokens-heading" className="panel-title" tabIndex={-1}>
        Agent tokens <span className="panel-note">an agent’s name in the inbox and the audit log is its token’s</span>
      </h2>
      <InlineError error={error} testId="agent-tokens-error" />
      <form
        className="agent-token-create"
        onSubmit={(e) => {
          e.preventDefault();
          if (trimmed && !nameProblem) void create();
        }}
      >
        <label htmlFor="agent-token-name">New agent</label>
        <input id="agent-token-name" data-testid="agent-token-name" className="mono" value={name} maxLength={64} placeholder="ci-bot" autoComplete="off" spellCheck={false} aria-invalid={nameProblem ? true : undefined} onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="button button-primary" data-testid="agent-token-create" disabled={!connected || busy || !trimmed || nameProblem !== null}>
          Create token
        </button>
        <span className="field-hint">{nameProblem ?? 'The token is shown once; Gatehouse keeps only its hash. Give it to that agent alone.'}</span>
      </form>
      {created ? (
        <div className="agent-token-created" data-testid="agent-token-created" role="status">
          <p>
            Token for <strong>{created.name}</strong>, shown only now:
          </p>
          <p className="agent-token-row">
            <span className="mono selectable agent-token" data-testid="agent-token-new">
              {created.token}
            </span>
            <CopyButton text={created.token} label={`Copy the token for ${created.name}`} testId="agent-token-new-copy" />
            <button type="button" className="button button-small" data-testid="agent-token-created-done" onClick={() => setCreated(null)}>
              Done
            </button>
          </p>
          <p className="field-hint">
            Send it as <code>Authorization: Bearer …</code>, or keep it in a file only you can read and run <code>gatehouse hook --agent-token-file FILE</code> or <code>gatehouse mcp --agent-token-file FILE</code>.
          </p>
        </div>
      ) : null}
      {tokens === null ? (
        error ? null : <p className="muted">{connected ? 'Loading agent tokens…' : 'Appears once the console is connected.'}</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table" data-testid="agent-tokens-table">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.name} data-testid="agent-token-row" data-name={t.name} data-default={t.isDefault ? 'true' : 'false'}>
                  <td className="mono">{t.name}</td>
                  <td>
                    {t.isDefault ? (
                      <span className="muted">the token in serve.json</span>
                    ) : (
                      <>
                        <time dateTime={isoTime(t.createdAt)} title={formatAgo(t.createdAt)}>
                          {formatDateTime(t.createdAt)}
                        </time>{' '}
                        <span className="muted">by {t.createdBy}</span>
                      </>
                    )}
                  </td>
                  <td>{t.lastUsedAt === null ? <span className="muted">not since the host started</span> : <time dateTime={isoTime(t.lastUsedAt)}>{formatAgo(t.lastUsedAt)}</time>}</td>
                  <td>
                    {t.isDefault ? null : (
                      <button type="button" className="button button-small button-danger" data-testid="agent-token-revoke" disabled={!connected || busy} onClick={() => setRevoking(t.name)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoking ? (
        <ModalDialog
          title={`Revoke the token for ${revoking}?`}
          testId="agent-token-revoke-dialog"
          onCancel={() => setRevoking(null)}
          footer={
            <>
              <button type="button" className="button" onClick={() => setRevoking(null)}>
                Cancel
              </button>
              <button type="button" className="button button-danger" data-testid="agent-token-revoke-confirm" disabled={busy} onClick={() => void revoke(revoking)}>
                Revoke
              </button>
            </>
          }
        >
          <p>Gatehouse refuses this token from the next request on; an MCP session opened with it ends. The agent needs a new token to connect again. Recorded in the audit log.</p>
        </ModalDialog>
      ) : null}
    </section>
  );
}
