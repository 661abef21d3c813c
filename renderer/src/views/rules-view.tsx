// Rules: the policy file in Monaco, checked by the host as the operator types (problems become
// markers, every example shows pass or fail), a replay of the draft over recorded calls, the rules
// in force with their hit counts, and Save,
// which the host refuses while the text has problems. The last good policy stays active while the
// file on disk is broken; a change on disk never replaces unsaved edits.
import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useClient } from '../sync/client-context.ts';
import { ViewFrame } from '../components/view-frame.tsx';
import { CodeEditor, type CodeEditorHandle } from '../editor/code-editor.tsx';
import { useConnectionStore } from '../stores/connection-store.ts';
import { policyDirty, usePolicyStore } from '../stores/policy-store.ts';
import { checkPolicy, loadPolicy, reloadFromDisk, revealPolicyLine, savePolicy, updatePolicyBuffer } from '../sync/policy-actions.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { ProblemsList } from './plugins/problems-list.tsx';
import { ExamplesPanel } from './rules/examples-panel.tsx';
import { POLICY_PATH, policyDiagnostic } from './rules/policy-diagnostics.ts';
import { ReplayPanel } from './rules/replay-panel.tsx';
import { RulesList } from './rules/rules-list.tsx';
import '../styles/rules.css';
import { InlineError } from '../components/dialog-actions.tsx';

/** How long typing must pause before the text is sent to policy.check. */
export const POLICY_CHECK_DEBOUNCE_MS = 200;

// One empty list for "no problems yet", so the editor's markers are not rebuilt on every render.
const NO_PROBLEMS: never[] = [];

export function RulesView() {
  const client = useClient();
  const connected = useConnectionStore((s) => s.state === 'connected');
  const s = usePolicyStore(
    useShallow((st) => ({
      policy: st.policy,
      loadError: st.loadError,
      buffer: st.buffer,
      saved: st.saved,
      rev: st.rev,
      check: st.check,
      checkError: st.checkError,
      checking: st.checking,
      saving: st.saving,
      saveMessage: st.saveMessage,
      diskChanged: st.diskChanged,
      reveal: st.reveal,
    })),
  );
  const dirty = policyDirty(s);
  const editor = useRef<CodeEditorHandle>(null);
  useLiveCheck(client, s.policy !== null, s.buffer);
  useUnloadGuard();

  // Opening the view refreshes hit counts and the file (unsaved edits are kept).
  useEffect(() => {
    if (connected) void loadPolicy(client);
  }, [client, connected]);

  const problems = s.check?.problems ?? s.policy?.problems ?? NO_PROBLEMS;
  const examples = s.check?.examples ?? s.policy?.examples ?? [];
  const diagnostics = useMemo(() => problems.map(policyDiagnostic), [problems]);
  const hasProblems = problems.length > 0;

  const save = () => {
    if (connected) void savePolicy(client);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    // Ctrl/Cmd+S anywhere in the view (inside Monaco its own command handles it).
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 's') {
      e.preventDefault();
      save();
    }
  };

  return (
    <ViewFrame
      id="rules"
      title="Rules"
      subtitle="Your policy.yaml on top of the locked built-in rules: checked as you type, examples included."
      bodyClassName="view-body-fill"
      actions={
        <button
          type="button"
          className="button button-primary"
          data-testid="policy-save"
          disabled={!connected || !s.policy || s.saving}
          aria-busy={s.saving}
          aria-keyshortcuts="Control+S Meta+S"
          title={hasProblems ? 'The host refuses to save text with problems; saving shows them' : 'Save policy.yaml (Ctrl+S / ⌘S)'}
          onClick={save}
        >
          {s.saving ? 'Saving…' : 'Save'}
        </button>
      }
    >
      <div className="rules-layout" onKeyDown={onKeyDown}>
        <div className="rules-main">
          <InlineError error={s.loadError} prefix="Could not load the policy" />
          {s.policy?.error ? (
            <div className="inline-error policy-error" role="alert" data-testid="policy-error">
              <strong>The policy on disk has problems; the last good policy stays active.</strong> {s.policy.error}
            </div>
          ) : null}
          {s.diskChanged ? (
            <div className="policy-notice" role="status" data-testid="policy-disk-changed">
              <span>policy.yaml changed on disk while you have unsaved edits here. Your text is kept; saving replaces the file with it.</span>
              <button type="button" className="button button-small" data-testid="policy-reload" onClick={() => void reloadFromDisk(client)}>
                Discard my edits and load the file
              </button>
            </div>
          ) : null}
          {s.saveMessage ? (
            <p className={s.saveMessage.ok ? 'policy-saved' : 'inline-error'} role={s.saveMessage.ok ? 'status' : 'alert'} data-testid="policy-save-message" data-ok={s.saveMessage.ok ? 'true' : 'false'}>
              {s.saveMessage.text}
            </p>
          ) : null}
          <section className="panel rules-editor-panel" aria-labelledby="policy-file-heading">
            <div className="editor-toolbar">
              <h2 id="policy-file-heading" className="mono editor-path" data-testid="policy-file">
                {s.policy?.file ?? POLICY_PATH}
              </h2>
              {dirty ? (
                <span className="dirty-label" data-testid="policy-dirty">
                  ● unsaved
                </span>
              ) : s.policy ? (
                <span className="muted">saved</span>
              ) : null}
              <span className="toolbar-spacer" />
              {s.policy ? <span className="muted">version {s.policy.version}</span> : null}
            </div>
            {s.policy ? (
              <CodeEditor
                ref={editor}
                reveal={s.reveal}
                doc={{ key: 'policy', path: POLICY_PATH, text: s.buffer, rev: s.rev }}
                diagnostics={diagnostics}
                label="Editor: policy.yaml"
                onChange={updatePolicyBuffer}
                onSave={save}
              />
            ) : (
              <div className="editor-placeholder muted">{s.loadError ? 'The policy could not be loaded.' : 'Loading the policy…'}</div>
            )}
            <ProblemsList
              diagnostics={diagnostics}
              currentPath={POLICY_PATH}
              checking={s.checking}
              checkError={s.checkError}
              onSelect={(d) => editor.current?.reveal(d.line, d.column)}
            />
          </section>
        </div>
        <div className="rules-side">
          <ExamplesPanel examples={examples} onSelect={(line, column) => (editor.current ? editor.current.reveal(line, column) : revealPolicyLine(line, column))} />
          {/* Beside the editor, above the long list of rules in force: an author edits the draft
              and reads what its replay would change without scrolling the editor away. */}
          {s.policy ? <ReplayPanel text={s.buffer} connected={connected} /> : null}
          {s.policy ? <RulesList rules={s.policy.rules} examples={examples} onReveal={(line) => (editor.current ? editor.current.reveal(line, 1) : revealPolicyLine(line, 1))} /> : null}
        </div>
      </div>
    </ViewFrame>
  );
}

/** Sends the text to policy.check after a pause in typing (at once for newly loaded text). */
function useLiveCheck(client: GatehouseClient, loaded: boolean, text: string): void {
  const first = useRef(true);
  useEffect(() => {
    if (!loaded) return;
    const fresh = first.current;
    first.current = false;
    const t = setTimeout(() => void checkPolicy(client, text), fresh ? 0 : POLICY_CHECK_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [client, loaded, text]);
}

/** The browser asks before a reload or close would drop unsaved policy text. */
function useUnloadGuard(): void {
  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!policyDirty(usePolicyStore.getState())) return;
      e.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);
}
