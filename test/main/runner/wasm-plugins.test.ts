// WebAssembly plugins (kind = "wasm"), end to end through the real registry and ToolRunner:
// manifest validation of the module, the enable-time import check, deterministic fuel, the
// memory cap, the wall-clock backstop and host functions checked when they are called.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { METER_VERSION } from '../../../main/runner/wasm/meter.js';
import { PluginService } from '../../../main/registry/plugin-service.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import { TrustStore } from '../../../main/registry/trust-store.js';
import { ToolRunner } from '../../../main/runner/tool-runner.js';
import { BreakerBoard } from '../../../main/runner/breaker-board.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { unsandboxedWrap } from '../../../main/runner/sandbox.js';
import { loadManifest } from '../../../main/registry/manifest/load-manifest.js';
import { PolicyStore } from '../../../main/policy/rules/store.js';
import type { WasmPool } from '../../../main/runner/wasm/wasm-pool.js';
import { fixtureWat, wasmPlugin, wat2wasm } from '../../support/wasm.js';

const toml = (name: string, extra = '') => `name = "${name}"\ndescription = "A wasm test tool."\nkind = "wasm"\nwasm = "plugin.wasm"\n${extra}`;

describe('wasm plugins', () => {
  let root: string;
  let records: { type: string; actor: string; payload: Record<string, unknown> }[];
  let registry: PluginRegistry;
  let runner: ToolRunner;
  let metrics: PluginMetrics;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-wasm-'));
    mkdirSync(join(root, 'home'));
    mkdirSync(join(root, 'plugins'));
    records = [];
    registry = new PluginRegistry({ sources: [{ dir: join(root, 'plugins'), origin: 'cli' }], trust: new TrustStore(join(root, 'home')) });
    metrics = new PluginMetrics();
    runner = new ToolRunner({
      registry,
      // A high threshold: these tests fail calls on purpose, more than three in a row.
      breakers: new BreakerBoard({ clock: { now: () => 0 }, threshold: 100 }),
      metrics,
      runCache: join(root, 'home', 'run-cache'),
      sandboxFor: () => ({ wrap: unsandboxedWrap(), sandboxed: false, warning: 'tests run unsandboxed' }),
      record: (type, actor, payload) => records.push({ type, actor, payload }),
    });
  });
  afterEach(async () => {
    await runner.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** The runner again, with the host's policy judging host functions (home: a fake one under root). */
  async function withPolicy(): Promise<string> {
    const home = join(root, 'fakehome');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const policy = new PolicyStore({ file: join(root, 'home', 'policy.yaml'), home, gatehouseHome: join(root, 'home'), caseInsensitive: false, watch: false });
    await policy.start();
    await runner.close();
    runner = new ToolRunner({
      registry,
      breakers: new BreakerBoard({ clock: { now: () => 0 }, threshold: 100 }),
      metrics,
      runCache: join(root, 'home', 'run-cache'),
      policy,
      sandboxFor: () => ({ wrap: unsandboxedWrap(), sandboxed: false, warning: 'tests run unsandboxed' }),
      record: (type, actor, payload) => records.push({ type, actor, payload }),
    });
    return home;
  }

  const reader = (name: string, path: string) => fixtureWat('reader.wat', { __PATH__: path, __LEN__: String(Buffer.byteLength(path)) }).replace('"reader"', JSON.stringify(name));
  const httpCaller = (name: string, request: object) => {
    const json = JSON.stringify(request);
    return fixtureWat('http.wat', { __PATH__: json.replace(/\\/g, '\\\\').replace(/"/g, '\\"'), __LEN__: String(Buffer.byteLength(json)) }).replace('"http"', JSON.stringify(name));
  };

  async function enabled(name: string, extra: string, wat = fixtureWat('echo.wat')): Promise<void> {
    await wasmPlugin(join(root, 'plugins'), name, toml(name, extra), wat);
    await registry.refreshAll();
    await registry.enable(name, 'alice');
  }

  describe('manifest', () => {
    it('loads a wasm plugin: no command, its tools are exports, limits default to 1,000,000 fuel, 64 MiB, 30 s, 1024 KiB, 50 MiB', async () => {
      const dir = await wasmPlugin(root, 'echo', toml('echo'), fixtureWat('echo.wat'));
      const r = loadManifest(dir);
      expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(r.manifest!.kind).toBe('wasm');
      expect(r.manifest!.tools.map((t) => [t.name, t.export])).toEqual([['echo', 'echo']]);
      expect(r.manifest!.wasm).toEqual({ module: 'plugin.wasm', abi: 'extism', limits: { fuel: 1_000_000, memoryMb: 64, timeoutSecs: 30, maxOutputKb: 1024, maxModuleMb: 50 }, log: false });
    });

    it('refuses a wasm plugin that also names a command, and any other kind without one', async () => {
      const dir = await wasmPlugin(root, 'echo', toml('echo', 'command = "run.sh"\n'), fixtureWat('echo.wat'));
      expect(loadManifest(dir).manifest).toBeNull();
      mkdirSync(join(root, 'plain'));
      writeFileSync(join(root, 'plain', 'gatehouse.toml'), 'name = "plain"\ndescription = "x"\n');
      const plain = loadManifest(join(root, 'plain'));
      expect(plain.manifest).toBeNull();
      expect(plain.problems.map((p) => p.message).join('\n')).toMatch(/The required field `command` is missing from the manifest/);
      const both = loadManifest(dir).problems.find((p) => p.code === 'manifest.kind-field')!;
      expect(both.message).toMatch(/`command` is not allowed in a plugin of kind "wasm"/);
      expect(both.line).toBe(5);
    });

    it('names a missing module, one outside the folder, a symlinked one and one too big', async () => {
      const dir = join(root, 'mod');
      mkdirSync(dir);
      const problem = (wasm: string, extra = '') => {
        writeFileSync(join(dir, 'gatehouse.toml'), `name = "mod"\ndescription = "x"\nkind = "wasm"\nwasm = ${JSON.stringify(wasm)}\n${extra}`);
        const r = loadManifest(dir);
        expect(r.manifest).toBeNull();
        return r.problems.filter((p) => p.severity === 'error').map((p) => `${p.code}: ${p.message}`).join('\n');
      };
      expect(problem('plugin.wasm')).toMatch(/^wasm\.missing: `wasm` = "plugin.wasm" does not exist in the plugin folder/);
      expect(problem('../outside.wasm')).toMatch(/^wasm\.parent: .*stay inside the plugin folder/);
      expect(problem('/tmp/x.wasm')).toMatch(/^wasm\.absolute: /);
      writeFileSync(join(root, 'elsewhere.wasm'), await wat2wasm(fixtureWat('echo.wat')));
      symlinkSync(join(root, 'elsewhere.wasm'), join(dir, 'linked.wasm'));
      expect(problem('linked.wasm')).toMatch(/^wasm\.symlink: .*symbolic link/);
      writeFileSync(join(dir, 'big.wasm'), new Uint8Array(2 * 2 ** 20 + 1));
      expect(problem('big.wasm', '[limits]\nmax_module_mb = 2\n')).toMatch(/^wasm\.too-large: .*more than limits\.max_module_mb \(2 MiB\)/);
      writeFileSync(join(dir, 'text.wasm'), 'not wasm');
      expect(problem('text.wasm')).toMatch(/^wasm\.invalid: .*magic bytes/);
    });

    it('names a tool export the module does not have', async () => {
      const dir = await wasmPlugin(root, 'echo', toml('echo', '[tools.shout]\ndescription = "x"\nexport = "shout"\n'), fixtureWat('echo.wat'));
      const r = loadManifest(dir);
      expect(r.manifest).toBeNull();
      const p = r.problems.find((x) => x.code === 'wasm.unknown-export')!;
      expect(p.path).toBe('tools.shout.export');
      expect(p.message).toMatch(/exports no function "shout" \(its functions: echo, spin, grow\)/);
    });

    it('refuses at enable a module that imports an ungranted function, naming the import', async () => {
      await wasmPlugin(join(root, 'plugins'), 'wasi', toml('wasi'), fixtureWat('wasi.wat'));
      await wasmPlugin(join(root, 'plugins'), 'reader', toml('reader'), fixtureWat('reader.wat', { __PATH__: '/x', __LEN__: '2' }));
      await registry.refreshAll();
      await expect(registry.enable('wasi', 'alice')).rejects.toThrow(/imports wasi\.thread-spawn, a function Gatehouse does not provide/);
      await expect(registry.enable('reader', 'alice')).rejects.toThrow(/imports extism:host\/user\.read_file, which needs a path or host in permissions\.read, and the manifest does not grant it/);
    });
  });

  describe('imports next to permissions (the Plugins view)', () => {
    it('lists each import with the permission that links it and marks the ones not granted, for an invalid plugin too', async () => {
      await wasmPlugin(join(root, 'plugins'), 'reader', toml('reader', '[permissions]\nlog = true\n'), fixtureWat('reader.wat', { __PATH__: '/x', __LEN__: '2' }));
      await wasmPlugin(join(root, 'plugins'), 'echo', toml('echo'), fixtureWat('echo.wat'));
      await registry.refreshAll();
      const service = new PluginService(registry, new TrustStore(join(root, 'home')), { homePluginsDir: join(root, 'plugins') });
      const reader = service.detail('reader');
      expect(reader.status).toBe('invalid');
      expect(reader.wasmImports!.error).toBeNull();
      expect(reader.wasmImports!.imports.map((i) => [`${i.module}.${i.name}`, i.grant, i.granted])).toEqual([
        ['extism:host/env.alloc', 'core', true],
        ['extism:host/env.store_u8', 'core', true],
        ['extism:host/env.length', 'core', true],
        ['extism:host/env.output_set', 'core', true],
        ['extism:host/user.read_file', 'read', false],
      ]);
      expect(service.detail('echo').wasmImports!.imports.every((i) => i.granted)).toBe(true);
    });
  });

  describe('metering', () => {
    it('the same call run 20 times reports exactly the same fuel', async () => {
      await enabled('echo', '');
      const fuel = new Set<number>();
      for (let i = 0; i < 20; i++) {
        const r = await runner.call('echo', undefined, { text: 'the same input every time' }, { actor: 'agent:test' });
        expect(r.ok, r.error ?? '').toBe(true);
        expect(r.output).toEqual({ text: 'the same input every time' });
        fuel.add(r.wasm!.fuelUsed);
      }
      expect(fuel.size).toBe(1);
      expect([...fuel][0]).toBeGreaterThan(0);
      const ended = records.filter((x) => x.type === 'execution.ended');
      expect(ended).toHaveLength(20);
      expect(new Set(ended.map((e) => e.payload['fuelUsed']))).toEqual(fuel);
      // The Health view's metrics carry it too.
      const f = [...fuel][0]!;
      expect(metrics.snapshot('echo').fuel).toEqual({ last: f, limit: 1_000_000, mean: f });
    });

    it('metering happens once, when prepared at enable time: the metered module is cached by hash, limits and meter version', async () => {
      await enabled('echo', '');
      await runner.prepareWasm('echo');
      const cache = join(root, 'home', 'wasm-cache');
      const files = readdirSync(cache);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(new RegExp(`^[0-9a-f]{64}-m64-f1000000-v${METER_VERSION}\\.wasm$`));
      const r = await runner.call('echo', undefined, { a: 1 }, { actor: 'agent:test' });
      expect(r.output).toEqual({ a: 1 });
      expect(readdirSync(cache)).toEqual(files);
    });

    it('copies another meter version wrote are removed when this one meters; anything else in the folder stays', async () => {
      const cache = join(root, 'home', 'wasm-cache');
      mkdirSync(cache, { recursive: true });
      const hash = 'a'.repeat(64);
      const stale = [`${hash}-m64-f1000000-v${METER_VERSION - 1}.wasm`, `${hash}-m64-f1000000-v${METER_VERSION - 1}-nofuel.wasm`, `${hash}-m64-f1000000-v${METER_VERSION + 1}.wasm`];
      const kept = [`${hash}-m64-f1000000-v${METER_VERSION}.wasm`, 'notes.txt', `${hash}-v1.wasm.bak`];
      for (const name of [...stale, ...kept]) writeFileSync(join(cache, name), 'x');
      await enabled('echo', '');
      await runner.prepareWasm('echo');
      const files = readdirSync(cache);
      expect(files.filter((f) => stale.includes(f))).toEqual([]);
      expect(kept.every((f) => files.includes(f))).toBe(true);
      expect(files).toHaveLength(kept.length + 1);
    });

    it('an infinite loop stops with fuel at the same count every run', async () => {
      await enabled('spin', '[tools.spin]\ndescription = "x"\n[limits]\nfuel = 50000\n');
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await runner.call('spin', 'spin', {}, { actor: 'agent:test' });
        expect(r.ok).toBe(false);
        expect(r.failure).toBe('fuel');
        expect(r.error).toMatch(/out of fuel: the call used all 50000 units/);
        seen.push(r.wasm!.fuelUsed);
      }
      expect(seen).toEqual([50000, 50000, 50000]);
      expect(metrics.snapshot('spin').failures.limit).toBe(3);
    });

    it('growing memory past memory_mb fails with memory, and the host memory stays flat', async () => {
      await enabled('grow', '[tools.grow]\ndescription = "x"\n[limits]\nmemory_mb = 16\n');
      const first = await runner.call('grow', 'grow', {}, { actor: 'agent:test' });
      expect(first.failure, first.error ?? '').toBe('memory');
      expect(first.error).toMatch(/out of memory: .*limits\.memory_mb \(16 MiB\)/);
      expect(first.wasm!.memoryBytes).toBeLessThanOrEqual(16 * 2 ** 20);
      const rssBefore = process.memoryUsage().rss;
      for (let i = 0; i < 10; i++) {
        const r = await runner.call('grow', 'grow', {}, { actor: 'agent:test' });
        expect(r.failure).toBe('memory');
      }
      // Ten calls that each took 16 MiB: had the memory stayed, that would be 160 MiB more.
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 2 ** 20);
    });

    it('a call past timeout_secs terminates its worker (fuel is not the only backstop)', async () => {
      await enabled('slow', '[tools.spin]\ndescription = "x"\n[limits]\nfuel = 1000000000000\ntimeout_secs = 1\n');
      const r = await runner.call('slow', 'spin', {}, { actor: 'agent:test' });
      expect(r.failure).toBe('timeout');
      expect(r.error).toMatch(/ran past limits\.timeout_secs \(1 s\); its worker was terminated/);
      expect((runner.wasm().pool as WasmPool).workerCount).toBe(0);
      const again = await runner.call('slow', 'spin', {}, { actor: 'agent:test' });
      expect(again.failure).toBe('timeout');
    });
  });

  describe('bulk memory pays fuel by its length', () => {
    // One instruction each, so the two exports of a pair differ only in the length operand.
    const BULK = `(module
  (memory (export "memory") 64)
  (table $t 0 funcref)
  (data $d "${'a'.repeat(4096)}")
  (func $run (param $len i32) (param $op i32)
    (if (i32.eq (local.get $op) (i32.const 0)) (then (memory.fill (i32.const 0) (i32.const 7) (local.get $len))))
    (if (i32.eq (local.get $op) (i32.const 1)) (then (memory.copy (i32.const 65536) (i32.const 0) (local.get $len))))
    (if (i32.eq (local.get $op) (i32.const 2)) (then (memory.init $d (i32.const 0) (i32.const 0) (local.get $len))))
    (if (i32.eq (local.get $op) (i32.const 3)) (then (drop (table.grow $t (ref.null func) (local.get $len))))))
  (func (export "fill_0") (result i32) (call $run (i32.const 0) (i32.const 0)) (i32.const 0))
  (func (export "fill_64k") (result i32) (call $run (i32.const 65536) (i32.const 0)) (i32.const 0))
  (func (export "copy_0") (result i32) (call $run (i32.const 0) (i32.const 1)) (i32.const 0))
  (func (export "copy_64k") (result i32) (call $run (i32.const 65536) (i32.const 1)) (i32.const 0))
  (func (export "init_0") (result i32) (call $run (i32.const 0) (i32.const 2)) (i32.const 0))
  (func (export "init_4k") (result i32) (call $run (i32.const 4096) (i32.const 2)) (i32.const 0))
  (func (export "grow_0") (result i32) (call $run (i32.const 0) (i32.const 3)) (i32.const 0))
  (func (export "grow_4k") (result i32) (call $run (i32.const 4096) (i32.const 3)) (i32.const 0))
  ;; Fills all 4 MiB of its memory, forever: one loop turn is one unit of ordinary fuel.
  (func (export "fill_forever") (result i32)
    (loop $again (memory.fill (i32.const 0) (i32.const 7) (i32.const 4194304)) (br $again))
    (i32.const 0)))`;
    const TOOLS = ['fill_0', 'fill_64k', 'copy_0', 'copy_64k', 'init_0', 'init_4k', 'grow_0', 'grow_4k', 'fill_forever'].map((t) => `[tools.${t}]\ndescription = "x"\n`).join('');

    it('a loop of memory.fill over the whole memory runs out of fuel, not into the timeout', async () => {
      await enabled('filler', `${TOOLS}[limits]\nfuel = 1000000\ntimeout_secs = 5\n`, BULK);
      for (let i = 0; i < 2; i++) {
        const r = await runner.call('filler', 'fill_forever', {}, { actor: 'agent:test' });
        expect({ failure: r.failure, error: r.error }).toMatchObject({ failure: 'fuel', error: expect.stringMatching(/out of fuel: the call used all 1000000 units/) });
        expect(r.wasm!.fuelUsed).toBe(1_000_000);
      }
    });

    it('memory.fill, memory.copy, memory.init cost a unit per 64 bytes and table.grow one per 8 entries, the same on every run', async () => {
      await enabled('bulk', `${TOOLS}[limits]\nfuel = 1000000\n`, BULK);
      const fuel = async (tool: string) => {
        const r = await runner.call('bulk', tool, {}, { actor: 'agent:test' });
        expect(r.ok, r.error ?? '').toBe(true);
        return r.wasm!.fuelUsed;
      };
      const extra: Record<string, number> = {};
      for (const [zero, big] of [['fill_0', 'fill_64k'], ['copy_0', 'copy_64k'], ['init_0', 'init_4k'], ['grow_0', 'grow_4k']] as const) {
        const base = await fuel(zero);
        expect(await fuel(zero)).toBe(base);
        extra[big] = (await fuel(big)) - base;
      }
      expect(extra).toEqual({ fill_64k: 1024, copy_64k: 1024, init_4k: 64, grow_4k: 512 });
    });

    it('a module using table.fill, whose length the meter cannot charge, is refused with the instruction named', async () => {
      const wat = '(module (memory (export "memory") 1) (table $t 16 funcref) (func (export "tf") (result i32) (table.fill $t (i32.const 0) (ref.null func) (i32.const 16)) (i32.const 0)))';
      await enabled('tablefill', '[tools.tf]\ndescription = "x"\n', wat);
      const r = await runner.call('tablefill', 'tf', {}, { actor: 'agent:test' });
      expect(r.ok).toBe(false);
      expect(r.error).toMatch(/could not be metered: .*table\.fill/);
    });
  });

  describe('host functions', () => {
    it('read_file under a granted path reads it; outside the grant it is denied and audited', async () => {
      const data = join(root, 'data');
      mkdirSync(data);
      writeFileSync(join(data, 'notes.txt'), '{"lines":3}');
      writeFileSync(join(root, 'secret.txt'), 'nope');
      const inside = join(data, 'notes.txt');
      const outside = join(root, 'secret.txt');
      await enabled('readin', `[permissions]\nread = [${JSON.stringify(data)}]\n`, fixtureWat('reader.wat', { __PATH__: inside, __LEN__: String(Buffer.byteLength(inside)) }).replace('"reader"', '"readin"'));
      await enabled('readout', `[permissions]\nread = [${JSON.stringify(data)}]\n`, fixtureWat('reader.wat', { __PATH__: outside, __LEN__: String(Buffer.byteLength(outside)) }).replace('"reader"', '"readout"'));
      const ok = await runner.call('readin', undefined, {}, { actor: 'agent:test', callId: 'c1' });
      expect(ok.output).toEqual({ lines: 3 });
      const no = await runner.call('readout', undefined, {}, { actor: 'agent:test', callId: 'c2' });
      expect(no.output).toEqual({ denied: true });
      const hostCalls = records.filter((x) => x.type === 'wasm.host-call').map((x) => x.payload);
      expect(hostCalls).toEqual([
        expect.objectContaining({ call: 'c1', plugin: 'readin', function: 'read_file', argument: inside, decision: 'allow' }),
        expect.objectContaining({ call: 'c2', plugin: 'readout', function: 'read_file', argument: outside, decision: 'deny', reason: expect.stringMatching(/not under a path the manifest grants for read/) }),
      ]);
    });

    it('write_file writes under a granted path; outside it nothing is written, and both are audited', async () => {
      const out = join(root, 'out');
      mkdirSync(out);
      const inside = join(out, 'result.txt');
      const outside = join(root, 'home', 'planted.txt');
      const writer = (name: string, path: string) => fixtureWat('writer.wat', { __PATH__: path, __LEN__: String(Buffer.byteLength(path)) }).replace('"writer"', JSON.stringify(name));
      await enabled('writein', `[permissions]\nwrite = [${JSON.stringify(out)}]\n`, writer('writein', inside));
      await enabled('writeout', `[permissions]\nwrite = [${JSON.stringify(out)}]\n`, writer('writeout', outside));
      expect((await runner.call('writein', undefined, {}, { actor: 'agent:test' })).output).toEqual({ written: true });
      expect(readFileSync(inside, 'utf8')).toBe('written by wasm');
      expect((await runner.call('writeout', undefined, {}, { actor: 'agent:test' })).output).toEqual({ denied: true });
      expect(existsSync(outside)).toBe(false);
      expect(records.filter((x) => x.type === 'wasm.host-call').map((x) => [x.payload['function'], x.payload['argument'], x.payload['decision']])).toEqual([
        ['write_file', inside, 'allow'],
        ['write_file', outside, 'deny'],
      ]);
    });

    it('a read inside the grant is still denied by a locked policy rule (credentials), and audited as such', async () => {
      const home = await withPolicy();
      const key = join(home, '.ssh', 'id_rsa');
      writeFileSync(key, 'PRIVATE KEY');
      await enabled('sshread', `[permissions]\nread = [${JSON.stringify(home)}]\n`, reader('sshread', key));
      const r = await runner.call('sshread', undefined, {}, { actor: 'agent:test', callId: 'c3' });
      expect(r.output).toEqual({ denied: true });
      const ev = records.find((x) => x.type === 'wasm.host-call')!.payload;
      expect(ev).toMatchObject({ call: 'c3', function: 'read_file', argument: key, decision: 'deny', decider: 'policy' });
      expect(String(ev['reason'])).toMatch(/denied by policy/);
    });

    it('http_request to an undeclared host, or to a declared host that is a private address, is denied', async () => {
      await withPolicy();
      await enabled('undeclared', '[permissions]\nhosts = ["api.example.com"]\n', httpCaller('undeclared', { url: 'http://example.org/x', method: 'GET' }));
      await enabled('private', '[permissions]\nhosts = ["127.0.0.1", "169.254.169.254"]\n', httpCaller('private', { url: 'http://169.254.169.254/latest/meta-data', method: 'GET' }));
      await enabled('loopback', '[permissions]\nhosts = ["127.0.0.1"]\n', httpCaller('loopback', { url: 'http://127.0.0.1:9/', method: 'GET' }));
      for (const name of ['undeclared', 'private', 'loopback']) {
        const r = await runner.call(name, undefined, {}, { actor: 'agent:test', callId: name });
        expect(r.output, name).toEqual({ denied: true });
      }
      const byCall = Object.fromEntries(records.filter((x) => x.type === 'wasm.host-call').map((x) => [x.payload['call'], x.payload]));
      expect(byCall['undeclared']).toMatchObject({ function: 'http_request', decision: 'deny', decider: 'grant', argument: 'GET http://example.org/x' });
      expect(String(byCall['undeclared']!['reason'])).toMatch(/not a host the manifest declares in permissions\.hosts/);
      expect(byCall['private']).toMatchObject({ decision: 'deny', decider: 'network' });
      expect(String(byCall['private']!['reason'])).toMatch(/reaches 169\.254\.169\.254, a (cloud-metadata|link-local) address/);
      expect(byCall['loopback']).toMatchObject({ decision: 'deny', decider: 'network' });
      expect(String(byCall['loopback']!['reason'])).toMatch(/a loopback address/);
    });
  });
});
