// One call of a metered module, inside the worker: a fresh instance (no state carries from one
// call to the next), the fuel set, the export run, and the outcome read back from the meter's
// globals, so that running out of fuel or memory is told apart from the guest's own traps.
// A WASI command (imports wasi_snapshot_preview1, exports _start, no Extism imports) runs as a
// program: its JSON input on stdin, its result on stdout (wasi-session.ts). An Extism module built
// for wasm32-wasip1 gets the same WASI functions beside the kernel. An AgentZero module (ABI v2,
// what its SDK's declare_tool! exports) is called as AgentZero calls it (runAgentZero).
import { ExtismKernel, GuestAbort, KernelLimit, type HostCallReply, type HostCallRequest } from './extism-kernel.js';
import { FUEL_GLOBAL, OOM_GLOBAL } from './meter.js';
import { WASI_MODULE, WasiSession, type WasiSetup } from './wasi-session.js';
import { AZ_EXECUTE, AZ_MODULE } from '../../registry/manifest/wasm-abi.js';

export type WasmFailure = 'fuel' | 'memory' | 'trap' | 'bad_output' | 'timeout' | 'crash';

export interface EngineCall {
  export: string;
  input: Uint8Array;
  fuel: number;
  memoryMb: number;
  maxOutputKb: number;
  config: Record<string, string>;
  /** For a module that imports WASI: whether it is a command, its argv and preopened folders. */
  wasi?: WasiSetup;
  /** An AgentZero module (moduleAbi().agentzero): the folder it is told is its workspace. */
  agentzero?: { workspaceRoot: string };
}

export interface EngineResult {
  ok: boolean;
  output: Uint8Array;
  error: string | null;
  failure: WasmFailure | null;
  /** Units of fuel the call burnt (the limit when it ran out). */
  fuelUsed: number;
  logs: { level: string; line: string }[];
  /** Bytes of linear memory when the call ended. */
  memoryBytes: number;
}

const MAX_LOG_LINES = 200;

export function runEngineCall(module: WebAssembly.Module, call: EngineCall, hostCall: (req: HostCallRequest) => HostCallReply): EngineResult {
  const logs: { level: string; line: string }[] = [];
  const kernel = new ExtismKernel({
    input: call.input,
    capBytes: call.memoryMb * 2 ** 20,
    maxOutputBytes: call.maxOutputKb * 1024,
    config: call.config,
    hostCall,
    log: (level, line) => {
      if (logs.length < MAX_LOG_LINES) logs.push({ level, line: line.slice(0, 2000) });
    },
  });
  // The host decides from the module as the author built it (metering may drop unused imports).
  const session = call.wasi ? new WasiSession(call.wasi, call.input, call.maxOutputKb * 1024) : null;
  const command = call.wasi?.command === true;
  try {
    const r = runInstance(module, call, kernel, logs, session, command);
    // An Extism module's WASI stdout and stderr are its logs (the result is what output_set set).
    if (session && !command) collect(session, logs);
    return r;
  } finally {
    session?.dispose();
  }
}

