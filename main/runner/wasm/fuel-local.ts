// The fuel counter kept in a local of each function, so that a loop's charge does not go through
// memory. The meter (meter.ts) charges by taking from the exported fuel global, which V8 keeps in
// the instance's memory: a charge read the global, took one and stored it back, and the next
// charge read it again, so a tight loop carried a store-to-load dependency per charge (on this
// machine's CPU the bench's CPU-bound loop, two charges an iteration, ran 2.2× as long metered).
//
// Here, in every function, each read of the fuel global becomes a read of a local, and each write
// of it also sets the local (the global is still written: the host reads what is left from it
// when the call ends, and an empty tank is told by its value). The local is loaded from the
// global when the function starts and again after every call, the only place where other code
// (a callee's charges) can change the global. So the local equals the global wherever a charge
// reads it, and every charge takes exactly what it took before: the same counts, the same trap at
// the same point, only no load. A loop's charge is then a subtraction in a register, a store and
// a branch.
//
// Like the bulk charges, the walk (childSlots, bulk-fuel.ts) knows every expression kind the
// pinned feature set allows and refuses any other.
import type Binaryen from 'binaryen';
import { childSlots, expressionKinds, type ChildSlot } from './bulk-fuel.js';
import { MeterError } from './meter-error.js';

type BinaryenApi = typeof Binaryen;
type Expr = number;
type Access = Record<string, (e: Expr, ...rest: number[]) => Expr>;

/** Rewrites every function of `m` to read the fuel global through a local (see the top of the file). */
export function fuelInLocals(binaryen: BinaryenApi, m: Binaryen.Module, fuelGlobal: string): void {
  // binaryen.js has these (its C API's BinaryenFunctionAddVar, and Function's body accessors);
  // its typings leave them out.
  const api = binaryen as unknown as Record<string, Access | number> & {
    _BinaryenFunctionAddVar(func: number, type: number): number;
    Function: { getBody(func: number): Expr; setBody(func: number, body: Expr): void };
  };
  // The refused kinds are never met here: chargeBulkOps, which runs first, refused their module.
  const kinds = expressionKinds(api);
  const i64 = binaryen.i64;
  const GlobalGet = api.GlobalGet as Access;
  const GlobalSet = api.GlobalSet as Access;
  const LocalSet = api.LocalSet as Access;
  const functions = m.getNumFunctions();
  for (let f = 0; f < functions; f++) {
    const func = m.getFunctionByIndex(f);
    const info = binaryen.getFunctionInfo(func);
    if (!info.body) continue; // an import
    const fuel = api._BinaryenFunctionAddVar(func, i64);
    const reload = () => m.local.set(fuel, m.global.get(fuelGlobal, i64));
    const stack: ChildSlot[] = [{ e: info.body, set: (body) => api.Function.setBody(func, body) }];
    while (stack.length) {
      const { e, set } = stack.pop()!;
      const kind = kinds.get(binaryen.getExpressionId(e));
      if (kind === undefined) throw new MeterError(`function ${info.name} has an instruction Gatehouse cannot meter (binaryen expression id ${binaryen.getExpressionId(e)})`);
      if (kind === 'GlobalGet' && (GlobalGet.getName as unknown as (e: Expr) => string)(e) === fuelGlobal) {
        set(m.local.get(fuel, i64));
        continue;
      }
      if (kind === 'GlobalSet' && (GlobalSet.getName as unknown as (e: Expr) => string)(e) === fuelGlobal) {
        const tee = m.local.tee(fuel, GlobalSet.getValue!(e), i64);
        GlobalSet.setValue!(e, tee);
        stack.push({ e: LocalSet.getValue!(tee), set: (v) => LocalSet.setValue!(tee, v) });
        continue;
      }
      if (kind === 'Call' || kind === 'CallIndirect') {
        const type = binaryen.getExpressionType(e);
        if (type === binaryen.none) set(m.block(null, [e, reload()]));
        else if (type !== binaryen.unreachable) {
          // The call's result waits in a local of its own while the fuel is read back.
          const result = api._BinaryenFunctionAddVar(func, type);
          set(m.block(null, [m.local.set(result, e), reload(), m.local.get(result, type)], type));
        }
        // (An unreachable call never returns: nothing to read back.)
      }
      for (const child of childSlots(api, kind, e)) stack.push(child);
    }
    const body = api.Function.getBody(func);
    api.Function.setBody(func, m.block(null, [reload(), body], binaryen.getExpressionType(body)));
  }
}
