// The operator's "trusted" mark, which alone lets a manifest's sandbox = "none" take effect:
// a real host, real plugin processes under the real sandbox (when bwrap works here), the
// operator's method, the audit trail, health and doctor, a file change, and the CLI.
import { chmodSync, mkdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../../main/cli/doctor.js';
import type { CallContext } from '../../../main/host/dispatcher.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import type { MethodName, RequestOf } from '../../../shared/contract.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const bwrap = detectSandbox().kind === 'bwrap';
const hostPidNs = readlinkSync('/proc/self/ns/pid');
const operator: CallContext = { console: 'cli', operator: 'alice' };

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

// Prints the PID namespace it runs in: the sandbox gives each call its own.
const SCRIPT = '#!/bin/sh\ncat >/dev/null\nprintf \'{"pidns":"%s"}\\n\' "$(readlink /proc/self/ns/pid)"\n';

function plugin(home: string, name: string, fields: string): string {
  const dir = join(home, 'plugins', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), `name = "${name}"\ndescription = "Reports where it runs."\ncommand = "run.sh"\n${fields}\n`);
  writeFileSync(join(dir, 'run.sh'), SCRIPT);
  chmodSync(join(dir, 'run.sh'), 0o755);
  return dir;
}

async function startHost(): Promise<{ host: Host; home: string; op: <M extends MethodName>(m: M, p: RequestOf<M>) => Promise<{ ok: boolean; result?: unknown; error?: { code: string; message: string } }> }> {
  const home = join(tempDir('gatehouse-trust-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  plugin(home, 'loose', 'sandbox = "none"');
  plugin(home, 'loosepty', 'sandbox = "none"\npty = true');
  plugin(home, 'strict', '');
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  hosts.push(host);
  await host.ready;
  const op = async <M extends MethodName>(m: M, p: RequestOf<M>) => (await host.dispatcher.dispatch(m, p, operator)) as { ok: boolean; result?: unknown; error?: { code: string; message: string } };
  return { host, home, op };
}

const run = async (host: Host, tool: string) => {
  const r = await host.gateway.call({ agent: 'trust-agent', session: 's', tool, arguments: {}, source: 'api' });
  expect(r.result, JSON.stringify(r)).toMatchObject({ ok: true });
  return { sandboxed: r.result!.sandboxed, pidns: (r.result!.output as { pidns: string }).pidns };
};
// Newest first.
const events = (host: Host, type: string) => host.audit.tail(1000).filter((e) => e.type === type);

describe('trusting a plugin to run without the sandbox', () => {
  it('sandbox = "none" is ignored until an operator trusts the plugin, then honoured, and lost when its files change', async () => {
    const { host, home, op } = await startHost();
    // Only a pinned plugin can be trusted.
    expect(await op('plugins.setTrusted', { name: 'loose', trusted: true, reason: 'needs the docker socket' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/must be enabled/) } });
    await op('plugins.enable', { name: 'loose' });
    const before = await run(host, 'loose');
    expect(before.sandboxed).toBe(bwrap);
    if (bwrap) expect(before.pidns).not.toBe(hostPidNs);

    // A reason is required, checked at the boundary.
    expect(await op('plugins.setTrusted', { name: 'loose', trusted: true })).toMatchObject({ ok: false, error: { code: 'bad_request', message: expect.stringMatching(/needs a reason/) } });
    expect(await op('plugins.setTrusted', { name: 'loose', trusted: true, reason: '   ' })).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    const trusted = await op('plugins.setTrusted', { name: 'loose', trusted: true, reason: 'needs the docker socket' });
    expect(trusted).toMatchObject({ ok: true, result: { name: 'loose', sandbox: 'none', trusted: true } });
    expect(events(host, 'plugin.trusted')[0]).toMatchObject({ actor: 'operator:alice', payload: { name: 'loose', reason: 'needs the docker socket', hash: host.registry.get('loose')!.trust!.hash } });
    expect((await op('plugins.get', { name: 'loose' })).result).toMatchObject({ trusted: true, trust: { trusted: { by: 'alice', reason: 'needs the docker socket' } } });

    const after = await run(host, 'loose');
    expect(after).toEqual({ sandboxed: false, pidns: hostPidNs });
    expect(events(host, 'execution.started')[0]!.payload).toMatchObject({ plugin: 'loose', sandboxed: false });

    // Health and doctor name it.
    expect(host.health.list().sandbox.trusted).toEqual(['loose']);
    const doctor = await runDoctor({ home, projectDir: home });
    expect(doctor.checks.find((c) => c.id === 'plugin:loose')).toMatchObject({ status: 'warn', summary: expect.stringContaining('runs without the OS sandbox') });

    // A changed file: quarantined, and approving the change does not carry the trust over.
    const dir = host.registry.get('loose')!.dir;
    writeFileSync(join(dir, 'run.sh'), SCRIPT + '# changed\n');
    await host.registry.refreshFolder(dir);
    expect(host.registry.get('loose')!.status).toBe('quarantined');
    expect(host.plugins.list().find((p) => p.name === 'loose')!.trusted).toBe(false);
    await op('plugins.approveChange', { name: 'loose' });
    expect(host.plugins.list().find((p) => p.name === 'loose')).toMatchObject({ status: 'enabled', trusted: false });
    expect(host.health.list().sandbox.trusted).toEqual([]);
    expect((await run(host, 'loose')).sandboxed).toBe(bwrap);
  });

  it('can be taken back, is refused for a plugin that does not ask for it, and "require sandbox" still wins', async () => {
    const { host, op } = await startHost();
    await op('plugins.enable', { name: 'strict' });
    expect(await op('plugins.setTrusted', { name: 'strict', trusted: true, reason: 'why not' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/does not ask to run without the sandbox/) } });

    await op('plugins.enable', { name: 'loose' });
    expect(await op('plugins.setTrusted', { name: 'loose', trusted: false })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/not marked trusted/) } });
    await op('plugins.setTrusted', { name: 'loose', trusted: true, reason: 'reviewed' });
    expect(await op('plugins.setTrusted', { name: 'loose', trusted: false, reason: 'done with it' })).toMatchObject({ ok: true, result: { trusted: false } });
    expect(events(host, 'plugin.untrusted')[0]).toMatchObject({ actor: 'operator:alice', payload: { name: 'loose', reason: 'done with it' } });
    expect((await run(host, 'loose')).sandboxed).toBe(bwrap);

    // Trusted, but the policy requires a sandbox: refused, one-shot and PTY tools alike.
    await op('plugins.enable', { name: 'loosepty' });
    await op('plugins.setTrusted', { name: 'loose', trusted: true, reason: 'reviewed' });
    await op('plugins.setTrusted', { name: 'loosepty', trusted: true, reason: 'reviewed' });
    await op('settings.update', { requireSandbox: true });
    for (const tool of ['loose', 'loosepty']) {
      const r = await host.gateway.call({ agent: 'trust-agent', session: 's', tool, arguments: {}, source: 'api' });
      expect(r.result).toMatchObject({ ok: false, failure: 'spawn', error: expect.stringMatching(/the policy requires a sandbox/) });
    }
    expect(host.ptys.list()).toEqual([]);
  });

  it('`gatehouse plugin trust` and `untrust` set and clear the mark, and trust needs --reason', async () => {
    const home = join(tempDir('gatehouse-trust-cli-'), 'home');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    plugin(home, 'loose', 'sandbox = "none"');
    expect((await runCli(['plugin', 'enable', 'loose', '--home', home])).code).toBe(0);
    const noReason = await runCli(['plugin', 'trust', 'loose', '--home', home]);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toMatch(/--reason/);
    const trust = await runCli(['plugin', 'trust', 'loose', '--reason', 'reviewed the code', '--home', home]);
    expect(trust.stdout).toMatch(/loose is trusted: it runs without the OS sandbox/);
    expect(trust.code).toBe(0);
    const list = JSON.parse((await runCli(['plugin', 'list', '--json', '--home', home])).stdout) as { name: string; trusted: boolean }[];
    expect(list.find((p) => p.name === 'loose')!.trusted).toBe(true);
    const untrust = await runCli(['plugin', 'untrust', 'loose', '--home', home]);
    expect(untrust).toMatchObject({ code: 0, stdout: expect.stringMatching(/no longer trusted/) });
    const again = await runCli(['plugin', 'untrust', 'loose', '--home', home]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not marked trusted/);
  });
});
