// "Write it for me", one dialog for every agent, driven by its descriptor
// (shared/agent-integrations.ts): the operator picks each of the agent's choices (where, and how
// it reaches Gatehouse), reads the diff of each file the host would change, and applies it. The
// host writes only if every file still has what the diff was computed from, keeps a backup, and
// audits the change.
//
// Keyboard: Escape closes (the native dialog); Enter in the folder field shows that folder's
// diff; only Enter (or Space) on the Apply button applies.
import { Fragment, useCallback, useEffect, useState, type ReactNode } from 'react';
import type { AgentChoice, AgentDescriptor } from '../../../../shared/agent-integrations.ts';
import type { RequestOf, ResponseOf } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { previewAgentConfig, writeAgentConfig } from '../../sync/settings-actions.ts';
import { errorMessage } from '../../lib/error-message.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { latest } from '../../sync/bind-domain.ts';
import { DiffView } from '../plugins/diff-view.tsx';
import { ConfigFileHead, ConfigNotes, ConfigWriteDialog } from './config-write-dialog.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';

type Request = RequestOf<'agents.preview'>;
type Preview = ResponseOf<'agents.preview'>;
type Written = ResponseOf<'agents.write'>;
type Listening = { mcpUrl: boolean; hookUrl: boolean };

export interface AgentConfigDialogProps {
  agent: AgentDescriptor;
  onClose(): void;
  /** Masks the agent token in what is shown, unless the operator revealed it. */
  mask(text: string): string;
}

/** Each choice's first option this host can offer (an HTTP form only while it listens for agents). */
function defaults(agent: AgentDescriptor, listening: Listening): Record<string, string> {
  return Object.fromEntries(agent.choices.map((c) => [c.key, (c.options.find((o) => !o.needs || listening[o.needs]) ?? c.options[0]!).value]));
}

export function AgentConfigDialog({ agent, onClose, mask }: AgentConfigDialogProps) {
  const client = useClient();
  const gateway = useSettingsStore((s) => s.gateway);
  const listening: Listening = { mcpUrl: Boolean(gateway?.mcpUrl), hookUrl: Boolean(gateway?.hookUrl) };
  // A project by default (first option): nothing outside the folder the operator names is read before they choose.
  const [values, setValues] = useState<Record<string, string>>(() => defaults(agent, listening));
  const [dirText, setDirText] = useState('');
  const [projectDir, setProjectDir] = useState('');
  const [preview, setPreview] = useState<{ key: string; result: Preview } | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [applying, setApplying] = useState(false);
  const [applyError, setApplyError] = useState<string | null>(null);
  const [written, setWritten] = useState<Written | null>(null);
  // Only the preview of the latest choice is shown.
  const [previews] = useState(latest);
  const p = agent.testIdPrefix;

  const folderChoice = agent.choices.find((c) => c.folderWhen && values[c.key] === c.folderWhen.value) ?? null;
  const nothingChosen = agent.needsOneOf ? agent.needsOneOf.keys.every((k) => values[k] === 'none') : false;
  const request: Request | null = nothingChosen || (folderChoice && !projectDir) ? null : ({ agent: agent.id, ...values, ...(folderChoice ? { projectDir } : {}) } as Request);
  const key = request ? JSON.stringify(request) : '';

  const load = useCallback(async (req: Request, reqKey: string) => {
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
      setWritten(await writeAgentConfig(client, { ...request, expected: current.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) }));
    } catch (err) {
      setApplyError(errorMessage(err));
      // A file changed since the diff was shown: show the new one.
      void load(request, key);
    } finally {
      setApplying(false);
    }
  };

  const commitDir = () => setProjectDir(dirText.trim());
  const choose = (k: string, v: string) => setValues((old) => ({ ...old, [k]: v }));

  return (
    <ConfigWriteDialog
      agent={agent.displayName}
      testIdPrefix={p}
      onClose={onClose}
      canApply={canApply}
      applying={applying}
      applyTitle={canApply ? 'Write these changes (a backup of each file is kept)' : current && changed.length === 0 ? 'Nothing to change' : 'Choose where and what first'}
      onApply={() => void apply()}
      result={
        written ? (
          <div className="config-result" data-testid={`${p}-result`} role="status">
            <p>{agent.done}</p>
            <ul className="config-written-list">
              {written.files.map((f) => (
                <li key={f.path} data-testid={`${p}-written`} data-path={f.path} data-written={f.written ? 'true' : 'false'}>
                  <span className="mono selectable">{f.path}</span> {f.written ? (f.created ? 'created' : 'updated') : 'already had it, unchanged'}
                  {f.backup ? (
                    <span className="field-hint">
                      Backup of the previous content: <span className="mono selectable" data-testid={`${p}-backup`}>{f.backup}</span>
                    </span>
                  ) : null}
                </li>
              ))}
            </ul>
          </div>
        ) : null
      }
    >
      <div className="config-choices">
        {agent.choices.map((c) => (
          <Choice key={c.key} choice={c} testId={`${p}-${c.key}`} value={values[c.key]!} set={(v) => choose(c.key, v)} listening={listening}>
            {c.folderWhen && values[c.key] === c.folderWhen.value ? (
              <div className="config-dir">
                <input
                  className="input mono"
                  data-testid={`${p}-project-dir`}
                  aria-label="Project folder on the host"
                  placeholder={c.folderWhen.placeholder}
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
                <button type="button" className="button button-small" data-testid={`${p}-show`} disabled={!dirText.trim()} onClick={commitDir}>
                  Show changes
                </button>
              </div>
            ) : null}
          </Choice>
        ))}
      </div>
      <div className="config-preview" data-testid={`${p}-preview`} aria-live="polite" aria-busy={loading}>
        {!request ? (
          <p className="muted">{nothingChosen ? agent.needsOneOf!.message : 'Enter the project folder to see what would change.'}</p>
        ) : previewError ? (
          <p className="inline-error" role="alert" data-testid={`${p}-error`}>
            {previewError}
          </p>
        ) : !current ? (
          <p className="muted">Reading the files…</p>
        ) : (
          <>
            {current.files.map((f) => (
              <section key={f.path} className="config-file" data-testid={`${p}-file`} data-path={f.path} data-kind={f.kind} data-changed={f.changed ? 'true' : 'false'}>
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
            {current.notes.length > 0 ? <ConfigNotes notes={current.notes} testId={`${p}-notes`} /> : null}
          </>
        )}
        <InlineError error={applyError} testId={`${p}-apply-error`} />
      </div>
    </ConfigWriteDialog>
  );
}

/** One of the agent's choices as radios; `children` shows under the chosen option (the folder field). */
function Choice({ choice, testId, value, set, listening, children }: { choice: AgentChoice; testId: string; value: string; set(v: string): void; listening: Listening; children: ReactNode }) {
  return (
    <fieldset className="config-choice" data-testid={testId}>
      <legend className="field-label">{choice.legend}</legend>
      {choice.options.map((o) => {
        const off = Boolean(o.needs && !listening[o.needs]);
        return (
          <Fragment key={o.value}>
            <label className="choice" data-checked={value === o.value ? 'true' : 'false'}>
              <input type="radio" name={choice.inputName} value={o.value} checked={value === o.value} disabled={off} onChange={() => set(o.value)} />
              <span className="choice-text">
                <span className="choice-label">{o.label}</span>
                <span className="choice-help">{off ? 'This host does not listen for agents over HTTP.' : o.help}</span>
              </span>
            </label>
            {value === o.value ? children : null}
          </Fragment>
        );
      })}
    </fieldset>
  );
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
