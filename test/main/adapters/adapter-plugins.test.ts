// Terminal adapters in the Plugins view, through a real host's plugins.* methods: adapter folders
// are listed beside the other plugins with their kind, permissions, limits and problems; the
// editor's live check marks manifest problems and Lua scan findings at their line; a saved
// change quarantines the adapter and Approve change (with the diff) releases it.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEvent } from '../../../main/audit/event-schemas.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

type Summary = { name: string; kind: string | null; status: string; format: string | null; errors: number; findingCount: number; scanPassed: boolean | null };
type Detail = Summary & {
  problems: { file: string; line?: number; column?: number; code: string; message: string }[];
  findings: { file: string; line: number; rule: string }[];
  files: { path: string }[];
  changes: { path: string; change: string; diff: string | null }[];
  trust: { enabledBy: string; scanOverride: { reason: string } | null } | null;
  adapter: { permissions: string[]; limits: { ops: number; memoryMb: number; timeoutMs: number }; quarantined: string | null } | null;
};

async function start() {
  const root = tempDir('gatehouse-adapter-plugins-');
  const home = join(root, 'home');
  const plugins = join(root, 'plugins');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  mkdirSync(plugins, { recursive: true });
  cpSync(join(repoRoot, 'examples/plugins/echo'), join(plugins, 'echo'), { recursive: true });
  cpSync(join(repoRoot, 'examples/plugins/hello'), join(plugins, 'hello'), { recursive: true });
  // An adapter whose manifest names a permission ptywright does not have (line 6).
  mkdirSync(join(plugins, 'broken'));
  writeFileSync(join(plugins, 'broken', 'manifest.toml'), 'name = "broken"\nkind = "adapter"\nversion = "0.1.0"\nruntime = "lua"\nentrypoint = "main.lua"\npermissions = ["screen.read", "disk.write"]\n');
  writeFileSync(join(plugins, 'broken', 'main.lua'), 'return {}\n');
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: root, pluginDirs: [plugins] });
  hosts.push(host);
  await host.ready;
  const call = async <T = Record<string, unknown>>(method: string, params: unknown): Promise<T> => {
    const env = await host.dispatcher.dispatch(method, params, { operator: 'alice', console: 'serve' });
    if (!env.ok) throw Object.assign(new Error(`${method}: ${env.error.message}`), { error: env.error });
    return env.result as T;
  };
  return { host, call, plugins };
}

const list = async (call: Awaited<ReturnType<typeof start>>['call']) => (await call<{ plugins: Summary[] }>('plugins.list', {})).plugins;

