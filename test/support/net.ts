// HTTP and WebSocket clients for the serve shell that can send any Host and Origin header,
// which fetch() and browsers would not let a test choose.
import { request } from 'node:http';
import WebSocket from 'ws';
import { decodeBinaryEvent } from '../../shared/event-frame.js';

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function http(opts: { port: number; path: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: opts.port, path: opts.path, method: opts.method ?? 'GET', headers: { Host: `127.0.0.1:${opts.port}`, ...opts.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export type WsOutcome = { ok: true; ws: WebSocket } | { ok: false; status: number };

/** Opens a WebSocket; resolves with the socket, or with the HTTP status the upgrade got instead. */
export function wsConnect(url: string, opts: { protocols?: string[]; headers?: Record<string, string>; origin?: string } = {}): Promise<WsOutcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts.protocols ?? [], { headers: opts.headers ?? {}, ...(opts.origin !== undefined ? { origin: opts.origin } : {}) });
    ws.once('open', () => resolve({ ok: true, ws }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ ok: false, status: res.statusCode ?? 0 });
      res.resume();
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

/** Request/response over one WebSocket, matching replies by id; events are collected. */
export class WsClient {
  private nextId = 1;
  private readonly pending = new Map<number | string | null, (frame: Record<string, unknown>) => void>();
  private readonly nullReplies: ((frame: Record<string, unknown>) => void)[] = [];
  readonly events: { event: string; payload: unknown }[] = [];
  private readonly eventWaiters: { match: (e: { event: string; payload: unknown }) => boolean; resolve: (e: { event: string; payload: unknown }) => void }[] = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      // An event carrying bytes (terminal output) comes as a binary frame, read as the console reads it.
      const decoded = isBinary ? decodeBinaryEvent(data as Buffer) : null;
      if (decoded && 'error' in decoded) throw new Error(`the host sent ${decoded.error}`);
      const frame = (decoded ?? JSON.parse(data.toString())) as Record<string, unknown>;
      if (typeof frame.event === 'string') {
        const e = { event: frame.event, payload: frame.payload };
        this.events.push(e);
        for (const w of [...this.eventWaiters]) {
          if (w.match(e)) {
            this.eventWaiters.splice(this.eventWaiters.indexOf(w), 1);
            w.resolve(e);
          }
        }
        return;
      }
      if (frame.id === null) {
        this.nullReplies.shift()?.(frame);
        return;
      }
      const resolve = this.pending.get(frame.id as number);
      this.pending.delete(frame.id as number);
      resolve?.(frame);
    });
  }

  call(method: unknown, params?: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Sends a raw frame the server cannot tie to a request id; resolves with its id:null reply. */
  sendMalformed(data: string | Buffer): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.nullReplies.push(resolve);
      this.ws.send(data);
    });
  }

  waitForEvent(match: (e: { event: string; payload: unknown }) => boolean): Promise<{ event: string; payload: unknown }> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.eventWaiters.push({ match, resolve }));
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

/**
 * Resolves once the host's log holds a committed event `ok` accepts (a console read settles what
 * was appended and returns only what is committed): checked at once and after each commit the
 * host announces.
 */
export async function untilLogged(op: WsClient, ok: (e: { type: string; payload: Record<string, unknown> }) => boolean): Promise<void> {
  let after = -1;
  for (;;) {
    const tail = (await op.call('audit.tail', { limit: 1000 })) as { result: { events: { seq: number; type: string; payload: Record<string, unknown> }[] } };
    if (tail.result.events.some(ok)) return;
    const head = Math.max(after, ...tail.result.events.map((e) => e.seq));
    await op.waitForEvent((e) => e.event === 'audit.appended' && (e.payload as { lastSeq: number }).lastSeq > head);
    after = head;
  }
}
