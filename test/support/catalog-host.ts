// A real host beside a real catalog built by the publisher functions, for the catalog tests: the
// catalog holds the example hello plugin (publisher acme); with `source`, the host is live at full
// autonomy and already trusts the catalog as the source "example".
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addCatalogSource } from '../../main/catalog/catalog-client.js';
import { addPlugin, initCatalog } from '../../main/catalog/publisher.js';
import type { CallContext } from '../../main/host/dispatcher.js';
import { createHost, type Host } from '../../main/host/create-host.js';
import type { MethodName, RequestOf } from '../../shared/contract.js';
import { repoRoot } from './cli.js';
import { tempDir } from './temp.js';

const operator: CallContext = { console: 'cli', operator: 'alice' };

export type CatalogOp = <M extends MethodName>(m: M, p: RequestOf<M>) => Promise<{ ok: boolean; result?: Record<string, unknown>; error?: { code: string; message: string } }>;

export interface CatalogHost {
  work: string;
  /** The publisher's folder; its `repository` is what a source points at. */
  cat: string;
  init: ReturnType<typeof initCatalog>;
  home: string;
  host: Host;
  /** A console API call as the operator alice. */
  op: CatalogOp;
}

/** Builds the catalog and starts the host; the host is pushed to `hosts` for the caller to close. */
export async function hostWithCatalog(prefix: string, hosts: Host[], opts: { source: boolean }): Promise<CatalogHost> {
  const work = tempDir(prefix);
  const cat = join(work, 'cat');
  const init = initCatalog(cat);
  await addPlugin(cat, join(repoRoot, 'examples/plugins/hello'), { publisher: 'acme' });
  const home = join(work, 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  if (opts.source) {
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    addCatalogSource(join(home, 'catalogs', 'example'), join(cat, 'repository'), readFileSync(join(cat, 'repository', 'metadata', '1.root.json')));
  }
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  hosts.push(host);
  await host.ready;
  const op: CatalogOp = async (m, p) => (await host.dispatcher.dispatch(m, p, operator)) as Awaited<ReturnType<CatalogOp>>;
  return { work, cat, init, home, host, op };
}
