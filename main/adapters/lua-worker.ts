// The worker thread one adapter session's Lua runs in: a fresh Lua 5.4 state (wasmoon, Lua
// compiled to WebAssembly) that lives as long as the session and is never shared. Never the
// host's main thread: a call that outruns its wall-clock backstop is ended by terminating this
// worker, which no Lua code can prevent.
//
// Inside, three limits per entry-point call:
//  - ops: a count hook every OPS_STEP VM instructions; at the budget the hook raises an error,
//    and from then on it fires on every instruction, so a pcall that swallowed the first error
//    is stopped by the next instruction outside it. Deterministic: the same code stops at the
//    same count every run.
//  - memory: our own allocator (lua_setallocf) refuses growth past memory_mb and remembers that
//    it did, so an out-of-memory error caught by pcall still ends the call.
//  - the state has no io, os, package, debug, load, loadstring, dofile, loadfile or require,
//    no __gc finalizers, and creating a coroutine costs a step (lua-guards.ts: code the count
//    hook would not see).
import { parentPort, workerData } from 'node:worker_threads';
import { LUA_REGISTRYINDEX, LuaFactory, LuaLibraries } from 'wasmoon';
import { LUA_GUARDS } from './lua-guards.js';
import type { AdapterLimitError } from './lua-types.js';
import { HOST_FUNCTIONS, type HostFunction } from './permissions.js';

export interface LuaWorkerData {
  source: string;
  /** The chunk's name in error messages ("main.lua"). */
  chunk: string;
  functions: HostFunction[];
  ops: number;
  memoryBytes: number;
  /** Run without the count hook (the bench's baseline only). */
  noHook?: boolean;
}

export type LuaWorkerRequest = { type: 'call'; id: number; fn: string; input: unknown };
export type LuaWorkerReply =
  | { type: 'ready'; entryPoints: string[]; ops: number; memoryBytes: number }
  | { type: 'result'; id: number; value: unknown; ops: number }
  | { type: 'error'; id: number | null; code: AdapterLimitError | 'lua_error' | 'no_entry_point'; message: string; ops: number };

/** How many instructions between two runs of the count hook while under budget. */
const OPS_STEP = 1000;
const REMOVED = ['io', 'os', 'package', 'debug', 'load', 'loadstring', 'dofile', 'loadfile', 'require', 'collectgarbage', 'print'];
const LIBS = [LuaLibraries.Base, LuaLibraries.Coroutine, LuaLibraries.Table, LuaLibraries.String, LuaLibraries.UTF8, LuaLibraries.Math];
const LUA_MASKCOUNT = 8;

const data = workerData as LuaWorkerData;
const port = parentPort!;

class LimitHit extends Error {
  constructor(readonly code: AdapterLimitError) {
    super(code);
  }
}