describe('terminal adapters in the Plugins view', () => {
  it('lists adapter folders beside the other plugins with their kind, permissions, limits, problems and scan, and checks unsaved text', async () => {
    const { host, call } = await start();
    const all = await list(call);
    expect(all.map((p) => p.name)).toEqual(['broken', 'echo', 'hello']);
    expect(all.find((p) => p.name === 'hello')).toMatchObject({ kind: 'tool' });
    expect(all.find((p) => p.name === 'echo')).toMatchObject({ kind: 'adapter', status: 'enabled', format: 'ptywright', errors: 0, findingCount: 0, scanPassed: true });
    expect(all.find((p) => p.name === 'broken')).toMatchObject({ kind: 'adapter', status: 'invalid', errors: 1 });
    // The registry itself did not take the adapter folders for broken plugins.
    expect(host.registry.list().map((e) => e.name)).toEqual(['hello']);

    const manifest = readFileSync(join(repoRoot, 'examples/plugins/echo/manifest.toml'), 'utf8');
    const echo = await call<Detail>('plugins.get', { name: 'echo' });
    expect(echo.adapter).toEqual({ permissions: ['session.spawn', 'session.kill', 'screen.read', 'transcript.read', 'input.write', 'matcher.wait'], limits: { ops: 5_000_000, memoryMb: 16, timeoutMs: 2000 }, defaultTarget: { program: '/bin/sh', args: ['-lc', 'cat'] }, loaded: false, quarantined: null });
    expect(echo.files.map((f) => f.path).sort()).toEqual(['main.lua', 'manifest.toml']);
    expect(echo.trust).toMatchObject({ enabledBy: 'host', scanOverride: null });
    expect((await call<{ content: string }>('plugins.readFile', { name: 'echo', path: 'manifest.toml' })).content).toBe(manifest);

    const broken = await call<Detail>('plugins.get', { name: 'broken' });
    expect(broken.problems).toEqual([expect.objectContaining({ file: 'manifest.toml', line: 6, code: 'permission.unknown' })]);
    expect(broken.problems[0]!.column).toBeGreaterThan(1);

    // The editor's live check: a scan finding at its line in the Lua, a manifest problem at its line and column.
    const lua = readFileSync(join(repoRoot, 'examples/plugins/echo/main.lua'), 'utf8').split('\n');
    const withExec = [...lua.slice(0, 2), 'os.execute("x")', ...lua.slice(2)].join('\n');
    const luaCheck = await call<{ problems: unknown[]; findings: { line: number; rule: string }[] }>('plugins.check', { name: 'echo', path: 'main.lua', content: withExec });
    expect(luaCheck.findings).toEqual([expect.objectContaining({ file: 'main.lua', line: 3, column: 1, rule: 'lua.os-execute', weight: 3 })]);
    const tomlCheck = await call<{ problems: Detail['problems'] }>('plugins.check', { name: 'echo', path: 'manifest.toml', content: manifest.replace('runtime = "lua"', 'runtime = "python"') });
    const runtimeLine = manifest.split('\n').findIndex((l) => l.startsWith('runtime')) + 1;
    expect(tomlCheck.problems).toEqual([expect.objectContaining({ file: 'manifest.toml', line: runtimeLine, code: 'manifest.runtime' })]);
    expect((await call<{ problems: unknown[] }>('plugins.check', { name: 'echo', path: 'manifest.toml', content: manifest })).problems).toEqual([]);
  });

  it('a saved change quarantines the adapter (start refused, the diff shown) and approve-change releases it; a failed scan needs a reason', async () => {
    const { host, call, plugins } = await start();
    const changed: string[][] = [];
    host.bus.subscribe((name, payload) => {
      if (name === 'plugins.changed') changed.push((payload as { names: string[] }).names);
    });
    const lua = readFileSync(join(plugins, 'echo', 'main.lua'), 'utf8');
    await call('plugins.writeFile', { name: 'echo', path: 'main.lua', content: `${lua}-- reviewed by alice\n` });
    expect(changed).toContainEqual(['echo']);
    const held = await call<Detail>('plugins.get', { name: 'echo' });
    expect(held.status).toBe('quarantined');
    expect(held.adapter!.quarantined).toMatch(/changed on disk/);
    expect(held.changes).toEqual([expect.objectContaining({ path: 'main.lua', change: 'modified', diff: expect.stringContaining('+-- reviewed by alice') })]);
    await expect(call('adapter.start', { plugin: 'echo' })).rejects.toMatchObject({ error: { details: { reason: 'quarantined' } } });

    const released = await call<Summary>('plugins.approveChange', { name: 'echo' });
    expect(released).toMatchObject({ name: 'echo', kind: 'adapter', status: 'enabled' });
    const after = await call<Detail>('plugins.get', { name: 'echo' });
    expect(after.changes).toEqual([]);
    expect(after.trust).toMatchObject({ enabledBy: 'alice', scanOverride: null });
    const s = await call<{ session: string }>('adapter.start', { plugin: 'echo' });
    await call('adapter.close', { session: s.session });

    // A change outside the console (an editor) reaches the view through the watcher: quarantined, and a scan that fails.
    changed.length = 0;
    writeFileSync(join(plugins, 'echo', 'main.lua'), `${lua}local _ = io.popen\n`);
    await expect.poll(() => changed.some((names) => names.length === 0), { timeout: 10_000 }).toBe(true);
    expect(host.registry.get('echo')).toBeUndefined();
    const scanned = await call<Detail>('plugins.get', { name: 'echo' });
    expect(scanned).toMatchObject({ status: 'quarantined', scanPassed: false });
    expect(scanned.findings).toEqual([expect.objectContaining({ rule: 'lua.io-popen' })]);
    await expect(call('plugins.approveChange', { name: 'echo' })).rejects.toMatchObject({ error: { code: 'rejected', details: { reason: 'scan_failed' } } });
    await call('plugins.approveChange', { name: 'echo', overrideReason: 'the popen is never called' });
    expect((await call<Detail>('plugins.get', { name: 'echo' })).trust).toMatchObject({ enabledBy: 'alice', scanOverride: { reason: 'the popen is never called' } });

    const events = host.audit.tail(200).filter((e) => e.type.startsWith('adapter.') || e.type === 'plugin.file-saved');
    expect(events.filter((e) => e.type === 'adapter.change-approved').map((e) => (e.payload as { scanOverride: string | null }).scanOverride)).toEqual(['the popen is never called', null]);
    expect(events.map((e) => checkEvent(e)).filter(Boolean)).toEqual([]);
  });
});
