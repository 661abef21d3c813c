// catalog.* through a real host: install from a signed catalog folder with the consent answered
// first, the audit event with catalog, version and key ids, the plugin discovered but disabled,
// enabled by the operator, run, and quarantined (audited) once a revocation is refreshed.
import { afterEach, describe, expect, it } from 'vitest';
import { revokePlugin } from '../../../main/catalog/publisher.js';
import type { Host } from '../../../main/host/create-host.js';
import { hostWithCatalog } from '../../support/catalog-host.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

describe('catalog in a real host', () => {
  it('install (consent first), audited and disabled; enable and run; a revocation quarantines it, audited', async () => {
    const { cat, host, op } = await hostWithCatalog('gatehouse-catalog-host-', hosts, { source: true });

    const found = await op('catalog.search', { query: 'greets' });
    expect(found).toMatchObject({ ok: true, result: { results: [{ source: 'example', name: 'hello', publisher: 'acme', latest: '1.0.0' }], errors: [] } });

    const preview = await op('catalog.install', { source: 'example', spec: 'hello', consent: false });
    expect(preview).toMatchObject({ ok: true, result: { installed: null, consent: { name: 'hello', version: '1.0.0', reads: [], reaches: [] } } });
    expect(host.audit.tail(1000).filter((e) => e.type === 'catalog.installed')).toEqual([]);

    const done = await op('catalog.install', { source: 'example', spec: 'hello', consent: true });
    expect(done.ok, JSON.stringify(done.error)).toBe(true);
    const keyIds = (done.result?.consent as { signerKeyIds: string[] }).signerKeyIds;
    expect(keyIds).toHaveLength(1);
    const installed = host.audit.tail(1000).filter((e) => e.type === 'catalog.installed');
    expect(installed).toEqual([expect.objectContaining({ actor: 'operator:alice', payload: expect.objectContaining({ catalog: 'example', name: 'hello', version: '1.0.0', keyIds }) })]);

    const listed = ((await op('plugins.list', {})).result?.plugins as { name: string; state: string }[]).find((p) => p.name === 'hello');
    expect(listed).toBeDefined();
    expect(listed?.state).not.toBe('enabled');
    expect(await op('plugins.enable', { name: 'hello' })).toMatchObject({ ok: true });
    const r = await host.gateway.call({ agent: 'catalog-agent', session: 's', tool: 'hello', arguments: { name: 'Ada' }, source: 'api' });
    expect(r.result, JSON.stringify(r)).toMatchObject({ ok: true });

    revokePlugin(cat, 'hello', '1.0.0', 'greets strangers');
    await op('catalog.search', { query: '' });
    const q = host.audit.tail(1000).filter((e) => e.type === 'catalog.quarantined');
    expect(q).toEqual([expect.objectContaining({ actor: 'host', payload: { catalog: 'example', name: 'hello', version: '1.0.0', reason: 'greets strangers' } })]);
    // The registry forgot it: an agent can no longer call it.
    expect(host.registry.get('hello')).toBeUndefined();
    const after = await host.gateway.call({ agent: 'catalog-agent', session: 's', tool: 'hello', arguments: { name: 'Ada' }, source: 'api' });
    expect(after.result).not.toMatchObject({ ok: true });
    const sources = await op('catalog.sources', {});
    expect(sources).toMatchObject({ ok: true, result: { sources: [{ name: 'example', installed: [{ name: 'hello', enabled: false, quarantined: { reason: 'greets strangers' } }] }] } });
  });
});