async function main(): Promise<void> {
  const factory = new LuaFactory();
  const engine = await factory.createEngine({ openStandardLibs: false, injectObjects: false, enableProxy: false, traceAllocations: false });
  const g = engine.global;
  const lua = g.lua;
  const mod = lua.module;

  // Memory: count what the state holds from here on, starting from what the base libraries took.
  for (const lib of LIBS) g.loadLibrary(lib);
  let used = 0;
  let refused = false;
  const alloc = mod.addFunction((_ud: number, ptr: number, oldSize: number, newSize: number) => {
    if (newSize === 0) {
      if (ptr) {
        used -= oldSize;
        mod._free(ptr);
      }
      return 0;
    }
    const delta = ptr ? newSize - oldSize : newSize;
    if (delta > 0 && used + delta > data.memoryBytes) {
      refused = true;
      return 0;
    }
    const p = mod._realloc(ptr, newSize);
    if (p) used += delta;
    return p;
  }, 'iiiii');
  lua.lua_setallocf(g.address, alloc, 0);

  // Ops: executed counts instructions of the current call; budget is the call's allowance.
  let executed = 0;
  let exhausted: AdapterLimitError | null = null;
  let step = Math.min(OPS_STEP, data.ops);
  /** Charges one step to the call running on thread L; past a limit, raises it. */
  const spend = (L: number) => {
    executed += step;
    if (refused && !exhausted) exhausted = 'memory_exceeded';
    if (!exhausted && executed >= data.ops) exhausted = 'ops_exceeded';
    if (exhausted) {
      step = 1;
      // Hook counts are per thread (each coroutine has its own), so every thread that gets here
      // is switched to count 1, not only the first: a thread left at a full step could catch
      // the error with pcall at the same point every step and loop until the backstop.
      if (lua.lua_gethookcount(L) !== 1) lua.lua_sethook(L, hook, LUA_MASKCOUNT, 1);
      lua.lua_pushstring(L, exhausted);
      lua.lua_error(L);
    }
  };
  const hook = mod.addFunction((L: number) => spend(L), 'vii');
  // coroutine.create and .wrap charge a step up front (lua-guards.ts says why).
  const charge = mod.addFunction((L: number) => {
    if (!data.noHook) spend(L);
    return 0;
  }, 'ii');

  // Entry points run on one thread of our own, with the hook set on it directly: threads made
  // before lua_sethook do not inherit it (wasmoon's function proxies run on such a thread).
  const th = g.newThread();
  const armHook = () => {
    executed = 0;
    exhausted = null;
    refused = false;
    step = Math.min(OPS_STEP, data.ops);
    if (!data.noHook) lua.lua_sethook(th.address, hook, LUA_MASKCOUNT, step);
  };

  for (const name of REMOVED) g.set(name, undefined);
  installGuards(g, charge);
  installHostApi(engine, data.functions);

  const check = () => {
    if (exhausted) throw new LimitHit(exhausted);
    if (refused) throw new LimitHit('memory_exceeded');
  };
  /** Runs what is on th's stack (a function and `args` arguments) under the limits: one result. */
  const pcall = (args: number): unknown => {
    const status = lua.lua_pcallk(th.address, args, 1, 0, 0, null);
    check();
    const value = th.getValue(-1);
    th.setTop(0);
    if (status !== 0) throw new Error(typeof value === 'string' ? value : String(value));
    return value;
  };

  armHook();
  let M: Record<string, unknown>;
  let ref: number;
  try {
    th.loadString(data.source, `@${data.chunk}`);
    lua.lua_pcallk(th.address, 0, 1, 0, 0, null);
    check();
    if (lua.lua_type(th.address, -1) !== 5 /* table */) {
      const what = lua.lua_typename(th.address, lua.lua_type(th.address, -1));
      const msg = what === 'string' ? String(th.getValue(-1)) : `${data.chunk} must return a table of entry points (return M); it returned ${what}.`;
      port.postMessage({ type: 'error', id: null, code: 'lua_error', message: msg, ops: executed } satisfies LuaWorkerReply);
      return;
    }
    M = th.getValue(-1) as Record<string, unknown>;
    ref = lua.luaL_ref(th.address, LUA_REGISTRYINDEX);
    th.setTop(0);
  } catch (err) {
    port.postMessage(failure(null, err, exhausted ?? (refused ? 'memory_exceeded' : null), executed));
    return;
  }
  const entryPoints = Object.keys(M).filter((k) => typeof M[k] === 'function');
  port.postMessage({ type: 'ready', entryPoints, ops: executed, memoryBytes: used } satisfies LuaWorkerReply);

  port.on('message', (m: LuaWorkerRequest) => {
    if (!entryPoints.includes(m.fn)) {
      port.postMessage({ type: 'error', id: m.id, code: 'no_entry_point', message: `The adapter has no ${m.fn} function; define M.${m.fn} in ${data.chunk}.`, ops: 0 } satisfies LuaWorkerReply);
      return;
    }
    armHook();
    try {
      th.setTop(0);
      lua.lua_rawgeti(th.address, LUA_REGISTRYINDEX, BigInt(ref));
      lua.lua_getfield(th.address, -1, m.fn);
      lua.lua_rotate(th.address, -2, 1);
      th.pop(1);
      th.pushValue(m.input);
      const value = pcall(1);
      port.postMessage({ type: 'result', id: m.id, value: plain(value), ops: executed } satisfies LuaWorkerReply);
    } catch (err) {
      th.setTop(0);
      port.postMessage(failure(m.id, err, exhausted ?? (refused ? 'memory_exceeded' : null), executed));
    }
  });
}

