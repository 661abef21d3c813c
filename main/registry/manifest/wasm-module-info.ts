// What a WebAssembly module asks for, read from its bytes without compiling it: the imports,
// exports and memories. The registry runs this on untrusted files when a plugin is loaded and
// enabled, so it is a plain bounded walk over the section headers (linear in the size, no
// allocation beyond the names it returns), never V8's compiler or binaryen.
//
// It also rewrites the memory section's limits (rewriteMemoryMaximum): the cap on a module's
// linear memory is the maximum in its own memory type, which V8 enforces on memory.grow; worker
// resourceLimits do not cover wasm memory.

export type ExternKind = 'func' | 'table' | 'memory' | 'global' | 'tag';

export interface WasmImport {
  module: string;
  name: string;
  kind: ExternKind;
}

export interface WasmExport {
  name: string;
  kind: ExternKind;
}

export interface MemoryLimits {
  /** In 64 KiB pages. */
  initial: number;
  maximum: number | null;
  shared: boolean;
  memory64: boolean;
}

export interface ModuleInfo {
  imports: WasmImport[];
  exports: WasmExport[];
  /** Memories the module defines (imported ones are in `imports`). */
  memories: MemoryLimits[];
}

export class WasmFormatError extends Error {}

const KINDS: ExternKind[] = ['func', 'table', 'memory', 'global', 'tag'];
export const WASM_PAGE = 65536;

class Reader {
  pos = 0;
  constructor(readonly bytes: Uint8Array, readonly end = bytes.length) {}
  byte(): number {
    if (this.pos >= this.end) throw new WasmFormatError(`the module ends early (at byte ${this.pos})`);
    return this.bytes[this.pos++]!;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
    throw new WasmFormatError(`a number at byte ${this.pos} is longer than a 32-bit LEB128`);
  }
  u64(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
    throw new WasmFormatError(`a number at byte ${this.pos} is longer than a 64-bit LEB128`);
  }
  name(): string {
    const len = this.u32();
    if (this.pos + len > this.end) throw new WasmFormatError(`a name at byte ${this.pos} runs past its section`);
    const s = new TextDecoder('utf-8', { fatal: false }).decode(this.bytes.subarray(this.pos, this.pos + len));
    this.pos += len;
    return s;
  }
  limits(): MemoryLimits {
    const flags = this.byte();
    if (flags > 0x07) throw new WasmFormatError(`unknown limits flags 0x${flags.toString(16)} at byte ${this.pos - 1}`);
    const memory64 = (flags & 0x04) !== 0;
    const initial = memory64 ? this.u64() : this.u32();
    const maximum = flags & 0x01 ? (memory64 ? this.u64() : this.u32()) : null;
    return { initial, maximum, shared: (flags & 0x02) !== 0, memory64 };
  }
}

interface Section {
  id: number;
  /** Offset of the section id byte. */
  start: number;
  /** Offset of the payload, and one past its end. */
  payload: number;
  end: number;
}

function sections(bytes: Uint8Array): Section[] {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new WasmFormatError('it does not start with the WebAssembly magic bytes (\\0asm); is it a .wasm file?');
  }
  if (bytes[4] !== 1 || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) {
    throw new WasmFormatError('it is not a version 1 WebAssembly module (a component or a newer binary format); compile a core module');
  }
  const r = new Reader(bytes);
  r.pos = 8;
  const out: Section[] = [];
  while (r.pos < bytes.length) {
    const start = r.pos;
    const id = r.byte();
    const size = r.u32();
    const payload = r.pos;
    const end = payload + size;
    if (end > bytes.length) throw new WasmFormatError(`section ${id} at byte ${start} runs past the end of the file`);
    out.push({ id, start, payload, end });
    r.pos = end;
  }
  return out;
}

export function readModuleInfo(bytes: Uint8Array): ModuleInfo {
  const info: ModuleInfo = { imports: [], exports: [], memories: [] };
  for (const s of sections(bytes)) {
    const r = new Reader(bytes, s.end);
    r.pos = s.payload;
    if (s.id === 2) {
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        const module = r.name();
        const name = r.name();
        const k = r.byte();
        const kind = KINDS[k];
        if (!kind) throw new WasmFormatError(`import ${module}.${name} has an unknown kind ${k}`);
        if (kind === 'func') r.u32();
        else if (kind === 'table') {
          r.byte();
          r.limits();
        } else if (kind === 'memory') r.limits();
        else if (kind === 'global') {
          r.byte();
          r.byte();
        } else {
          r.byte();
          r.u32();
        }
        info.imports.push({ module, name, kind });
      }
    } else if (s.id === 5) {
      const n = r.u32();
      for (let i = 0; i < n; i++) info.memories.push(r.limits());
    } else if (s.id === 7) {
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        const name = r.name();
        const k = r.byte();
        r.u32();
        const kind = KINDS[k];
        if (!kind) throw new WasmFormatError(`export ${name} has an unknown kind ${k}`);
        info.exports.push({ name, kind });
      }
    }
  }
  return info;
}

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

/**
 * The module with its one memory's maximum set to `maxPages` (the initial size kept). Refuses a
 * module whose memory starts above the cap, a shared or 64-bit memory, or more than one memory.
 */
export function rewriteMemoryMaximum(bytes: Uint8Array, maxPages: number): Uint8Array {
  const secs = sections(bytes);
  const mem = secs.filter((s) => s.id === 5);
  if (mem.length === 0) return bytes;
  if (mem.length > 1) throw new WasmFormatError('it has more than one memory section');
  const s = mem[0]!;
  const r = new Reader(bytes, s.end);
  r.pos = s.payload;
  const n = r.u32();
  if (n === 0) return bytes;
  if (n > 1) throw new WasmFormatError(`it defines ${n} memories; Gatehouse runs modules with one`);
  const lim = r.limits();
  if (lim.shared || lim.memory64) throw new WasmFormatError('its memory is shared or 64-bit; Gatehouse runs modules with one plain 32-bit memory');
  if (lim.initial > maxPages) throw new WasmFormatError(`its memory starts at ${lim.initial} pages (${Math.ceil((lim.initial * WASM_PAGE) / 2 ** 20)} MiB), more than limits.memory_mb allows (${maxPages} pages)`);
  const max = lim.maximum === null ? maxPages : Math.min(lim.maximum, maxPages);
  const payload = [...leb(1), 0x01, ...leb(lim.initial), ...leb(max)];
  const header = [5, ...leb(payload.length)];
  const out = new Uint8Array(bytes.length - (s.end - s.start) + header.length + payload.length);
  out.set(bytes.subarray(0, s.start), 0);
  out.set(header, s.start);
  out.set(payload, s.start + header.length);
  out.set(bytes.subarray(s.end), s.start + header.length + payload.length);
  return out;
}
