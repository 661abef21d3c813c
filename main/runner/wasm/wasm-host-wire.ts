// The messages between the host (wasm-host-client.ts) and its sandboxed WebAssembly process
// (wasm-host-process.ts), and how they cross the IPC channel: as JSON, with their byte fields
// (module bytes, a call's input and output, a host function's data) in base64.
//
// Why not Node's 'advanced' serialization, which carries Uint8Array as it is: every message then
// goes through a fresh v8.Serializer and v8.Deserializer (about 20 µs per message on a 2-core
// machine, against 3 µs for JSON), and a warm call crosses twice (the run, its result): a bare
// round trip between two Node processes measured ~120 µs with it and ~70 µs with JSON, out of a
// warm call's budget of 1 ms (bench/wasm.ts). A call's bytes are small (its JSON input, its output
// under limits.max_output_kb); a module's bytes cross once per process. JSON also gives the host
// only plain data back from a process that runs untrusted code, decoded field by field.
import type { EngineCall, EngineResult } from './engine.js';
import type { HostCallReply, HostCallRequest } from './extism-kernel.js';
import type { WasmCallResult } from './wasm-pool.js';

export type HostProcessRequest =
  | { type: 'run'; id: number; module: { hash: string; bytes?: Uint8Array }; call: EngineCall; timeoutMs: number }
  | { type: 'host-reply'; hostId: number; reply: HostCallReply };

export type HostProcessMessage =
  | { type: 'ready'; pid: number }
  | { type: 'ran'; id: number; result: WasmCallResult }
  | { type: 'host'; id: number; hostId: number; req: HostCallRequest };

/** Bytes as they cross the channel. */
type B64 = string;
type Wire<T, K extends keyof T> = Omit<T, K> & { [P in K]: undefined extends T[P] ? B64 | undefined : B64 };

export type WireRequest =
  | { type: 'run'; id: number; module: { hash: string; bytes?: B64 }; call: Wire<EngineCall, 'input'>; timeoutMs: number }
  | { type: 'host-reply'; hostId: number; reply: Wire<HostCallReply, 'data'> };

export type WireMessage =
  | { type: 'ready'; pid: number }
  | { type: 'ran'; id: number; result: Wire<WasmCallResult, 'output'> }
  | { type: 'host'; id: number; hostId: number; req: Wire<HostCallRequest, 'data'> };

/** The serialization both ends start the channel with (spawn's `serialization`). */
export const WIRE_SERIALIZATION = 'json';

function b64(bytes: Uint8Array): B64 {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Bytes from the other side; anything but a string is no bytes (a confused or hostile sender). */
function bytesOf(s: unknown): Uint8Array {
  return typeof s === 'string' ? new Uint8Array(Buffer.from(s, 'base64')) : new Uint8Array(0);
}

export function encodeRequest(m: HostProcessRequest): WireRequest {
  if (m.type === 'host-reply') {
    const { data, ...reply } = m.reply;
    return { ...m, reply: data ? { ...reply, data: b64(data) } : reply };
  }
  const { bytes, ...module } = m.module;
  return { ...m, module: bytes ? { ...module, bytes: b64(bytes) } : module, call: { ...m.call, input: b64(m.call.input) } };
}

export function decodeRequest(w: WireRequest): HostProcessRequest {
  if (w.type === 'host-reply') {
    const { data, ...reply } = w.reply;
    return { ...w, reply: data !== undefined ? { ...reply, data: bytesOf(data) } : reply };
  }
  const { bytes, ...module } = w.module;
  return { ...w, module: bytes !== undefined ? { ...module, bytes: bytesOf(bytes) } : module, call: { ...w.call, input: bytesOf(w.call.input) } };
}

export function encodeMessage(m: HostProcessMessage): WireMessage {
  if (m.type === 'ready') return m;
  if (m.type === 'ran') return { ...m, result: { ...m.result, output: b64(m.result.output) } };
  const { data, ...req } = m.req;
  return { ...m, req: data ? { ...req, data: b64(data) } : req };
}

export function decodeMessage(w: WireMessage): HostProcessMessage {
  if (w.type === 'ready') return w;
  if (w.type === 'ran') return { ...w, result: { ...w.result, output: bytesOf(w.result.output) } as EngineResult & { durationMs: number } };
  const { data, ...req } = w.req;
  return { ...w, req: data !== undefined ? { ...req, data: bytesOf(data) } : req };
}
