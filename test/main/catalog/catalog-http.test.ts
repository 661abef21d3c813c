// A catalog served over real HTTP on loopback: tuf-js's own fetcher, the same verification as a
// local folder, and a hostile server that swaps a bundle in flight.
import { createReadStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { addCatalogSource, CatalogClient, CatalogError } from '../../../main/catalog/catalog-client.js';
import { addPlugin, initCatalog } from '../../../main/catalog/publisher.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

/** A static server over `root`; `swap` answers some paths with other bytes, as a compromised mirror would. */
async function serve(root: string, swap: (path: string) => Buffer | undefined = () => undefined): Promise<string> {
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const swapped = swap(path);
    if (swapped) return void res.end(swapped);
    const file = normalize(join(root, path));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.statusCode = 404;
      return void res.end();
    }
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function catalogWithHello(): Promise<{ work: string; repo: string }> {
  const work = tempDir('gatehouse-catalog-http-');
  initCatalog(join(work, 'cat'));
  await addPlugin(join(work, 'cat'), join(repoRoot, 'examples/plugins/hello'), { publisher: 'acme' });
  return { work, repo: join(work, 'cat', 'repository') };
}

describe('catalog over loopback HTTP', () => {
  it('refreshes, searches and installs from an HTTP mirror', async () => {
    const { work, repo } = await catalogWithHello();
    const url = await serve(repo);
    addCatalogSource(join(work, 'state'), url, readFileSync(join(repo, 'metadata', '1.root.json')));
    const client = new CatalogClient({ name: 'http', stateDir: join(work, 'state'), pluginsDir: join(work, 'plugins') });
    const { index } = await client.refresh();
    expect(CatalogClient.search(index, 'greets').map((p) => p.name)).toEqual(['hello']);
    const rec = await client.install('hello');
    expect(rec.version).toBe('1.0.0');
    expect(readdirSync(join(work, 'plugins'))).toEqual(['hello']);
  });

  it('a server that swaps the bundle in flight is refused and nothing is installed', async () => {
    const { work, repo } = await catalogWithHello();
    const evil = Buffer.from('GATEHOUSE-BUNDLE-1\n{"entries":[]}\n');
    const url = await serve(repo, (p) => (p.endsWith('.hello-1.0.0.bundle') ? evil : undefined));
    addCatalogSource(join(work, 'state'), url, readFileSync(join(repo, 'metadata', '1.root.json')));
    const client = new CatalogClient({ name: 'http', stateDir: join(work, 'state'), pluginsDir: join(work, 'plugins') });
    const err = await client.install('hello').then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogError);
    expect((err as Error).message).toMatch(/downloading plugins\/acme\/hello-1\.0\.0\.bundle failed/);
    expect(existsSync(join(work, 'plugins')) ? readdirSync(join(work, 'plugins')) : []).toEqual([]);
  });

  it('plain http off loopback is refused when the source is added, naming the URL', () => {
    const work = tempDir();
    expect(() => addCatalogSource(join(work, 'state'), 'http://plugins.example.org/', Buffer.from('{"signed":{"_type":"root","roles":{"root":{"keyids":[]}}}}'))).toThrow(/plain http; use https/);
  });
});
