// "Adding a method to the table needs no edit in either shell or in the preload."
// A table extended with a method and an event the shells have never heard of is put behind
// the real serve shell (WebSocket and POST /api/call on loopback), the Electron shell's IPC
// adapter and the preload bridge; the new method and event work through all of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { IpcMain, WebContents } from 'electron';
import { events, ipcChannels, methods, type MethodTable } from '../../shared/contract.js';
import { createDispatcher, type CallContext, type Handlers } from '../../main/host/dispatcher.js';
import { EventBus } from '../../main/host/event-bus.js';
import { startServeShell, type ServeShell } from '../../main/shells/serve/serve-shell.js';
import { WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../main/shells/serve/guards.js';
import { bindIpc } from '../../main/shells/electron/ipc-adapter.js';
import { APP_URL } from '../../main/shells/electron/app-protocol.js';
import { createBridge } from '../../preload/api.js';
import { http, wsConnect, WsClient } from '../support/net.js';
import { sharedTempDir } from '../support/temp.js';

const extendedMethods = {
  ...methods,
  'test.echo': { request: z.object({ text: z.string() }).strict(), response: z.object({ text: z.string() }) },
} satisfies MethodTable;
const extendedEvents = { ...events, 'test.ping': z.object({ n: z.number().int() }) };

function extendedHost() {
  const calls: { text: string; ctx: CallContext }[] = [];
  // Only test.echo is implemented; the rest of the table is there to show it is the real one.
  const handlers = Object.fromEntries(
    Object.keys(extendedMethods).map((name) => [
      name,
      name === 'test.echo'
        ? ({ text }: { text: string }, ctx: CallContext) => {
            calls.push({ text, ctx });
            return { text: text.toUpperCase() };
          }
        : () => {
            throw new Error(`${name} is not part of this test`);
          },
    ]),
  ) as unknown as Handlers<typeof extendedMethods>;
  const dispatcher = createDispatcher(extendedMethods, handlers, () => {});
  const bus = new EventBus(extendedEvents, () => {});
  const connected: CallContext[] = [];
  return {
    calls,
    connected,
    host: {
      dispatcher,
      bus,
      operatorConnected: (ctx: CallContext) => {
        connected.push(ctx);
        return () => {};
      },
    },
  };
}

describe('a method and an event added to the contract table', () => {
  const token = 'contract-test-token-0123456789';
  let shell: ServeShell;
  let t: ReturnType<typeof extendedHost>;
  let tmp: { dir: string; remove: () => void };

  beforeAll(async () => {
    tmp = sharedTempDir();
    t = extendedHost();
    shell = await startServeShell({ host: t.host, bindHost: '127.0.0.1', port: 0, token, staticDir: tmp.dir, operator: 'tester' });
  });
  afterAll(async () => {
    await shell.close();
    tmp.remove();
  });

  it('works over the serve shell WebSocket, validated by the host', async () => {
    const r = await wsConnect(`ws://127.0.0.1:${shell.port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + token], origin: `http://127.0.0.1:${shell.port}` });
    if (!r.ok) throw new Error(`upgrade refused with ${r.status}`);
    const client = new WsClient(r.ws);
    try {
      await expect(client.call('test.echo', { text: 'hello' })).resolves.toEqual({ id: 1, ok: true, result: { text: 'HELLO' } });
      expect(t.calls.at(-1)).toEqual({ text: 'hello', ctx: { console: 'serve', operator: 'tester' } });
      await expect(client.call('test.echo', { text: 5 })).resolves.toMatchObject({ id: 2, ok: false, error: { code: 'bad_request' } });

      t.host.bus.emit('test.ping', { n: 7 });
      await expect(client.waitForEvent((e) => e.event === 'test.ping')).resolves.toEqual({ event: 'test.ping', payload: { n: 7 } });
    } finally {
      await client.close();
    }
  });

  it('works over POST /api/call and is listed by /api/session', async () => {
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const call = await http({ port: shell.port, path: '/api/call', method: 'POST', headers, body: JSON.stringify({ method: 'test.echo', params: { text: 'over http' } }) });
    expect(call.status).toBe(200);
    expect(JSON.parse(call.body)).toEqual({ ok: true, result: { text: 'OVER HTTP' } });
    expect(t.calls.at(-1)?.ctx.console).toBe('cli');

    const session = await http({ port: shell.port, path: '/api/session', headers });
    expect(JSON.parse(session.body)).toMatchObject({ ok: true, result: { methods: Object.keys(extendedMethods) } });
    expect(JSON.parse(session.body).result.methods).toContain('test.echo');
  });

  it('works through the preload bridge and the Electron IPC adapter', async () => {
    // Electron cannot run here; a recording stand-in carries calls from the preload's
    // ipcRenderer to the handler bindIpc registered on ipcMain, and events back.
    const trustedFrame = { url: APP_URL, parent: null };
    const ipcHandlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
    const rendererListeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
    const ipcMain = {
      handle: (channel: string, h: (event: unknown, ...args: unknown[]) => unknown) => void ipcHandlers.set(channel, h),
      removeHandler: (channel: string) => void ipcHandlers.delete(channel),
    };
    const ipcRenderer = {
      invoke: async (channel: string, ...args: unknown[]) => {
        const h = ipcHandlers.get(channel);
        if (!h) throw new Error(`No handler registered for '${channel}'`);
        return h({ senderFrame: trustedFrame, sender: { id: 1 } }, ...args);
      },
      on: (channel: string, l: (event: unknown, ...args: unknown[]) => void) => {
        if (!rendererListeners.has(channel)) rendererListeners.set(channel, new Set());
        rendererListeners.get(channel)!.add(l);
      },
      removeListener: (channel: string, l: (event: unknown, ...args: unknown[]) => void) => void rendererListeners.get(channel)?.delete(l),
    };
    const webContents = {
      isDestroyed: () => false,
      send: (channel: string, ...args: unknown[]) => {
        for (const l of rendererListeners.get(channel) ?? []) l({ sender: 'the ipc event object' }, ...args);
      },
    };
    const unbind = bindIpc(ipcMain as unknown as Pick<IpcMain, 'handle' | 'removeHandler'>, t.host, { console: 'electron', operator: 'tester' }, () => [webContents as unknown as WebContents]);
    try {
      expect([...ipcHandlers.keys()]).toEqual([ipcChannels.invoke]);
      const bridge = createBridge(Object.keys(extendedMethods), ipcRenderer);
      expect(bridge.methods).toContain('test.echo');
      await expect(bridge.invoke('test.echo', { text: 'via ipc' })).resolves.toEqual({ ok: true, result: { text: 'VIA IPC' } });
      expect(t.calls.at(-1)?.ctx.console).toBe('electron');

      const got: [string, unknown][] = [];
      const off = bridge.onEvent((name, payload) => got.push([name, payload]));
      t.host.bus.emit('test.ping', { n: 8 });
      expect(got).toEqual([['test.ping', { n: 8 }]]);
      off();
      t.host.bus.emit('test.ping', { n: 9 });
      expect(got).toHaveLength(1);
    } finally {
      unbind();
    }
    expect(ipcHandlers.size).toBe(0);
  });

  it('is refused by a bridge built from the unextended table, before any IPC', async () => {
    const invoked: unknown[] = [];
    const bridge = createBridge(Object.keys(methods), { invoke: async (...a) => invoked.push(a), on: () => {}, removeListener: () => {} });
    await expect(bridge.invoke('test.echo', { text: 'x' })).resolves.toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(invoked).toEqual([]);
  });
});

describe('the contract table', () => {
  it('gives every method a request and a response schema, and every request is an object', () => {
    for (const [name, spec] of Object.entries(methods)) {
      expect(spec.request, name).toBeInstanceOf(z.ZodType);
      expect(spec.response, name).toBeInstanceOf(z.ZodType);
      // A request that is not an object is never valid.
      for (const bad of ['x', 1, true, [], null]) expect(spec.request.safeParse(bad).success, `${name} accepted ${JSON.stringify(bad)}`).toBe(false);
    }
  });

  it('gives every event a payload schema', () => {
    expect(Object.keys(events).length).toBeGreaterThan(0);
    for (const [name, schema] of Object.entries(events)) expect(schema, name).toBeInstanceOf(z.ZodType);
  });

  it('drops an event whose payload is outside the contract instead of sending it', () => {
    const logged: string[] = [];
    const bus = new EventBus(events, (m) => logged.push(m));
    const got: unknown[] = [];
    bus.subscribe((name, payload) => got.push([name, payload]));
    bus.emit('audit.appended', { lastSeq: 'three', count: 1 } as never);
    expect(got).toEqual([]);
    expect(logged.join()).toMatch(/audit\.appended dropped/);
    bus.emit('audit.appended', { lastSeq: 3, count: 1 });
    expect(got).toEqual([['audit.appended', { lastSeq: 3, count: 1 }]]);
  });

  it('validates and delivers an event only when a listener takes it now, and only to those that do', () => {
    const logged: string[] = [];
    const bus = new EventBus(events, (m) => logged.push(m));
    const got: unknown[] = [];
    let open = false;
    // As the serve shell subscribes: it takes events only while a console is connected.
    bus.subscribe((name, payload) => got.push(['console', name, payload]), () => open);
    bus.subscribe((name, payload) => got.push(['jobs', name, payload]), (name) => name === 'jobs.progress');
    // Nobody takes it: not validated (an invalid payload is not even noticed) and not delivered.
    bus.emit('audit.appended', { lastSeq: 'three', count: 1 } as never);
    bus.emit('audit.appended', { lastSeq: 3, count: 1 });
    expect(logged).toEqual([]);
    expect(got).toEqual([]);
    open = true;
    bus.emit('audit.appended', { lastSeq: 'three', count: 1 } as never);
    expect(logged.join()).toMatch(/audit\.appended dropped/);
    bus.emit('audit.appended', { lastSeq: 4, count: 1 });
    expect(got).toEqual([['console', 'audit.appended', { lastSeq: 4, count: 1 }]]);
  });
});
