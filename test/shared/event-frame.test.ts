// The console WebSocket's frames (shared/event-frame.ts): JSON text for most events, one binary
// frame for an event carrying bytes, and a clear refusal of a binary frame that is not one.
import { describe, expect, it } from 'vitest';
import { decodeBinaryEvent, encodeEvent } from '../../shared/event-frame.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** A frame built by hand: the header's length, the header, the rest. */
function frame(header: string, rest = new Uint8Array(0), length?: number): Uint8Array {
  const h = utf8(header);
  const f = new Uint8Array(4 + h.length + rest.length);
  new DataView(f.buffer).setUint32(0, length ?? h.length, true);
  f.set(h, 4);
  f.set(rest, 4 + h.length);
  return f;
}

describe('event frames', () => {
  it('an event without bytes is the JSON text it always was', () => {
    const payload = { pending: 2, added: [{ id: 'a', agent: 'x', tool: 'Bash' }] };
    expect(encodeEvent('approvals.changed', payload)).toBe(JSON.stringify({ event: 'approvals.changed', payload }));
  });

  it('an event carrying bytes is one binary frame that reads back as the same payload', () => {
    const data = utf8('héllo ✓ 🙂\r\n');
    const f = encodeEvent('terminals.output', { id: 't1', seq: 3, chars: 12, data });
    expect(f).toBeInstanceOf(Uint8Array);
    const e = decodeBinaryEvent(f as Uint8Array);
    if ('error' in e) throw new Error(e.error);
    expect(e.event).toBe('terminals.output');
    expect(e.payload).toMatchObject({ id: 't1', seq: 3, chars: 12 });
    expect([...(e.payload.data as Uint8Array)]).toEqual([...data]);
    // The bytes are a view into the frame, not a copy.
    expect((e.payload.data as Uint8Array).buffer).toBe((f as Uint8Array).buffer);
  });

  it('writes only inside the view its allocator gives (a pool), and reads a frame at an offset', () => {
    // As Node's Buffer.allocUnsafe gives small buffers: views into one shared pool, at an offset.
    const pool = new Uint8Array(4096).fill(0xff);
    let n = 0;
    const f = encodeEvent('terminals.output', { id: 't1', seq: 1, chars: 2, data: utf8('ok') }, (size) => pool.subarray(100, 100 + (n = size))) as Uint8Array;
    expect(f.buffer).toBe(pool.buffer);
    expect(f.byteOffset).toBe(100);
    // Nothing outside the view was touched.
    expect(pool.subarray(0, 100).every((b) => b === 0xff)).toBe(true);
    expect(pool.subarray(100 + n).every((b) => b === 0xff)).toBe(true);
    // The frame starts with its header's length, little-endian, at the view's own start.
    const header = utf8(JSON.stringify({ event: 'terminals.output', payload: { id: 't1', seq: 1, chars: 2 }, bytes: 'data' }));
    expect([...pool.subarray(100, 104)]).toEqual([header.length & 0xff, (header.length >> 8) & 0xff, 0, 0]);
    const e = decodeBinaryEvent(f);
    if ('error' in e) throw new Error(e.error);
    expect(e.payload).toMatchObject({ id: 't1', seq: 1, chars: 2 });
    expect(new TextDecoder().decode(e.payload.data as Uint8Array)).toBe('ok');
  });

  it('reads a frame that sits after other bytes in its buffer', () => {
    const f = encodeEvent('terminals.output', { id: 't2', seq: 9, chars: 3, data: utf8('a✓') }) as Uint8Array;
    // Junk before it that, read as the length, would say "far longer than the frame".
    const buf = new Uint8Array(7 + f.length).fill(0xee);
    buf.set(f, 7);
    const e = decodeBinaryEvent(buf.subarray(7));
    if ('error' in e) throw new Error(e.error);
    expect(e.payload).toMatchObject({ id: 't2', seq: 9, chars: 3 });
    expect(new TextDecoder().decode(e.payload.data as Uint8Array)).toBe('a✓');
  });

  it('refuses to encode two fields of bytes in one event', () => {
    expect(() => encodeEvent('x', { a: utf8('1'), b: utf8('2') })).toThrow(/two fields of bytes \(a, b\)/);
  });

  it('refuses a binary frame that is not one, and says why', () => {
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array([1, 0]), /shorter than its header's length/],
      [frame('{"event":"x","payload":{},"bytes":"data"}', new Uint8Array(0), 9999), /says its header is 9999 bytes/],
      [frame('{"event":'), /not UTF-8 JSON/],
      [frame('', new Uint8Array([0xff, 0xfe]), 2), /not UTF-8 JSON/],
      [frame('{"event":"x","payload":[],"bytes":"data"}'), /must be \{"event": string, "payload": object, "bytes": string\}/],
      [frame('{"event":"x","payload":{}}'), /must be/],
      [frame('null'), /must be/],
      [frame('{"event":"x","payload":{"data":1},"bytes":"data"}'), /already has the field its bytes go in \(data\)/],
    ];
    for (const [f, why] of cases) {
      const e = decodeBinaryEvent(f);
      expect('error' in e ? e.error : 'decoded', String(why)).toMatch(why);
    }
  });
});
