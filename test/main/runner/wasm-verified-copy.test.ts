// WebAssembly plugins run from their verified copy, as process plugins do (plugin-redteam.test.ts,
// "the verified copy"): through the real registry, the real ToolRunner with its copy under
// GATEHOUSE_HOME/run-cache, the host's policy and the sandboxed WebAssembly process. An agent that
// can write the project changes the plugin's ORIGINAL folder after the call's check and copy: the
// plugin's reads (host functions and WASI) are the copy's, and the original is not reachable at
// all, by its own path, through a granted project that holds it, or through a link made there.
import { cpSync, mkdirSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PolicyStore } from '../../../main/policy/rules/store.js';
import { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import { TrustStore } from '../../../main/registry/trust-store.js';
import { BreakerBoard } from '../../../main/runner/breaker-board.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { unsandboxedWrap } from '../../../main/runner/sandbox.js';
import { ToolRunner } from '../../../main/runner/tool-runner.js';
import { fixtureWat, wasmPlugin } from '../../support/wasm.js';
import { needsBwrap, sandbox } from '../../support/bwrap.js';
import { tempDir } from '../../support/temp.js';

/** A home, Gatehouse's folder in it (the run cache), and a project whose plugin place holds the plugins. */
function world() {
  const root = tempDir('gatehouse-wasm-copy-');
  const home = join(root, 'home');
  const gatehouseHome = join(home, '.config', 'gatehouse');
  const proj = join(home, 'work', 'proj');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(gatehouseHome, { recursive: true });
  mkdirSync(join(proj, '.gatehouse', 'plugins'), { recursive: true });
  writeFileSync(join(proj, 'ok.txt'), 'the project');
  return { home, gatehouseHome, proj, plugins: join(proj, '.gatehouse', 'plugins') };
}

type World = ReturnType<typeof world>;

/**
 * The host's wiring (main/host/plugin-services.ts): the run cache under GATEHOUSE_HOME, the host's
 * policy, WebAssembly calls in the sandboxed process. `meanwhile` runs once the call's files are
 * checked and its copy made (execution.started is recorded after verifyForRun), before the module
 * runs: what an agent that can write the project does in that window.
 */
async function host(w: World) {
  const records: { type: string; payload: Record<string, unknown> }[] = [];
  const policy = new PolicyStore({ file: join(w.gatehouseHome, 'policy.yaml'), home: w.home, gatehouseHome: w.gatehouseHome, caseInsensitive: false, watch: false });
  await policy.start();
  const registry = new PluginRegistry({ sources: [{ dir: w.plugins, origin: 'project' }], trust: new TrustStore(w.gatehouseHome) });
  let meanwhile: (() => void) | null = null;
  const runner = new ToolRunner({
    registry,
    breakers: new BreakerBoard({ clock: { now: () => 0 }, threshold: 100 }),
    metrics: new PluginMetrics(),
    runCache: join(w.gatehouseHome, 'run-cache'),
    policy,
    wasmIsolation: { detection: sandbox, home: w.home },
    sandboxFor: () => ({ wrap: unsandboxedWrap(), sandboxed: false, warning: 'not used by wasm plugins' }),
    record: (type, _actor, payload) => {
      records.push({ type, payload });
      if (type === 'execution.started') meanwhile?.();
    },
  });
  onTestFinished(() => runner.close());
  return {
    registry,
    records,
    /** One agent's call, with `during` done in the window after its check and copy. */
    call: (plugin: string, tool: string | undefined, during: () => void) => {
      meanwhile = during;
      return runner.call(plugin, tool, { message: 'x' }, { actor: 'agent:claude' }).finally(() => (meanwhile = null));
    },
  };
}

/** A plugin folder in the project with data/v = "reviewed", enabled (checked, pinned) by an operator. */
async function enabled(w: World, registry: PluginRegistry, name: string, manifest: string, wat: string): Promise<string> {
  const dir = await wasmPlugin(w.plugins, name, manifest, wat);
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'v'), 'reviewed');
  await registry.refreshAll();
  const e = registry.require(name);
  expect(e.problems.filter((p) => p.severity === 'error')).toEqual([]);
  expect(e.scan?.passed, JSON.stringify(e.scan?.findings)).toBe(true);
  await registry.enable(name, 'alice');
  return dir;
}

