// MCP's Streamable HTTP transport for one session, written on node:http. The SDK's Server does
// the protocol (initialize, version negotiation, schemas, handlers); this class only moves its
// JSON-RPC messages over HTTP.
//
// Why not the SDK's StreamableHTTPServerTransport: it converts every Node request into a web
// Request and every answer from a web Response through @hono/node-server, and answers every
// request with an SSE stream (or, with enableJsonResponse, with JSON that drops the progress
// notifications of a call waiting for an operator). On this path that cost several
// milliseconds per tool call (bench/gateway.ts: MCP gateway overhead), most of it in web
// streams, a setTimeout in the adapter's body reader, and separate socket writes for the
// headers and each SSE chunk. Here:
//  - A POST holding requests is answered with one JSON body (Content-Length, one write) when
//    the answers are the first things the server sends for it: an auto-allowed call. When a
//    notification or a server request comes first (progress while a call waits for an
//    operator), or no answer has come after `sseAfterMs`, the answer becomes an SSE stream:
//    what is queued goes out, then each message as it is sent, and the stream ends after the
//    last answer. The spec lets a server choose either form per request, and clients must
//    accept both (the SDK client reads the Content-Type of each answer).
//  - GET opens the session's stream for server-initiated messages (tools/list_changed). A
//    list-changed notice sent before the client opened it goes out when it opens.
//  - DELETE ends the session.
// SSE streams carry a comment every `keepAliveMs` so that idle timeouts (undici's body timeout
// is 5 minutes) do not cut a call that waits long.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, isInitializeRequest, type JSONRPCMessage, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export interface McpHttpTransportOptions {
  sessionIdGenerator: () => string;
  /** The session has its id (its initialize request arrived); called before the answer is sent. */
  onsessioninitialized?: (id: string) => void;
  /** The client ended the session (DELETE). */
  onsessionclosed?: (id: string) => void;
  /** An answer still pending after this long turns into an SSE stream (default 1000 ms). */
  sseAfterMs?: number;
  /** A comment on idle SSE streams this often (default 15 s, as the SDK's transport). */
  keepAliveMs?: number;
}

/** Messages in one POST body at most (the SDK's limit). */
const MAX_BATCH = 100;

/** One POST that holds requests, until its last answer is sent. */
interface Exchange {
  res: ServerResponse;
  /** Request ids of this POST whose answer is not sent yet. */
  waiting: Set<RequestId>;
  /** Answers held for the JSON body, in the order they came. */
  answers: JSONRPCMessage[];
  batch: boolean;
  sse: boolean;
  done: boolean;
  timer: NodeJS.Timeout | null;
  keepAlive: NodeJS.Timeout | null;
  /**
   * Aborted when the response's connection closes before every answer was sent: this transport
   * keeps no stream to resume (no Last-Event-ID), so an answer can never reach the client then.
   */
  gone: AbortController;
}

/** Why a request's caller is gone when its POST's connection closed unanswered (the inbox and the log show it). */
export const CONNECTION_CLOSED = "the MCP client's connection closed before Gatehouse answered; Gatehouse keeps no stream to resume, so the answer could never reach it";

