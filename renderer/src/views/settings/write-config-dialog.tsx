// "Write it for me": the operator picks where (their own Claude Code settings, or one project's)
// and what (the MCP server over HTTP or the stdio bridge; the hook as a command or over HTTP),
// reads the diff of each file the host would change, and applies it. The host writes only if
// every file still has what the diff was computed from, keeps a backup, and audits the change.
//
// Keyboard: Escape closes (the native dialog); Enter in the folder field shows that folder's
// diff; only Enter (or Space) on the Apply button applies.
import { useCallback, useEffect, useState } from 'react';
import type { RequestOf, ResponseOf } from '../../../../shared/contract.ts';
import { TOKEN_ENV } from '../../../../shared/claude-config.ts';
import { useClient } from '../../sync/client-context.ts';
import { previewAgentConfig, writeAgentConfig } from '../../sync/settings-actions.ts';
import { errorMessage } from '../../lib/error-message.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { latest } from '../../sync/bind-domain.ts';
import { DiffView } from '../plugins/diff-view.tsx';
import { ConfigFileHead, ConfigNotes, ConfigWriteDialog } from './config-write-dialog.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';

type Scope = RequestOf<'agents.previewConfig'>['scope'];
type McpForm = RequestOf<'agents.previewConfig'>['mcp'];
type HookForm = RequestOf<'agents.previewConfig'>['hook'];
type Preview = ResponseOf<'agents.previewConfig'>;
type Written = ResponseOf<'agents.writeConfig'>;

export interface WriteConfigDialogProps {
  onClose(): void;
  /** Masks the agent token in what is shown, unless the operator revealed it. */
  mask(text: string): string;
}

