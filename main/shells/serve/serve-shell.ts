// The serve shell: the host behind HTTP + WebSocket on loopback, for any browser.
// It knows no method by name: requests go to the host's dispatcher, events come from its bus.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { contentSecurityPolicy } from '../../../shared/csp.js';
import { encodeEvent } from '../../../shared/event-frame.js';
import type { CallContext, Dispatcher } from '../../host/dispatcher.js';
import { accessPolicy, hostAllowed, isWildcard, originAllowed, tokenFrom, tokenMatches, WS_PROTOCOL } from './guards.js';
import { ConsoleSessions, LINK_REFUSALS } from './console-session.js';
import { serveStatic } from './static-files.js';
import { readBody } from '../../core/http-body.js';
import { CLAUDE_HOOK_PATH, isAgentPath, refuseHook, type AgentHandler, type HookRefusalSink } from '../../gateway/agent-routes.js';
import type { AgentIdentity } from '../../gateway/agent-tokens.js';
import { sendMcpUnauthorized } from '../../gateway/mcp-http-transport.js';

/** What the serve shell needs from the host: a transport-free core. */
export interface ServeHost {
  dispatcher: Dispatcher;
  bus: { subscribe(listener: (name: string, payload: unknown) => void, wants?: (name: string) => boolean): () => void };
  operatorConnected(ctx: CallContext, details: Record<string, unknown>): () => void;
}

/** Agents' routes (/mcp, /hooks/…), reachable only with an agent token. */
export interface AgentIngress {
  /** The agent a token belongs to (its name is what calls are filed under), or null: refused. */
  authenticate(token: string | undefined): AgentIdentity | null;
  handle: AgentHandler;
  /** Records a hook request refused here (bad token, Host, Origin): hook.refused in the audit log. */
  refused?: HookRefusalSink;
}

export interface ServeOptions {
  host: ServeHost;
  bindHost: string;
  port: number;
  token: string;
  staticDir: string;
  operator: string;
  /** Extra Host names to accept (a non-loopback bind reached through a DNS name). */
  extraHosts?: string[];
  agent?: AgentIngress;
  /** The clock for console links and sessions (tests move it to expire them). */
  now?: () => number;
}

