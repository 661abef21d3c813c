// The channel to the sandboxed WebAssembly process (wasm-host-wire.ts): messages cross as JSON
// (as Node's IPC channel sends them), bytes in base64, and bytes too large for one string in
// parts sent before the message that names them. The real process is exercised by
// wasm-isolation.test.ts and wasm-host.test.ts; this checks what crosses, byte for byte.
import { describe, expect, it } from 'vitest';
import { WireReader, WireWriter, type HostProcessMessage, type HostProcessRequest, type WireMessage, type WireRequest } from '../../../main/runner/wasm/wasm-host-wire.js';

/** Writes `msgs` on one side and reads them on the other, through JSON as the channel does. */
function cross<T extends HostProcessRequest | HostProcessMessage>(msgs: T[], write: (w: WireWriter, m: T) => void, read: (r: WireReader, w: WireRequest & WireMessage) => T | null, partBytes?: number): { out: T[]; sent: { type: string }[] } {
  const sent: { type: string }[] = [];
  const writer = new WireWriter((m) => sent.push(JSON.parse(JSON.stringify(m)) as { type: string }), partBytes);
  for (const m of msgs) write(writer, m);
  const reader = new WireReader();
  const out = sent.map((w) => read(reader, w as WireRequest & WireMessage)).filter((m): m is T => m !== null);
  return { out, sent };
}

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7) % 256);
const call = (input: Uint8Array) => ({ export: 'greet', input, fuel: 1000, memoryMb: 1, maxOutputKb: 1, config: { a: 'b' } });

describe('the WebAssembly process channel', () => {
  it('carries requests and results with their bytes intact', () => {
    const requests: HostProcessRequest[] = [
      { type: 'run', id: 1, module: { hash: 'h1', bytes: bytes(300) }, call: call(bytes(20)), timeoutMs: 5000 },
      { type: 'run', id: 2, module: { hash: 'h1' }, call: { ...call(new Uint8Array(0)), wasi: { command: true, args: ['p', 't'], preopens: [{ path: '/tmp/w', writable: false }] } }, timeoutMs: 5000 },
      { type: 'host-reply', hostId: 3, reply: { ok: true, data: bytes(64), status: 200 } },
      { type: 'host-reply', hostId: 4, reply: { ok: false, error: 'denied' } },
    ];
    const r = cross(requests, (w, m) => w.request(m), (rd, w) => rd.request(w));
    expect(r.sent.map((m) => m.type)).toEqual(['run', 'run', 'host-reply', 'host-reply']);
    expect(r.out).toEqual(requests);

    const messages: HostProcessMessage[] = [
      { type: 'ready', pid: 7 },
      { type: 'host', id: 1, hostId: 3, req: { fn: 'write_file', arg: '/x', data: bytes(10) } },
      { type: 'host', id: 1, hostId: 4, req: { fn: 'read_file', arg: '/y' } },
      { type: 'ran', id: 1, result: { ok: false, output: bytes(5), error: 'trap', failure: 'trap', fuelUsed: 12, logs: [{ level: 'info', line: 'hi' }], memoryBytes: 65536, durationMs: 0.5 } },
    ];
    expect(cross(messages, (w, m) => w.message(m), (rd, w) => rd.message(w)).out).toEqual(messages);
  });

  it('sends bytes larger than a part in parts before the message that names them', () => {
    const module = bytes(1000);
    const output = bytes(250);
    const req: HostProcessRequest = { type: 'run', id: 1, module: { hash: 'h', bytes: module }, call: call(bytes(99)), timeoutMs: 1 };
    const r = cross<HostProcessRequest>([req], (w, m) => w.request(m), (rd, w) => rd.request(w), 100);
    // 1000 bytes of module in 10 parts; the 99-byte input inline.
    expect(r.sent.map((m) => m.type)).toEqual([...Array<string>(10).fill('part'), 'run']);
    expect(r.out).toEqual([req]);

    const ran: HostProcessMessage = { type: 'ran', id: 1, result: { ok: true, output, error: null, failure: null, fuelUsed: 1, logs: [], memoryBytes: 0, durationMs: 1 } };
    const m = cross<HostProcessMessage>([ran, ran], (w, x) => w.message(x), (rd, w) => rd.message(w), 100);
    expect(m.sent.map((x) => x.type)).toEqual(['part', 'part', 'part', 'ran', 'part', 'part', 'part', 'ran']);
    expect(m.out).toEqual([ran, ran]);
  });

  it('reads what is not bytes as sent as no bytes', () => {
    const reader = new WireReader();
    const m = reader.message({ type: 'ran', id: 1, result: { ok: true, output: { ref: 99 }, error: null, failure: null, fuelUsed: 0, logs: [], memoryBytes: 0, durationMs: 0 } });
    expect(m?.type === 'ran' && m.result.output).toEqual(new Uint8Array(0));
    const n = reader.message({ type: 'ran', id: 2, result: { ok: true, output: 42 as never, error: null, failure: null, fuelUsed: 0, logs: [], memoryBytes: 0, durationMs: 0 } });
    expect(n?.type === 'ran' && n.result.output).toEqual(new Uint8Array(0));
  });
});
