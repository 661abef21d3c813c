// How the serve shell writes frames to a console: the frames of one turn of the loop leave in one
// write (TickCork), whole and in the order they were sent, events and replies alike; an event
// carrying bytes (terminal output) as a binary frame.
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startServeShell, TickCork, type ServeShell } from '../../../main/shells/serve/serve-shell.js';
import { WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../../main/shells/serve/guards.js';
import type { Envelope } from '../../../shared/contract.js';
import WsWebSocket from 'ws';
import { createServeTransport } from '../../../renderer/src/transport/serve-transport.ts';
import type { Transport } from '../../../renderer/src/transport/types.ts';
import { wsConnect, WsClient } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';

const TOKEN = 'serve-frames-token-0123456789abcdef';

/** A connected pair of real loopback TCP sockets. */
async function socketPair(): Promise<{ client: Socket; server: Socket; close: () => void; listener: Server }> {
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const port = (listener.address() as { port: number }).port;
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const client = connect(port, '127.0.0.1');
  await once(client, 'connect');
  const [server] = await accepted;
  return {
    client,
    server,
    listener,
    close: () => {
      client.destroy();
      server.destroy();
      listener.close();
    },
  };
}

/** Counts how a socket hands its data to the system: one `_writev` for what was corked, one `_write` per write otherwise. */
function countHandOffs(socket: Socket): { writes: () => number } {
  let n = 0;
  const s = socket as unknown as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
  const write = s._write.bind(socket);
  const writev = s._writev.bind(socket);
  s._write = (...a) => {
    n++;
    write(...a);
  };
  s._writev = (...a) => {
    n++;
    writev(...a);
  };
  return { writes: () => n };
}

async function readAll(socket: Socket, bytes: number): Promise<string> {
  let got = '';
  socket.setEncoding('utf8');
  for await (const chunk of socket) {
    got += chunk as string;
    if (got.length >= bytes) break;
  }
  return got;
}

describe('TickCork', () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  it('sends what a turn of the loop wrote in one hand-off to the system, in order', async () => {
    const pair = await socketPair();
    close = pair.close;
    const handOffs = countHandOffs(pair.server);
    const cork = new TickCork();
    const frames = Array.from({ length: 12 }, (_, i) => `frame-${i};`);
    for (const f of frames) {
      cork.cork(pair.server);
      pair.server.write(f);
    }
    // Nothing has left yet: the turn that wrote is not over.
    expect(handOffs.writes()).toBe(0);
    const text = await readAll(pair.client, frames.join('').length);
    expect(text).toBe(frames.join(''));
    expect(handOffs.writes()).toBe(1);
  });

  it('without it the same writes are handed off one by one (what the cork saves)', async () => {
    const pair = await socketPair();
    close = pair.close;
    const handOffs = countHandOffs(pair.server);
    const frames = Array.from({ length: 12 }, (_, i) => `frame-${i};`);
    for (const f of frames) pair.server.write(f);
    await readAll(pair.client, frames.join('').length);
    expect(handOffs.writes()).toBeGreaterThan(1);
  });

  it('corks each socket once per turn, and a socket closed meanwhile is let go without an error', async () => {
    const a = await socketPair();
    const b = await socketPair();
    close = () => {
      a.close();
      b.close();
    };
    const cork = new TickCork();
    cork.cork(a.server);
    cork.cork(a.server);
    cork.cork(b.server);
    a.server.write('a1;');
    b.server.write('b1;');
    b.server.destroy();
    // A destroyed socket is not corked again.
    cork.cork(b.server);
    expect(await readAll(a.client, 3)).toBe('a1;');
    // Once released, a socket takes writes straight through again until the next cork.
    expect(a.server.writableCorked).toBe(0);
  });
});

/** The console's own transport (renderer code) on a serve shell, with Node's fetch and `ws`. */
function consoleTransport(shell: ServeShell): Transport {
  const url = new URL(shell.newConsoleUrl());
  const base = `http://127.0.0.1:${shell.port}`;
  return createServeTransport({
    credential: { code: new URLSearchParams(url.hash.slice(1)).get('code'), session: null, problem: null },
    origin: { protocol: 'http:', host: `127.0.0.1:${shell.port}` },
    fetch: ((input: string, init?: RequestInit) => fetch(new URL(input, base), init)) as typeof fetch,
    WebSocket: WsWebSocket as unknown as typeof WebSocket,
  });
}

