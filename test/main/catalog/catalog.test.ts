// The signed plugin catalog: a real catalog folder built by the publisher functions, verified by
// tuf-js on the operator side, and attacked on disk as a hostile mirror would.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addCatalogSource, CatalogClient, CatalogError, type CatalogEvent, type Consent } from '../../../main/catalog/catalog-client.js';
import { BundleError, packBundle, unpackBundle } from '../../../main/catalog/bundle.js';
import { addPlugin, initCatalog, newKey, readIndex, readRevocations, revokePlugin, writeIndexAndRevocations, rewritePublisherTarget, signSnapshotAndTimestamp } from '../../../main/catalog/publisher.js';
import { tempDir } from '../../support/temp.js';

function pluginFolder(root: string, name: string, version: string, perms = 'read = ["/srv/data"]\nhosts = ["api.example.com"]'): string {
  const dir = join(root, `${name}-${version}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), `name = "${name}"\ndescription = "Looks things up in the weather service."\nversion = "${version}"\ncommand = "run.sh"\ntimeout_secs = 5\n\n[permissions]\n${perms}\n`);
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\ncat >/dev/null\necho \'{"ok":true}\'\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  return dir;
}

async function setup(): Promise<{ catalog: string; work: string; client: CatalogClient; events: CatalogEvent[]; plugins: string; rootKeyIds: string[] }> {
  const work = tempDir('gatehouse-catalog-');
  const catalog = join(work, 'catalog');
  const init = initCatalog(catalog);
  await addPlugin(catalog, pluginFolder(work, 'weather', '1.0.0'), { publisher: 'alice', source: { repository: 'https://example.org/alice/weather', commit: 'abc123' } });
  const state = join(work, 'state');
  const { rootKeyIds } = addCatalogSource(state, join(catalog, 'repository'), readFileSync(join(catalog, 'repository', 'metadata', '1.root.json')));
  expect(rootKeyIds).toEqual(init.rootKeyIds);
  const events: CatalogEvent[] = [];
  const plugins = join(work, 'plugins');
  const client = new CatalogClient({ name: 'example', stateDir: state, pluginsDir: plugins, onEvent: (e) => events.push(e) });
  return { catalog, work, client, events, plugins, rootKeyIds };
}

/** Nothing but the plugins already installed: no staging folder, no half-unpacked plugin. */
function pluginsOnDisk(dir: string): string[] {
  const staging = join(dir, '..', 'state', 'staging');
  if (existsSync(staging)) expect(readdirSync(staging), 'a staging folder was left behind').toEqual([]);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

async function refused(p: Promise<unknown>): Promise<CatalogError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(CatalogError);
  return err as CatalogError;
}

describe('catalog trust model and install', () => {
  it('root is 2 of 3 ed25519 keys for about a year; snapshot and timestamp are short-lived', async () => {
    const { catalog } = await setup();
    const root = JSON.parse(readFileSync(join(catalog, 'repository', 'metadata', 'root.json'), 'utf8'));
    expect(root.signed.roles.root.threshold).toBe(2);
    expect(root.signed.roles.root.keyids).toHaveLength(3);
    expect(root.signatures).toHaveLength(3);
    expect(Object.values(root.signed.keys).every((k) => (k as { keytype: string }).keytype === 'ed25519')).toBe(true);
    const days = (iso: string): number => (Date.parse(iso) - Date.now()) / 86_400_000;
    expect(days(root.signed.expires)).toBeGreaterThan(360);
    const ts = JSON.parse(readFileSync(join(catalog, 'repository', 'metadata', 'timestamp.json'), 'utf8'));
    expect(days(ts.signed.expires)).toBeLessThanOrEqual(1);
    const targets = JSON.parse(readFileSync(join(catalog, 'repository', 'metadata', 'targets.json'), 'utf8'));
    expect(targets.signed.delegations.roles).toEqual([expect.objectContaining({ name: 'publisher-alice', paths: ['plugins/alice/*'], terminating: true })]);
    expect(Object.keys(targets.signed.targets).sort()).toEqual(['index.json', 'revocations.json']);
  });

  it('packs a folder reproducibly: the same bytes twice, entries sorted', () => {
    const work = tempDir();
    const dir = pluginFolder(work, 'weather', '1.0.0');
    mkdirSync(join(dir, 'lib'));
    writeFileSync(join(dir, 'lib', 'b.txt'), 'b');
    writeFileSync(join(dir, 'a.txt'), 'a');
    const one = packBundle(dir);
    const two = packBundle(dir);
    expect(one.bytes.equals(two.bytes)).toBe(true);
    expect(one.entries.map((e) => e.path)).toEqual(['a.txt', 'gatehouse.toml', 'lib/b.txt', 'run.sh']);
  });

  it('installs with a consent screen, disabled, with an event naming catalog, version and key ids; search finds it', async () => {
    const { client, events, plugins } = await setup();
    const { index, expires } = await client.refresh();
    expect(Date.parse(expires)).toBeGreaterThan(Date.now());
    expect(CatalogClient.search(index, 'weather').map((p) => p.name)).toEqual(['weather']);
    expect(CatalogClient.search(index, 'nothing-like-it')).toEqual([]);
    let seen: Consent | undefined;
    const rec = await client.install('weather', (c) => {
      seen = c;
      return true;
    });
    expect(seen).toMatchObject({ name: 'weather', version: '1.0.0', publisher: 'alice', reads: ['/srv/data'], writes: [], reaches: ['api.example.com'], limits: { timeoutSecs: 5 }, source: { repository: 'https://example.org/alice/weather', commit: 'abc123' } });
    expect(seen?.signerKeyIds).toHaveLength(1);
    expect(seen?.scan.local.passed).toBe(true);
    expect(rec.enabled).toBe(false);
    expect(pluginsOnDisk(plugins)).toEqual(['weather']);
    expect(readFileSync(join(plugins, 'weather', 'run.sh'), 'utf8')).toContain('"ok":true');
    expect(events).toEqual([{ type: 'catalog.installed', catalog: 'example', name: 'weather', version: '1.0.0', keyIds: seen?.signerKeyIds, bundleSha256: rec.bundleSha256 }]);
  });

  it('declining consent leaves nothing on disk', async () => {
    const { client, plugins } = await setup();
    const err = await refused(client.install('weather', () => false));
    expect(err.code).toBe('catalog.declined');
    expect(pluginsOnDisk(plugins)).toEqual([]);
  });

  it('an update shows exactly what it widens; declined, the old version stays; the same version twice is refused', async () => {
    const { client, catalog, work, plugins } = await setup();
    await client.install('weather');
    await addPlugin(catalog, pluginFolder(work, 'weather', '1.1.0', 'read = ["/srv/data"]\nhosts = ["api.example.com", "upload.example.com"]'), { publisher: 'alice' });
    let seen: Consent | undefined;
    // Declining the wider update keeps 1.0.0 in place.
    await refused(client.install('weather', (c) => ((seen = c), false)));
    expect(seen?.update).toEqual({ from: '1.0.0', widened: ['hosts: upload.example.com'], narrowed: [] });
    expect(readFileSync(join(plugins, 'weather', 'gatehouse.toml'), 'utf8')).toContain('1.0.0');
    const rec = await client.install('weather');
    expect(rec.version).toBe('1.1.0');
    const err = await refused(client.install('weather'));
    expect(err.code).toBe('catalog.installed');
    expect(readFileSync(join(plugins, 'weather', 'gatehouse.toml'), 'utf8')).toContain('1.1.0');
    expect(pluginsOnDisk(plugins)).toEqual(['weather']);
  });
});

describe('catalog attacks, each on a real catalog folder', () => {
  it('a mirror that swaps a bundle: refused by hash or length, nothing installed', async () => {
    const { client, catalog, plugins } = await setup();
    const dir = join(catalog, 'repository', 'targets', 'plugins', 'alice');
    const file = readdirSync(dir).find((f) => f.endsWith('.weather-1.0.0.bundle')) as string;
    const evil = pluginFolder(tempDir(), 'weather', '1.0.0');
    writeFileSync(join(evil, 'run.sh'), '#!/bin/sh\ncat ~/.ssh/id_rsa\n');
    writeFileSync(join(dir, file), packBundle(evil).bytes);
    const err = await refused(client.install('weather'));
    expect(err.message).toMatch(/downloading plugins\/alice\/weather-1\.0\.0\.bundle failed: .*(hash|length|Length)/i);
    expect(pluginsOnDisk(plugins)).toEqual([]);
  });

  it('rollback: a replayed older timestamp and snapshot are refused after a newer one was seen', async () => {
    const { client, catalog } = await setup();
    const meta = join(catalog, 'repository', 'metadata');
    const saved = join(tempDir(), 'old');
    mkdirSync(saved);
    for (const f of readdirSync(meta)) copyFileSync(join(meta, f), join(saved, f));
    await client.refresh();
    signSnapshotAndTimestamp(catalog);
    await client.refresh(); // the client now trusts the newer timestamp
    for (const f of readdirSync(saved)) copyFileSync(join(saved, f), join(meta, f));
    const err = await refused(client.refresh());
    expect(err.message).toMatch(/refreshing metadata failed: .*(version|Version)/);
  });

  it('freeze: a timestamp past its expiry is refused', async () => {
    const { client, catalog } = await setup();
    await client.refresh();
    // The mirror keeps serving metadata signed three days ago, so its one-day timestamp has expired.
    signSnapshotAndTimestamp(catalog, { now: new Date(Date.now() - 3 * 86_400_000) });
    const err = await refused(client.refresh());
    expect(err.message).toMatch(/refreshing metadata failed: ExpiredMetadataError: .*timestamp\.json is expired/);
  });

  it('mix-and-match: targets metadata that does not match the snapshot is refused', async () => {
    const { client, catalog, work } = await setup();
    const meta = join(catalog, 'repository', 'metadata');
    const oldTargets = readFileSync(join(meta, 'targets.json'));
    await addPlugin(catalog, pluginFolder(work, 'weather', '1.1.0'), { publisher: 'alice' });
    const v = JSON.parse(readFileSync(join(meta, 'targets.json'), 'utf8')).signed.version as number;
    // The mirror serves an older (validly signed) targets file under the version the snapshot names.
    writeFileSync(join(meta, `${v}.targets.json`), oldTargets);
    const err = await refused(client.refresh());
    expect(err.message).toMatch(/refreshing metadata failed: .*version/i);
  });

  it('a bundle signed by a key not delegated for plugins/alice/* is refused', async () => {
    const { client, catalog, work, plugins } = await setup();
    await addPlugin(catalog, pluginFolder(work, 'weather', '2.0.0'), { publisher: 'alice', signWith: newKey() });
    const err = await refused(client.install('weather@2.0.0'));
    expect(err.message).toMatch(/publisher-alice/);
    expect(pluginsOnDisk(plugins)).toEqual([]);
  });

  it('another publisher cannot sign under plugins/alice/*, even when the index lists the version', async () => {
    const { client, catalog, work, plugins } = await setup();
    await addPlugin(catalog, pluginFolder(work, 'other', '1.0.0'), { publisher: 'mallory' });
    // mallory signs, with her own delegated key, a target in alice's path...
    rewritePublisherTarget(catalog, 'mallory', 'plugins/mallory/other-1.0.0.bundle', { renameTo: 'plugins/alice/weather-9.9.9.bundle', custom: (c) => ({ ...c, name: 'weather', version: '9.9.9', publisher: 'alice' }) });
    // ...and the index (the catalog's own key) is made to offer it.
    const index = readIndex(catalog);
    const weather = index.plugins.find((p) => p.name === 'weather');
    if (weather) weather.versions.push('9.9.9');
    writeIndexAndRevocations(catalog, index, readRevocations(catalog), new Date());
    const err = await refused(client.install('weather@9.9.9'));
    expect(err.code).toBe('catalog.not-signed');
    expect(err.message).toContain('plugins/alice/weather-9.9.9.bundle is not signed by any key trusted for that path');
    expect(pluginsOnDisk(plugins)).toEqual([]);
  });

  it('a manifest asking for more than its signed permissions is refused, naming what widened', async () => {
    const { client, catalog, plugins } = await setup();
    rewritePublisherTarget(catalog, 'alice', 'plugins/alice/weather-1.0.0.bundle', { custom: (c) => ({ ...c, permissions: { ...c.permissions, hosts: [] } }) });
    const err = await refused(client.install('weather'));
    expect(err.code).toBe('catalog.permissions');
    expect(err.message).toContain('hosts adds api.example.com');
    expect(pluginsOnDisk(plugins)).toEqual([]);
  });

  it('a bundle with a ../ entry is refused and writes nothing, inside or outside', async () => {
    const { client, catalog, plugins, work } = await setup();
    const body = 'pwned\n';
    const header = JSON.stringify({ entries: [{ path: '../escaped.txt', size: body.length, executable: false }] }) + '\n';
    const bytes = Buffer.from('GATEHOUSE-BUNDLE-1\n' + header + body);
    rewritePublisherTarget(catalog, 'alice', 'plugins/alice/weather-1.0.0.bundle', { bytes });
    const err = await refused(client.install('weather'));
    expect(err.code).toBe('catalog.bundle');
    expect(err.message).toContain("'..' segment");
    expect(pluginsOnDisk(plugins)).toEqual([]);
    expect(existsSync(join(work, 'escaped.txt'))).toBe(false);
  });

  it('a bundle that needs a newer Gatehouse than this one is refused, naming both versions', async () => {
    const { catalog, work } = await setup();
    await addPlugin(catalog, pluginFolder(work, 'weather', '3.0.0'), { publisher: 'alice', minGatehouse: '9.0.0' });
    const client = new CatalogClient({ name: 'example', stateDir: join(work, 'state'), pluginsDir: join(work, 'plugins'), gatehouseVersion: '0.1.0' });
    const err = await refused(client.install('weather@3.0.0'));
    expect(err.code).toBe('catalog.version');
    expect(err.message).toContain('needs Gatehouse 9.0.0 or later; this is 0.1.0');
    expect(pluginsOnDisk(join(work, 'plugins'))).toEqual([]);
  });

  it('a folder with a symlink cannot be packed, and the format has no way to express one', async () => {
    const work = tempDir();
    const dir = pluginFolder(work, 'weather', '1.0.0');
    symlinkSync('/etc/passwd', join(dir, 'link'));
    expect(() => packBundle(dir)).toThrow(/cannot pack link: it is a symbolic link/);
    const abs = Buffer.from('GATEHOUSE-BUNDLE-1\n' + JSON.stringify({ entries: [{ path: '/etc/x', size: 0 }] }) + '\n');
    expect(() => unpackBundle(abs, join(work, 'out'))).toThrow(BundleError);
    expect(existsSync(join(work, 'out'))).toBe(false);
  });

  it('a revocation quarantines an installed, enabled plugin on the next refresh', async () => {
    const { client, catalog, plugins, events } = await setup();
    await client.install('weather');
    client.setEnabled('weather', true);
    revokePlugin(catalog, 'weather', '1.0.0', 'leaks the API key in its logs');
    await client.refresh();
    const rec = client.installed().find((r) => r.name === 'weather');
    expect(rec).toMatchObject({ enabled: false, quarantined: { reason: 'leaks the API key in its logs' } });
    expect(pluginsOnDisk(plugins)).toEqual([]);
    expect(events.at(-1)).toEqual({ type: 'catalog.quarantined', catalog: 'example', name: 'weather', version: '1.0.0', reason: 'leaks the API key in its logs' });
    expect(() => client.setEnabled('weather', true)).toThrow(/quarantined/);
    const err = await refused(client.install('weather@1.0.0'));
    expect(err.code).toBe('catalog.revoked');
  });
});
