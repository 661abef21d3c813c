// A plugin's page: one version's signed record, looked up through the trusted delegations.
import { useEffect, useState } from 'react';
import type { CatalogPageView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { getCatalogPage } from '../../sync/catalog-actions.ts';
import { InlineError } from '../../components/dialog-actions.tsx';
import { SafeText } from '../../components/safe-text.tsx';
import { errorMessage } from '../../lib/error-message.ts';
import { KeyIds } from './key-ids.tsx';
import { formatLimits, PermissionList } from './permission-list.tsx';

export function PluginPage({ source, name, onClose, onInstall }: { source: string; name: string; onClose(): void; onInstall(p: CatalogPageView): void }) {
  const client = useClient();
  const [version, setVersion] = useState<string | undefined>(undefined);
  const [page, setPage] = useState<CatalogPageView | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    getCatalogPage(client, { source, name, ...(version ? { version } : {}) })
      .then((p) => {
        if (!live) return;
        setPage(p);
        setError(null);
      })
      .catch((err: unknown) => live && setError(errorMessage(err)));
    return () => {
      live = false;
    };
  }, [client, source, name, version]);

  const headingId = `catalog-page-${source}-${name}`;
  return (
    <section className="panel catalog-page" aria-labelledby={headingId} data-testid="catalog-page" data-name={name}>
      <h2 id={headingId} className="panel-title">
        <SafeText text={name} /> <span className="panel-note">from {source}</span>
      </h2>
      <InlineError error={error} />
      {!page && !error ? <p className="muted">Verifying…</p> : null}
      {page ? (
        <>
          <p className="catalog-description" data-testid="catalog-page-description">
            <SafeText text={page.description} />
          </p>
          <div className="catalog-page-row">
            <label className="field field-inline">
              <span className="field-label">Version</span>
              <select className="input" data-testid="catalog-page-version" value={page.version} onChange={(e) => setVersion(e.target.value)}>
                {[...page.versions].reverse().map((v) => (
                  <option key={v} value={v}>
                    {v}
                    {v === page.latest ? ' (latest)' : ''}
                    {v === page.installed?.version ? ' (installed)' : ''}
                  </option>
                ))}
              </select>
            </label>
            <span className="muted">
              {page.kind} · by {page.publisher} · needs Gatehouse {page.minGatehouse}+
            </span>
          </div>
          <h3 className="catalog-subtitle">Permissions (signed)</h3>
          <PermissionList permissions={page.permissions} testId="catalog-page-permissions" />
          <dl className="facts">
            <dt>Limits</dt>
            <dd>
              {formatLimits(page.limits)}
              {page.wasmLog !== null ? `, log ${page.wasmLog ? 'linked' : 'not linked'}` : ''}
            </dd>
            <dt>Signer key ids</dt>
            <dd data-testid="catalog-page-signer">
              <KeyIds ids={page.signerKeyIds} />
            </dd>
            <dt>Scan</dt>
            <dd data-testid="catalog-page-scan">
              {page.scan.passed ? 'passed' : 'failed'}: {page.scan.findings} findings, weight {page.scan.totalWeight} (for bundle <span className="mono">{page.scan.bundleSha256.slice(0, 16)}…</span>)
            </dd>
            <dt>Source</dt>
            <dd className="mono">{page.sourceRepo ? `${page.sourceRepo.repository} @ ${page.sourceRepo.commit}` : <span className="muted">not given</span>}</dd>
            <dt>Installed</dt>
            <dd>{page.installed ? `${page.installed.version}${page.installed.quarantined ? `, revoked: ${page.installed.quarantined.reason}` : ''}` : <span className="muted">no</span>}</dd>
          </dl>
          <div className="catalog-page-actions">
            <button type="button" className="button button-primary" data-testid="catalog-install" disabled={page.installed?.version === page.version} onClick={() => onInstall(page)}>
              {page.installed ? (page.installed.version === page.version ? 'Installed' : `Install ${page.version} instead of ${page.installed.version}…`) : `Install ${page.version}…`}
            </button>
            <button type="button" className="button" onClick={onClose}>
              Close
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}
