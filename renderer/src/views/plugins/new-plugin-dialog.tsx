// "New plugin": scaffolds a small working tool in shell, Python or Node under the home plugins
// folder, then opens its code.
import { useId, useState } from 'react';
import { useClient } from '../../sync/client-context.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { errorMessage } from '../../lib/error-message.ts';
import { usePluginsStore } from '../../stores/plugins-store.ts';
import { createPlugin } from '../../sync/plugins-actions.ts';
import { InlineError } from '../../components/dialog-actions.tsx';

const NAME_RE = /^[a-zA-Z0-9-]{1,40}$/;
const langs = [
  { id: 'sh', label: 'Shell (run.sh)' },
  { id: 'py', label: 'Python (run.py)' },
  { id: 'node', label: 'Node (run.mjs)' },
  { id: 'ts-module', label: 'TypeScript module (mod.ts)' },
] as const;
type Lang = (typeof langs)[number]['id'];

export function nameProblem(name: string, taken: readonly string[]): string | null {
  if (name === '') return 'Give the plugin a name.';
  if (!NAME_RE.test(name)) return 'Use 1–40 letters, digits or "-" (no spaces, dots or underscores).';
  if (taken.includes(name)) return `A plugin named "${name}" already exists.`;
  return null;
}

export function NewPluginDialog({ onClose }: { onClose(): void }) {
  const client = useClient();
  const taken = usePluginsStore((s) => s.plugins).map((p) => p.name);
  const [name, setName] = useState('');
  const [lang, setLang] = useState<Lang>('sh');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = useId();
  const problem = nameProblem(name, taken);
  const showProblem = touched && problem !== null;

  const create = async () => {
    setTouched(true);
    if (problem || busy) return;
    setBusy(true);
    setError(null);
    try {
      await createPlugin(client, name, lang);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };

  return (
    <ModalDialog
      title="New plugin"
      onCancel={onClose}
      testId="new-plugin-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form={`${ids}-form`} className="button button-primary" data-testid="plugin-new-create" disabled={busy || (touched && problem !== null)} aria-busy={busy}>
            {busy ? 'Creating…' : 'Create'}
          </button>
        </>
      }
    >
      <form
        id={`${ids}-form`}
        className="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <p className="muted">A tool that echoes its input, with a manifest that passes validation and the scan. It starts disabled.</p>
        <label className="field">
          <span className="field-label">Name</span>
          <input
            className="input mono"
            data-testid="plugin-new-name"
            value={name}
            autoFocus
            maxLength={40}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={showProblem ? true : undefined}
            aria-describedby={`${ids}-hint`}
            onChange={(e) => {
              setName(e.target.value);
              setTouched(true);
            }}
          />
          <span id={`${ids}-hint`} className={showProblem ? 'field-error' : 'field-hint'}>
            {showProblem ? problem : 'Letters, digits and "-"; agents call it by this name.'}
          </span>
        </label>
        <label className="field">
          <span className="field-label">Language</span>
          <select className="input" data-testid="plugin-new-lang" value={lang} onChange={(e) => setLang(e.target.value as Lang)}>
            {langs.map((l) => (
              <option key={l.id} value={l.id}>
                {l.label}
              </option>
            ))}
          </select>
        </label>
        <InlineError error={error} prefix="Could not create the plugin" />
      </form>
    </ModalDialog>
  );
}
