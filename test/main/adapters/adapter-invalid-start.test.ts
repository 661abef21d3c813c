// Starting an adapter whose manifest does not load says why (issue #26, item 16): the file, the
// place and the field of each problem, on `gatehouse adapters --stdio` (the built CLI, JSON-RPC)
// and in the answer the console gets from the host's dispatcher (what its IPC relays).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

/** A plugin folder holding one adapter whose manifest names a runtime Gatehouse does not have. */
function brokenAdapter(): string {
  const plugins = tempDir();
  mkdirSync(join(plugins, 'broken'));
  writeFileSync(join(plugins, 'broken', 'manifest.toml'), 'name = "broken"\nkind = "adapter"\nversion = "0.1.0"\nruntime = "python"\nentrypoint = "main.lua"\npermissions = ["session.spawn"]\n[default_target]\nprogram = "/bin/sh"\n');
  writeFileSync(join(plugins, 'broken', 'main.lua'), 'return {}');
  return plugins;
}

describe('adapter.start of an invalid adapter', () => {
  it('the CLI\'s JSON-RPC error names the file, the field and the problem, with the problems as data', async () => {
    const plugins = brokenAdapter();
    const r = await runCli(['adapters', '--stdio', '--home', tempDir(), '--plugins-dir', plugins], {}, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'adapter.start', params: { plugin: 'broken' } }));
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout.trim()) as { error: { code: number; message: string; data: { problems: { file: string; path?: string }[] } } };
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toMatch(/The adapter broken .* is invalid: manifest\.toml:\d+(:\d+)? \(runtime\): /);
    expect(answer.error.message).not.toMatch(/There is no adapter/);
    expect(answer.error.data.problems).toContainEqual(expect.objectContaining({ file: 'manifest.toml', path: 'runtime' }));
  });

  it('the console\'s answer (the dispatcher its IPC relays) says the same', async () => {
    const plugins = brokenAdapter();
    const host = createHost({ home: tempDir(), shell: 'cli', watch: false, log: () => {}, pluginDirs: [plugins] });
    hosts.push(host);
    await host.ready;
    const env = await host.dispatcher.dispatch('adapter.start', { plugin: 'broken' }, { console: 'electron', operator: 'tester' });
    expect(env).toMatchObject({ ok: false, error: { message: expect.stringMatching(/manifest\.toml:\d+(:\d+)? \(runtime\): /) } });
    expect(JSON.stringify(env)).toContain('"path":"runtime"');
  });
});