export function WriteConfigDialog({ onClose, mask }: WriteConfigDialogProps) {
  const client = useClient();
  const gateway = useSettingsStore((s) => s.gateway);
  const httpMcp = Boolean(gateway?.mcpUrl);
  const httpHook = Boolean(gateway?.hookUrl);
  // A project by default: nothing outside the folder the operator names is read before they choose.
  const [scope, setScope] = useState<Scope>('project');
  const [dirText, setDirText] = useState('');
  const [projectDir, setProjectDir] = useState('');
  const [mcp, setMcp] = useState<McpForm>(httpMcp ? 'http' : 'stdio');
  const [hook, setHook] = useState<HookForm>('command');
  const [preview, setPreview] = useState<{ key: string; result: Preview } | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [applying, setApplying] = useState(false);
  const [applyError, setApplyError] = useState<string | null>(null);
  const [written, setWritten] = useState<Written | null>(null);
  // Only the preview of the latest choice is shown.
  const [previews] = useState(latest);

  const request: RequestOf<'agents.previewConfig'> | null =
    mcp === 'none' && hook === 'none' ? null : scope === 'user' ? { scope, mcp, hook } : projectDir ? { scope, projectDir, mcp, hook } : null;
  const key = request ? JSON.stringify(request) : '';

  const load = useCallback(async (req: RequestOf<'agents.previewConfig'>, reqKey: string) => {
    const answer = previews.begin();
    setLoading(true);
    setPreviewError(null);
    try {
      const result = await previewAgentConfig(client, req);
      if (answer.current()) setPreview({ key: reqKey, result });
    } catch (err) {
      if (answer.current()) {
        setPreview(null);
        setPreviewError(errorMessage(err));
      }
    } finally {
      if (answer.current()) setLoading(false);
    }
  }, [client, previews]);

  // Every change of where or what shows its diff; an older answer never replaces a newer one.
  useEffect(() => {
    if (written) return;
    setApplyError(null);
    if (!request) {
      previews.supersede();
      setPreview(null);
      setPreviewError(null);
      setLoading(false);
      return;
    }
    void load(request, key);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` stands for `request`, a new object on every render
  }, [key, written, load]);

  const current = preview && preview.key === key ? preview.result : null;
  const changed = current?.files.filter((f) => f.changed) ?? [];
  const canApply = Boolean(request && current && changed.length > 0 && !loading && !applying);

  const apply = async () => {
    if (!request || !current) return;
    setApplying(true);
    setApplyError(null);
    try {
      const result = await writeAgentConfig(client, { ...request, expected: current.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
      setWritten(result);
    } catch (err) {
      setApplyError(errorMessage(err));
      // A file changed since the diff was shown: show the new one.
      void load(request, key);
    } finally {
      setApplying(false);
    }
  };

  const commitDir = () => setProjectDir(dirText.trim());

  return (
    <ConfigWriteDialog
      agent="Claude Code"
      testIdPrefix="write-config"
      onClose={onClose}
      canApply={canApply}
      applying={applying}
      applyTitle={canApply ? 'Write these changes (a backup of each file is kept)' : current && changed.length === 0 ? 'Nothing to change' : 'Choose where and what first'}
      onApply={() => void apply()}
      result={
        written ? (
          <div className="config-result" data-testid="write-config-result" role="status">
            <p>Done. Restart Claude Code (or open a new session) so it reads the files again; /hooks and /mcp show what it loaded.</p>
            <ul className="config-written-list">
              {written.files.map((f) => (
                <li key={f.path} data-testid="write-config-written" data-path={f.path} data-written={f.written ? 'true' : 'false'}>
                  <span className="mono selectable">{f.path}</span> {f.written ? (f.created ? 'created' : 'updated') : 'already had it, unchanged'}
                  {f.backup ? (
                    <span className="field-hint">
                      Backup of the previous content: <span className="mono selectable" data-testid="write-config-backup">{f.backup}</span>
                    </span>
                  ) : null}
                </li>
              ))}
            </ul>
          </div>
        ) : null
      }
    >
      <fieldset className="config-choice" data-testid="write-config-scope">
        <legend className="field-label">Where</legend>
        <label className="choice">
          <input type="radio" name="config-scope" value="project" checked={scope === 'project'} onChange={() => setScope('project')} />
          <span className="choice-text">
            <span className="choice-label">One project</span>
            <span className="choice-help">.claude/settings.json (the hook) and .mcp.json (the MCP server) in the project folder; commit them to share with the team.</span>
          </span>
        </label>
        {scope === 'project' ? (
          <div className="config-dir">
            <input
              className="input mono"
              data-testid="write-config-project-dir"
              aria-label="Project folder on the host"
              placeholder="/path/to/project (the folder you start Claude Code in)"
              value={dirText}
              onChange={(e) => setDirText(e.target.value)}
              onBlur={commitDir}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  // Enter shows this folder's diff; it never applies.
                  e.preventDefault();
                  commitDir();
                }
              }}
            />
            <button type="button" className="button button-small" data-testid="write-config-show" disabled={!dirText.trim()} onClick={commitDir}>
              Show changes
            </button>
          </div>
        ) : null}
        <label className="choice">
          <input type="radio" name="config-scope" value="user" checked={scope === 'user'} onChange={() => setScope('user')} />
          <span className="choice-text">
            <span className="choice-label">You, in every project</span>
            <span className="choice-help">~/.claude/settings.json (the hook) and ~/.claude.json (the MCP server) in your home folder on the host.</span>
          </span>
        </label>
      </fieldset>
      <div className="config-choices">
        <fieldset className="config-choice" data-testid="write-config-mcp">
          <legend className="field-label">MCP server</legend>
          <Radio<McpForm> name="config-mcp" value="http" current={mcp} set={setMcp} disabled={!httpMcp} label="Streamable HTTP" help={httpMcp ? `With the agent token (a project’s .mcp.json names ${TOKEN_ENV} instead).` : 'This host does not listen for agents over HTTP.'} />
          <Radio<McpForm> name="config-mcp" value="stdio" current={mcp} set={setMcp} label="stdio bridge" help="Claude Code starts gatehouse mcp, which relays to this host; no token." />
          <Radio<McpForm> name="config-mcp" value="none" current={mcp} set={setMcp} label="None" help="Leave the MCP server out." />
        </fieldset>
        <fieldset className="config-choice" data-testid="write-config-hook">
          <legend className="field-label">PreToolUse hook</legend>
          <Radio<HookForm> name="config-hook" value="command" current={hook} set={setHook} label="Command" help="Claude Code runs gatehouse hook before each of its own tools." />
          <Radio<HookForm> name="config-hook" value="http" current={hook} set={setHook} disabled={!httpHook} label="HTTP" help={httpHook ? `Claude Code posts to this host, with the token from ${TOKEN_ENV}.` : 'This host does not listen for agents over HTTP.'} />
          <Radio<HookForm> name="config-hook" value="none" current={hook} set={setHook} label="None" help="Leave the hook out." />
        </fieldset>
      </div>
      <div className="config-preview" data-testid="write-config-preview" aria-live="polite" aria-busy={loading}>
        {!request ? (
          <p className="muted">{mcp === 'none' && hook === 'none' ? 'Choose an MCP server, a hook, or both.' : 'Enter the project folder to see what would change.'}</p>
        ) : previewError ? (
          <p className="inline-error" role="alert" data-testid="write-config-error">
            {previewError}
          </p>
        ) : !current ? (
          <p className="muted">Reading the files…</p>
        ) : (
          <>
            {current.files.map((f) => (
              <section key={f.path} className="config-file" data-testid="write-config-file" data-path={f.path} data-kind={f.kind} data-changed={f.changed ? 'true' : 'false'}>
                <ConfigFileHead file={f} />
                {f.changed ? (
                  <>
                    <ul className="config-changes">
                      {f.changes.map((c) => (
                        <li key={c}>{mask(c)}</li>
                      ))}
                    </ul>
                    <DiffView diff={mask(f.diff)} />
                    {f.exists ? <p className="field-hint">The current file is kept next to it as {baseName(f.path)}.gatehouse-backup-&lt;time&gt;.</p> : null}
                  </>
                ) : (
                  <p className="muted">It already has Gatehouse as chosen: nothing to change.</p>
                )}
              </section>
            ))}
            {current.notes.length > 0 ? <ConfigNotes notes={current.notes} testId="write-config-notes" /> : null}
          </>
        )}
        <InlineError error={applyError} testId="write-config-apply-error" />
      </div>
    </ConfigWriteDialog>
  );
}

function Radio<T extends string>({ name, value, current, set, label, help, disabled }: { name: string; value: NoInfer<T>; current: T; set(v: T): void; label: string; help: string; disabled?: boolean }) {
  return (
    <label className="choice" data-checked={current === value ? 'true' : 'false'}>
      <input type="radio" name={name} value={value} checked={current === value} disabled={disabled} onChange={() => set(value)} />
      <span className="choice-text">
        <span className="choice-label">{label}</span>
        <span className="choice-help">{help}</span>
      </span>
    </label>
  );
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
