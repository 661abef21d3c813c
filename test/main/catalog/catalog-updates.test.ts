// Updates, the scheduled refresh and signed WebAssembly imports, each on a real catalog built by
// the publisher functions: a same-or-narrower update lands in the registry's approve-change flow,
// a wider one waits for an approval of exactly what widened, the schedule (on a fake clock)
// applies revocations, and a module importing more than its signed permissions is refused.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { checkEvent } from '../../../main/audit/event-schemas.js';
import { addCatalogSource, CatalogClient } from '../../../main/catalog/catalog-client.js';
import { catalogHandlers } from '../../../main/catalog/catalog-handlers.js';
import { addPlugin, bundleTarget, initCatalog, revokePlugin, rewritePublisherTarget } from '../../../main/catalog/publisher.js';
import type { Host } from '../../../main/host/create-host.js';
import { repoRoot } from '../../support/cli.js';
import { FakeTime } from '../../support/fake-time.js';
import { tempDir } from '../../support/temp.js';
import { eventually } from '../../support/wait.js';
import { hostWithCatalog } from '../../support/catalog-host.js';
import { fixtureWat, wasmPlugin } from '../../support/wasm.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

/** hello from the examples at another version, with extra manifest lines (e.g. a wider [permissions]). */
function helloAt(work: string, version: string, extra = ''): string {
  const dir = join(work, `hello-${version}`);
  cpSync(join(repoRoot, 'examples/plugins/hello'), dir, { recursive: true });
  const toml = join(dir, 'tool.toml');
  writeFileSync(toml, readFileSync(toml, 'utf8').replace('version = "1.0.0"', `version = "${version}"`) + extra);
  // A real change to the code, so the registry's diff has something to show.
  writeFileSync(join(dir, 'hello.sh'), readFileSync(join(dir, 'hello.sh'), 'utf8') + `\n# ${version}\n`);
  return dir;
}

