// A call that arrives the moment the host starts (before its first scan found the enabled
// checkers and plugins) is judged only once that scan is done: it must meet the checkers an
// operator enabled. A real host in this process, the crust checker examples/plugins/path-guard
// (Python) enabled through --allowed-plugins, a hook-style call sent without waiting for ready.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

describe('the start-up window', () => {
  it('a call sent before the first scan is done waits for it and meets the enabled checker (it was allowed without it)', async () => {
    const home = join(tempDir('gatehouse-startup-'), 'home');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    cpSync(join(repoRoot, 'examples', 'plugins', 'path-guard'), join(home, 'plugins', 'path-guard'), { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false, allowedPlugins: ['path-guard'] });
    hosts.push(host);
    // Not awaiting host.ready: an agent does not know when the host has finished starting.
    const r = await host.gateway.call({ id: 'early', agent: 'claude', session: 's', tool: 'Read', arguments: { file_path: '/etc/hostname' }, cwd: '/tmp', source: 'hook' }, { execute: false });
    expect(r.decision, r.reason).toBe('deny');
    expect(r.decider).toMatchObject({ kind: 'checker' });
    await host.ready;
  }, 60_000);
});
