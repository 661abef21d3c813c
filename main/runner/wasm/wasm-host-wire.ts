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
//
// A JavaScript string holds at most 2^29 characters, and the limits allow larger bytes than that
// in base64 (a module of up to 1 GiB, a guest's write_file data up to its memory cap): bytes
// above PART_BYTES cross as `part` messages sent just before the message that names them (the
// channel keeps their order), and are put together again on the other side.
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

/** Bytes as they cross the channel: base64 inline, or the number of the parts sent before. */
type WireBytes = string | { ref: number };
type Wire<T, K extends keyof T> = Omit<T, K> & { [P in K]: undefined extends T[P] ? WireBytes | undefined : WireBytes };

/** A piece of a large byte field, sent before the message that refers to it. */
type WirePart = { type: 'part'; ref: number; data: string };

export type WireRequest =
  | WirePart
  | { type: 'run'; id: number; module: { hash: string; bytes?: WireBytes }; call: Wire<EngineCall, 'input'>; timeoutMs: number }
  | { type: 'host-reply'; hostId: number; reply: Wire<HostCallReply, 'data'> };

export type WireMessage =
  | WirePart
  | { type: 'ready'; pid: number }
  | { type: 'ran'; id: number; result: Wire<WasmCallResult, 'output'> }
  | { type: 'host'; id: number; hostId: number; req: Wire<HostCallRequest, 'data'> };

/** The serialization both ends start the channel with (spawn's `serialization`). */
export const WIRE_SERIALIZATION = 'json';

/** Bytes up to this size go inline (48 MiB: 64 Mi characters of base64); larger ones in parts of this size. */
export const PART_BYTES = 48 * 2 ** 20;
/** Parts one side may hold for messages not yet arrived; past it the oldest are dropped. */
const MAX_PENDING_BYTES = 4 * 2 ** 30;

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** One side's sending half: `send` posts one message on the channel. */
export class WireWriter {
  private nextRef = 1;
  /** `partBytes`: where bytes start to go in parts (PART_BYTES; smaller in tests). */
  constructor(
    private readonly post: (m: WireRequest | WireMessage) => void,
    private readonly partBytes = PART_BYTES,
  ) {}

  request(m: HostProcessRequest): void {
    if (m.type === 'host-reply') {
      const { data, ...reply } = m.reply;
      return this.post({ ...m, reply: data ? { ...reply, data: this.bytes(data) } : reply });
    }
    const { bytes, ...module } = m.module;
    const wireModule = bytes ? { ...module, bytes: this.bytes(bytes) } : module;
    this.post({ ...m, module: wireModule, call: { ...m.call, input: this.bytes(m.call.input) } });
  }

  message(m: HostProcessMessage): void {
    if (m.type === 'ready') return this.post(m);
    if (m.type === 'ran') return this.post({ ...m, result: { ...m.result, output: this.bytes(m.result.output) } });
    const { data, ...req } = m.req;
    this.post({ ...m, req: data ? { ...req, data: this.bytes(data) } : req });
  }

  /** Inline, or posted now in parts (before the message that carries the returned reference). */
  private bytes(b: Uint8Array): WireBytes {
    if (b.byteLength <= this.partBytes) return b64(b);
    const ref = this.nextRef++;
    for (let at = 0; at < b.byteLength; at += this.partBytes) this.post({ type: 'part', ref, data: b64(b.subarray(at, at + this.partBytes)) });
    return { ref };
  }
}

/**
 * One side's receiving half. `request` and `message` answer null for a part (kept until the
 * message naming it arrives). Anything that is not bytes as sent (a confused or hostile sender)
 * reads as no bytes.
 */
export class WireReader {
  private readonly parts = new Map<number, Buffer[]>();
  private pending = 0;

  request(w: WireRequest): HostProcessRequest | null {
    if (w.type === 'part') return this.part(w);
    if (w.type === 'host-reply') {
      const { data, ...reply } = w.reply;
      return { ...w, reply: data !== undefined ? { ...reply, data: this.bytes(data) } : reply };
    }
    const { bytes, ...module } = w.module;
    return { ...w, module: bytes !== undefined ? { ...module, bytes: this.bytes(bytes) } : module, call: { ...w.call, input: this.bytes(w.call.input) } };
  }

  message(w: WireMessage): HostProcessMessage | null {
    if (w.type === 'part') return this.part(w);
    if (w.type === 'ready') return w;
    if (w.type === 'ran') return { ...w, result: { ...w.result, output: this.bytes(w.result.output) } as EngineResult & { durationMs: number } };
    const { data, ...req } = w.req;
    return { ...w, req: data !== undefined ? { ...req, data: this.bytes(data) } : req };
  }

  private part(w: WirePart): null {
    if (typeof w.ref !== 'number' || typeof w.data !== 'string') return null;
    const b = Buffer.from(w.data, 'base64');
    let list = this.parts.get(w.ref);
    if (!list) this.parts.set(w.ref, (list = []));
    list.push(b);
    this.pending += b.byteLength;
    while (this.pending > MAX_PENDING_BYTES && this.parts.size > 0) {
      const [oldest, dropped] = this.parts.entries().next().value!;
      this.parts.delete(oldest);
      this.pending -= dropped.reduce((n, x) => n + x.byteLength, 0);
    }
    return null;
  }

  private bytes(v: unknown): Uint8Array {
    if (typeof v === 'string') return new Uint8Array(Buffer.from(v, 'base64'));
    if (v === null || typeof v !== 'object' || typeof (v as { ref?: unknown }).ref !== 'number') return new Uint8Array(0);
    const ref = (v as { ref: number }).ref;
    const list = this.parts.get(ref) ?? [];
    this.parts.delete(ref);
    const all = Buffer.concat(list);
    this.pending -= all.byteLength;
    return new Uint8Array(all.buffer, all.byteOffset, all.byteLength);
  }
}
