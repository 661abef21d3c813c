// Catalog: signed plugin catalogs (main/catalog/). Sources with until when their verified
// metadata is valid, adding one (its root key ids shown for confirmation before it is trusted),
// search, plugin pages, install behind a consent screen, updates that widen permissions waiting
// for an approval of exactly what widened, and revoked (quarantined) installs. Refetched on
// catalog.changed and plugins.changed (sync/catalog-actions.ts); nothing here polls.
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { CatalogPageView, CatalogResultView, CatalogUpdateView } from '../../../shared/contract.ts';
import { useClient } from '../sync/client-context.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { InlineError } from '../components/dialog-actions.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { SafeText } from '../components/safe-text.tsx';
import { errorMessage } from '../lib/error-message.ts';
import { formatDateTime } from '../lib/format.ts';
import { useCatalogStore } from '../stores/catalog-store.ts';
import { loadCatalog, refreshCatalog, searchCatalog, approveCatalogUpdate } from '../sync/catalog-actions.ts';
import { AddSourceDialog } from './catalog/add-source-dialog.tsx';
import { ConsentDialog } from './catalog/consent-dialog.tsx';
import { KeyIds } from './catalog/key-ids.tsx';
import { PluginPage } from './catalog/plugin-page.tsx';
import { RefreshSchedule } from './catalog/refresh-schedule.tsx';
import '../styles/plugins.css';
import '../styles/catalog.css';