describe('serve shell frames', () => {
  let shell: ServeShell | undefined;
  afterEach(async () => {
    await shell?.close();
  });

  /** A real serve shell over a host whose bus the test drives (and which answers no method). */
  async function servedBus(): Promise<{ served: ServeShell; emit: (name: string, payload: unknown) => void }> {
    const listeners = new Set<(name: string, payload: unknown) => void>();
    const host = {
      dispatcher: { methodNames: [], dispatch: async (): Promise<Envelope<unknown>> => ({ ok: false, error: { code: 'unknown_method', message: 'no' } }) },
      bus: {
        subscribe: (l: (name: string, payload: unknown) => void) => {
          listeners.add(l);
          return () => listeners.delete(l);
        },
      },
      operatorConnected: () => () => {},
    };
    const served = await startServeShell({ host, bindHost: '127.0.0.1', port: 0, token: TOKEN, staticDir: tempDir(), operator: 'tester' });
    shell = served;
    return {
      served,
      emit: (name, payload) => {
        for (const l of listeners) l(name, payload);
      },
    };
  }

  it('delivers every event of one turn and the reply after them, whole and in order', async () => {
    // The host side is a bus the test drives and a dispatcher whose one method emits events in the
    // same turn it answers: the serve shell under test is real, and so are the sockets.
    const listeners = new Set<(name: string, payload: unknown) => void>();
    const emit = (name: string, payload: unknown) => {
      for (const l of listeners) l(name, payload);
    };
    const host = {
      dispatcher: {
        methodNames: ['burst'],
        dispatch: async (method: unknown): Promise<Envelope<unknown>> => {
          if (method !== 'burst') return { ok: false, error: { code: 'unknown_method', message: 'no' } };
          for (let i = 0; i < 50; i++) emit('test.event', { i, text: 'x'.repeat(i * 37) });
          return { ok: true, result: { emitted: 50 } };
        },
      },
      bus: {
        subscribe: (l: (name: string, payload: unknown) => void) => {
          listeners.add(l);
          return () => listeners.delete(l);
        },
      },
      operatorConnected: () => () => {},
    };
    shell = await startServeShell({ host, bindHost: '127.0.0.1', port: 0, token: TOKEN, staticDir: tempDir(), operator: 'tester' });
    const r = await wsConnect(`ws://127.0.0.1:${shell.port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + TOKEN], origin: `http://127.0.0.1:${shell.port}` });
    if (!r.ok) throw new Error(`refused: ${r.status}`);
    const client = new WsClient(r.ws);
    const order: string[] = [];
    r.ws.on('message', (data) => {
      const f = JSON.parse(data.toString()) as { event?: string; payload?: { i: number }; id?: number };
      order.push(f.event ? `e${f.payload!.i}` : `reply${f.id}`);
    });
    try {
      const reply = await client.call('burst', {});
      expect(reply).toMatchObject({ ok: true, result: { emitted: 50 } });
      expect(order).toEqual([...Array.from({ length: 50 }, (_, i) => `e${i}`), 'reply1']);
      expect(client.events.map((e) => (e.payload as { text: string }).text.length)).toEqual(Array.from({ length: 50 }, (_, i) => i * 37));
      // Events emitted outside any request, several turns in a row, arrive too.
      for (let turn = 0; turn < 3; turn++) {
        emit('test.event', { i: 100 + turn, text: '' });
        await new Promise((resolve) => setImmediate(resolve));
      }
      await client.waitForEvent((e) => (e.payload as { i: number }).i === 102);
      expect(order.slice(-3)).toEqual(['e100', 'e101', 'e102']);
    } finally {
      await client.close();
    }
  });

  it('the console\'s transport hands its listeners a binary frame\'s event, bytes and all, in order', async () => {
    const { served, emit } = await servedBus();
    const t = consoleTransport(served);
    const got: { name: string; payload: Record<string, unknown> }[] = [];
    let done!: () => void;
    const last = new Promise<void>((resolve) => (done = resolve));
    t.onEvent((name, payload) => {
      got.push({ name, payload: payload as Record<string, unknown> });
      if (name === 'test.after') done();
    });
    const connected = new Promise<void>((resolve) => t.onState((state) => state === 'connected' && resolve()));
    t.start();
    try {
      await connected;
      const text = 'prompt é✓🙂 $ ';
      emit('terminals.output', { id: 't1', seq: 1, chars: text.length, data: new TextEncoder().encode(text) });
      emit('test.after', { n: 1 });
      await last;
      expect(got.map((e) => e.name)).toEqual(['terminals.output', 'test.after']);
      const out = got[0]!.payload;
      expect(out).toMatchObject({ id: 't1', seq: 1, chars: text.length });
      expect(out.data).toBeInstanceOf(Uint8Array);
      expect(new TextDecoder().decode(out.data as Uint8Array)).toBe(text);
    } finally {
      t.close();
    }
  });

  it('sends an event that carries bytes as one binary frame, in order with the others, the bytes exact', async () => {
    const { served, emit } = await servedBus();
    const r = await wsConnect(`ws://127.0.0.1:${served.port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + TOKEN], origin: `http://127.0.0.1:${served.port}` });
    if (!r.ok) throw new Error(`refused: ${r.status}`);
    const client = new WsClient(r.ws);
    const kinds: string[] = [];
    r.ws.on('message', (_data, isBinary) => kinds.push(isBinary ? 'binary' : 'text'));
    // A batch as big as the host sends (512 K chars), with characters of every UTF-8 length, and
    // an echo-sized one (its frame comes from Node's shared pool of small Buffers, at an offset).
    const text = 'a é ✓ 🙂\r\n'.repeat(40_000);
    const small = 'é✓\r\n';
    const utf8 = new TextEncoder();
    try {
      emit('test.before', { n: 1 });
      emit('terminals.output', { id: 't1', seq: 7, chars: text.length, data: utf8.encode(text) });
      emit('terminals.output', { id: 't1', seq: 8, chars: small.length, data: utf8.encode(small) });
      emit('test.after', { n: 2 });
      await client.waitForEvent((e) => e.event === 'test.after');
      expect(kinds).toEqual(['text', 'binary', 'binary', 'text']);
      expect(client.events.map((e) => e.event)).toEqual(['test.before', 'terminals.output', 'terminals.output', 'test.after']);
      const [big, echo] = [client.events[1]!.payload, client.events[2]!.payload] as { id: string; seq: number; chars: number; data: Uint8Array }[];
      expect(big).toMatchObject({ id: 't1', seq: 7, chars: text.length });
      expect(big!.data).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(big!.data).toString('utf8')).toBe(text);
      expect(echo).toMatchObject({ id: 't1', seq: 8, chars: small.length });
      expect(Buffer.from(echo!.data).toString('utf8')).toBe(small);
    } finally {
      await client.close();
    }
  });
});