function runInstance(module: WebAssembly.Module, call: EngineCall, kernel: ExtismKernel, logs: { level: string; line: string }[], session: WasiSession | null, command: boolean): EngineResult {
  let instance: WebAssembly.Instance;
  let fuel: WebAssembly.Global | undefined;
  let oom: WebAssembly.Global | undefined;
  let memory: WebAssembly.Memory | undefined;
  // The fuel global starts at the call's limit (meter.ts): a start function burns from it too.
  const used = () => {
    if (!fuel) return 0;
    const left = fuel.value as bigint;
    return left < 0n ? call.fuel : call.fuel - Number(left);
  };
  const end = (r: Omit<EngineResult, 'fuelUsed' | 'logs' | 'memoryBytes'>): EngineResult => ({ ...r, fuelUsed: used(), logs, memoryBytes: memory?.buffer.byteLength ?? 0 });
  const failed = (err: unknown): EngineResult => {
    if (fuel && (fuel.value as bigint) < 0n) return end({ ok: false, output: new Uint8Array(0), error: `out of fuel: the call used all ${call.fuel} units of limits.fuel`, failure: 'fuel' });
    if (oom && oom.value === 1) return end({ ok: false, output: new Uint8Array(0), error: `out of memory: the module tried to grow its memory past limits.memory_mb (${call.memoryMb} MiB)`, failure: 'memory' });
    if (err instanceof KernelLimit) return end({ ok: false, output: new Uint8Array(0), error: err.message, failure: err.failure === 'memory' ? 'memory' : 'bad_output' });
    if (err instanceof RangeError && /memory/i.test(err.message)) return end({ ok: false, output: new Uint8Array(0), error: `out of memory: ${err.message}`, failure: 'memory' });
    const what = err instanceof GuestAbort ? err.message : err instanceof WebAssembly.RuntimeError ? `the module trapped: ${err.message}` : `the call failed: ${(err as Error).message}`;
    return end({ ok: false, output: new Uint8Array(0), error: what, failure: 'trap' });
  };
  // AgentZero's az_log(level, ptr, len): a line of the call's logs, at AgentZero's level names.
  const az = {
    az_log: (level: number, ptr: number, len: number) => {
      const bytes = memory && ptr >= 0 && len >= 0 && ptr + len <= memory.buffer.byteLength ? new Uint8Array(memory.buffer, ptr, Math.min(len, 2000)) : null;
      if (bytes && logs.length < MAX_LOG_LINES) logs.push({ level: AZ_LEVELS[level] ?? 'trace', line: Buffer.from(bytes).toString('utf8') });
    },
  };
  // A trap in the module's start function ends the call here; its globals are not reachable then.
  try {
    instance = new WebAssembly.Instance(module, { ...kernel.imports(), [AZ_MODULE]: az, ...(session ? { [WASI_MODULE]: session.imports() } : {}) });
  } catch (err) {
    return failed(err);
  }
  const ex = instance.exports as Record<string, unknown>;
  fuel = ex[FUEL_GLOBAL] as WebAssembly.Global | undefined;
  oom = ex[OOM_GLOBAL] as WebAssembly.Global | undefined;
  memory = ex['memory'] as WebAssembly.Memory | undefined;
  kernel.guestMemory = memory ?? null;
  if (session) session.memory = memory ?? null;
  if (!fuel || !oom) throw new Error('the module was not metered (no fuel global); Gatehouse runs only modules it metered itself');
  if (session && command) return runCommand(instance, session, logs, end, failed);
  if (call.agentzero) return runAgentZero(instance, call, session, end, failed);
  const fn = ex[call.export];
  if (typeof fn !== 'function') return end({ ok: false, output: new Uint8Array(0), error: `the module exports no function ${call.export}`, failure: 'bad_output' });
  let rc: unknown;
  try {
    rc = (fn as () => unknown)();
  } catch (err) {
    return failed(err);
  }
  if (typeof rc === 'number' && rc !== 0) {
    return end({ ok: false, output: kernel.output, error: kernel.error ?? `the plugin returned ${rc} without an error message`, failure: 'trap' });
  }
  if (kernel.error !== null) return end({ ok: false, output: kernel.output, error: kernel.error, failure: 'trap' });
  return end({ ok: true, output: kernel.output, error: null, failure: null });
}

const AZ_LEVELS: Record<number, string> = { 0: 'error', 1: 'warn', 2: 'info', 3: 'debug' };

/**
 * An AgentZero module, called as AgentZero's runtime calls it (ABI v2): the module initialised (a
 * wasm32-wasip1 library runs its constructors in _initialize), az_alloc(len) asked for room, the
 * input {"input": <the arguments as JSON text>, "workspace_root"} written there, and
 * az_tool_execute(ptr, len) called; its i64 packs the answer's pointer (low 32 bits) and length
 * (high 32 bits), and the answer is {"output": text, "error"?: text}. An error with no output is
 * the tool's error; an error beside output is a warning, kept in the logs.
 */