export interface ServeShell {
  url: string;
  port: number;
  /**
   * A console URL for the operator with a fresh one-time code in its fragment (console-session.ts):
   * the operator token itself never enters a URL.
   */
  newConsoleUrl(): string;
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;
/** An exchange body is `{"code": "…"}`. */
const MAX_EXCHANGE_BODY = 4096;
const MAX_WS_MESSAGE = 1 << 20;
/** A console that stops reading must not make the host buffer events forever. */
const MAX_WS_BUFFERED = 16 << 20;

/**
 * How long an idle keep-alive connection stays open. Agents' HTTP clients reuse one for their next
 * call; Node's default closes it after 5 s, and a client whose own expiry ran late (undici's
 * timers have a second's resolution, and a GC or a busy machine holds its loop) sends its call on
 * a connection the host is closing: the call fails in transport ("other side closed"; 15–33 calls
 * in each of four 10-minute soaks, in bursts; none since), and Claude Code runs a tool whose hook
 * failed. Clients read this from the Keep-Alive header; it is longer than the idle times HTTP
 * clients keep on their own (hyper's 90 s, curl's 118 s), so the client is the one to close.
 */
export const IDLE_CONNECTION_MS = 120_000;

export async function startServeShell(opts: ServeOptions): Promise<ServeShell> {
  const server = createServer({ keepAliveTimeout: IDLE_CONNECTION_MS });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_WS_MESSAGE,
    handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const policy = accessPolicy(opts.bindHost, port, opts.token, opts.extraHosts);
  const displayHost = opts.bindHost.includes(':') ? `[${opts.bindHost}]` : opts.bindHost;
  const url = `http://${displayHost}:${port}/`;
  const sessions = new ConsoleSessions(opts.token, opts.now);
  // A browser is sent to loopback even when every address is bound: Chromium refuses to
  // navigate to 0.0.0.0, and the Host check accepts loopback names for a wildcard bind.
  const linkBase = isWildcard(opts.bindHost) ? `http://${opts.bindHost.includes(':') ? '[::1]' : '127.0.0.1'}:${port}/` : url;
  const newConsoleLink = () => {
    const { code, expiresAt } = sessions.newCode();
    return { url: `${linkBase}#code=${code}`, expiresAt };
  };
  const wsOrigins = [...policy.allowedHosts].map((h) => `ws://${h}`);
  const securityHeaders = {
    'Content-Security-Policy': contentSecurityPolicy({ connect: wsOrigins, frameAncestors: true }),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };

  server.on('request', (req, res) => {
    handleHttp(req, res).catch((err) => {
      console.error('gatehouse: request failed', err);
      if (!res.headersSent && isHookPath(req)) refuseHook(res, 'an internal error stopped Gatehouse from checking this call; it fails closed.', 'internal', opts.agent?.refused);
      else if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: 'internal', message: 'internal error' } });
      else res.destroy();
    });
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Claude Code runs the tool after an HTTP hook that answers an error status, so the hook path
    // answers each refusal 200 with a deny decision (refuseHook), the others with their status.
    const hook = opts.agent !== undefined && isHookPath(req);
    if (!hostAllowed(policy, req)) return hook ? refuseHook(res, 'the Host header is not one this Gatehouse serves.', 'bad-host', opts.agent?.refused) : sendJson(res, 403, { ok: false, error: { code: 'forbidden', message: 'Host not allowed.' } });
    if (!originAllowed(policy, req)) return hook ? refuseHook(res, 'the Origin header is not allowed.', 'bad-origin', opts.agent?.refused) : sendJson(res, 403, { ok: false, error: { code: 'forbidden', message: 'Origin not allowed.' } });
    const path = (req.url ?? '/').split('?')[0]!;
    if (opts.agent && isAgentPath(path)) {
      // Two tokens, two powers: the operator token does not open these, and the agent token opens nothing else.
      const agent = opts.agent.authenticate(tokenFrom(req));
      if (!agent && hook) return refuseHook(res, 'missing or wrong agent token (the HTTP hook must send Authorization: Bearer <agent token>, the agent token from serve.json).', 'bad-token', opts.agent.refused);
      // MCP clients read the Bearer challenge and a JSON-RPC body (else the Inspector starts an OAuth login).
      if (!agent && path === '/mcp') return sendMcpUnauthorized(res, Boolean(tokenFrom(req)));
      if (!agent) return sendJson(res, 401, { ok: false, error: { code: 'unauthorized', message: 'Missing or wrong agent token (send Authorization: Bearer <agent token> from serve.json).' } });
      return opts.agent.handle(req, res, path, agent);
    }
    if (path.startsWith('/api/') || path === '/ws') {
      // The one route open without a credential: the one-time code is the credential.
      if (path === EXCHANGE_PATH && req.method === 'POST') return handleExchange(req, res);
      const given = tokenFrom(req);
      const operator = tokenMatches(given, policy.token);
      if (!operator && !sessions.valid(given)) return unauthorized(res);
      if (path === '/api/session' && req.method === 'GET') {
        // A console's session slides: each check hands it a credential good for 12 more hours.
        const renewed = operator ? {} : (sessions.renew(given) ?? {});
        return sendJson(res, 200, { ok: true, result: { shell: 'serve', methods: opts.host.dispatcher.methodNames, ...renewed } });
      }
      if (path === LINK_PATH && req.method === 'POST') {
        // Only the operator token (the CLI, reading the home) mints links: a console session
        // that leaked cannot turn itself into fresh, unexpired ones.
        if (!operator) return sendJson(res, 403, { ok: false, error: { code: 'forbidden', message: 'Console links are made with the operator token (gatehouse url), not a console session.' } });
        return sendJson(res, 200, { ok: true, result: newConsoleLink() });
      }
      if (path === '/api/call' && req.method === 'POST') return handleCall(req, res);
      return sendJson(res, 404, { ok: false, error: { code: 'bad_request', message: `No API route ${req.method} ${path}.` } });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { ok: false, error: { code: 'bad_request', message: 'Method not allowed.' } });
    if (!serveStatic(opts.staticDir, path, res, securityHeaders)) {
      if (path === '/' || path === '/index.html') {
        res.writeHead(503, { ...securityHeaders, 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`The console is not built (no index.html in ${opts.staticDir}). Run: npm run build\n`);
        return;
      }
      res.writeHead(404, { ...securityHeaders, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Not found\n');
    }
  }

  async function handleCall(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A JSON content type cannot be sent cross-site without a CORS preflight, which we never grant.
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return sendJson(res, 415, { ok: false, error: { code: 'bad_request', message: 'Send the call as Content-Type: application/json.' } });
    }
    const body = await readBody(req, MAX_BODY);
    if (body === null) return sendJson(res, 413, { ok: false, error: { code: 'bad_request', message: `Request body over ${MAX_BODY} bytes.` } });
    let msg: unknown;
    try {
      msg = JSON.parse(body);
    } catch (err) {
      return sendJson(res, 400, { ok: false, error: { code: 'bad_request', message: `Request body is not JSON: ${(err as Error).message}.` } });
    }
    if (!isObject(msg)) return sendJson(res, 400, { ok: false, error: { code: 'bad_request', message: 'Request body must be an object {"method": ..., "params": ...}.' } });
    const envelope = await opts.host.dispatcher.dispatch(msg.method, msg.params, { console: 'cli', operator: opts.operator });
    sendJson(res, 200, envelope);
  }

  async function handleExchange(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return sendJson(res, 415, { ok: false, error: { code: 'bad_request', message: 'Send the code as Content-Type: application/json {"code": "…"}.' } });
    }
    const body = await readBody(req, MAX_EXCHANGE_BODY);
    let code: unknown;
    try {
      code = body === null ? undefined : (JSON.parse(body) as { code?: unknown } | null)?.code;
    } catch {
      code = undefined;
    }
    if (typeof code !== 'string') return sendJson(res, 400, { ok: false, error: { code: 'bad_request', message: 'The body must be {"code": "…"}, the code from the console URL (after #code=).' } });
    const r = sessions.exchange(code);
    if (!r.ok) return sendJson(res, 401, { ok: false, error: { code: 'unauthorized', message: LINK_REFUSALS[r.reason], details: { reason: r.reason } } });
    sendJson(res, 200, { ok: true, result: { session: r.session, expiresAt: r.expiresAt } });
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0];
    const reject = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (!hostAllowed(policy, req)) return reject(403, 'Forbidden');
    if (!originAllowed(policy, req)) return reject(403, 'Forbidden');
    if (path !== '/ws') return reject(404, 'Not Found');
    const given = tokenFrom(req);
    const operator = tokenMatches(given, policy.token);
    const until = operator ? null : sessions.endOf(given);
    if (!operator && until === null) return reject(401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, req, socket, until));
  });

  /**
   * Sockets a console session let in, with when that session ends. Security-sensitive: the
   * session was checked only at the upgrade, so a socket kept its operator rights past the
   * session's end (and past the 7-day cap). Checked before each frame it sends and each event it
   * is sent; past it the socket is closed and the console, reconnecting, needs a valid session
   * (its renewed one, or a new console URL).
   */
  const sessionEnds = new Map<WebSocket, number>();
  const endedSession = (ws: WebSocket): boolean => {
    const until = sessionEnds.get(ws);
    if (until === undefined || !sessions.passed(until)) return false;
    ws.close(4401, 'console session expired');
    return true;
  };

  /** Each console's WebSocket and the TCP socket under it (corked while a turn of the loop sends). */
  const sockets = new Map<WebSocket, Duplex>();
  const corked = new TickCork();
  /** Every frame to a console goes through here. */
  const send = (ws: WebSocket, frame: string | Uint8Array) => {
    corked.cork(sockets.get(ws));
    ws.send(frame);
  };
  const unsubscribe = opts.host.bus.subscribe((name, payload) => {
    if (sockets.size === 0) return;
    // Text (JSON), or binary for an event that carries bytes (shared/event-frame.ts); made once for every console.
    const frame = encodeEvent(name, payload, Buffer.allocUnsafe);
    for (const ws of sockets.keys()) {
      if (endedSession(ws)) continue;
      if (ws.bufferedAmount > MAX_WS_BUFFERED) {
        ws.close(1013, 'console too slow to read events');
        continue;
      }
      send(ws, frame);
    }
    // With no console connected nothing is sent, so nothing is validated either (EventBus).
  }, () => sockets.size > 0);

  function onConnection(ws: WebSocket, req: IncomingMessage, socket: Duplex, until: number | null): void {
    sockets.set(ws, socket);
    if (until !== null) sessionEnds.set(ws, until);
    const ctx: CallContext = { console: 'serve', operator: opts.operator };
    const left = opts.host.operatorConnected(ctx, { remote: req.socket.remoteAddress ?? null, userAgent: req.headers['user-agent'] ?? null });
    ws.on('close', () => {
      sockets.delete(ws);
      sessionEnds.delete(ws);
      left();
    });
    ws.on('error', () => ws.terminate());
    ws.on('message', (data, isBinary) => {
      void onMessage(ws, ctx, isBinary ? null : data.toString());
    });
  }

  async function onMessage(ws: WebSocket, ctx: CallContext, text: string | null): Promise<void> {
    if (endedSession(ws)) return;
    let msg: unknown;
    try {
      if (text === null) throw new Error('binary frames are not part of the protocol');
      msg = JSON.parse(text);
    } catch (err) {
      send(ws, JSON.stringify({ id: null, ok: false, error: { code: 'bad_request', message: `Frame is not JSON: ${(err as Error).message}.` } }));
      return;
    }
    if (!isObject(msg) || (typeof msg.id !== 'number' && typeof msg.id !== 'string')) {
      send(ws, JSON.stringify({ id: null, ok: false, error: { code: 'bad_request', message: 'Frame must be {"id": number|string, "method": string, "params": object}.' } }));
      return;
    }
    const envelope = await opts.host.dispatcher.dispatch(msg.method, msg.params, ctx);
    if (ws.readyState === ws.OPEN) send(ws, JSON.stringify({ id: msg.id, ...envelope }));
  }

  return {
    url,
    port,
    newConsoleUrl: () => newConsoleLink().url,
    async close() {
      unsubscribe();
      for (const ws of sockets.keys()) ws.close(1001, 'host stopping');
      wss.close();
      // Answers already written (the MCP errors above, a hook's deny) get a moment to reach their
      // clients; what is still open after it is cut.
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), 1000);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      clearTimeout(cut);
    },
  };
}