describe('catalog updates in a real host', () => {
  it('a same-permission update goes to approve-change; a wider one waits for an approval of exactly what widened', async () => {
    const { work, cat, home, host, op } = await hostWithCatalog('gatehouse-catalog-upd-', hosts, { source: true });
    // tail() is newest first; in the order they happened:
    const events = (type: string) => host.audit.tail(1000).filter((e) => e.type === type).reverse();

    expect((await op('catalog.install', { source: 'example', spec: 'hello', consent: true })).ok).toBe(true);
    expect(await op('plugins.enable', { name: 'hello' })).toMatchObject({ ok: true });

    // 1.0.1: same permissions, other code. The refresh installs it; the registry sees the pinned
    // plugin's files change and quarantines it with the diff until the operator approves.
    await addPlugin(cat, helloAt(work, '1.0.1'), { publisher: 'acme' });
    expect(await op('catalog.updates', {})).toMatchObject({ ok: true, result: { updates: [] } }); // not refreshed yet
    const r1 = await op('catalog.refresh', {});
    expect(r1).toMatchObject({ ok: true, result: { sources: [{ source: 'example', ok: true, error: null }] } });
    expect(events('catalog.installed').map((e) => [e.actor, (e.payload as { version: string }).version])).toEqual([['operator:alice', '1.0.0'], ['operator:alice', '1.0.1']]); // the operator pressed refresh
    expect(host.registry.get('hello')?.status).toBe('quarantined');
    expect(host.registry.get('hello')?.changes.map((c) => [c.path, c.change])).toEqual(expect.arrayContaining([['hello.sh', 'modified'], ['tool.toml', 'modified']]));
    const blocked = await host.gateway.call({ agent: 'a', session: 's', tool: 'hello', arguments: { name: 'Ada' }, source: 'api' });
    expect(blocked.result).not.toMatchObject({ ok: true });
    expect(await op('plugins.approveChange', { name: 'hello' })).toMatchObject({ ok: true, result: { status: 'enabled', version: '1.0.1' } });
    const ran = await host.gateway.call({ agent: 'a', session: 's', tool: 'hello', arguments: { name: 'Ada' }, source: 'api' });
    expect(ran.result, JSON.stringify(ran)).toMatchObject({ ok: true });

    // 1.1.0 reaches a host: it waits, audited once however often the catalog is refreshed.
    await addPlugin(cat, helloAt(work, '1.1.0', '\n[permissions]\nhosts = ["api.example.com"]\n'), { publisher: 'acme' });
    await op('catalog.refresh', {});
    await op('catalog.refresh', {});
    expect(await op('catalog.updates', {})).toMatchObject({ ok: true, result: { updates: [{ source: 'example', name: 'hello', from: '1.0.1', to: '1.1.0', widened: ['hosts: api.example.com'], narrowed: [], error: null }] } });
    expect(events('catalog.update-waiting')).toEqual([expect.objectContaining({ actor: 'host', payload: expect.objectContaining({ name: 'hello', to: '1.1.0', widened: ['hosts: api.example.com'] }) })]);
    expect(events('catalog.installed')).toHaveLength(2);
    expect(host.registry.get('hello')?.status).toBe('enabled');

    // An approval that does not name exactly what widened is refused, naming the field; nothing changes.
    const wrong = await op('catalog.approveUpdate', { source: 'example', name: 'hello', version: '1.1.0', widened: [] });
    expect(wrong).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^widened: hello@1\.1\.0 widens hosts: api\.example\.com, but the approval named nothing/) } });
    expect(new CatalogClient({ name: 'example', stateDir: join(home, 'catalogs', 'example'), pluginsDir: join(home, 'plugins') }).installed()[0]?.version).toBe('1.0.1');

    const ok = await op('catalog.approveUpdate', { source: 'example', name: 'hello', version: '1.1.0', widened: ['hosts: api.example.com'] });
    expect(ok).toMatchObject({ ok: true, result: { installed: { name: 'hello', version: '1.1.0' }, widened: ['hosts: api.example.com'] } });
    expect(events('catalog.update-approved')).toEqual([expect.objectContaining({ actor: 'operator:alice', payload: expect.objectContaining({ from: '1.0.1', to: '1.1.0', widened: ['hosts: api.example.com'] }) })]);
    expect(await op('catalog.updates', {})).toMatchObject({ ok: true, result: { updates: [] } });
    // The new files still go through the registry's approve-change before an agent can run them.
    expect(host.registry.get('hello')?.status).toBe('quarantined');

    // A downgrade happens only when the operator names it.
    const down = await op('catalog.approveUpdate', { source: 'example', name: 'hello', version: '1.0.0', widened: [] });
    expect(down).toMatchObject({ ok: true, result: { installed: { version: '1.0.0' }, widened: [] } });

    // Every event of the run has the shape main/audit/event-schemas.ts gives it.
    host.audit.flush();
    expect(host.audit.tail(1000).map((e) => checkEvent(e)).filter(Boolean)).toEqual([]);
  });

  it('adding a source from the console needs the root key ids confirmed', async () => {
    const { cat, init, home, host, op } = await hostWithCatalog('gatehouse-catalog-add-', hosts, { source: false });
    const rootJson = readFileSync(join(cat, 'repository', 'metadata', '1.root.json'), 'utf8');
    const location = join(cat, 'repository');

    expect(await op('catalog.previewSource', { location, rootJson })).toMatchObject({ ok: true, result: { rootKeyIds: init.rootKeyIds, threshold: 2 } });
    expect(existsSync(join(home, 'catalogs'))).toBe(false);
    expect(await op('catalog.previewSource', { location: 'relative/path', rootJson })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/must be an absolute folder or an http\(s\) URL/) } });
    expect(await op('catalog.previewSource', { location, rootJson: '{"signed":{}}' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/not TUF root metadata/) } });

    const wrong = await op('catalog.addSource', { name: 'example', location, rootJson, confirmKeyIds: init.rootKeyIds.slice(1) });
    expect(wrong).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^confirmKeyIds: /) } });
    expect(existsSync(join(home, 'catalogs', 'example'))).toBe(false);

    const added = await op('catalog.addSource', { name: 'example', location, rootJson, confirmKeyIds: init.rootKeyIds });
    expect(added).toMatchObject({ ok: true, result: { name: 'example', rootKeyIds: init.rootKeyIds, error: null } });
    expect(host.audit.tail(100).filter((e) => e.type === 'catalog.source-added')).toEqual([expect.objectContaining({ actor: 'operator:alice', payload: expect.objectContaining({ catalog: 'example', location, rootKeyIds: init.rootKeyIds }) })]);
    const sources = (await op('catalog.sources', {})).result as { sources: { expires: string; lastRefresh: { ok: boolean } }[] };
    expect(sources.sources[0]?.lastRefresh).toMatchObject({ ok: true });
    // Valid until the earliest expiry of timestamp, snapshot and targets: the timestamp's day.
    const ts = JSON.parse(readFileSync(join(cat, 'repository', 'metadata', 'timestamp.json'), 'utf8')) as { signed: { expires: string } };
    expect(sources.sources[0]?.expires).toBe(ts.signed.expires);

    const page = await op('catalog.plugin', { source: 'example', name: 'hello' });
    expect(page).toMatchObject({ ok: true, result: { source: 'example', name: 'hello', publisher: 'acme', version: '1.0.0', versions: ['1.0.0'], description: 'Greets someone by name.', scan: { passed: true }, installed: null } });
    expect((page.result?.signerKeyIds as string[]).length).toBe(1);
    expect(await op('catalog.addSource', { name: 'example', location, rootJson, confirmKeyIds: init.rootKeyIds })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^name: a catalog source named "example" already exists/) } });

    // A folder of the same name that the catalog did not install: said before the consent screen.
    mkdirSync(join(home, 'plugins', 'hello'));
    expect(await op('catalog.install', { source: 'example', spec: 'hello', consent: false })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/plugins\/hello already exists and was not installed from this catalog; remove or rename it first/) } });
  });
});

