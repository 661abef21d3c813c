// The agents' Streamable HTTP transport (main/gateway/mcp-http-transport.ts) with the SDK's Server
// behind it, on a real loopback HTTP server, driven by the SDK's own client and by raw HTTP where
// the wire form matters: a quick answer is one JSON body; a request that gets a notification
// first, or takes longer than sseAfterMs, is answered as an SSE stream; server-initiated
// messages go on the session's GET stream; requests that are not for this session are refused.
import { createServer, request, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpHttpTransport } from '../../../main/gateway/mcp-http-transport.js';

interface Running {
  url: string;
  port: number;
  server: Server;
  transport: McpHttpTransport;
  /** Resolves a `wait` tool call that is holding its answer. */
  release: () => void;
  /** The handler of a `wait` call has started. */
  waiting: Promise<void>;
  /** The client's GET stream is open. */
  streamOpen: Promise<void>;
  /** What requestGone() said to the `gone?` tool's handler: whether its requester had left. */
  goneSeen: Promise<boolean>;
}

const open: HttpServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** One MCP session behind a loopback HTTP server; tools: `echo` (answers at once), `progress` (one progress notification, then the answer), `wait` (answers when released). */
async function start(opts: { sseAfterMs?: number } = {}): Promise<Running> {
  const server = new Server({ name: 'test', version: '1' }, { capabilities: { tools: { listChanged: true } } });
  const transport = new McpHttpTransport({ sessionIdGenerator: () => 'session-1', ...(opts.sseAfterMs !== undefined ? { sseAfterMs: opts.sseAfterMs } : {}) });
  let release = () => {};
  let started = () => {};
  const waiting = new Promise<void>((r) => (started = r));
  let sawGone: (gone: boolean) => void = () => {};
  const goneSeen = new Promise<boolean>((r) => (sawGone = r));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: ['echo', 'progress', 'wait', 'gone?'].map((name) => ({ name, inputSchema: { type: 'object' as const } })) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    if (req.params.name === 'gone?') sawGone(transport.requestGone(extra.requestId).aborted);
    const text = JSON.stringify(req.params.arguments ?? {});
    if (req.params.name === 'progress') {
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: req.params._meta?.progressToken ?? 0, progress: 1, message: 'waiting for an operator' } });
    }
    if (req.params.name === 'wait') {
      started();
      await new Promise<void>((r) => (release = r));
    }
    return { content: [{ type: 'text', text }] };
  });
  await server.connect(transport);
  let opened = () => {};
  const streamOpen = new Promise<void>((r) => (opened = r));
  const http = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const handle = () =>
        void transport.handleRequest(req, res, body ? JSON.parse(body) : undefined).then(() => {
          if (req.method === 'GET' && res.statusCode === 200) opened();
        });
      // A route that awaits something after reading the body (Gatehouse's checks the agent's
      // token) may hand the request on after its connection already closed.
      if (req.headers['x-test-hand-on'] === 'after-close') req.socket.once('close', handle);
      else handle();
    });
  });
  open.push(http);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/mcp`, port, server, transport, release: () => release(), waiting, streamOpen, goneSeen };
}

async function client(r: Running): Promise<Client> {
  const c = new Client({ name: 'test-client', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(r.url)));
  return c;
}

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/** A POST; resolves with the status, headers and body once the answer has ended. */
function post(port: number, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...MCP_HEADERS, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** Initializes over raw HTTP; returns the headers every later request of the session needs. */
async function rawSession(r: Running): Promise<Record<string, string>> {
  const init = await post(r.port, INIT);
  expect(init.status).toBe(200);
  const sid = init.headers['mcp-session-id'] as string;
  const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  expect((await post(r.port, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
  return headers;
}

/** The JSON-RPC messages of an SSE body, in order. */
const sseMessages = (body: string) =>
  body
    .split('\n\n')
    .map((block) => block.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => l !== undefined)
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);

describe('MCP Streamable HTTP transport', () => {
  it('answers a request that completes at once with one JSON body, the session id in a header', async () => {
    const r = await start();
    const init = await post(r.port, INIT);
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toBe('application/json');
    expect(init.headers['mcp-session-id']).toBe('session-1');
    expect(Number(init.headers['content-length'])).toBe(Buffer.byteLength(init.body));
    expect(JSON.parse(init.body)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'test' } } });
    // A second initialize on the same session is refused.
    expect((await post(r.port, INIT)).status).toBe(400);
    const call = await post(r.port, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { a: 1 } } }, { 'mcp-session-id': 'session-1', 'mcp-protocol-version': '2025-06-18' });
    expect(call.headers['content-type']).toBe('application/json');
    expect(JSON.parse(call.body)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '{"a":1}' }] } });
  });

  it('turns the answer into an SSE stream when a notification comes first: progress, then the result, then the end', async () => {
    const r = await start();
    const headers = await rawSession(r);
    const res = await post(r.port, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'progress', arguments: {}, _meta: { progressToken: 'p1' } } }, headers);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['mcp-session-id']).toBe('session-1');
    const msgs = sseMessages(res.body);
    expect(msgs.map((m) => m.method ?? `answer ${String(m.id)}`)).toEqual(['notifications/progress', 'answer 7']);
    expect(msgs[0]).toMatchObject({ params: { progressToken: 'p1', message: 'waiting for an operator' } });
  });

  it('the SDK client gets the progress and the result, and a quick call after it', async () => {
    const r = await start();
    const c = await client(r);
    const progress: string[] = [];
    const res = (await c.callTool({ name: 'progress', arguments: { x: 'y' } }, undefined, { onprogress: (p) => progress.push(p.message ?? '') })) as CallToolResult;
    expect(progress).toEqual(['waiting for an operator']);
    expect(res.content).toEqual([{ type: 'text', text: '{"x":"y"}' }]);
    expect(((await c.callTool({ name: 'echo', arguments: {} })) as CallToolResult).content).toEqual([{ type: 'text', text: '{}' }]);
    await c.close();
  });

  it('an answer still pending after sseAfterMs starts its SSE stream (headers out), and the result follows on it', async () => {
    const r = await start({ sseAfterMs: 20 });
    const headers = await rawSession(r);
    const reply = new Promise<{ type: string | undefined; body: Promise<string> }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: r.port, path: '/mcp', method: 'POST', headers: { ...MCP_HEADERS, ...headers } }, (res) => {
        // The headers came while the handler still holds its answer.
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        resolve({ type: res.headers['content-type'], body: new Promise((done) => res.on('end', () => done(text))) });
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait', arguments: {} } }));
    });
    await r.waiting;
    const { type, body } = await reply;
    expect(type).toBe('text/event-stream');
    r.release();
    expect(sseMessages(await body)).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: '{}' }] } }]);
  });

  it('server-initiated notifications go on the session stream the SDK client opened (tools/list_changed)', async () => {
    const r = await start();
    const c = await client(r);
    const changed = new Promise<void>((resolve) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    // The client opens its GET stream after initialization.
    await r.streamOpen;
    await r.server.sendToolListChanged();
    await changed;
    await c.close();
  });

  it('a list-changed notice sent before the client opened its GET stream goes out when it opens', async () => {
    const r = await start();
    const headers = await rawSession(r);
    // Plugins finished loading between the client's initialize and its GET: nobody could hear it.
    await r.server.sendToolListChanged();
    await r.server.sendToolListChanged();
    const first = await new Promise<string>((resolve) => {
      const req = request({ host: '127.0.0.1', port: r.port, path: '/mcp', method: 'GET', headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
        let buf = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          buf += d;
          if (!buf.includes('\n\n')) return;
          resolve(buf);
          req.destroy();
        });
      });
      req.end();
    });
    expect(sseMessages(first)).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });

  it('refuses what is not for this session: no session id, a wrong one, a bad version, wrong Accept or Content-Type, a second stream', async () => {
    const r = await start();
    const headers = await rawSession(r);
    const ping = { jsonrpc: '2.0', id: 9, method: 'ping' };
    expect((await post(r.port, ping)).status).toBe(400);
    expect((await post(r.port, ping, { ...headers, 'mcp-session-id': 'other' })).status).toBe(404);
    expect((await post(r.port, ping, { ...headers, 'mcp-protocol-version': '1999-01-01' })).status).toBe(400);
    expect((await post(r.port, ping, { ...headers, Accept: 'application/json' })).status).toBe(406);
    expect((await post(r.port, ping, { ...headers, 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await post(r.port, { not: 'json-rpc' }, headers)).status).toBe(400);
    expect(JSON.parse((await post(r.port, ping, headers)).body)).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
    // One GET stream per session.
    const stream = await new Promise<IncomingMessage>((resolve) => request({ host: '127.0.0.1', port: r.port, path: '/mcp', method: 'GET', headers: { Accept: 'text/event-stream', ...headers } }, resolve).end());
    expect(stream.statusCode).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    const second = await new Promise<IncomingMessage>((resolve) => request({ host: '127.0.0.1', port: r.port, path: '/mcp', method: 'GET', headers: { Accept: 'text/event-stream', ...headers } }, resolve).end());
    expect(second.statusCode).toBe(409);
    second.resume();
    stream.destroy();
  });

  it('a request handed on after its connection closed is gone from the start (the close came before the listener)', async () => {
    const r = await start();
    const c = await client(r);
    const session = { 'mcp-session-id': 'session-1', 'mcp-protocol-version': '2025-06-18' };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 31, method: 'tools/call', params: { name: 'gone?', arguments: {} } });
    const req = request({ host: '127.0.0.1', port: r.port, path: '/mcp', method: 'POST', headers: { ...MCP_HEADERS, ...session, 'x-test-hand-on': 'after-close', 'Content-Length': Buffer.byteLength(body) } });
    req.on('error', () => {});
    // The whole request is on the wire; then the client leaves before any answer.
    await new Promise<void>((resolve) => req.end(body, resolve));
    req.destroy();
    expect(await r.goneSeen).toBe(true);
    await c.close();
  });

  it('DELETE ends the session; a request still running gets an error answer instead of hanging', async () => {
    const r = await start();
    const c = await client(r);
    const running = c.callTool({ name: 'wait', arguments: {} });
    await r.waiting;
    const closed = await new Promise<number>((resolve) =>
      request({ host: '127.0.0.1', port: r.port, path: '/mcp', method: 'DELETE', headers: { 'mcp-session-id': 'session-1' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).end(),
    );
    expect(closed).toBe(200);
    await expect(running).rejects.toThrow(/session ended before this request was answered/);
    expect((await post(r.port, { jsonrpc: '2.0', id: 9, method: 'ping' }, { 'mcp-session-id': 'session-1' })).status).toBe(404);
    r.release();
  });
});
