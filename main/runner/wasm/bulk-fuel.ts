// Fuel for the instructions that do work proportional to an operand. Fuel is otherwise charged
// per function entry, exit and loop iteration (meter.ts), which bounds ordinary instructions;
// memory.fill, memory.copy, memory.init and table.grow each do O(length) work in one instruction,
// so a loop of memory.fill over the whole memory would burn seconds of CPU for one unit a turn and
// only the wall-clock timeout would stop it. Each of them gets its length operand passed through a
// small function that takes length / 64 units (bytes) or length / 8 units (table entries) and
// traps below zero, before the instruction runs. The length is the last operand evaluated, so
// wrapping it keeps the evaluation order. Only these instructions pay; other code is unchanged.
//
// table.fill, table.copy and table.init cannot be rewritten through binaryen's JavaScript API
// (it has no accessors for their operands), so a module that uses them is refused. Compilers do
// not emit them for ordinary code (only from explicit table builtins).
//
// The walk covers every expression kind the pinned feature set (meter.ts) allows and refuses any
// other: an expression it could not look inside might hide a bulk instruction. Removing a kind
// from CHILDREN therefore refuses modules that use it; it never lets one through uncharged.
import type Binaryen from 'binaryen';
import { MeterError } from './meter-error.js';

type BinaryenApi = typeof Binaryen;
type Expr = number;
type Access = Record<string, (e: Expr, ...rest: number[]) => Expr>;

/** Bytes per unit of fuel for memory.fill, memory.copy and memory.init (as a shift). */
const MEMORY_SHIFT = 6;
/** Table entries per unit of fuel for table.grow (as a shift). */
const TABLE_SHIFT = 3;
const MEMORY_CHARGE = '__gatehouse_bulk_memory_fuel';
const TABLE_CHARGE = '__gatehouse_bulk_table_fuel';

/** Per expression kind (binaryen's wrapper class name): the getters of its child expressions. */
const CHILDREN: Record<string, string[]> = {
  Nop: [], LocalGet: [], GlobalGet: [], Const: [], MemorySize: [], Unreachable: [], RefNull: [], RefFunc: [], DataDrop: [], ElemDrop: [], TableSize: [],
  Block: ['*children'], Call: ['*operands'], TupleMake: ['*operands'], CallIndirect: ['getTarget', '*operands'],
  If: ['getCondition', 'getIfTrue', 'getIfFalse'], Loop: ['getBody'], Break: ['getCondition', 'getValue'], Switch: ['getCondition', 'getValue'],
  LocalSet: ['getValue'], GlobalSet: ['getValue'], Load: ['getPtr'], Store: ['getPtr', 'getValue'], Unary: ['getValue'], Binary: ['getLeft', 'getRight'],
  Select: ['getIfTrue', 'getIfFalse', 'getCondition'], Drop: ['getValue'], Return: ['getValue'], MemoryGrow: ['getDelta'],
  SIMDExtract: ['getVec'], SIMDReplace: ['getVec', 'getValue'], SIMDShuffle: ['getLeft', 'getRight'], SIMDTernary: ['getA', 'getB', 'getC'],
  SIMDShift: ['getVec', 'getShift'], SIMDLoad: ['getPtr'], SIMDLoadStoreLane: ['getPtr', 'getVec'],
  MemoryInit: ['getDest', 'getOffset', 'getSize'], MemoryCopy: ['getDest', 'getSource', 'getSize'], MemoryFill: ['getDest', 'getValue', 'getSize'],
  RefIsNull: ['getValue'], RefAs: ['getValue'], TableGet: ['getIndex'], TableSet: ['getIndex', 'getValue'], TableGrow: ['getValue', 'getDelta'], TupleExtract: ['getTuple'],
};
/** The kinds whose length operand is charged, and the charge function it goes through. */
const CHARGED: Record<string, { get: string; set: string; charge: string }> = {
  MemoryFill: { get: 'getSize', set: 'setSize', charge: MEMORY_CHARGE },
  MemoryCopy: { get: 'getSize', set: 'setSize', charge: MEMORY_CHARGE },
  MemoryInit: { get: 'getSize', set: 'setSize', charge: MEMORY_CHARGE },
  TableGrow: { get: 'getDelta', set: 'setDelta', charge: TABLE_CHARGE },
};
const REFUSED: Record<string, string> = { TableFill: 'table.fill', TableCopy: 'table.copy', TableInit: 'table.init' };

/** A child expression, and how to put another in its place (the setter is looked up when used). */
export interface ChildSlot {
  e: Expr;
  set: (replacement: Expr) => void;
}

/** The expression kinds the meter knows (CHILDREN, and the refused ones), by binaryen's expression id. */
export function expressionKinds(api: Record<string, unknown>): Map<number, string> {
  const kinds = new Map<number, string>();
  for (const name of [...Object.keys(CHILDREN), ...Object.keys(REFUSED)]) kinds.set(expressionId(api, name), name);
  return kinds;
}