function runAgentZero(instance: WebAssembly.Instance, call: EngineCall, session: WasiSession | null, end: (r: Omit<EngineResult, 'fuelUsed' | 'logs' | 'memoryBytes'>) => EngineResult, failed: (err: unknown) => EngineResult): EngineResult {
  const ex = instance.exports as Record<string, unknown>;
  const memory = ex['memory'];
  const bad = (error: string) => end({ ok: false, output: new Uint8Array(0), error, failure: 'bad_output' });
  if (!(memory instanceof WebAssembly.Memory)) return bad('the AgentZero module exports no memory');
  const input = Buffer.from(JSON.stringify({ input: Buffer.from(call.input).toString('utf8'), workspace_root: call.agentzero!.workspaceRoot }), 'utf8');
  let packed: bigint;
  try {
    if (session) session.wasi.initialize(instance);
    else if (typeof ex['_initialize'] === 'function') (ex['_initialize'] as () => void)();
    const at = (ex['az_alloc'] as (n: number) => number)(input.length) >>> 0;
    if (at + input.length > memory.buffer.byteLength) return bad(`az_alloc returned ${at}, outside the module's memory (${memory.buffer.byteLength} bytes) for ${input.length} bytes of input`);
    new Uint8Array(memory.buffer, at, input.length).set(input);
    packed = BigInt.asUintN(64, BigInt((ex[AZ_EXECUTE] as (p: number, n: number) => bigint | number)(at, input.length)));
  } catch (err) {
    return failed(err);
  }
  const ptr = Number(packed & 0xffffffffn);
  const len = Number(packed >> 32n);
  if (len === 0) return end({ ok: false, output: new Uint8Array(0), error: 'the plugin returned empty output', failure: 'trap' });
  if (len > call.maxOutputKb * 1024) return bad(`the plugin's answer is ${len} bytes, more than limits.max_output_kb (${call.maxOutputKb} KiB)`);
  if (ptr + len > memory.buffer.byteLength) return bad(`the plugin's answer (at ${ptr}, ${len} bytes) lies outside its memory (${memory.buffer.byteLength} bytes)`);
  let answer: unknown;
  try {
    answer = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(memory.buffer, ptr, len)));
  } catch (err) {
    return bad(`the plugin's answer is not UTF-8 JSON: ${(err as Error).message}`);
  }
  const o = answer !== null && typeof answer === 'object' ? (answer as Record<string, unknown>) : {};
  if (typeof o['output'] !== 'string') return bad('the plugin\'s answer has no "output" text');
  const error = typeof o['error'] === 'string' && o['error'] !== '' ? o['error'] : null;
  const output = new TextEncoder().encode(o['output']);
  if (error !== null && o['output'] === '') return end({ ok: false, output, error, failure: 'trap' });
  const r = end({ ok: true, output, error: null, failure: null });
  if (error !== null && r.logs.length < MAX_LOG_LINES) r.logs.push({ level: 'warn', line: error.slice(0, 2000) });
  return r;
}

/** A WASI command: _start runs once; exit code 0 and stdout are the result, stderr goes to the logs. */
function runCommand(instance: WebAssembly.Instance, session: WasiSession, logs: { level: string; line: string }[], end: (r: Omit<EngineResult, 'fuelUsed' | 'logs' | 'memoryBytes'>) => EngineResult, failed: (err: unknown) => EngineResult): EngineResult {
  let code: number;
  try {
    code = session.wasi.start(instance);
  } catch (err) {
    collect(session, logs);
    return failed(err);
  }
  const { stdout, stderr } = collect(session, logs);
  if (code !== 0) {
    const last = stderr.trim().split('\n').pop()?.slice(0, 500);
    return end({ ok: false, output: stdout, error: `the module exited with code ${code}${last ? `: ${last}` : ''}`, failure: 'trap' });
  }
  return end({ ok: true, output: stdout, error: null, failure: null });
}

function collect(session: WasiSession, logs: { level: string; line: string }[]): { stdout: Uint8Array; stderr: string } {
  const r = session.result();
  for (const line of r.stderr.split('\n')) if (line !== '' && logs.length < MAX_LOG_LINES) logs.push({ level: 'stderr', line: line.slice(0, 2000) });
  return r;
}
