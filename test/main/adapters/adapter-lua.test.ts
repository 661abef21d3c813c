// The adapter Lua runtime with its real worker and wasmoon: the instruction budget stops at the
// same count every run, the memory cap stops unbounded allocation, the wall-clock backstop
// terminates the worker, and the dangerous globals are absent.
import { describe, expect, it } from 'vitest';
import { DEFAULT_ADAPTER_LIMITS } from '../../../main/adapters/adapter-manifest.js';
import { AdapterLuaError, LuaSandbox } from '../../../main/adapters/lua-sandbox.js';
import { grantedHostFunctions } from '../../../main/adapters/permissions.js';

const limits = { ...DEFAULT_ADAPTER_LIMITS, ops: 200_000, memoryMb: 4, timeoutMs: 2000 };
const all = grantedHostFunctions(['input.write', 'matcher.wait', 'session.resize']);

async function run(source: string, fn: string, input: unknown = {}, l = limits) {
  const s = await LuaSandbox.start({ source, chunk: 'main.lua', functions: all, limits: l });
  try {
    return { result: await s.call(fn, input).catch((e: unknown) => e), sandbox: s };
  } finally {
    await s.close();
  }
}

describe('adapter Lua runtime', () => {
  it('an endless loop stops at the same op count every run, even under pcall', async () => {
    const src = 'local M = {} function M.spin() while true do pcall(function() while true do end end) end end return M';
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { result } = await run(src, 'spin');
      expect(result).toBeInstanceOf(AdapterLuaError);
      expect((result as AdapterLuaError).code).toBe('ops_exceeded');
      counts.push((result as AdapterLuaError).ops);
    }
    expect(counts[0]).toBeGreaterThanOrEqual(limits.ops);
    expect(new Set(counts).size).toBe(1);
  });

  it('unbounded allocation stops at the memory cap, even when pcall catches the error', async () => {
    const src = 'local M = {} function M.grow() local t = {} while true do pcall(function() t[#t + 1] = string.rep("x", 4096) .. #t end) end end return M';
    const { result } = await run(src, 'grow', {}, { ...limits, ops: 1_000_000_000 });
    expect((result as AdapterLuaError).code).toBe('memory_exceeded');
  });

  it('a call stuck inside one C function is ended by the wall-clock backstop', async () => {
    // One string.find over a pathological pattern runs in C, where the count hook never fires.
    const src = 'local M = {} function M.slow() local s = string.rep("a", 40) return string.find(s .. "b", string.rep("a*", 40) .. "c") end return M';
    const s = await LuaSandbox.start({ source: src, chunk: 'main.lua', functions: all, limits: { ...limits, timeoutMs: 200 } });
    const r = await s.call('slow', {}).catch((e: unknown) => e);
    expect((r as AdapterLuaError).code).toBe('timeout');
    expect((await s.call('slow', {}).catch((e: unknown) => e) as AdapterLuaError).code).toBe('timeout');
  });

  it('os, io, require, load, debug and the file loaders are absent', async () => {
    const src = `local M = {}
function M.probe() return { os = type(os), io = type(io), require = type(require), load = type(load), loadstring = type(loadstring), dofile = type(dofile), loadfile = type(loadfile), debug = type(debug), package = type(package), string = type(string) } end
return M`;
    const { result } = await run(src, 'probe');
    expect((result as { value: unknown }).value).toEqual({ os: 'nil', io: 'nil', require: 'nil', load: 'nil', loadstring: 'nil', dofile: 'nil', loadfile: 'nil', debug: 'nil', package: 'nil', string: 'table' });
    const exec = await run('local M = {} function M.x() return os.execute("true") end return M', 'x');
    expect((exec.result as AdapterLuaError).code).toBe('lua_error');
    expect((exec.result as AdapterLuaError).message).toMatch(/os/);
  });

  it('only granted host functions exist in the state', async () => {
    const src = 'local M = {} function M.f() return { text = type(ptywright.action.text), stable = type(ptywright.matcher.screen_stable) } end return M';
    const s = await LuaSandbox.start({ source: src, chunk: 'main.lua', functions: grantedHostFunctions(['screen.read']), limits });
    expect((await s.call('f', {})).value).toEqual({ text: 'nil', stable: 'nil' });
    await s.close();
  });

  it('actions and matchers come back as plain values, sequences as lists', async () => {
    const src = 'local M = {} function M.send_prompt(input) return { actions = { ptywright.action.text(input.prompt), ptywright.action.key("enter") }, last_intent = "x" } end function M.wait_turn_matcher() return ptywright.matcher.screen_stable(150) end return M';
    const s = await LuaSandbox.start({ source: src, chunk: 'main.lua', functions: all, limits });
    expect((await s.call('send_prompt', { prompt: 'hi' })).value).toEqual({ actions: [{ type: 'text', text: 'hi' }, { type: 'key', key: 'enter' }], last_intent: 'x' });
    expect((await s.call('wait_turn_matcher', {})).value).toEqual({ type: 'screen_stable', ms: 150 });
    await s.close();
  });
});
