// The plugin's files, the editor, and the problems list. The open buffer is checked by the host
// as the author types (debounced, stale answers dropped) and the answer becomes Monaco markers
// and problem rows before anything is saved.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { PluginDetailView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { CodeEditor, type CodeEditorHandle } from '../../editor/code-editor.tsx';
import { toDiagnostics, type Diagnostic } from '../../editor/diagnostics.ts';
import { errorMessage } from '../../lib/error-message.ts';
import { formatBytes } from '../../../../shared/format.ts';
import { isDirty, usePluginsStore } from '../../stores/plugins-store.ts';
import { latest } from '../../sync/bind-domain.ts';
import { requestFile, saveFile, updateBuffer, checkPluginFile } from '../../sync/plugins-actions.ts';
import type { GatehouseClient } from '../../transport/client.ts';
import { ProblemsList } from './problems-list.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';

/** How long typing must pause before the buffer is sent to plugins.check. */
export const CHECK_DEBOUNCE_MS = 150;

export function PluginFiles({ detail }: { detail: PluginDetailView }) {
  const client = useClient();
  const { file, fileError, fileLoading, saving, saveError, live, reveal } = usePluginsStore(
    useShallow((s) => ({ file: s.file, fileError: s.fileError, fileLoading: s.fileLoading, saving: s.saving, saveError: s.saveError, live: s.live, reveal: s.reveal })),
  );
  const openFile = file && file.plugin === detail.name ? file : null;
  const dirty = isDirty(openFile);
  const checking = useLiveCheck(client, openFile, detail.hash);
  const editor = useRef<CodeEditorHandle>(null);

  const liveForFile = openFile && live && live.plugin === openFile.plugin && live.path === openFile.path ? live : null;
  const currentDiagnostics = useMemo(() => {
    if (!openFile) return [];
    if (liveForFile) return toDiagnostics(liveForFile.problems, liveForFile.findings);
    return toDiagnostics(
      detail.problems.filter((p) => p.file === openFile.path),
      detail.findings.filter((f) => f.file === openFile.path),
    );
  }, [openFile?.path, liveForFile, detail.problems, detail.findings]); // eslint-disable-line react-hooks/exhaustive-deps -- the open file counts by its path, not its buffer
  const otherDiagnostics = useMemo(
    () =>
      toDiagnostics(
        detail.problems.filter((p) => p.file !== openFile?.path),
        detail.findings.filter((f) => f.file !== openFile?.path),
      ),
    [detail.problems, detail.findings, openFile?.path],
  );
  const allDiagnostics = useMemo(() => [...currentDiagnostics, ...otherDiagnostics], [currentDiagnostics, otherDiagnostics]);
  const countsByFile = useMemo(() => {
    const m = new Map<string, number>();
    for (const d of allDiagnostics) m.set(d.file, (m.get(d.file) ?? 0) + 1);
    return m;
  }, [allDiagnostics]);

  const onSelectDiagnostic = (d: Diagnostic) => {
    if (openFile && d.file === openFile.path) editor.current?.reveal(d.line, d.column);
    else requestFile(client, d.file, { line: d.line, column: d.column });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    // Ctrl/Cmd+S anywhere in this section (inside Monaco its own command handles it).
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 's') {
      e.preventDefault();
      if (dirty) void saveFile(client);
    }
  };

  return (
    <section className="panel plugin-files" aria-labelledby="files-heading" onKeyDown={onKeyDown}>
      <h3 id="files-heading" className="panel-title">
        Files <span className="panel-note">{detail.dir}</span>
      </h3>
      <div className="files-layout">
        <ul className="file-list" aria-label="Plugin files">
          {detail.files.length === 0 ? <li className="muted file-list-empty">No files.</li> : null}
          {detail.files.map((f) => {
            const current = openFile?.path === f.path;
            const n = countsByFile.get(f.path) ?? 0;
            return (
              <li key={f.path}>
                <button
                  type="button"
                  className="file-item"
                  data-testid="plugin-file"
                  data-path={f.path}
                  aria-current={current ? 'true' : undefined}
                  disabled={f.kind === 'l'}
                  title={f.kind === 'l' ? 'A symbolic link: open its target instead' : `${f.path} (${formatBytes(f.size)}${f.kind === 'x' ? ', executable' : ''})`}
                  onClick={() => requestFile(client, f.path)}
                >
                  <span className="file-name mono">{f.path}</span>
                  {current && dirty ? (
                    <span className="dirty-dot" aria-label="unsaved changes" role="img" />
                  ) : n > 0 ? (
                    <span className="file-issues" aria-label={`${n} problems`}>
                      {n}
                    </span>
                  ) : f.kind !== 'f' ? (
                    <span className="file-kind">{f.kind === 'x' ? 'exec' : 'link'}</span>
                  ) : null}
                </button>
              </li>
            );
          })}
        </ul>
        <div className="editor-column">
          <div className="editor-toolbar">
            <span className="mono editor-path">{openFile ? openFile.path : 'No file open'}</span>
            {dirty ? <span className="dirty-label">● unsaved</span> : openFile ? <span className="muted">saved</span> : null}
            <span className="toolbar-spacer" />
            {openFile && detail.status === 'enabled' ? (
              <span className="save-hint" data-testid="save-hint">
                Saving changes an enabled plugin: the host quarantines it until you approve the change.
              </span>
            ) : null}
            <button
              type="button"
              className="button button-primary button-small"
              data-testid="editor-save"
              disabled={!openFile || !dirty || saving}
              aria-busy={saving}
              aria-keyshortcuts="Control+S Meta+S"
              title="Save (Ctrl+S / ⌘S)"
              onClick={() => void saveFile(client)}
            >
              {saving ? 'Saving…' : 'Save'}
            </button>
          </div>
          <InlineError error={fileError} />
          <InlineError error={saveError} />
          {openFile ? (
            <CodeEditor
              ref={editor}
              reveal={reveal && reveal.path === openFile.path ? reveal : null}
              doc={{ key: `${openFile.plugin}/${openFile.path}`, path: openFile.path, text: openFile.buffer, rev: openFile.rev }}
              diagnostics={currentDiagnostics}
              label={`Editor: ${openFile.path} of plugin ${openFile.plugin}`}
              onChange={updateBuffer}
              onSave={() => void saveFile(client)}
            />
          ) : (
            <div className="editor-placeholder muted">{fileLoading ? 'Opening…' : 'Pick a file on the left to edit it.'}</div>
          )}
          <ProblemsList
            diagnostics={allDiagnostics}
            currentPath={openFile?.path ?? null}
            checking={checking}
            checkError={liveForFile?.error ?? null}
            onSelect={onSelectDiagnostic}
          />
        </div>
      </div>
    </section>
  );
}