/** An Extism module that reads `path` with the read_file host function and returns its bytes ({"denied":true} when refused). */
const reader = (name: string, path: string) => fixtureWat('reader.wat', { __PATH__: path, __LEN__: String(Buffer.byteLength(path)) }).replace('"reader"', JSON.stringify(name));
const extismToml = (name: string, read: string) => `name = "${name}"\ndescription = "Reads a file."\nkind = "wasm"\nwasm = "plugin.wasm"\n\n[permissions]\nread = [${read}]\n`;

/** A WASI program that opens `path` in its first preopened folder and prints {"open": errno, "read": text, …}. */
const wasiFiles = (path: string) => fixtureWat('wasi-files.wat', { __PATH__: path, __PLEN__: String(Buffer.byteLength(path)), __NEW__: 'made.txt', __NLEN__: '8' });
const wasiToml = (name: string, read: string) => `name = "${name}"\ndescription = "Opens a file."\nkind = "wasm"\nwasm = "plugin.wasm"\n\n[tools.echo]\ndescription = "Open it."\n\n[tools.echo.parameters.message]\ntype = "string"\nrequired = true\n\n[limits]\nfuel = 200000\nmemory_mb = 4\ntimeout_secs = 20\n\n[permissions]\nread = [${read}]\n`;

/** The original's data file changed after the call's check and copy. */
const swap = (dir: string) => () => writeFileSync(join(dir, 'data', 'v'), 'swapped');

