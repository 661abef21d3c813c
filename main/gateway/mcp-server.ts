// Gatehouse as an MCP server to agents (PROTOCOLS.md section 4): Streamable HTTP at /mcp, one
// SDK Server and transport (mcp-http-transport.ts) per MCP session. The stdio bridge
// (`gatehouse mcp`) relays to this same endpoint, so both forms behave the same.
//
// - tools/list: the gateway's tools (enabled plugin tools, exposed upstream tools, the shell);
//   `notifications/tools/list_changed` goes to every session when that list changes.
// - tools/call: through the gateway's pipeline. While the call waits for an operator, progress
//   notifications keep the client informed (and, with resetTimeoutOnProgress, alive).
// - A call that did not run (denied, expired, dry-run) is a tool result with isError: true whose
//   text gives the reason and the decider; `_meta.gatehouse` carries the same as data.
//
// Authentication (the agent token), Host and Origin are checked by the shell before this runs;
// each MCP session belongs to the agent whose token opened it, and calls are filed under that
// agent and the session's random id.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describeDecider } from '../pipeline/call-pipeline.js';
import type { Gateway, GatewayResult } from './gateway.js';
import { readBody } from '../host/http-body.js';
import { McpHttpTransport, sendError } from './mcp-http-transport.js';
import { boundSession, type AgentIdentity } from './agent-tokens.js';

export interface McpGatewayDeps {
  gateway: Gateway;
  version: string;
  /** Working directory for calls that name none. */
  log?: (msg: string, err?: unknown) => void;
  /** How often a waiting call reports progress (default 5 s). */
  progressIntervalMs?: number;
  /** Largest request body (default 4 MiB). */
  maxBodyBytes?: number;
  /** Sessions kept at most; the oldest idle one is closed past it (default 256). */
  maxSessions?: number;
  /** An MCP session ended (DELETE, eviction, shutdown): per-session state (taint) can go. */
  sessionEnded?: (id: string) => void;
}

interface Session {
  /** The agent whose token opened the session; only that agent's requests reach it. */
  agent: string;
  server: Server;
  transport: McpHttpTransport;
  lastUsed: number;
}

export class McpGateway {
  private readonly sessions = new Map<string, Session>();
  private closed = false;

  constructor(private readonly deps: McpGatewayDeps) {}

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Handles one HTTP request to /mcp (POST, GET for the notification stream, DELETE to end a session). */
  async handle(req: IncomingMessage, res: ServerResponse, agent: AgentIdentity): Promise<void> {
    if (this.closed) return sendError(res, 503, -32000, 'Gatehouse is stopping.');
    const sid = header(req, 'mcp-session-id');
    let body: unknown;
    if (req.method === 'POST') {
      const text = await readBody(req, this.deps.maxBodyBytes ?? 4 << 20);
      if (text === null) return sendError(res, 413, -32600, `Request body over ${this.deps.maxBodyBytes ?? 4 << 20} bytes.`);
      try {
        body = JSON.parse(text);
      } catch (err) {
        return sendError(res, 400, -32700, `Parse error: ${(err as Error).message}.`);
      }
    } else if (req.method !== 'GET' && req.method !== 'DELETE') {
      return sendError(res, 405, -32000, `Method ${req.method} is not used by MCP's Streamable HTTP transport.`);
    }
    if (sid !== undefined) {
      const s = this.sessions.get(sid);
      // Another token's session reads as unknown: a session id is no credential to borrow with.
      if (!s || s.agent !== agent.name) return sendError(res, 404, -32001, 'Unknown or ended MCP session; initialize a new one.');
      s.lastUsed = Date.now();
      return s.transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      const s = await this.newSession(agent.name);
      await s.transport.handleRequest(req, res, body);
      return;
    }
    return sendError(res, 400, -32000, 'No MCP session: send an initialize request first (without an Mcp-Session-Id header).');
  }

  /** Ends every session an agent opened (its token was revoked): its calls stop at once. */
  endSessionsOf(agent: string): void {
    for (const [id, s] of [...this.sessions.entries()]) {
      if (s.agent !== agent) continue;
      this.sessions.delete(id);
      this.deps.sessionEnded?.(id);
      void s.server.close().catch(() => {});
    }
  }