describe('the scheduled refresh', () => {
  it('runs on the configured interval (fake clock), applies a revocation with the host as actor, and keeps the last valid metadata when the catalog is gone', async () => {
    const work = tempDir('gatehouse-catalog-sched-');
    const cat = join(work, 'cat');
    initCatalog(cat);
    await addPlugin(cat, join(repoRoot, 'examples/plugins/hello'), { publisher: 'acme' });
    const home = join(work, 'home');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    addCatalogSource(join(home, 'catalogs', 'example'), join(cat, 'repository'), readFileSync(join(cat, 'repository', 'metadata', '1.root.json')));
    const time = new FakeTime();
    const audit = new AuditStore({ path: join(work, 'audit.db'), clock: { now: time.now } });
    onTestFinished(() => audit.close());
    let hours = 2;
    const changed: string[] = [];
    const h = catalogHandlers({ home, audit, timers: time, now: time.now, refreshHours: () => hours, changed: (s) => changed.push(s) });
    const ctx = { operator: 'alice' };
    await h['catalog.install']({ source: 'example', spec: 'hello', consent: true }, ctx);
    revokePlugin(cat, 'hello', '1.0.0', 'leaks names');
    const types = () => audit.tail(100).map((e) => e.type);
    const statusFile = join(home, 'catalogs', 'example', 'refresh.json');
    const lastAt = () => (existsSync(statusFile) ? (JSON.parse(readFileSync(statusFile, 'utf8')) as { at: string }).at : null);

    // Never refreshed by the schedule: the first one is due at once, but not before 5 minutes after start.
    time.advance(5 * 60_000 - 1);
    expect(types()).not.toContain('catalog.quarantined');
    time.advance(1);
    await eventually(() => expect(types()).toContain('catalog.quarantined'));
    expect(audit.tail(100).find((e) => e.type === 'catalog.quarantined')).toMatchObject({ actor: 'host', payload: { catalog: 'example', name: 'hello', reason: 'leaks names' } });
    expect(existsSync(join(home, 'plugins', 'hello'))).toBe(false);
    expect(changed).toContain('example');
    expect(lastAt()).toBe(new Date(time.now()).toISOString());

    // Then every `hours`.
    await eventually(() => expect(time.armed).toBe(1));
    const firstAt = lastAt();
    time.advance(2 * 3_600_000 - 1);
    expect(lastAt()).toBe(firstAt);
    time.advance(1);
    await eventually(() => expect(lastAt()).toBe(new Date(time.now()).toISOString()));

    // A restarted host counts from the last refresh on disk: 30 minutes after it, the next is 1.5 h away.
    await eventually(() => expect(time.armed).toBe(1));
    time.jump(30 * 60_000);
    const restarted = new FakeTime();
    restarted.advance(time.now() - restarted.now());
    catalogHandlers({ home, audit, timers: restarted, now: restarted.now, refreshHours: () => hours, log: () => {} });
    const secondAt = lastAt();
    restarted.advance(90 * 60_000 - 1);
    expect(lastAt()).toBe(secondAt);
    restarted.advance(1);
    await eventually(() => expect(lastAt()).toBe(new Date(restarted.now()).toISOString()));
    await eventually(() => expect(restarted.armed).toBe(1));

    // Off (0): the next tick only looks at the setting again.
    hours = 0;
    time.advance(2 * 3_600_000); // the first host's timer, armed with 2 h, finds the schedule off
    const before = readFileSync(statusFile, 'utf8');
    time.advance(3_600_000);
    expect(readFileSync(statusFile, 'utf8')).toBe(before);

    // Offline: the catalog folder is gone. The refresh fails, the error is kept, the trusted
    // metadata is not touched and still says until when it is valid.
    hours = 1;
    const validUntil = (h['catalog.sources']().sources[0] as { expires: string }).expires;
    for (const f of readdirSync(join(cat, 'repository', 'metadata'))) writeFileSync(join(cat, 'repository', 'metadata', f), 'gone');
    time.advance(3_600_000); // the timer armed while off fires and re-arms with 1 h
    time.advance(3_600_000);
    await eventually(() => expect(h['catalog.sources']().sources[0]?.lastRefresh).toMatchObject({ ok: false, error: expect.stringMatching(/refreshing metadata failed/) }));
    expect(h['catalog.sources']().sources[0]?.expires).toBe(validUntil);
    expect(audit.tail(100).map((e) => checkEvent(e)).filter(Boolean)).toEqual([]);
  });
});