/**
 * Holds a console's socket corked for the rest of a turn of the event loop, so the frames that
 * turn sends leave in one write. Why: a turn of a busy host sends several (a call's approval,
 * grants and terminal changes, the audit log's commits, a reply): 4.5 on average under the soak's
 * 40 agents, and each frame written alone was a system call that also woke the console's process,
 * about 4% of the host thread's time. Nothing waits longer than the turn that sent it (the
 * uncork runs in the same turn's check phase), and the frames' order is the order they were sent.
 */
export class TickCork {
  private readonly held = new Set<Duplex>();
  private scheduled = false;

  cork(socket: Duplex | undefined): void {
    if (!socket || this.held.has(socket) || socket.destroyed) return;
    socket.cork();
    this.held.add(socket);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.release());
  }

  /** Writes what every corked socket holds (a socket closed meanwhile has nothing left to write). */
  release(): void {
    this.scheduled = false;
    for (const socket of this.held) socket.uncork();
    this.held.clear();
  }
}

/** Where a console trades its one-time code for a session. */
export const EXCHANGE_PATH = '/api/session/exchange';
/** Where the CLI (operator token) asks for a fresh console URL. */
export const LINK_PATH = '/api/console-link';

function unauthorized(res: ServerResponse): void {
  sendJson(res, 401, { ok: false, error: { code: 'unauthorized', message: 'Missing, wrong or expired credential: send the operator token, or a console session (open a new console URL from `gatehouse url`).' } });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}


function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isHookPath(req: IncomingMessage): boolean {
  return (req.url ?? '/').split('?')[0] === CLAUDE_HOOK_PATH;
}
