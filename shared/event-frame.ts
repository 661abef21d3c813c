// How a host event travels on the console's WebSocket. Most events are one text frame,
// `{"event": name, "payload": …}` as JSON. An event whose payload carries bytes (terminal output,
// up to half a megabyte a batch) is one binary frame instead, so that neither side turns the
// output into JSON and back: the host copies the bytes once, the console hands them to xterm.js
// as they came, and xterm.js decodes UTF-8 itself (measured here: 50-56 MB/s from bytes against
// 25-42 MB/s from strings, the same text).
//
// A binary frame: the length of a header as a 32-bit little-endian number, the header (UTF-8
// JSON `{"event": name, "payload": …, "bytes": key}`, the payload without its bytes), then the
// bytes, which the reader puts back into the payload under `key`.
//
// Written by the serve shell, read by the console's serve transport and by test clients; the
// Electron shell needs none of it (its IPC carries a Uint8Array as it is).

/** What a decoded frame holds: one event. */
export interface DecodedEvent {
  event: string;
  payload: Record<string, unknown>;
}

const HEADER_LENGTH_BYTES = 4;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The payload's one top-level field that holds bytes, if it has one (a frame carries one). */
function bytesKey(event: string, payload: unknown): string | null {
  if (!payload || typeof payload !== 'object') return null;
  let key: string | null = null;
  for (const [k, v] of Object.entries(payload)) {
    if (!(v instanceof Uint8Array)) continue;
    if (key !== null) throw new Error(`event ${event} has two fields of bytes (${key}, ${k}); a frame carries one`);
    key = k;
  }
  return key;
}

/**
 * The frame for one event: a string (a text frame) or bytes (a binary frame). `alloc` makes the
 * binary frame's buffer (the host passes Node's Buffer.allocUnsafe: it is written over whole, and
 * a small one is a view into Node's shared pool, hence the offsets below). Throws for a payload
 * with two fields of bytes: the host's contract has none.
 */
export function encodeEvent(event: string, payload: unknown, alloc: (n: number) => Uint8Array = (n) => new Uint8Array(n)): string | Uint8Array {
  const key = bytesKey(event, payload);
  if (key === null) return JSON.stringify({ event, payload });
  const { [key]: bytes, ...rest } = payload as Record<string, Uint8Array>;
  const header = encoder.encode(JSON.stringify({ event, payload: rest, bytes: key }));
  const frame = alloc(HEADER_LENGTH_BYTES + header.length + bytes!.length);
  new DataView(frame.buffer, frame.byteOffset, HEADER_LENGTH_BYTES).setUint32(0, header.length, true);
  frame.set(header, HEADER_LENGTH_BYTES);
  frame.set(bytes!, HEADER_LENGTH_BYTES + header.length);
  return frame;
}

/**
 * The event in a binary frame, or an error saying what is wrong with it. The bytes are a view
 * into the frame, not a copy.
 */
export function decodeBinaryEvent(frame: Uint8Array): DecodedEvent | { error: string } {
  if (frame.length < HEADER_LENGTH_BYTES) return { error: `a binary frame of ${frame.length} bytes is shorter than its header's length` };
  const length = new DataView(frame.buffer, frame.byteOffset, HEADER_LENGTH_BYTES).getUint32(0, true);
  const end = HEADER_LENGTH_BYTES + length;
  if (end > frame.length) return { error: `a binary frame says its header is ${length} bytes, but the frame has ${frame.length - HEADER_LENGTH_BYTES} after the length` };
  let header: unknown;
  try {
    header = JSON.parse(decoder.decode(frame.subarray(HEADER_LENGTH_BYTES, end)));
  } catch (err) {
    return { error: `a binary frame's header is not UTF-8 JSON: ${(err as Error).message}` };
  }
  const h = header as { event?: unknown; payload?: unknown; bytes?: unknown };
  if (!h || typeof h !== 'object' || typeof h.event !== 'string' || typeof h.bytes !== 'string' || !h.payload || typeof h.payload !== 'object' || Array.isArray(h.payload)) {
    return { error: 'a binary frame\'s header must be {"event": string, "payload": object, "bytes": string}' };
  }
  if (Object.hasOwn(h.payload, h.bytes)) return { error: `a binary frame's header already has the field its bytes go in (${h.bytes})` };
  return { event: h.event, payload: { ...(h.payload as Record<string, unknown>), [h.bytes]: frame.subarray(end) } };
}
