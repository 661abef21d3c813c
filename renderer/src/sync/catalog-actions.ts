// The Catalog domain: catalog.sources and catalog.updates, loaded on every connect and reloaded on
// catalog.changed (a source added or refreshed, an install or quarantine) and, while the Catalog
// view is on screen, on plugins.changed (an enable, a registry quarantine). The newest answer wins.
import { errorMessage } from '../lib/error-message.ts';
import { initialCatalogState, useCatalogStore } from '../stores/catalog-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { bindDomain, latest } from './bind-domain.ts';
import { hostAction } from './host-action.ts';

const answers = latest();

export function bindCatalog(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    d.on('catalog.changed', () => void loadCatalog(client));
    const onPlugins = d.whileShown('catalog', () => loadCatalog(client), 500);
    d.on('plugins.changed', () => onPlugins.request());
    return {
      load: () => loadCatalog(client),
      reset: () => {
        answers.supersede();
        useCatalogStore.setState({ ...initialCatalogState });
      },
    };
  });
}

export async function loadCatalog(client: GatehouseClient): Promise<void> {
  const req = answers.begin();
  try {
    const [s, u] = await Promise.all([client.call('catalog.sources', {}), client.call('catalog.updates', {})]);
    if (req.current()) useCatalogStore.setState({ sources: s.sources, updates: u.updates, error: null });
  } catch (err) {
    if (req.current()) useCatalogStore.setState({ error: errorMessage(err) });
  }
}

// The Catalog view's own calls: each answer goes back to the dialog that asked (catalog.changed
// then reloads the lists above).
export const refreshCatalog = hostAction('catalog.refresh');
export const searchCatalog = hostAction('catalog.search');
export const getCatalogPage = hostAction('catalog.plugin');
export const approveCatalogUpdate = hostAction('catalog.approveUpdate');
export const previewCatalogSource = hostAction('catalog.previewSource');
export const addCatalogSource = hostAction('catalog.addSource');
export const installFromCatalog = hostAction('catalog.install');
