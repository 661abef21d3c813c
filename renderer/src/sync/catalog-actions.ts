// The Catalog domain: catalog.sources and catalog.updates, loaded on every connect and reloaded on
// catalog.changed (a source added or refreshed, an install or quarantine) and plugins.changed (an
// enable or a quarantine by the registry). The newest answer wins; a refused console is emptied.
import { errorMessage } from '../lib/error-message.ts';
import { initialCatalogState, useCatalogStore } from '../stores/catalog-store.ts';
import type { GatehouseClient } from '../transport/client.ts';

let seq = 0;

export async function loadCatalog(client: GatehouseClient): Promise<void> {
  const mine = ++seq;
  try {
    const [s, u] = await Promise.all([client.call('catalog.sources', {}), client.call('catalog.updates', {})]);
    if (mine === seq) useCatalogStore.setState({ sources: s.sources, updates: u.updates, error: null });
  } catch (err) {
    if (mine === seq) useCatalogStore.setState({ error: errorMessage(err) });
  }
}

export function bindCatalog(client: GatehouseClient): () => void {
  const offs = [
    client.onEvent('catalog.changed', () => void loadCatalog(client)),
    client.onEvent('plugins.changed', () => void loadCatalog(client)),
    client.onStateChange((state) => {
      if (state === 'connected') void loadCatalog(client);
      if (state === 'unauthorized') {
        seq++;
        useCatalogStore.setState({ ...initialCatalogState });
      }
    }),
  ];
  if (client.getState() === 'connected') void loadCatalog(client);
  return () => offs.forEach((off) => off());
}
