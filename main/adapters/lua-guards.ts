// Lua that runs once in every adapter state, before the adapter's own code, to keep all of the
// adapter's work inside the instruction budget. Two things in Lua 5.4 run code the count hook
// does not count:
//  - finalizers: Lua switches debug hooks off while a __gc metamethod runs (lgc.c, GCTM), so a
//    finalizer that loops is stopped only by the wall-clock backstop. setmetatable refuses a
//    metatable with a __gc field. Lua marks an object for finalization only when setmetatable
//    is given a metatable that already has __gc (a field added later is ignored), and there is
//    no other way to set a metatable from Lua here (debug is removed), so this check is enough.
//    Removing it lets one adapter hold its worker until the backstop fires, every call.
//  - coroutines: each has its own hook count, started afresh from the creator's, so whatever a
//    coroutine runs after its last hook (up to one step) is never counted; short coroutines,
//    nested, multiply that without bound. Creating one is charged one full step up front, which
//    covers the most it can leave uncounted. Removing the charge makes the budget unbounded.
// The originals are kept only as upvalues of the replacements; without the debug library the
// adapter cannot reach them.

/** Called with one argument, the C function that charges one step of the budget. */
export const LUA_GUARDS = `
local charge = ...
local raw_setmetatable, rawget, type, error = setmetatable, rawget, type, error
local create, wrap = coroutine.create, coroutine.wrap
setmetatable = function(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("setmetatable: an adapter cannot set a __gc finalizer (finalizers run outside the instruction budget); release what the table holds explicitly instead", 2)
  end
  return raw_setmetatable(t, mt)
end
coroutine.create = function(f) charge() return create(f) end
coroutine.wrap = function(f) charge() return wrap(f) end
`;
