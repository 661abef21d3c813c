// The part of the Extism kernel ABI a plugin needs, implemented in JavaScript inside the worker
// that runs the call: the call's input, a host-side block store the guest allocates in (alloc,
// length, load/store, free), its output or error, config and vars, logs, and the host functions
// the manifest granted (read_file, write_file, http_request), which are answered by the host
// (policy, audit) through `hostCall`.
//
// Offsets are i64 addresses in one arena; 0 means "nothing". The arena is capped by the same
// memory cap as the guest's linear memory: an unbounded host allocator would let a guest take
// the host's memory through alloc (Extism's own JS SDK has no such cap).
import { EXTISM_ENV, EXTISM_USER } from '../../registry/manifest/wasm-abi.js';

export class KernelLimit extends Error {
  constructor(
    readonly failure: 'memory' | 'output',
    message: string,
  ) {
    super(message);
  }
}

export interface HostCallRequest {
  fn: 'read_file' | 'write_file' | 'http_request';
  /** read/write: the path; http: the request JSON ({ url, method, headers }). */
  arg: string;
  /** write: the bytes; http: the body. */
  data?: Uint8Array;
}
export interface HostCallReply {
  ok: boolean;
  data?: Uint8Array;
  status?: number;
  error?: string;
}

export interface KernelOptions {
  input: Uint8Array;
  capBytes: number;
  maxOutputBytes: number;
  config: Record<string, string>;
  hostCall: (req: HostCallRequest) => HostCallReply;
  log: (level: string, line: string) => void;
}

/**
 * The arena's first size. Small: every call makes a kernel, and a zeroed 64 KiB buffer per call
 * (the size it had) cost a trivial call tens of microseconds in allocation and the collections it
 * brought on; alloc() doubles it as the guest needs more, up to the cap.
 */
const FIRST_ARENA_BYTES = 1024;

export class ExtismKernel {
  private arena = new Uint8Array(FIRST_ARENA_BYTES);
  private top = 8;
  private readonly blocks = new Map<number, number>();
  private readonly vars = new Map<string, Uint8Array>();
  output: Uint8Array = new Uint8Array(0);
  error: string | null = null;
  private httpStatus = 0;
  private readonly inputOffset: number;

  constructor(private readonly opts: KernelOptions) {
    this.inputOffset = this.put(opts.input);
  }

  alloc(n: number): number {
    if (n === 0) return 0;
    const at = this.top;
    const end = at + n;
    if (end > this.opts.capBytes) throw new KernelLimit('memory', `the plugin allocated ${end} bytes of host memory, past limits.memory_mb (${this.opts.capBytes} bytes)`);
    if (end > this.arena.length) {
      const next = new Uint8Array(Math.min(this.opts.capBytes, Math.max(end, this.arena.length * 2)));
      next.set(this.arena.subarray(0, this.top));
      this.arena = next;
    }
    this.top = end;
    this.blocks.set(at, n);
    return at;
  }

  private put(bytes: Uint8Array): number {
    const at = this.alloc(bytes.length);
    if (at) this.arena.set(bytes, at);
    return at;
  }

  private block(offset: number): Uint8Array {
    const len = this.blocks.get(offset);
    if (len === undefined) return new Uint8Array(0);
    return this.arena.subarray(offset, offset + len);
  }

  private text(offset: number): string {
    return Buffer.from(this.block(offset)).toString('utf8');
  }

  private addr(offset: bigint): number {
    const n = Number(offset);
    if (n < 0 || n >= this.top) throw new RangeError(`the plugin read or wrote host memory at ${n}, outside what it allocated`);
    return n;
  }