/** The child expressions of `e`, an expression of `kind` (a key of CHILDREN). */
export function childSlots(api: Record<string, unknown>, kind: string, e: Expr): ChildSlot[] {
  const access = api[kind] as Access;
  const out: ChildSlot[] = [];
  for (const getter of CHILDREN[kind]!) {
    if (getter.startsWith('*')) {
      const [count, get, put] = getter === '*children' ? ['getNumChildren', 'getChildAt', 'setChildAt'] : ['getNumOperands', 'getOperandAt', 'setOperandAt'];
      const n = access[count!]!(e);
      for (let i = 0; i < n; i++) out.push({ e: access[get!]!(e, i), set: (c) => void access[put!]!(e, i, c) });
    } else {
      const child = access[getter]!(e);
      const name = `set${getter.slice(3)}`;
      if (child)
        out.push({
          e: child,
          set: (c) => {
            if (!access[name]) throw new MeterError(`binaryen has no ${kind}.${name} (the meter needs updating for this binaryen version)`);
            access[name](e, c);
          },
        });
    }
  }
  return out;
}

/** Rewrites every function body of `m` so bulk instructions take fuel from `fuelGlobal` by their length. */
export function chargeBulkOps(binaryen: BinaryenApi, m: Binaryen.Module, fuelGlobal: string): void {
  const api = binaryen as unknown as Record<string, Access | number>;
  const kinds = expressionKinds(api);
  const used = new Set<string>();
  const stack: Expr[] = [];
  const functions = m.getNumFunctions();
  for (let f = 0; f < functions; f++) {
    const info = binaryen.getFunctionInfo(m.getFunctionByIndex(f));
    if (info.body) stack.push(info.body);
    while (stack.length) {
      const e = stack.pop()!;
      const kind = kinds.get(binaryen.getExpressionId(e));
      if (kind === undefined) throw new MeterError(`function ${info.name} has an instruction Gatehouse cannot meter (binaryen expression id ${binaryen.getExpressionId(e)})`);
      if (kind in REFUSED) throw new MeterError(`function ${info.name} uses ${REFUSED[kind]}, whose cost Gatehouse cannot meter; build the module without it (memory.fill, memory.copy and table.grow are fine)`);
      for (const child of childSlots(api, kind, e)) stack.push(child.e);
      const charged = CHARGED[kind];
      if (charged) {
        const access = api[kind] as Access;
        // The original operand was pushed above, so a bulk instruction inside it is charged too.
        access[charged.set]!(e, m.call(charged.charge, [access[charged.get]!(e)], binaryen.i32));
        used.add(charged.charge);
      }
    }
  }
  if (used.has(MEMORY_CHARGE)) addCharge(binaryen, m, MEMORY_CHARGE, MEMORY_SHIFT, fuelGlobal);
  if (used.has(TABLE_CHARGE)) addCharge(binaryen, m, TABLE_CHARGE, TABLE_SHIFT, fuelGlobal);
}

/** binaryen.js names some ids (NopId) and not others (TableFillId): the C API has them all. */
function expressionId(api: Record<string, unknown>, kind: string): number {
  const id = (api[`_Binaryen${kind}Id`] as (() => number) | undefined)?.();
  if (typeof id !== 'number') throw new Error(`binaryen has no expression kind ${kind} (the meter needs updating for this binaryen version)`);
  return id;
}

/** (len: i32) -> len, after taking len >> shift units of fuel and trapping below zero. */
function addCharge(binaryen: BinaryenApi, m: Binaryen.Module, name: string, shift: number, fuelGlobal: string): void {
  if (m.getFunction(name)) throw new MeterError(`the module already defines a function named ${name}, which Gatehouse's meter reserves`);
  const i32 = binaryen.i32;
  m.addFunction(name, binaryen.createType([i32]), i32, [], m.block(null, [
    ...takeFuel(binaryen, m, fuelGlobal, m.i64.shr_u(m.i64.extend_u(m.local.get(0, i32)), m.i64.const(BigInt(shift) as never))),
    m.local.get(0, i32),
  ], i32));
}

/** Takes `amount` (an i64 expression) from the fuel global and traps below zero: every charge the meter writes. */
export function takeFuel(binaryen: BinaryenApi, m: Binaryen.Module, fuelGlobal: string, amount: Expr): Expr[] {
  return [
    m.global.set(fuelGlobal, m.i64.sub(m.global.get(fuelGlobal, binaryen.i64), amount)),
    m.if(m.i64.lt_s(m.global.get(fuelGlobal, binaryen.i64), m.i64.const(0n as never)), m.unreachable()),
  ];
}