/**
 * Sends the buffer to plugins.check after a pause in typing (at once for a newly opened file),
 * and keeps only the answer to the latest request. Returns whether a check is outstanding.
 */
function useLiveCheck(client: GatehouseClient, file: { plugin: string; path: string; buffer: string } | null, pluginHash: string | null): boolean {
  const [checks] = useState(latest);
  const lastKey = useRef<string | null>(null);
  const [checking, setChecking] = useState(false);
  const key = file ? `${file.plugin}\u0000${file.path}` : null;
  const buffer = file?.buffer;

  useEffect(() => {
    if (!file) return;
    const req = checks.begin();
    const fresh = lastKey.current !== key;
    lastKey.current = key;
    const { plugin, path, buffer: content } = file;
    setChecking(true);
    const timer = setTimeout(() => {
      checkPluginFile(client, { name: plugin, path, content }).then(
        ({ problems, findings }) => {
          if (!req.current()) return;
          setChecking(false);
          usePluginsStore.setState({ live: { plugin, path, problems, findings, error: null } });
        },
        (err: unknown) => {
          if (!req.current()) return;
          setChecking(false);
          // Keep the last markers; say the check itself failed.
          usePluginsStore.setState((s) => ({
            live: { plugin, path, problems: s.live?.path === path ? s.live.problems : [], findings: s.live?.path === path ? s.live.findings : [], error: errorMessage(err) },
          }));
        },
      );
    }, fresh ? 0 : CHECK_DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `file` is read through key and buffer; pluginHash re-checks after the folder changed
  }, [client, key, buffer, pluginHash]);

  useEffect(() => {
    if (!key) setChecking(false);
  }, [key]);
  return checking;
}
