// "Write it for me" for Codex: the operator picks the stdio bridge or Streamable HTTP, reads the
// diff of Codex's config.toml, and applies it. The host writes only if the file still has what
// the diff was computed from, keeps a backup, sets how long Codex waits (so approvals for Codex
// end first), and audits the change.
import { useCallback, useEffect, useState } from 'react';
import type { RequestOf, ResponseOf } from '../../../../shared/contract.ts';
import { TOKEN_ENV } from '../../../../shared/claude-config.ts';
import { useClient } from '../../sync/client-context.ts';
import { previewCodexConfig, writeCodexConfig } from '../../sync/settings-actions.ts';
import { errorMessage } from '../../lib/error-message.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { latest } from '../../sync/bind-domain.ts';
import { DiffView } from '../plugins/diff-view.tsx';
import { ConfigFileHead, ConfigNotes, ConfigWriteDialog } from './config-write-dialog.tsx';

type Form = RequestOf<'agents.previewCodexConfig'>['mcp'];
type Preview = ResponseOf<'agents.previewCodexConfig'>;
type Written = ResponseOf<'agents.writeCodexConfig'>;

export function CodexConfigDialog({ onClose }: { onClose(): void }) {
  const client = useClient();
  const httpMcp = Boolean(useSettingsStore((s) => s.gateway?.mcpUrl));
  const [mcp, setMcp] = useState<Form>('stdio');
  const [preview, setPreview] = useState<{ mcp: Form; result: Preview } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [applying, setApplying] = useState(false);
  const [written, setWritten] = useState<Written | null>(null);
  // Only the preview of the latest choice is shown.
  const [previews] = useState(latest);

  const load = useCallback(async (form: Form) => {
    const req = previews.begin();
    setError(null);
    try {
      const result = await previewCodexConfig(client, { mcp: form });
      if (req.current()) setPreview({ mcp: form, result });
    } catch (err) {
      if (req.current()) {
        setPreview(null);
        setError(errorMessage(err));
      }
    }
  }, [client, previews]);

  useEffect(() => {
    if (!written) void load(mcp);
  }, [mcp, written, load]);

  const current = preview && preview.mcp === mcp ? preview.result : null;
  const file = current?.files[0] ?? null;
  const canApply = Boolean(file?.changed && !applying);

  const apply = async () => {
    if (!file) return;
    setApplying(true);
    setError(null);
    try {
      setWritten(await writeCodexConfig(client, { mcp, expected: [{ path: file.path, baseHash: file.baseHash }] }));
    } catch (err) {
      setError(errorMessage(err));
      void load(mcp);
    } finally {
      setApplying(false);
    }
  };

  return (
    <ConfigWriteDialog
      agent="Codex"
      testIdPrefix="codex-config"
      onClose={onClose}
      canApply={canApply}
      applying={applying}
      onApply={() => void apply()}
      result={
        written ? (
          <div className="config-result" data-testid="codex-config-result" role="status">
            <p>Done. Restart Codex so it reads config.toml again (codex mcp list shows gatehouse).</p>
            {written.files.map((f) => (
              <p key={f.path}>
                <span className="mono selectable">{f.path}</span> {f.written ? (f.created ? 'created' : 'updated') : 'already had it, unchanged'}
                {f.backup ? <span className="field-hint"> Backup: <span className="mono selectable">{f.backup}</span></span> : null}
              </p>
            ))}
          </div>
        ) : null
      }
    >
      <fieldset className="config-choice" data-testid="codex-config-mcp">
        <legend className="field-label">How Codex reaches Gatehouse</legend>
        <label className="choice">
          <input type="radio" name="codex-mcp" value="stdio" checked={mcp === 'stdio'} onChange={() => setMcp('stdio')} />
          <span className="choice-text">
            <span className="choice-label">stdio bridge</span>
            <span className="choice-help">Codex starts gatehouse mcp in its workspace, so calls run there; no token.</span>
          </span>
        </label>
        <label className="choice">
          <input type="radio" name="codex-mcp" value="http" checked={mcp === 'http'} disabled={!httpMcp} onChange={() => setMcp('http')} />
          <span className="choice-text">
            <span className="choice-label">Streamable HTTP</span>
            <span className="choice-help">{httpMcp ? `Codex reads the agent token from ${TOKEN_ENV}.` : 'This host does not listen for agents over HTTP.'}</span>
          </span>
        </label>
      </fieldset>
      <div className="config-preview" data-testid="codex-config-preview" aria-live="polite">
        {error ? (
          <p className="inline-error" role="alert" data-testid="codex-config-error">
            {error}
          </p>
        ) : !current || !file ? (
          <p className="muted">Reading config.toml…</p>
        ) : (
          <>
            <section className="config-file" data-testid="codex-config-file" data-path={file.path} data-changed={file.changed ? 'true' : 'false'}>
              <ConfigFileHead file={file} />
              {file.changed ? <DiffView diff={file.diff} /> : <p className="muted">It already has Gatehouse as chosen: nothing to change.</p>}
            </section>
            <ConfigNotes notes={current.notes} testId="codex-config-notes" />
          </>
        )}
      </div>
    </ConfigWriteDialog>
  );
}