  /** Tells every session the tool list changed. */
  toolsChanged(): void {
    for (const s of this.sessions.values()) {
      s.server.sendToolListChanged().catch((err) => this.deps.log?.('tools/list_changed failed', err));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.server.close()));
  }

  private async newSession(agent: string): Promise<Session> {
    const server = new Server({ name: 'gatehouse', version: this.deps.version }, { capabilities: { tools: { listChanged: true } } });
    const transport = new McpHttpTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
        this.evict();
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
        this.deps.sessionEnded?.(id);
      },
    });
    const session: Session = { agent, server, transport, lastUsed: Date.now() };
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.deps.gateway.tools().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object' } })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const client = server.getClientVersion();
      const token = request.params._meta?.progressToken;
      let progress = 0;
      let timer: NodeJS.Timeout | null = null;
      const report = (message: string) => {
        if (token === undefined) return;
        progress += 1;
        extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => {});
      };
      try {
        const r = await this.deps.gateway.call(
          {
            // Who the token says, in the session this transport made (a random id bound to that
            // agent); the client's own name is only a label.
            agent,
            client: client?.name ?? 'mcp-client',
            session: transport.sessionId ?? boundSession(agent, 'mcp'),
            tool: request.params.name,
            arguments: (request.params.arguments as Record<string, unknown> | undefined) ?? {},
            source: 'mcp',
          },
          {
            onWaiting: (w) => {
              const text = `Waiting for an operator to approve in Gatehouse (approval ${w.approval}; asked by ${describeDecider(w.askedBy)}: ${w.reason})`;
              report(text);
              timer = setInterval(() => report(text), this.deps.progressIntervalMs ?? 5000);
            },
          },
        );
        return toolResult(r);
      } finally {
        if (timer) clearInterval(timer);
      }
    });
    await server.connect(transport);
    return session;
  }

  /** Past the cap, the least recently used sessions go (a client that never says DELETE). */
  private evict(): void {
    const max = this.deps.maxSessions ?? 256;
    if (this.sessions.size <= max) return;
    const byAge = [...this.sessions.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [id, s] of byAge.slice(0, this.sessions.size - max)) {
      this.sessions.delete(id);
      this.deps.sessionEnded?.(id);
      void s.server.close().catch(() => {});
    }
  }
}

/** The MCP tool result for a gateway result. */
export function toolResult(r: GatewayResult): CallToolResult {
  const meta = {
    gatehouse: {
      call: r.call.id,
      decision: r.decision,
      decider: r.decider,
      reason: r.reason,
      executed: r.executed,
      mode: r.mode ?? null,
      /** Each step of the pipeline, who decided it and how long it took. */
      steps: r.steps.map((s) => ({ step: s.step, ...(s.decision !== undefined ? { decision: s.decision } : {}), ms: Math.round(s.ms * 1000) / 1000 })),
      ...(r.approval ? { approval: r.approval } : {}),
    },
  };
  if (r.executed && r.result) {
    const res = r.result;
    if (res.ok) {
      return {
        content: (r.content as CallToolResult['content'] | undefined) ?? [{ type: 'text', text: JSON.stringify(res.output) }],
        ...(r.structuredContent !== undefined && isRecord(r.structuredContent) ? { structuredContent: r.structuredContent } : {}),
        _meta: meta,
      };
    }
    const text = `The tool ran and failed: ${res.error ?? 'unknown error'}${res.stderr ? `\nstderr (end): ${res.stderr}` : ''}`;
    return { content: [...((r.content as CallToolResult['content'] | undefined) ?? []), { type: 'text', text }], isError: true, _meta: meta };
  }
  const by = describeDecider(r.decider);
  let text: string;
  if (r.decision === 'expired') text = `Gatehouse: expired. ${r.reason} (asked by ${by})`;
  else if (r.decision === 'allow') text = `Gatehouse did not execute this call: ${r.reason}`;
  else if (r.decision === 'ask') text = `Gatehouse: an operator must approve this call (${by}): ${r.reason}`;
  else text = `Gatehouse denied this call. Decided by ${by}. Reason: ${r.reason}`;
  return { content: [{ type: 'text', text }], isError: true, _meta: meta };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