export function CatalogView() {
  const client = useClient();
  const { sources, updates, error: loadError } = useCatalogStore(useShallow((s) => ({ sources: s.sources, updates: s.updates, error: s.error })));
  const [adding, setAdding] = useState(false);
  const [refreshing, setRefreshing] = useState(false);
  const [refreshNote, setRefreshNote] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<CatalogResultView[] | null>(null);
  const [searchErrors, setSearchErrors] = useState<{ source: string; message: string }[]>([]);
  const [searching, setSearching] = useState(false);
  const [page, setPage] = useState<{ source: string; name: string } | null>(null);
  const [installing, setInstalling] = useState<{ source: string; spec: string } | null>(null);

  const load = () => loadCatalog(client);

  const refresh = async () => {
    setRefreshing(true);
    setRefreshNote(null);
    try {
      const r = await refreshCatalog(client, {});
      const failed = r.sources.filter((s) => !s.ok);
      setRefreshNote(failed.length ? `${failed.length} of ${r.sources.length} sources could not be refreshed; their last valid metadata stays in use.` : `Refreshed ${r.sources.length} source${r.sources.length === 1 ? '' : 's'}.`);
      await load();
    } catch (err) {
      setRefreshNote(errorMessage(err));
    } finally {
      setRefreshing(false);
    }
  };

  const search = async () => {
    setSearching(true);
    try {
      const r = await searchCatalog(client, { query });
      setResults(r.results);
      setSearchErrors(r.errors);
    } catch (err) {
      setSearchErrors([{ source: '', message: errorMessage(err) }]);
    } finally {
      setSearching(false);
    }
  };

  const installed = (sources ?? []).flatMap((s) => s.installed.map((i) => ({ ...i, source: s.name })));

  return (
    <ViewFrame
      id="catalog"
      title="Catalog"
      subtitle="Plugins from signed catalogs: every refresh and install is verified against the root you trusted."
      actions={
        <>
          <button type="button" className="button" data-testid="catalog-refresh" disabled={refreshing || !sources?.length} aria-busy={refreshing} onClick={() => void refresh()}>
            {refreshing ? 'Refreshing…' : 'Refresh now'}
          </button>
          <button type="button" className="button button-primary" data-testid="catalog-add-source" onClick={() => setAdding(true)}>
            Add a source
          </button>
        </>
      }
    >
      <InlineError error={loadError} prefix="Could not load the catalogs" />
      {refreshNote ? (
        <p className="muted" role="status" data-testid="catalog-refresh-note">
          {refreshNote}
        </p>
      ) : null}

      <section className="panel panel-table" aria-labelledby="catalog-sources-heading">
        <h2 id="catalog-sources-heading" className="panel-title">
          Sources <span className="panel-note">{sources?.length ?? 0}</span>
        </h2>
        <RefreshSchedule />
        {sources && sources.length === 0 ? <EmptyState title="No catalog yet">Add a source with the root file its publisher gave you; you will compare its key ids before it is trusted.</EmptyState> : null}
        {sources && sources.length > 0 ? (
          // Focusable: a wide table scrolls sideways, and keyboard users must be able to scroll it too.
          <div className="table-scroll" tabIndex={0} role="region" aria-label="Catalog sources">
            <table className="data-table" data-testid="catalog-sources">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Location</th>
                  <th scope="col">Root key ids</th>
                  <th scope="col">Valid offline until</th>
                  <th scope="col">Last refresh</th>
                </tr>
              </thead>
              <tbody>
                {sources.map((s) => (
                  <tr key={s.name} data-testid="catalog-source" data-name={s.name}>
                    <td>
                      <SafeText text={s.name} />
                    </td>
                    <td className="mono catalog-location">
                      <SafeText text={s.location} />
                    </td>
                    <td className="mono">
                      <KeyIds ids={s.rootKeyIds} />
                    </td>
                    <td data-testid="catalog-source-expires">{s.expires ? <time dateTime={s.expires}>{formatDateTime(Date.parse(s.expires))}</time> : <span className="muted">not refreshed yet</span>}</td>
                    <td data-testid="catalog-source-refresh">
                      {s.lastRefresh ? (
                        s.lastRefresh.ok ? (
                          <span>ok, {formatDateTime(Date.parse(s.lastRefresh.at))}</span>
                        ) : (
                          <span className="catalog-error">
                            failed {formatDateTime(Date.parse(s.lastRefresh.at))}: <SafeText text={s.lastRefresh.error ?? ''} />
                          </span>
                        )
                      ) : (
                        <span className="muted">never</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>

      <section className="panel" aria-labelledby="catalog-updates-heading" data-testid="catalog-updates">
        <h2 id="catalog-updates-heading" className="panel-title">
          Updates waiting <span className="panel-note">{updates.length}</span>
        </h2>
        {updates.length === 0 ? <p className="muted">No update waits. Updates with the same or fewer permissions go straight to the plugin’s “approve change” in Plugins.</p> : null}
        <ul className="catalog-list">
          {updates.map((u) => (
            <UpdateItem key={`${u.source}/${u.name}@${u.to}`} update={u} onDone={() => void load()} />
          ))}
        </ul>
      </section>

      <section className="panel" aria-labelledby="catalog-search-heading">
        <h2 id="catalog-search-heading" className="panel-title">
          Search
        </h2>
        <form
          className="catalog-search"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            void search();
          }}
        >
          <label className="field field-inline">
            <span className="field-label">Find plugins</span>
            <input className="input" type="search" data-testid="catalog-query" value={query} maxLength={200} placeholder="name, description or publisher" onChange={(e) => setQuery(e.target.value)} />
          </label>
          <button type="submit" className="button" data-testid="catalog-search" disabled={searching || !sources?.length} aria-busy={searching}>
            {searching ? 'Searching…' : 'Search'}
          </button>
        </form>
        {searchErrors.map((e) => (
          <p key={e.source} className="inline-error" role="alert">
            {e.source ? `${e.source}: ` : ''}
            <SafeText text={e.message} />
          </p>
        ))}
        {results && results.length === 0 ? <p className="muted">Nothing matches.</p> : null}
        {results && results.length > 0 ? (
          <ul className="catalog-list" data-testid="catalog-results">
            {results.map((r) => (
              <li key={`${r.source}/${r.name}`} className="catalog-result" data-testid="catalog-result" data-name={r.name}>
                <div>
                  <strong>
                    <SafeText text={r.name} />
                  </strong>{' '}
                  <span className="mono">{r.latest}</span> <span className="muted">by {r.publisher} · {r.kind} · {r.source}</span>
                  <p className="catalog-description">
                    <SafeText text={r.description} />
                  </p>
                </div>
                <button type="button" className="button button-small" data-testid="catalog-open" aria-label={`Open ${r.name}`} onClick={() => setPage({ source: r.source, name: r.name })}>
                  Details
                </button>
              </li>
            ))}
          </ul>
        ) : null}
      </section>

      {page ? <PluginPage source={page.source} name={page.name} onClose={() => setPage(null)} onInstall={(p: CatalogPageView) => setInstalling({ source: p.source, spec: `${p.name}@${p.version}` })} /> : null}

      <section className="panel panel-table" aria-labelledby="catalog-installed-heading">
        <h2 id="catalog-installed-heading" className="panel-title">
          Installed from catalogs <span className="panel-note">{installed.length}</span>
        </h2>
        {installed.length === 0 ? <p className="muted">Nothing installed from a catalog yet.</p> : null}
        {installed.length > 0 ? (
          <div className="table-scroll" tabIndex={0} role="region" aria-label="Plugins installed from catalogs">
            <table className="data-table" data-testid="catalog-installed">
              <thead>
                <tr>
                  <th scope="col">Plugin</th>
                  <th scope="col">Version</th>
                  <th scope="col">Source</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {installed.map((i) => (
                  <tr key={`${i.source}/${i.name}`} data-testid="catalog-installed-row" data-name={i.name} data-state={i.quarantined ? 'revoked' : 'installed'}>
                    <td>
                      <SafeText text={i.name} />
                    </td>
                    <td className="mono">{i.version}</td>
                    <td>{i.source}</td>
                    <td>
                      {i.quarantined ? (
                        <span className="catalog-error">
                          Revoked, quarantined {formatDateTime(Date.parse(i.quarantined.at))}: <SafeText text={i.quarantined.reason} />
                        </span>
                      ) : (
                        <span>installed (enable and review it in Plugins)</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>

      {adding ? <AddSourceDialog onClose={() => setAdding(false)} onAdded={() => void load()} /> : null}
      {installing ? <ConsentDialog source={installing.source} spec={installing.spec} onClose={() => setInstalling(null)} onInstalled={() => void load()} /> : null}
    </ViewFrame>
  );
}

function UpdateItem({ update: u, onDone }: { update: CatalogUpdateView; onDone(): void }) {
  const client = useClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const approve = async () => {
    setBusy(true);
    setError(null);
    try {
      await approveCatalogUpdate(client, { source: u.source, name: u.name, version: u.to, widened: u.widened });
      onDone();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="catalog-update" data-testid="catalog-update" data-name={u.name} data-to={u.to}>
      <div>
        <strong>
          <SafeText text={u.name} />
        </strong>{' '}
        <span className="mono">
          {u.from} → {u.to}
        </span>{' '}
        <span className="muted">from {u.source}</span>
        {u.widened.length ? (
          <div className="catalog-widened" data-testid="catalog-update-widened">
            <span className="field-label">Widens</span>
            <ul>
              {u.widened.map((w) => (
                <li key={w} className="mono">
                  + {w}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {u.narrowed.length ? (
          <div className="catalog-narrowed">
            <span className="field-label">Drops</span>
            <ul>
              {u.narrowed.map((w) => (
                <li key={w} className="mono">
                  − {w}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {u.error ? (
          <p className="inline-error">
            Not installed: <SafeText text={u.error} />
          </p>
        ) : null}
        <InlineError error={error} />
      </div>
      <button type="button" className="button button-small button-primary" data-testid="catalog-update-approve" disabled={busy} aria-busy={busy} onClick={() => void approve()}>
        {busy ? 'Installing…' : u.widened.length ? 'Approve the wider permissions' : 'Install update'}
      </button>
    </li>
  );
}