function failure(id: number | null, err: unknown, limit: AdapterLimitError | null, ops: number): LuaWorkerReply {
  if (err instanceof LimitHit || limit) {
    const code = err instanceof LimitHit ? err.code : limit!;
    return { type: 'error', id, code, message: code === 'ops_exceeded' ? `the adapter ran past its budget of ${data.ops} Lua instructions` : `the adapter allocated past its ${Math.round(data.memoryBytes / 1048576)} MiB memory cap`, ops };
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/not enough memory/.test(message)) return { type: 'error', id, code: 'memory_exceeded', message: `the adapter allocated past its ${Math.round(data.memoryBytes / 1048576)} MiB memory cap`, ops };
  return { type: 'error', id, code: 'lua_error', message, ops };
}

/** Lua tables come back as JS objects; arrays of actions keep their order, functions and cycles are dropped. */
function plain(v: unknown, depth = 0): unknown {
  if (depth > 16) return null;
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map((x) => plain(x, depth + 1));
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    // A Lua sequence {a, b} arrives as an object keyed "1", "2": make it a list.
    if (keys.length && keys.every((k, i) => k === String(i + 1))) return keys.map((k) => plain(o[k], depth + 1));
    const out: Record<string, unknown> = {};
    for (const k of keys) if (typeof o[k] !== 'function') out[k] = plain(o[k], depth + 1);
    return out;
  }
  return null;
}

/** Runs lua-guards.ts in the state, before the hook is armed; a state without them must not start. */
function installGuards(g: Awaited<ReturnType<LuaFactory['createEngine']>>['global'], charge: number): void {
  g.loadString(LUA_GUARDS, '=guards');
  g.lua.lua_pushcclosure(g.address, charge, 0);
  if (g.lua.lua_pcallk(g.address, 1, 0, 0, 0, null) !== 0) throw new Error(`the budget guards failed to load: ${String(g.getValue(-1))}`);
}

/**
 * The `ptywright` table: only the functions granted are defined. They build plain tables the host
 * reads after the call returns; none blocks or reaches outside the state.
 */
function installHostApi(engine: Awaited<ReturnType<LuaFactory['createEngine']>>, functions: HostFunction[]): void {
  const impl: Record<HostFunction, string> = {
    'action.text': 'function(s) if type(s) ~= "string" then error("ptywright.action.text takes a string", 2) end return { type = "text", text = s } end',
    'action.key': 'function(k) if type(k) ~= "string" then error("ptywright.action.key takes a key name", 2) end return { type = "key", key = k } end',
    'action.resize': 'function(c, r) return { type = "resize", cols = math.tointeger(c), rows = math.tointeger(r) } end',
    'matcher.screen_stable': 'function(ms) return { type = "screen_stable", ms = math.tointeger(ms) or 150 } end',
    'matcher.text': 'function(s) return { type = "text", text = tostring(s) } end',
    'matcher.any': 'function(list) return { type = "any", matchers = list } end',
  };
  const lines = ['ptywright = { action = {}, matcher = {}, version = "1" }'];
  for (const f of functions) if (Object.hasOwn(HOST_FUNCTIONS, f)) lines.push(`ptywright.${f} = ${impl[f]}`);
  // Plain Lua, run before the hook is armed and before the adapter's own code.
  engine.doStringSync(lines.join('\n'));
}

main().catch((err: unknown) => {
  port.postMessage({ type: 'error', id: null, code: 'lua_error', message: `the Lua runtime could not start: ${(err as Error).message}`, ops: 0 } satisfies LuaWorkerReply);
});
