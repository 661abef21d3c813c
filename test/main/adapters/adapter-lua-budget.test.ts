// The adapter Lua budget where Lua itself runs code the count hook does not see: finalizers (Lua
// turns debug hooks off while a __gc metamethod runs) and coroutines (each has a hook count of
// its own). Each case must end with the named budget error, never by the wall-clock backstop,
// so the backstop here is far longer than the budget needs.
import { describe, expect, it } from 'vitest';
import { DEFAULT_ADAPTER_LIMITS } from '../../../main/adapters/adapter-manifest.js';
import { AdapterLuaError, LuaSandbox } from '../../../main/adapters/lua-sandbox.js';
import { grantedHostFunctions } from '../../../main/adapters/permissions.js';

const limits = { ...DEFAULT_ADAPTER_LIMITS, ops: 200_000, memoryMb: 8, timeoutMs: 8000 };
const all = grantedHostFunctions(['input.write', 'matcher.wait', 'session.resize']);

async function callOnce(source: string, fn: string): Promise<unknown> {
  const s = await LuaSandbox.start({ source, chunk: 'main.lua', functions: all, limits });
  try {
    return await s.call(fn, {}).then((r) => r.value, (e: unknown) => e);
  } finally {
    await s.close();
  }
}

function expectLimit(result: unknown, code: AdapterLuaError['code']): AdapterLuaError {
  expect(result).toBeInstanceOf(AdapterLuaError);
  const e = result as AdapterLuaError;
  expect({ code: e.code, message: e.message }).toMatchObject({ code });
  return e;
}

describe('adapter Lua budget: code the count hook does not see', () => {
  it('a table with a __gc finalizer is refused, so a spinning finalizer never runs', async () => {
    const src = `local M = {}
function M.gc() setmetatable({}, { __gc = function() while true do end end }) return "made" end
return M`;
    const e = expectLimit(await callOnce(src, 'gc'), 'lua_error');
    expect(e.message).toMatch(/__gc/);
  });

  it('a finalizer smuggled past the refusal with pcall still cannot outrun the budget', async () => {
    // Garbage churn runs the collector; a finalizer installed here would spin with hooks off.
    const src = `local M = {}
function M.churn()
  pcall(setmetatable, {}, { __gc = function() while true do end end })
  local mt = { __gc = false }
  pcall(setmetatable, {}, mt)
  mt.__gc = function() while true do end end
  setmetatable({}, {})
  while true do local t = { string.rep("x", 64) } end
end
return M`;
    expectLimit(await callOnce(src, 'churn'), 'ops_exceeded');
  });

  it('a finalizer set while the main chunk loads is refused the same way', async () => {
    const src = 'setmetatable({}, { __gc = function() while true do end end }) local M = {} function M.x() return 1 end return M';
    const err = await LuaSandbox.start({ source: src, chunk: 'main.lua', functions: all, limits }).catch((e: unknown) => e);
    expect((err as AdapterLuaError).code).toBe('lua_error');
    expect((err as AdapterLuaError).message).toMatch(/__gc/);
  });

  it('a spinning __close handler is stopped by the budget', async () => {
    const src = `local M = {}
function M.close()
  local x <close> = setmetatable({}, { __close = function() while true do pcall(function() while true do end end) end end })
  while true do end
end
return M`;
    expectLimit(await callOnce(src, 'close'), 'ops_exceeded');
  });

  it('a loop inside a coroutine is stopped by the budget', async () => {
    const src = 'local M = {} function M.spin() coroutine.wrap(function() while true do end end)() end return M';
    expectLimit(await callOnce(src, 'spin'), 'ops_exceeded');
  });

  it('a budget hit inside a coroutine also stops the caller when it swallows errors in a loop', async () => {
    // The coroutine spends the budget; the caller's pcall loop must still end at the next instruction.
    const src = `local M = {}
function M.spin()
  coroutine.resume(coroutine.create(function() while true do end end))
  while true do pcall(function() for i = 1, 100 do end end) end
end
return M`;
    expectLimit(await callOnce(src, 'spin'), 'ops_exceeded');
  });

  it('a caller whose budget ran out cannot keep running inside an older coroutine', async () => {
    const src = `local M = {}
local co = coroutine.wrap(function() while true do pcall(function() for i = 1, 100 do end end) end end)
function M.spin()
  pcall(function() while true do end end)
  co()
end
return M`;
    expectLimit(await callOnce(src, 'spin'), 'ops_exceeded');
  });

  it('work spread over many short coroutines counts against the budget, deterministically', async () => {
    // Each coroutine ends before its own hook count comes round: 1000 of them run ~600k
    // instructions, three times the budget.
    const src = `local M = {}
function M.many() for i = 1, 1000 do coroutine.wrap(function() for j = 1, 300 do end end)() end return "done" end
return M`;
    const ops = new Set<number>();
    for (let i = 0; i < 2; i++) ops.add(expectLimit(await callOnce(src, 'many'), 'ops_exceeded').ops);
    expect(ops.size).toBe(1);
  });

  it('nested short coroutines cannot multiply uncounted work', async () => {
    const src = `local M = {}
local function nest(d) if d == 0 then for j = 1, 300 do end return end for i = 1, 4 do coroutine.wrap(nest)(d - 1) end end
function M.deep() nest(12) return "done" end
return M`;
    expectLimit(await callOnce(src, 'deep'), 'ops_exceeded');
  });
});
