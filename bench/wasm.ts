// WebAssembly plugins: a warm call of a trivial WASM tool against a trivial one-shot process tool,
// both through the ToolRunner and both sandboxed (the WASM pool in its bwrap'd child process, the
// process tool in bwrap with limits); and the cost of fuel metering: the same CPU-bound module
// metered and unmetered (memory cap only), run in the same worker pool.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wabt from 'wabt';
import { PluginRegistry } from '../main/registry/plugin-registry.js';
import { TrustStore } from '../main/registry/trust-store.js';
import { detectSandbox } from '../main/runner/sandbox.js';
import { MeterCache } from '../main/runner/wasm/meter-cache.js';
import { WasmPool } from '../main/runner/wasm/wasm-pool.js';
import { medianOfCalls, type BenchCase } from './harness.js';
import { sandboxedRunner, writeEchoTool } from './sandboxed-runner.js';

const GREET = `(module
  (import "extism:host/env" "input_length" (func $len (result i64)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store (param i64 i32)))
  (import "extism:host/env" "output_set" (func $out (param i64 i64)))
  (memory (export "memory") 1)
  (func (export "greet") (result i32) (local $o i64)
    (drop (call $len))
    (local.set $o (call $alloc (i64.const 2)))
    (call $store (local.get $o) (i32.const 123))
    (call $store (i64.add (local.get $o) (i64.const 1)) (i32.const 125))
    (call $out (local.get $o) (i64.const 2))
    (i32.const 0)))`;

// A tight loop with a call in it: the worst case for fuel (a charge per iteration and per call).
const BURN = `(module
  (memory (export "memory") 1)
  (func $step (param $x i32) (result i32) (i32.add (i32.mul (local.get $x) (i32.const 1103515245)) (i32.const 12345)))
  (func (export "burn") (result i32) (local $i i32) (local $x i32)
    (loop $l
      (local.set $x (call $step (local.get $x)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 2000000))))
    (i32.store (i32.const 0) (local.get $x))
    (i32.const 0)))`;

async function wat(source: string): Promise<Uint8Array> {
  const w = await wabt();
  const m = w.parseWat('bench.wat', source);
  try {
    return new Uint8Array(m.toBinary({}).buffer);
  } finally {
    m.destroy();
  }
}

export async function wasmCases(opts: { calls?: number } = {}): Promise<{ cases: BenchCase[]; close(): Promise<void> }> {
  const calls = opts.calls ?? 30;
  const detection = detectSandbox();
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-bench-wasm-'));
  const plugins = join(root, 'plugins');
  mkdirSync(join(plugins, 'greet'), { recursive: true });
  mkdirSync(join(root, 'home'));
  writeFileSync(join(plugins, 'greet', 'gatehouse.toml'), 'name = "greet"\ndescription = "x"\nkind = "wasm"\nwasm = "plugin.wasm"\n');
  writeFileSync(join(plugins, 'greet', 'plugin.wasm'), await wat(GREET));
  writeEchoTool(plugins);
  const registry = new PluginRegistry({ sources: [{ dir: plugins, origin: 'cli' }], trust: new TrustStore(join(root, 'home')) });
  await registry.refreshAll();
  await registry.enable('greet', 'bench');
  await registry.enable('echo', 'bench');
  const runner = sandboxedRunner(registry, join(root, 'home'), detection, { wasmIsolation: { detection } });
  const call = async (plugin: string) => {
    const r = await runner.call(plugin, undefined, { n: 1 }, { actor: 'bench' });
    if (!r.ok) throw new Error(`${plugin} bench call failed: ${r.error}`);
  };
  // Warm: the module metered and compiled, the process and a worker started.
  await call('greet');

  const pool = new WasmPool({ maxWorkers: 1 });
  const meter = new MeterCache(join(root, 'home', 'wasm-cache'));
  const burn = await wat(BURN);
  const fuelLimit = 1e12;
  const metered = await meter.get(burn, 1, fuelLimit);
  const unmetered = await meter.get(burn, 1, fuelLimit, { fuel: false });
  const burnCall = (module: typeof metered) => async () => {
    const r = await pool.run({ module, call: { export: 'burn', input: new Uint8Array(0), fuel: fuelLimit, memoryMb: 1, maxOutputKb: 1, config: {} }, timeoutMs: 30_000, hostCall: async () => ({ ok: false }) });
    if (!r.ok) throw new Error(`burn failed: ${r.error}`);
  };
  const sandbox = detection.kind === 'bwrap' ? 'bwrap' : 'no sandbox here';
  const cases: BenchCase[] = [
    { name: `one-shot process tool call (${sandbox})`, unit: 'ms', better: 'lower', run: () => medianOfCalls(calls, () => call('echo')) },
    {
      name: `warm WASM tool call (${sandbox})`,
      unit: 'ms',
      better: 'lower',
      baseline: `one-shot process tool call (${sandbox})`,
      target: { median: 1 },
      run: () => medianOfCalls(calls * 4, () => call('greet')),
    },
    { name: 'CPU-bound WASM, unmetered', unit: 'ms', better: 'lower', run: () => medianOfCalls(10, burnCall(unmetered)) },
    { name: 'CPU-bound WASM, fuel-metered', unit: 'ms', better: 'lower', baseline: 'CPU-bound WASM, unmetered', target: { ratio: 1.5 }, run: () => medianOfCalls(10, burnCall(metered)) },
  ];
  return {
    cases,
    close: async () => {
      await runner.close();
      await pool.close();
    },
  };
}
