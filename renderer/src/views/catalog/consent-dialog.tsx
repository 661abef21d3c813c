// The consent screen: the host verifies the plugin (signatures, hash, unpack, manifest, permissions
// equal to the signed ones, local scan) and answers what it may do, writing nothing. Only "Install"
// installs it, disabled; an update that widens permissions needs its widening approved by name.
import { useEffect, useState } from 'react';
import { useClient } from '../../sync/client-context.ts';
import { enablePlugin } from '../../sync/plugins-actions.ts';
import { installFromCatalog } from '../../sync/catalog-actions.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { SafeText } from '../../components/safe-text.tsx';
import { errorMessage } from '../../lib/error-message.ts';
import { KeyIds } from './key-ids.tsx';
import { formatLimits, PermissionList } from './permission-list.tsx';
import type { ResponseOf } from '../../../../shared/contract.ts';

/** What catalog.install answers as its consent: what the plugin may read, write and reach. */
type Consent = NonNullable<ResponseOf<'catalog.install'>['consent']>;

type Phase = { kind: 'verifying' } | { kind: 'ready'; consent: Consent } | { kind: 'installing'; consent: Consent } | { kind: 'installed'; consent: Consent } | { kind: 'failed'; message: string; consent: Consent | null };

export function ConsentDialog({ source, spec, onClose, onInstalled }: { source: string; spec: string; onClose(): void; onInstalled(): void }) {
  const client = useClient();
  const [phase, setPhase] = useState<Phase>({ kind: 'verifying' });
  const [approveWider, setApproveWider] = useState(false);
  const [enabled, setEnabled] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    installFromCatalog(client, { source, spec, consent: false })
      // Asked without consent, the host always answers what the plugin would get (consent is null only once installed).
      .then((r) => live && setPhase(r.consent ? { kind: 'ready', consent: r.consent } : { kind: 'failed', message: 'the host answered without the consent to show', consent: null }))
      .catch((err: unknown) => live && setPhase({ kind: 'failed', message: errorMessage(err), consent: null }));
    return () => {
      live = false;
    };
  }, [client, source, spec]);

  const consent = phase.kind === 'verifying' ? null : phase.consent;
  const widened = consent?.update?.widened ?? [];
  const install = async () => {
    if (!consent) return;
    setPhase({ kind: 'installing', consent });
    try {
      const r = await installFromCatalog(client, { source, spec: `${consent.name}@${consent.version}`, consent: true, ...(widened.length ? { allowWider: approveWider } : {}) });
      if (!r.installed) throw new Error('The host did not install it.');
      setPhase({ kind: 'installed', consent });
      onInstalled();
    } catch (err) {
      setPhase({ kind: 'failed', message: errorMessage(err), consent });
    }
  };
  const enable = async () => {
    if (!consent) return;
    try {
      await enablePlugin(client, { name: consent.name });
      setEnabled('Enabled: agents can call it now.');
    } catch (err) {
      setEnabled(errorMessage(err));
    }
  };

  return (
    <ModalDialog
      title={consent ? `Install ${consent.name} ${consent.version}?` : `Install ${spec}?`}
      onCancel={onClose}
      testId="catalog-consent"
      className="catalog-consent"
      footer={
        phase.kind === 'installed' ? (
          <>
            <button type="button" className="button" data-testid="catalog-consent-enable" disabled={enabled !== null} onClick={() => void enable()}>
              Enable now
            </button>
            <button type="button" className="button button-primary" data-testid="catalog-consent-done" onClick={onClose}>
              Done
            </button>
          </>
        ) : (
          <>
            <button type="button" className="button" data-testid="catalog-consent-cancel" onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="button button-primary" data-testid="catalog-consent-install" disabled={phase.kind !== 'ready' || (widened.length > 0 && !approveWider)} aria-busy={phase.kind === 'installing'} onClick={() => void install()}>
              {phase.kind === 'installing' ? 'Installing…' : 'Install'}
            </button>
          </>
        )
      }
    >
      <div role="status" aria-live="polite" data-testid="catalog-consent-progress" data-phase={phase.kind} className="catalog-progress">
        {phase.kind === 'verifying' ? 'Verifying signatures, downloading and checking the bundle, scanning it…' : null}
        {phase.kind === 'ready' ? 'Verified. Nothing is installed until you press Install.' : null}
        {phase.kind === 'installing' ? 'Installing…' : null}
        {phase.kind === 'installed' ? `Installed ${consent?.name} ${consent?.version}, disabled until you enable it.` : null}
      </div>
      {enabled ? (
        <p role="status" data-testid="catalog-consent-enabled">
          {enabled}
        </p>
      ) : null}
      {phase.kind === 'failed' ? (
        <p className="inline-error" role="alert" data-testid="catalog-consent-error">
          <SafeText text={phase.message} />
        </p>
      ) : null}
      {consent ? (
        <div className="catalog-consent-body">
          <p>
            From <strong>{source}</strong>, published by <strong>{consent.publisher}</strong>
            {consent.update ? <> — an update from {consent.update.from}</> : null}.
          </p>
          <h3 className="catalog-subtitle">What it may do</h3>
          <PermissionList permissions={{ read: consent.reads, write: consent.writes, hosts: consent.reaches, env: consent.env }} testId="catalog-consent-permissions" />
          {widened.length ? (
            <div className="catalog-widened" data-testid="catalog-consent-widened">
              <span className="field-label">This update widens</span>
              <ul>
                {widened.map((w) => (
                  <li key={w} className="mono">
                    + {w}
                  </li>
                ))}
              </ul>
              <label className="field-inline">
                <input type="checkbox" data-testid="catalog-consent-wider" checked={approveWider} onChange={(e) => setApproveWider(e.target.checked)} /> I approve exactly these wider permissions
              </label>
            </div>
          ) : null}
          <dl className="facts">
            <dt>Limits</dt>
            <dd data-testid="catalog-consent-limits">{formatLimits(consent.limits)}</dd>
            <dt>Signed by</dt>
            <dd>
              <KeyIds ids={consent.signerKeyIds} />
            </dd>
            <dt>Scan</dt>
            <dd data-testid="catalog-consent-scan">
              publisher’s: {consent.scan.signed.passed ? 'passed' : 'failed'} ({consent.scan.signed.findings} findings); here: {consent.scan.local.passed ? 'passed' : 'failed'} ({consent.scan.local.findings} findings, weight {consent.scan.local.totalWeight})
            </dd>
            <dt>Source</dt>
            <dd className="mono">{consent.source ? `${consent.source.repository} @ ${consent.source.commit}` : <span className="muted">not given</span>}</dd>
          </dl>
        </div>
      ) : null}
    </ModalDialog>
  );
}