export class McpHttpTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private started = false;
  private closed = false;
  private initialized = false;
  private readonly exchanges = new Map<RequestId, Exchange>();
  private standalone: { res: ServerResponse; keepAlive: NodeJS.Timeout | null } | null = null;
  /** List-changed notifications sent while no GET stream was open, by method, for the next one. */
  private readonly unheard = new Map<string, JSONRPCMessage>();

  constructor(private readonly opts: McpHttpTransportOptions) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started');
    this.started = true;
  }

  /** Handles one request to this session (or the initialize request that creates it); `body` is the parsed POST body. */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (this.closed) return sendError(res, 404, -32001, 'Session not found');
    if (req.method === 'POST') return this.post(req, res, body);
    if (req.method === 'GET') return this.get(req, res);
    if (req.method === 'DELETE') return this.delete(req, res);
    res.setHeader('Allow', 'GET, POST, DELETE');
    return sendError(res, 405, -32000, 'Method not allowed.');
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answer = 'result' in message || 'error' in message;
    const id: RequestId | undefined = answer ? (message as { id: RequestId }).id : options?.relatedRequestId;
    if (id === undefined) {
      if (answer) throw new Error('Cannot send an answer on the session stream without its request');
      // Server-initiated (tools/list_changed): the session's GET stream, if the client opened one.
      if (this.standalone) writeEvent(this.standalone.res, message);
      // A list-changed notice before the client opened its stream (plugins that finished loading
      // right after it connected) is kept, one per kind, and sent when the stream opens: dropped,
      // the client would keep the list it read first until it happened to list again.
      else if ('method' in message && message.method.endsWith('/list_changed')) this.unheard.set(message.method, message);
      return;
    }
    const ex = this.exchanges.get(id);
    // Nobody to tell: the client closed this request's connection (it may send a cancel).
    if (!ex || ex.done) return;
    if (!answer) {
      this.toSse(ex);
      writeEvent(ex.res, message);
      return;
    }
    this.exchanges.delete(id);
    ex.waiting.delete(id);
    if (ex.sse) writeEvent(ex.res, message);
    else ex.answers.push(message);
    if (ex.waiting.size === 0) this.answer(ex);
  }

  /**
   * Aborted when the connection of the POST that carried this request closes before its answer.
   * Asked after the close (a handler that awaited first: the client's roots/list answer) no open
   * POST holds the request any more: already aborted, never "no signal" (fail closed). A call
   * asked then was left waiting in the inbox for nobody, and ran when an operator approved it.
   */
  requestGone(id: RequestId): AbortSignal {
    const ex = this.exchanges.get(id);
    return ex && !ex.done ? ex.gone.signal : AbortSignal.abort(CONNECTION_CLOSED);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Requests still running get an error answer, so a client learns at once instead of timing out.
    const open = new Set(this.exchanges.values());
    this.exchanges.clear();
    for (const ex of open) {
      for (const id of ex.waiting) ex.answers.push({ jsonrpc: '2.0', id, error: { code: -32000, message: 'The MCP session ended before this request was answered (Gatehouse stopped or the session was closed).' } });
      ex.waiting.clear();
      this.answer(ex);
    }
    this.endStandalone();
    this.onclose?.();
  }

  private async post(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const accept = header(req, 'accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return sendError(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!/^application\/json\s*(;|$)/i.test(header(req, 'content-type') ?? '')) {
      return sendError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const batch = Array.isArray(body);
    const raw = batch ? (body as unknown[]) : [body];
    if (raw.length === 0 || raw.length > MAX_BATCH) return sendError(res, 400, -32600, `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages`);
    let messages: JSONRPCMessage[];
    try {
      messages = raw.map((m) => JSONRPCMessageSchema.parse(m));
    } catch {
      return sendError(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    // A method name is enough to tell; the full schema check (slow when it fails) only for the one that claims it.
    const init = messages.some((m) => 'method' in m && m.method === 'initialize' && 'id' in m && isInitializeRequest(m));
    if (init) {
      if (this.initialized) return sendError(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return sendError(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.opts.sessionIdGenerator();
      this.initialized = true;
      this.opts.onsessioninitialized?.(this.sessionId);
    } else {
      const refused = this.checkSession(req, res);
      if (refused) return;
    }
    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers } };
    const requests = messages.filter((m): m is JSONRPCMessage & { id: RequestId; method: string } => 'method' in m && 'id' in m);
    if (requests.length === 0) {
      // Notifications and answers to the server's requests: accepted, nothing to answer.
      res.writeHead(202, this.headers({ 'Content-Length': 0 })).end();
      for (const m of messages) this.onmessage?.(m, extra);
      return;
    }
    const ids = new Set(requests.map((m) => m.id));
    if (ids.size < requests.length) return sendError(res, 400, -32600, 'Invalid Request: two requests in one batch share an id');
    if (requests.some((m) => this.exchanges.has(m.id))) return sendError(res, 409, -32600, 'Invalid Request: a request with this id is still running in this session');
    const ex: Exchange = { res, waiting: ids, answers: [], batch, sse: false, done: false, timer: null, keepAlive: null, gone: new AbortController() };
    for (const id of ids) this.exchanges.set(id, ex);
    ex.timer = setTimeout(() => this.toSse(ex), this.opts.sseAfterMs ?? 1000);
    ex.timer.unref();
    const closed = () => {
      if (ex.done) return;
      this.finish(ex);
      // One liveness rule: a call whose requester can no longer receive the answer is withdrawn
      // (a waiting approval closes as "agent gone" at once, never approvable for nobody).
      ex.gone.abort(CONNECTION_CLOSED);
      for (const id of ex.waiting) if (this.exchanges.get(id) === ex) this.exchanges.delete(id);
    };
    res.once('close', closed);
    // The close may have come while the body was read, before this listener: the socket says so too.
    if (req.socket.destroyed) closed();
    for (const m of messages) this.onmessage?.(m, extra);
  }

  private async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!(header(req, 'accept') ?? '').includes('text/event-stream')) {
      return sendError(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    }
    if (this.checkSession(req, res)) return;
    if (this.standalone) return sendError(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    res.writeHead(200, this.headers(SSE_HEADERS));
    res.flushHeaders();
    const stream = { res, keepAlive: this.keepAlive(res) };
    this.standalone = stream;
    for (const m of this.unheard.values()) writeEvent(res, m);
    this.unheard.clear();
    res.once('close', () => {
      if (stream.keepAlive) clearInterval(stream.keepAlive);
      if (this.standalone === stream) this.standalone = null;
    });
  }

  private async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.checkSession(req, res)) return;
    try {
      this.opts.onsessionclosed?.(this.sessionId!);
      res.writeHead(200, { 'Content-Length': 0 }).end();
    } finally {
      await this.close();
    }
  }

  /** Answers the request with an error and returns true when it does not belong to this session. */
  private checkSession(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.initialized) {
      sendError(res, 400, -32000, 'Bad Request: Server not initialized');
      return true;
    }
    const sid = header(req, 'mcp-session-id');
    if (!sid) {
      sendError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return true;
    }
    if (sid !== this.sessionId) {
      sendError(res, 404, -32001, 'Session not found');
      return true;
    }
    const version = header(req, 'mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      sendError(res, 400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
      return true;
    }
    return false;
  }

  /** Turns a pending JSON answer into an SSE stream (headers now, held answers first). */
  private toSse(ex: Exchange): void {
    if (ex.sse || ex.done) return;
    ex.sse = true;
    if (ex.timer) clearTimeout(ex.timer);
    ex.timer = null;
    ex.res.writeHead(200, this.headers(SSE_HEADERS));
    ex.res.flushHeaders();
    for (const m of ex.answers) writeEvent(ex.res, m);
    ex.answers = [];
    ex.keepAlive = this.keepAlive(ex.res);
  }

  /** Every request of the POST has its answer: ends the SSE stream, or sends the JSON body in one write. */
  private answer(ex: Exchange): void {
    if (ex.done) return;
    this.finish(ex);
    if (ex.sse) {
      for (const m of ex.answers) writeEvent(ex.res, m);
      ex.res.end();
      return;
    }
    const text = JSON.stringify(ex.batch ? ex.answers : ex.answers[0]);
    ex.res.writeHead(200, this.headers({ 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }));
    ex.res.end(text);
  }

  private finish(ex: Exchange): void {
    ex.done = true;
    if (ex.timer) clearTimeout(ex.timer);
    if (ex.keepAlive) clearInterval(ex.keepAlive);
    ex.timer = ex.keepAlive = null;
  }

  private keepAlive(res: ServerResponse): NodeJS.Timeout | null {
    const ms = this.opts.keepAliveMs ?? 15_000;
    if (!(ms > 0)) return null;
    const t = setInterval(() => {
      if (!res.writableEnded) res.write(': keepalive\n\n');
    }, ms);
    t.unref();
    return t;
  }

  private endStandalone(): void {
    const s = this.standalone;
    this.standalone = null;
    if (!s) return;
    if (s.keepAlive) clearInterval(s.keepAlive);
    s.res.end();
  }

  private headers(h: Record<string, string | number>): Record<string, string | number> {
    return this.sessionId !== undefined ? { ...h, 'mcp-session-id': this.sessionId } : h;
  }
}

const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' };

function writeEvent(res: ServerResponse, message: JSONRPCMessage): void {
  if (!res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A 401 on /mcp in the form MCP's authorization spec gives (RFC 6750 / RFC 9728): a
 * `WWW-Authenticate: Bearer` challenge and a JSON-RPC error body. There is no
 * `resource_metadata`: Gatehouse has no OAuth authorization server (the agent token comes from
 * the operator), so a client reads a plain "token required" instead of starting a login.
 */
export function sendMcpUnauthorized(res: ServerResponse, tokenGiven: boolean): void {
  const message = tokenGiven
    ? 'Wrong or revoked agent token: send Authorization: Bearer <agent token> (serve.json, or a named token from `gatehouse agent token create`).'
    : 'An agent token is required: send Authorization: Bearer <agent token> (serve.json, or a named token from `gatehouse agent token create`). Gatehouse does not use OAuth.';
  // RFC 6750 3.1: no error code when the request carried no credential at all.
  const challenge = tokenGiven ? `Bearer realm="gatehouse", error="invalid_token", error_description="wrong or revoked agent token"` : 'Bearer realm="gatehouse"';
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null });
  res.writeHead(401, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'WWW-Authenticate': challenge });
  res.end(text);
}