describe('signed WebAssembly imports', () => {
  it('a module that imports log functions its signed permissions do not grant is refused with a named error, nothing installed', async () => {
    const work = tempDir('gatehouse-catalog-wasm-');
    const cat = join(work, 'cat');
    initCatalog(cat);
    const wat = fixtureWat('echo.wat').replace('(memory (export "memory") 1)', '(import "extism:host/env" "log_info" (func $log_info (param i64)))\n  (memory (export "memory") 1)');
    // An import must come before the memory definition; the replacement keeps it in order.
    const dir = await wasmPlugin(join(work, 'src'), 'shout', 'name = "shout"\ndescription = "Echoes, and logs."\nversion = "1.0.0"\nkind = "wasm"\nwasm = "plugin.wasm"\n[tools.echo]\ndescription = "echo"\n[permissions]\nlog = true\n', wat);
    const { target, custom } = await addPlugin(cat, dir, { publisher: 'acme' });
    expect(custom.wasmLog).toBe(true);
    const home = join(work, 'home');
    const stateDir = join(home, 'catalogs', 'example');
    addCatalogSource(stateDir, join(cat, 'repository'), readFileSync(join(cat, 'repository', 'metadata', '1.root.json')));
    const client = new CatalogClient({ name: 'example', stateDir, pluginsDir: join(home, 'plugins') });

    // The publisher's signed record says log is not linked, while the manifest links it.
    rewritePublisherTarget(cat, 'acme', target, { custom: (c) => ({ ...c, wasmLog: false }) });
    await expect(client.install('shout')).rejects.toMatchObject({ code: 'catalog.wasm-imports', message: expect.stringMatching(new RegExp(`^${bundleTarget('acme', 'shout', '1.0.0').replace(/[.]/g, '\\.')}: the module's imports are not within its signed permissions: the module imports extism:host/env\\.log_info, which needs permissions\\.log = true, and the signed permissions do not grant it`)) });
    expect(existsSync(join(home, 'plugins', 'shout'))).toBe(false);
    expect(readdirSync(join(stateDir, 'staging'))).toEqual([]);

    rewritePublisherTarget(cat, 'acme', target, { custom: (c) => ({ ...c, wasmLog: true }) });
    await expect(client.install('shout')).resolves.toMatchObject({ name: 'shout', version: '1.0.0' });
    expect(existsSync(join(home, 'plugins', 'shout', 'plugin.wasm'))).toBe(true);
  });
});