describe('WebAssembly plugins run from the verified copy', () => {
  it("host functions: a relative read (its grant \"data\" too) is the copy's file, judged by the policy as the plugin's own; the original by its path or a link to it is refused", async () => {
    const w = world();
    const h = await host(w);
    const own = await enabled(w, h.registry, 'own', extismToml('own', '"data"'), reader('own', 'data/v'));
    // An honest grant: it reads the project, which holds its own folder.
    const byPath = await enabled(w, h.registry, 'bypath', extismToml('bypath', JSON.stringify(w.proj)), reader('bypath', join(w.plugins, 'bypath', 'data', 'v')));
    const aliased = await enabled(w, h.registry, 'aliased', extismToml('aliased', JSON.stringify(w.proj)), reader('aliased', join(w.proj, 'alias', 'data', 'v')));

    const r = await h.call('own', undefined, swap(own));
    expect(r.ok, r.error ?? '').toBe(true);
    // Before the fix: "swapped", the original's file.
    expect(r.output).toEqual({ text: 'reviewed' });
    const b = await h.call('bypath', undefined, swap(byPath));
    expect(b.output).toEqual({ denied: true });
    const a = await h.call('aliased', undefined, () => {
      swap(aliased)();
      symlinkSync(aliased, join(w.proj, 'alias'));
    });
    expect(a.output).toEqual({ denied: true });

    const reads = h.records.filter((x) => x.type === 'wasm.host-call' && x.payload['function'] === 'read_file').map((x) => x.payload);
    expect(reads.map((p) => [p['plugin'], p['decision'], p['decider']])).toEqual([['own', 'allow', 'policy'], ['bypath', 'deny', 'grant'], ['aliased', 'deny', 'grant']]);
    // The file read is the copy's, in Gatehouse's run cache.
    expect(reads[0]!['argument']).toMatch(new RegExp(`^${join(w.gatehouseHome, 'run-cache')}/[0-9a-f]{64}/data/v$`));
    for (const p of reads.slice(1)) expect(p['reason']).toMatch(/the folder this plugin was reviewed in; it runs from a verified copy of it/);
  }, 60_000);

  it("WASI: a relative grant preopens the copy's folder; a preopened project holding the original shows nothing of it, by its path or a link made in the project; a grant made a link to it is not preopened", async (ctx) => {
    needsBwrap(ctx);
    const w = world();
    const h = await host(w);
    const own = await enabled(w, h.registry, 'wown', wasiToml('wown', '"data"'), wasiFiles('v'));
    const proj = await enabled(w, h.registry, 'wproj', wasiToml('wproj', JSON.stringify(w.proj)), wasiFiles('.gatehouse/plugins/wproj/data/v'));
    const linked = await enabled(w, h.registry, 'wlink', wasiToml('wlink', JSON.stringify(w.proj)), wasiFiles('alias/data/v'));
    const projectFile = await enabled(w, h.registry, 'wok', wasiToml('wok', JSON.stringify(w.proj)), wasiFiles('ok.txt'));

    const r = await h.call('wown', 'echo', swap(own));
    expect(r.ok, r.error ?? '').toBe(true);
    expect(r.sandboxed).toBe(true);
    // Before the fix: the original's data folder was preopened, "swapped".
    expect(r.output).toEqual(expect.objectContaining({ open: 0, read: 'reviewed' }));
    const preopen = h.records.find((x) => x.type === 'wasm.host-call' && x.payload['plugin'] === 'wown' && x.payload['function'] === 'preopen')!.payload;
    expect([preopen['decision'], preopen['argument']]).toEqual(['allow', expect.stringMatching(new RegExp(`^read ${join(w.gatehouseHome, 'run-cache')}/[0-9a-f]{64}/data$`))]);

    // The project is there (its own file reads), its plugin folder is empty: 44 is ENOENT.
    const ok = await h.call('wok', 'echo', swap(projectFile));
    expect(ok.output).toEqual(expect.objectContaining({ open: 0, read: 'the project' }));
    const p = await h.call('wproj', 'echo', swap(proj));
    expect(p.output).toEqual(expect.objectContaining({ open: 44, read: '' }));
    const l = await h.call('wlink', 'echo', () => {
      swap(linked)();
      symlinkSync(linked, join(w.proj, 'alias'));
    });
    expect(l.output).toEqual(expect.objectContaining({ open: 44, read: '' }));

    // A granted folder beside it, replaced by a link to the original after the check: not preopened (fd 3 does not exist: 8, EBADF).
    const cache = join(w.proj, 'cache');
    mkdirSync(cache);
    const rebound = await enabled(w, h.registry, 'wcache', wasiToml('wcache', JSON.stringify(cache)), wasiFiles('data/v'));
    const c = await h.call('wcache', 'echo', () => {
      swap(rebound)();
      rmdirSync(cache);
      symlinkSync(rebound, cache);
    });
    expect(c.output).toEqual(expect.objectContaining({ open: 8, read: '' }));
    const refused = h.records.find((x) => x.type === 'wasm.host-call' && x.payload['plugin'] === 'wcache' && x.payload['function'] === 'preopen')!.payload;
    expect([refused['decision'], refused['reason']]).toEqual(['deny', expect.stringMatching(/the folder this plugin was reviewed in/)]);
    // Each WASI call with folders of its own starts a sandboxed process (bwrap and Node): slow on a loaded machine.
  }, 120_000);

  it('WASI: an original deleted and made again with the same files (its hiding in the long-lived process went with it) is hidden from the next call', async (ctx) => {
    needsBwrap(ctx);
    const w = world();
    const h = await host(w);
    const dir = await enabled(w, h.registry, 'remade', wasiToml('remade', JSON.stringify(w.proj)), wasiFiles('.gatehouse/plugins/remade/data/v'));
    const first = await h.call('remade', 'echo', () => undefined);
    expect(first.output).toEqual(expect.objectContaining({ open: 44, read: '' }));
    // Same bytes, so the next call's check passes; a new folder, which the first process's mount does not cover.
    const kept = join(w.proj, 'kept');
    cpSync(dir, kept, { recursive: true });
    rmSync(dir, { recursive: true });
    cpSync(kept, dir, { recursive: true });
    rmSync(kept, { recursive: true });
    const second = await h.call('remade', 'echo', swap(dir));
    expect(second.ok, second.error ?? '').toBe(true);
    expect(second.output).toEqual(expect.objectContaining({ open: 44, read: '' }));
  }, 120_000);
});
