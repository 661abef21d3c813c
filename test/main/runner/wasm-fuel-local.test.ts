// The fuel counter kept in a local (main/runner/wasm/fuel-local.ts) takes exactly what the global
// alone took: the same module metered both ways, run on V8, leaves the same fuel in the global
// after calls through every path a charge can be reached by (loops, recursion, call_indirect, an
// import that itself takes fuel from the global, multi-value results, bulk memory), and runs out
// at the same count, trapping at the same point.
import { describe, expect, it } from 'vitest';
import { FUEL_GLOBAL, meterModule } from '../../../main/runner/wasm/meter.js';
import { wat2wasm } from '../../support/wasm.js';

const MODULE = `(module
  (import "env" "host" (func $host (param i32) (result i32)))
  (memory (export "memory") 1)
  (table 2 funcref)
  (elem (i32.const 0) $twice $fib)
  (type $unary (func (param i32) (result i32)))
  (func $twice (param $x i32) (result i32) (i32.mul (local.get $x) (i32.const 2)))
  (func $fib (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else (i32.add (call $fib (i32.sub (local.get $n) (i32.const 1))) (call $fib (i32.sub (local.get $n) (i32.const 2)))))))
  (func $pair (param $x i32) (result i32 i32)
    ;; Calls itself (never with these inputs) so that binaryen's inliner keeps it a call.
    (if (i32.gt_u (local.get $x) (i32.const 1000)) (then (return (call $pair (i32.const 0)))))
    (if (i32.eqz (local.get $x)) (then (return (i32.const 0) (i32.const 1))))
    (local.get $x) (i32.add (local.get $x) (i32.const 1)))
  (func $nothing (param $x i32) (drop (call $twice (local.get $x))))
  (func (export "run") (param $turns i32) (result i32) (local $i i32) (local $acc i32) (local $a i32) (local $b i32)
    (loop $l
      (local.set $acc (i32.add (local.get $acc) (call_indirect (type $unary) (i32.and (local.get $i) (i32.const 7)) (i32.and (local.get $i) (i32.const 1)))))
      (local.set $acc (i32.add (local.get $acc) (call $host (local.get $i))))
      (call $pair (local.get $i))
      (local.set $b) (local.set $a)
      (local.set $acc (i32.add (local.get $acc) (i32.add (local.get $a) (local.get $b))))
      (call $nothing (local.get $i))
      (memory.fill (i32.const 0) (i32.const 7) (i32.mul (local.get $i) (i32.const 100)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $turns))))
    (i32.add (local.get $acc) (call $fib (i32.const 12)))))`;

/** Runs `run(turns)` on a fresh instance; the import takes 3 units from the global itself each call. */
async function run(bytes: Uint8Array, turns: number): Promise<{ result: number | 'trap'; left: bigint }> {
  let fuel: WebAssembly.Global | null = null;
  const host = (x: number) => {
    fuel!.value = (fuel!.value as bigint) - 3n;
    return x + 1;
  };
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), { env: { host } });
  fuel = instance.exports[FUEL_GLOBAL] as WebAssembly.Global;
  let result: number | 'trap';
  try {
    result = (instance.exports['run'] as (n: number) => number)(turns);
  } catch (err) {
    expect(err).toBeInstanceOf(WebAssembly.RuntimeError);
    result = 'trap';
  }
  return { result, left: fuel.value as bigint };
}

describe('fuel kept in a local', () => {
  it('burns exactly what the global alone burnt, and runs out at the same count', async () => {
    const source = await wat2wasm(MODULE);
    const meter = (fuelLimit: number, fuelLocal: boolean) => meterModule(source, { memoryMb: 1, fuelLimit, fuelLocal });
    const limit = 10_000_000;
    const local = await meter(limit, true);
    const global = await meter(limit, false);
    expect(Buffer.from(local).equals(Buffer.from(global))).toBe(false);
    for (const turns of [0, 1, 2, 7, 50]) {
      const a = await run(local, turns);
      expect(a.result).not.toBe('trap');
      expect(a).toEqual(await run(global, turns));
    }
    // What 50 turns cost, then tanks that end at every point of the last turns: each trap (or
    // finish) leaves the same fuel in the global both ways.
    const cost = limit - Number((await run(global, 50)).left);
    expect(cost).toBeGreaterThan(1000);
    for (let tank = cost - 60; tank <= cost + 1; tank++) {
      const [a, b] = [await run(await meter(tank, true), 50), await run(await meter(tank, false), 50)];
      expect(a).toEqual(b);
      expect(a.result === 'trap').toBe(tank < cost);
    }
  });
});
