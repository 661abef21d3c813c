// Fuel and a memory cap, written into a module once when its plugin is enabled (never per call).
//
// Fuel: binaryen's log-execution pass puts a call at every function entry, function exit and
// loop header; that call becomes a small function of our own which takes one unit from an
// exported mutable i64 global and traps below zero, and binaryen's inliner copies it into place,
// so a loop iteration pays a decrement and a branch, not a call into JavaScript (13-20x slower);
// the decrement works on a copy of the global kept in a local (fuel-local.ts). The count depends
// only on the path the code takes, so the same call burns the same fuel on every run, and an
// endless loop stops at the same count. Instructions that do work proportional to an operand
// (memory.fill, memory.copy, memory.init, table.grow) also pay by that length (bulk-fuel.ts).
//
// Memory: every memory.grow first checks the cap; a grow past it sets an exported flag and traps,
// so the call ends as `memory` (a plain memory.grow would return -1 and most guests then trap
// somewhere unrelated). The memory section's maximum is rewritten to the cap as well (V8 then
// refuses the grow by itself: defence in depth).
//
// binaryen parses untrusted bytes: it runs in a worker (meter-cache.ts), never on the host's
// main thread. Its feature set is pinned: "all features" emits modules V8 rejects.
import type Binaryen from 'binaryen';
import { rewriteMemoryMaximum, WASM_PAGE } from '../../registry/manifest/wasm-module-info.js';
import { chargeBulkOps, takeFuel } from './bulk-fuel.js';
import { fuelInLocals } from './fuel-local.js';
import { MeterError } from './meter-error.js';

/** Bumped whenever what meterModule writes changes: cached output of older versions is not reused. */
export const METER_VERSION = 3;
export const FUEL_GLOBAL = '__gatehouse_fuel';
export const OOM_GLOBAL = '__gatehouse_oom';

type BinaryenApi = typeof Binaryen;
let loaded: BinaryenApi | null = null;

/** binaryen (14 MB, ESM with top-level await) is loaded only by the worker that meters. */
async function binaryenApi(): Promise<BinaryenApi> {
  loaded ??= (await import('binaryen')).default;
  return loaded;
}

/** What Gatehouse accepts in a module: the MVP plus what V8 in Node 20 runs and the kits emit. */
const FEATURES = (binaryen: BinaryenApi): number =>
  binaryen.Features.MVP |
  binaryen.Features.MutableGlobals |
  binaryen.Features.SignExt |
  binaryen.Features.NontrappingFPToInt |
  binaryen.Features.BulkMemory |
  // binaryen asserts that this one comes with BulkMemory (memory.copy/fill as optimisations).
  binaryen.Features.BulkMemoryOpt |
  binaryen.Features.Multivalue |
  binaryen.Features.SIMD128 |
  binaryen.Features.ReferenceTypes;

export interface MeterOptions {
  memoryMb: number;
  /**
   * The fuel of one call, the fuel global's initial value: a module's start function (AssemblyScript
   * runs one to set up its data) already burns fuel while it is instantiated, from the same budget.
   */
  fuelLimit: number;
  /** false: only the memory cap (the bench's unmetered baseline). */
  fuel?: boolean;
  /** false: every charge reads the global itself, as before fuel-local.ts (its test compares the counts). */
  fuelLocal?: boolean;
}

export async function meterModule(input: Uint8Array, opts: MeterOptions): Promise<Uint8Array> {
  const binaryen = await binaryenApi();
  const maxPages = Math.floor((opts.memoryMb * 2 ** 20) / WASM_PAGE);
  let m: Binaryen.Module;
  try {
    m = binaryen.readBinary(input);
  } catch (err) {
    throw new MeterError(`binaryen could not read the module: ${(err as Error).message}`);
  }
  try {
    m.setFeatures(FEATURES(binaryen));
    if (!m.validate()) throw new MeterError('the module does not validate with the WebAssembly features Gatehouse accepts (MVP, mutable globals, sign extension, non-trapping float-to-int, bulk memory, multi-value, SIMD, reference types)');
    const passes = opts.fuel === false ? ['instrument-memory'] : ['log-execution', 'instrument-memory'];
    binaryen.setPassArgument('instrument-memory', 'memory.grow');
    try {
      m.runPasses(passes);
    } finally {
      binaryen.clearPassArguments();
    }
    const i32 = binaryen.i32;
    const i64 = binaryen.i64;
    m.addGlobal(FUEL_GLOBAL, i64, true, m.i64.const(BigInt(opts.fuelLimit) as never));
    m.addGlobalExport(FUEL_GLOBAL, FUEL_GLOBAL);
    m.addGlobal(OOM_GLOBAL, i32, true, m.i32.const(0));
    m.addGlobalExport(OOM_GLOBAL, OOM_GLOBAL);
    if (opts.fuel !== false) {
      chargeBulkOps(binaryen, m, FUEL_GLOBAL);
      replaceImport(m, 'log_execution', binaryen.createType([i32]), binaryen.none, [], m.block(null, takeFuel(binaryen, m, FUEL_GLOBAL, m.i64.const(1n as never))));
    }
    // memory_grow_pre(id, delta) -> delta, trapping (with the flag set) when the grow would pass the cap.
    replaceImport(m, 'memory_grow_pre', binaryen.createType([i32, i32]), i32, [], m.block(null, [
      m.if(
        m.i64.gt_u(m.i64.add(m.i64.extend_u(m.memory.size()), m.i64.extend_u(m.local.get(1, i32))), m.i64.const(BigInt(maxPages) as never)),
        m.block(null, [m.global.set(OOM_GLOBAL, m.i32.const(1)), m.unreachable()]),
      ),
      m.local.get(1, i32),
    ], i32));
    replaceImport(m, 'memory_grow_post', binaryen.createType([i32, i32]), i32, [], m.local.get(1, i32));
    binaryen.setAlwaysInlineMaxSize(64);
    m.runPasses(['inlining', 'remove-unused-module-elements']);
    // After the inlining: the charges it copied into place read the fuel through a local too.
    if (opts.fuel !== false && opts.fuelLocal !== false) fuelInLocals(binaryen, m, FUEL_GLOBAL);
    if (!m.validate()) throw new MeterError('the metered module does not validate (a bug in Gatehouse\'s meter; please report it)');
    const out = m.emitBinary();
    return rewriteMemoryMaximum(out, maxPages);
  } finally {
    m.dispose();
  }
}

/** Turns the import a pass added into a function defined in the module (so it can be inlined). */
function replaceImport(m: Binaryen.Module, name: string, params: number, results: number, vars: number[], body: number): void {
  if (!m.getFunction(name)) return;
  m.removeFunction(name);
  m.addFunction(name, params, results, vars, body);
}