  /** The import object for instantiation: only the functions the manifest's check let through exist at all. */
  imports(): WebAssembly.Imports {
    const env: Record<string, (...a: never[]) => unknown> = {
      input_length: () => BigInt(this.opts.input.length),
      input_load_u8: (i: bigint) => this.opts.input[Number(i)] ?? 0,
      input_load_u64: (i: bigint) => Buffer.from(this.opts.input.buffer, this.opts.input.byteOffset, this.opts.input.length).readBigUInt64LE(Number(i)),
      length: (o: bigint) => BigInt(this.blocks.get(Number(o)) ?? 0),
      length_unsafe: (o: bigint) => BigInt(this.blocks.get(Number(o)) ?? 0),
      alloc: (n: bigint) => BigInt(this.alloc(Number(n))),
      free: () => undefined,
      output_set: (o: bigint, n: bigint) => {
        if (Number(n) > this.opts.maxOutputBytes) throw new KernelLimit('output', `the plugin's output is ${Number(n)} bytes, more than limits.max_output_kb (${this.opts.maxOutputBytes / 1024} KiB)`);
        const at = this.addr(o);
        this.output = this.arena.slice(at, at + Number(n));
      },
      error_set: (o: bigint) => {
        this.error = this.text(Number(o)).slice(0, 4096);
      },
      load_u8: (o: bigint) => this.arena[this.addr(o)]!,
      load_u64: (o: bigint) => Buffer.from(this.arena.buffer, this.arena.byteOffset, this.arena.length).readBigUInt64LE(this.addr(o)),
      store_u8: (o: bigint, v: number) => {
        this.arena[this.addr(o)] = v & 0xff;
      },
      store_u64: (o: bigint, v: bigint) => {
        Buffer.from(this.arena.buffer, this.arena.byteOffset, this.arena.length).writeBigUInt64LE(BigInt.asUintN(64, v), this.addr(o));
      },
      config_get: (o: bigint) => {
        const key = this.text(Number(o));
        return Object.hasOwn(this.opts.config, key) ? BigInt(this.put(Buffer.from(this.opts.config[key]!))) : 0n;
      },
      var_get: (o: bigint) => {
        const v = this.vars.get(this.text(Number(o)));
        return v ? BigInt(this.put(v)) : 0n;
      },
      var_set: (o: bigint, v: bigint) => {
        if (v === 0n) this.vars.delete(this.text(Number(o)));
        else this.vars.set(this.text(Number(o)), this.block(Number(v)).slice());
      },
      reset: () => undefined,
      get_log_level: () => 0,
      http_request: (req: bigint, body: bigint) => {
        const r = this.opts.hostCall({ fn: 'http_request', arg: this.text(Number(req)), ...(body ? { data: this.block(Number(body)).slice() } : {}) });
        this.httpStatus = r.status ?? 0;
        if (!r.ok) this.opts.log('error', r.error ?? 'http_request was denied');
        return r.ok && r.data ? BigInt(this.put(r.data)) : 0n;
      },
      http_status_code: () => this.httpStatus,
      http_headers: () => 0n,
    };
    for (const level of ['trace', 'debug', 'info', 'warn', 'error']) {
      env[`log_${level}`] = (o: bigint) => this.opts.log(level, this.text(Number(o)));
    }
    const user: Record<string, (...a: never[]) => unknown> = {
      read_file: (p: bigint) => {
        const r = this.opts.hostCall({ fn: 'read_file', arg: this.text(Number(p)) });
        if (!r.ok) this.opts.log('error', r.error ?? 'read_file was denied');
        return r.ok && r.data ? BigInt(this.put(r.data)) : 0n;
      },
      write_file: (p: bigint, d: bigint) => {
        const r = this.opts.hostCall({ fn: 'write_file', arg: this.text(Number(p)), data: this.block(Number(d)).slice() });
        if (!r.ok) this.opts.log('error', r.error ?? 'write_file was denied');
        return r.ok ? 0n : 1n;
      },
    };
    const abort = (msg: number, file: number, line: number, col: number) => {
      throw new GuestAbort(`the module aborted: ${this.asString(msg) || 'no message'} (${this.asString(file) || '?'}:${line}:${col})`);
    };
    return { [EXTISM_ENV]: env, [EXTISM_USER]: user, env: { abort } } as WebAssembly.Imports;
  }

  /** The guest's memory, once instantiated: AssemblyScript's abort() passes strings in it. */
  guestMemory: WebAssembly.Memory | null = null;

  /** An AssemblyScript string (UTF-16LE, its byte length in the 4 bytes before it), bounded. */
  asString(ptr: number): string {
    const mem = this.guestMemory;
    if (!mem || ptr < 4 || ptr >= mem.buffer.byteLength) return '';
    const len = new DataView(mem.buffer).getUint32(ptr - 4, true);
    const end = Math.min(ptr + Math.min(len, 2000), mem.buffer.byteLength);
    return Buffer.from(mem.buffer, ptr, (end - ptr) & ~1).toString('utf16le');
  }

  get input(): number {
    return this.inputOffset;
  }
}

export class GuestAbort extends Error {}
