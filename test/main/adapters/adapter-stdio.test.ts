// `gatehouse adapters --stdio`: the built CLI as a child process, JSON-RPC 2.0 lines in and out,
// through a host it starts on a temporary data folder (real SQLite audit log, real PTYs).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli, startCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const rpc = (id: number, method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });

describe('gatehouse adapters --stdio', () => {
  it('serves plugin.* and adapter.*: the echo adapter starts and sends, a missing permission is -32004 with data, plugin.load without --allow-plugin-load gets the server reason, and the denial is audited', async () => {
    const home = tempDir();
    const plugins = tempDir();
    mkdirSync(join(plugins, 'mute'));
    writeFileSync(join(plugins, 'mute', 'manifest.toml'), 'name = "mute"\nkind = "adapter"\nversion = "0.1.0"\nruntime = "lua"\nentrypoint = "main.lua"\npermissions = ["session.spawn", "session.kill"]\n[default_target]\nprogram = "/bin/sh"\nargs = ["-c", "cat"]\n');
    writeFileSync(join(plugins, 'mute', 'main.lua'), 'local M = {} function M.send_prompt(i) return { actions = {} } end return M');
    const first = await runCli(['adapters', '--stdio', '--home', home, '--plugins-dir', join(repoRoot, 'examples/plugins'), '--plugins-dir', plugins], {}, [
      rpc(1, 'plugin.capabilities'),
      rpc(2, 'plugin.load', { manifest_path: join(repoRoot, 'examples/plugins/echo/manifest.toml') }),
      rpc(3, 'adapter.start', { plugin: 'mute' }),
      rpc(4, 'terminals.list', {}),
      'not json',
    ].join('\n'));
    expect(first.code, first.stderr).toBe(0);
    const answers = first.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number | null; result?: Record<string, unknown>; error?: { code: number; data?: unknown } });
    expect(answers[0]!.result).toMatchObject({ runtimes: ['lua'], plugin_load: false, method_permissions: { 'adapter.send': 'input.write' } });
    expect(answers[1]!.error).toMatchObject({ code: -32004, data: { method: 'plugin.load', reason: 'server_did_not_grant_plugin_load' } });
    const session = answers[2]!.result!['session'] as string;
    expect(session).toMatch(/^adapter-/);
    // Only the adapter methods: the console's other methods are not reachable through this channel.
    expect(answers[3]!.error?.code).toBe(-32601);
    expect(answers[4]!.error?.code).toBe(-32700);

    // Interactive: the session id comes back before the send that uses it.
    const cli = startCli(['adapters', '--stdio', '--home', home, '--plugins-dir', plugins]);
    cli.child.stdin.write(`${rpc(1, 'adapter.start', { plugin: 'mute' })}\n`);
    const started = JSON.parse((await cli.waitForLine(/^{.*"id":1,.*$/))[0]) as { result: { session: string; terminal: string } };
    cli.child.stdin.write(`${rpc(2, 'adapter.send', { session: started.result.session, prompt: 'x' })}\n`);
    const sent = JSON.parse((await cli.waitForLine(/^{.*"id":2,.*$/))[0]) as { error: { code: number; data: unknown } };
    expect(sent.error).toMatchObject({ code: -32004, data: { method: 'adapter.send', required_permission: 'input.write' } });
    cli.child.stdin.end();
    expect((await cli.exited).code).toBe(0);
    const audit = await runCli(['audit', 'search', '--type', 'adapter.denied', '--home', home, '--json']);
    expect(audit.stdout).toContain('server_did_not_grant_plugin_load');
    expect(audit.stdout).toContain('"required_permission":"input.write"');
  });
});
