// Adding a catalog source in two steps: the root file is read and its key ids shown (nothing is
// written), and only "Trust this root" adds the source, bound to exactly the key ids on screen.
import { useId, useState } from 'react';
import { useClient } from '../../sync/client-context.ts';
import { addCatalogSource, previewCatalogSource } from '../../sync/catalog-actions.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { DialogActions, InlineError } from '../../components/dialog-actions.tsx';
import { errorMessage } from '../../lib/error-message.ts';
import { KeyIds } from './key-ids.tsx';

const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

export function AddSourceDialog({ onClose, onAdded }: { onClose(): void; onAdded(): void }) {
  const client = useClient();
  const ids = useId();
  const [name, setName] = useState('');
  const [location, setLocation] = useState('');
  const [rootJson, setRootJson] = useState('');
  const [preview, setPreview] = useState<{ rootKeyIds: string[]; threshold: number | null; expires: string | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<{ expires: string | null; error: string | null } | null>(null);

  const nameProblem = name && !NAME.test(name) ? 'Use 1-40 lowercase letters, digits and dashes.' : null;
  const check = async () => {
    setBusy(true);
    setError(null);
    try {
      setPreview(await previewCatalogSource(client, { location: location.trim(), rootJson }));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const trust = async () => {
    if (!preview) return;
    setBusy(true);
    setError(null);
    try {
      const r = await addCatalogSource(client, { name, location: location.trim(), rootJson, confirmKeyIds: preview.rootKeyIds });
      setAdded({ expires: r.expires, error: r.error });
      onAdded();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  // Any change after the preview invalidates it: the operator confirms what is on screen, nothing else.
  const edit = (fn: () => void) => {
    fn();
    setPreview(null);
  };

  return (
    <ModalDialog
      title="Add a catalog source"
      onCancel={onClose}
      testId="catalog-add-dialog"
      footer={
        added ? (
          <button type="button" className="button button-primary" data-testid="catalog-add-done" onClick={onClose}>
            Done
          </button>
        ) : preview ? (
          <DialogActions onCancel={onClose} tone="primary" confirmTestId="catalog-add-trust" busy={busy} blocked={!name || nameProblem !== null} label="Trust this root" busyLabel="Adding…" onConfirm={() => void trust()} />
        ) : (
          <DialogActions onCancel={onClose} tone="primary" confirmTestId="catalog-add-check" busy={busy} blocked={!location.trim() || !rootJson} label="Show the root key ids" busyLabel="Reading…" onConfirm={() => void check()} />
        )
      }
    >
      {added ? (
        <div role="status" data-testid="catalog-add-result">
          <p>
            Added <strong>{name}</strong>.{' '}
            {added.error ? (
              <span className="catalog-error">Its first refresh failed: {added.error}</span>
            ) : (
              <>Metadata valid until {added.expires ?? 'unknown'}.</>
            )}
          </p>
        </div>
      ) : (
        <div className="form-grid">
          <label className="field">
            <span className="field-label">Name</span>
            <input className="input mono" data-testid="catalog-add-name" value={name} maxLength={40} spellCheck={false} autoComplete="off" autoFocus aria-invalid={nameProblem ? true : undefined} aria-describedby={`${ids}-name`} onChange={(e) => setName(e.target.value)} />
            <span id={`${ids}-name`} className={nameProblem ? 'field-error' : 'field-hint'}>
              {nameProblem ?? 'A short name for this source, shown in the audit log.'}
            </span>
          </label>
          <label className="field">
            <span className="field-label">Location</span>
            <input className="input mono" data-testid="catalog-add-location" value={location} maxLength={2000} spellCheck={false} autoComplete="off" placeholder="https://plugins.example.org/ or /mnt/mirror/repository" aria-describedby={`${ids}-loc`} onChange={(e) => edit(() => setLocation(e.target.value))} />
            <span id={`${ids}-loc`} className="field-hint">
              An https URL, or an absolute folder on the host (air-gapped mirrors). Plain http only on loopback.
            </span>
          </label>
          <label className="field">
            <span className="field-label">Root file (1.root.json from the publisher)</span>
            <input
              className="input"
              type="file"
              accept=".json,application/json"
              data-testid="catalog-add-root"
              onChange={(e) => {
                const f = e.target.files?.[0];
                if (!f) return;
                void f.text().then((t) => edit(() => setRootJson(t)));
              }}
            />
          </label>
          {preview ? (
            <div className="catalog-confirm" data-testid="catalog-add-preview">
              <p>
                Compare these root key ids with the ones the publisher gave you out of band. Only trust the root if they match: whoever holds {preview.threshold ?? 'these'} of these keys controls what this catalog may install.
              </p>
              <KeyIds ids={preview.rootKeyIds} />
              {preview.expires ? <p className="muted">This root expires {preview.expires}.</p> : null}
            </div>
          ) : null}
          <InlineError error={error} />
        </div>
      )}
    </ModalDialog>
  );
}
