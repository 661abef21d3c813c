// Gatehouse as an MCP server to agents (docs/protocols.md §4): Streamable HTTP at /mcp, one
// SDK Server and transport (mcp-http-transport.ts) per MCP session. The stdio bridge
// (`gatehouse mcp`) relays to this same endpoint, so both forms behave the same.
//
// - tools/list: the gateway's tools (enabled plugin tools, exposed upstream tools, the shell);
//   `notifications/tools/list_changed` goes to every session when that list changes.
// - tools/call: through the gateway's pipeline. While the call waits for an operator, progress
//   notifications keep the client informed (and, with resetTimeoutOnProgress, alive).
// - A call that did not run (denied, expired, dry-run) is a tool result with isError: true whose
//   text gives the reason and the decider; `_meta.gatehouse` carries the same as data. A call
//   that ran also says there whether it was `sandboxed` and, for WebAssembly, its `fuel`.
//
// - tools/list carries each tool's title, annotations (tool-annotations.ts) and outputSchema.
// - A call to an unknown tool, or with arguments its inputSchema rules out, is a JSON-RPC error
//   -32602 (InvalidParams) naming the tool or field, before anything reaches the pipeline.
// - The agent's working folder: its first MCP root (roots/list, asked on the first call when the
//   client has roots), else the folder the stdio bridge runs in (the Gatehouse-Agent-Cwd header
//   of its initialize request), else the host's. Calls are judged and run there.
// - An approval never outlives the client's wait (clientDeadlineMs); a cancelled request or an
//   ended session withdraws its waiting inbox item, so nobody can approve a call nobody awaits.
//
// Authentication (the agent token), Host and Origin are checked by the shell before this runs;
// each MCP session belongs to the agent whose token opened it, and calls are filed under that
// agent and the session's random id.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
  isInitializeRequest,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import { checkArguments } from './tool-arguments.js';
import { describeDecider } from '../pipeline/call-pipeline.js';
import type { Gateway, GatewayResult } from './gateway.js';
import { readBody } from '../core/http-body.js';
import { AGENT_CWD_HEADER } from './agent-cwd-header.js';
import { McpHttpTransport, sendError } from './mcp-http-transport.js';
import { describeIssues } from '../core/handlers.js';
import { executionFacts } from './execution-facts.js';
import { boundSession, cleanLabel, type AgentIdentity } from './agent-tokens.js';

export interface McpGatewayDeps {
  gateway: Gateway;
  version: string;
  /** Working directory for calls that name none. */
  log?: (msg: string, err?: unknown) => void;
  /** How often a waiting call reports progress (default 5 s). */
  progressIntervalMs?: number;
  /** Largest request body (default 4 MiB). */
  maxBodyBytes?: number;
  /**
   * Sessions kept at most per agent (its token); past it that agent's least recently used session
   * with no request in flight is closed, and with none such its new session is refused (default 256).
   */
  maxSessions?: number;
  /** An MCP session ended (DELETE, eviction, shutdown): per-session state (taint) can go. */
  sessionEnded?: (id: string) => void;
  /** Tool-call timeouts of MCP clients by clientInfo.name, in seconds (settings `mcpClientTimeouts`). */
  clientTimeouts?: () => Readonly<Record<string, number>> | undefined;
  /** How long a client may take to answer roots/list (default 5 s); past it the call uses the next folder. */
  rootsTimeoutMs?: number;
}

/**
 * Codex's `tool_timeout_sec` when its config.toml sets none (its MCP client's default, 300 s):
 * a call ends at exactly that time however much progress arrives, then Codex sends
 * notifications/cancelled and ends the session.
 */
export const CODEX_DEFAULT_TOOL_TIMEOUT_S = 300;
/**
 * Tool-call timeouts (seconds) of clients Gatehouse knows, by clientInfo.name, used when the
 * settings name no timeout for that client.
 */
export const KNOWN_CLIENT_TIMEOUTS: Readonly<Record<string, number>> = Object.freeze({ 'codex-mcp-client': CODEX_DEFAULT_TOOL_TIMEOUT_S });
/** A client that sends no progress token cannot be kept waiting past its request timeout: the SDK's (and the Inspector's) is 60 s. */
export const NO_PROGRESS_TIMEOUT_S = 60;
/** Gatehouse answers this much before the client would give up. */
export const DEADLINE_MARGIN_MS = 5000;

/**
 * The longest an approval may wait for this client, or undefined when the client keeps waiting
 * as long as progress arrives (then the approval expiry setting alone applies).
 */
export function clientDeadlineMs(client: string | undefined, sendsProgress: boolean, configured: Readonly<Record<string, number>> = {}): number | undefined {
  const name = client ?? '';
  const seconds = Object.hasOwn(configured, name) ? configured[name] : Object.hasOwn(KNOWN_CLIENT_TIMEOUTS, name) ? KNOWN_CLIENT_TIMEOUTS[name] : sendsProgress ? undefined : NO_PROGRESS_TIMEOUT_S;
  if (seconds === undefined || !(seconds > 0)) return undefined;
  return Math.max(1000, seconds * 1000 - DEADLINE_MARGIN_MS);
}

interface Session {
  /** The agent whose token opened the session; only that agent's requests reach it. */
  agent: string;
  server: Server;
  transport: McpHttpTransport;
  lastUsed: number;
  /** POST requests of this session not yet answered (a call waiting for an operator): never evicted while any are. */
  busy: number;
  /** The stdio bridge's own folder (Gatehouse-Agent-Cwd), when it sent one. */
  bridgeCwd: string | null;
  /** The client's first root as a folder, asked once (again after roots/list_changed). */
  roots: Promise<string | null> | null;
}

/** tools/call as the SDK defines it, with `arguments` left for the handler to check. */
const ToolsCallParams = CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() });
// `params` is checked in the handler: the SDK answers a request that fails this schema with -32603
// and the validator's dump, where a missing or malformed `params` is the caller's mistake (-32602).
const ToolsCallSchema = CallToolRequestSchema.extend({ params: z.unknown().optional() });
type ToolsCallExtra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1];

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
      if (req.method === 'POST') {
        s.busy++;
        res.once('close', () => s.busy--);
      }
      return s.transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      const cwd = agentCwd(header(req, AGENT_CWD_HEADER));
      if (cwd !== null && !cwd.ok) return sendError(res, 400, -32600, cwd.message);
      if (this.full(agent.name)) return sendError(res, 503, -32000, `This agent already has ${this.maxSessions} MCP sessions open, each with a request in flight; end one (DELETE) or wait for one to be answered.`);
      const s = await this.newSession(agent.name, cwd?.path ?? null);
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

  private async newSession(agent: string, bridgeCwd: string | null): Promise<Session> {
    const server = new Server({ name: 'gatehouse', version: this.deps.version }, { capabilities: { tools: { listChanged: true } } });
    const transport = new McpHttpTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
        this.evict(agent);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
        this.deps.sessionEnded?.(id);
      },
    });
    const session: Session = { agent, server, transport, lastUsed: Date.now(), busy: 0, bridgeCwd, roots: null };
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      await this.deps.gateway.whenStarted();
      return {
        tools: this.deps.gateway.tools().map(
          (t): Tool => ({
            name: t.name,
            ...(t.title ? { title: t.title } : {}),
            description: t.description,
            inputSchema: t.inputSchema as Tool['inputSchema'],
            ...(t.outputSchema ? { outputSchema: t.outputSchema as Tool['outputSchema'] } : {}),
            ...(t.annotations ? { annotations: { ...t.annotations } } : {}),
          }),
        ),
      };
    });
    // The folder may change (the user opened another project): ask again on the next call.
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      session.roots = null;
    });
    // Registered past the SDK Server's own tools/call wrapper: that one parses `arguments` as a
    // record first and answers an array or a string with "internal error" (or a zod dump); the
    // handler checks them against the tool's schema itself and names the field (-32602).
    Protocol.prototype.setRequestHandler.call(server, ToolsCallSchema, async (request: z.infer<typeof ToolsCallSchema>, extra: ToolsCallExtra): Promise<CallToolResult> => {
      const client = server.getClientVersion();
      const parsed = ToolsCallParams.safeParse(request.params);
      if (!parsed.success) {
        const why = request.params === undefined || request.params === null ? 'the request has none' : describeIssues(parsed.error).message;
        throw new McpError(ErrorCode.InvalidParams, `tools/call needs params {"name": "<tool>", "arguments": {…}}: ${why}.`);
      }
      const params = parsed.data;
      const name = params.name;
      await this.deps.gateway.whenStarted();
      const tool = this.deps.gateway.find(name);
      // Protocol errors, as MCP says for an unknown tool and invalid arguments: nothing was decided.
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name)}. Gatehouse has no enabled tool by that name; tools/list gives the current ones.`);
      const args = params.arguments ?? {};
      const checked = checkArguments(name, tool.inputSchema, args);
      if (!checked.ok) throw new McpError(ErrorCode.InvalidParams, checked.message);
      if (server.getClientCapabilities()?.roots) {
        // Asked on this call's own stream: a client's GET stream may not be open yet.
        session.roots ??= extra
          .sendRequest({ method: 'roots/list' }, ListRootsResultSchema, { timeout: this.deps.rootsTimeoutMs ?? 5000 })
          .then((r) => firstRootFolder(r.roots))
          .catch((err) => {
            this.deps.log?.('roots/list failed; using the next working folder', err);
            session.roots = null;
            return null;
          });
      }
      const cwd = (session.roots ? await session.roots : null) ?? session.bridgeCwd;
      const token = params._meta?.progressToken;
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
            tool: name,
            arguments: args as Record<string, unknown>,
            ...(cwd ? { cwd } : {}),
            source: 'mcp',
          },
          {
            signal: withdrawSignal(extra.signal, transport.requestGone(extra.requestId)),
            ...deadlineOption(client?.name, token !== undefined, this.deps.clientTimeouts?.() ?? {}),
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

  private get maxSessions(): number {
    return this.deps.maxSessions ?? 256;
  }

  /** The sessions one agent opened, least recently used first. */
  private sessionsOf(agent: string): Array<[string, Session]> {
    return [...this.sessions.entries()].filter(([, s]) => s.agent === agent).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
  }

  /** The agent is at its cap and none of its sessions could make room (each has a request in flight). */
  private full(agent: string): boolean {
    const own = this.sessionsOf(agent);
    return own.length >= this.maxSessions && own.every(([, s]) => s.busy > 0);
  }

  /**
   * Past the agent's cap, its least recently used idle sessions go (a client that never says
   * DELETE). Security-sensitive: one cap for all agents, least recently used first, let any agent
   * token end every other agent's sessions, calls waiting for an operator included, by opening
   * a few hundred of its own.
   */
  private evict(agent: string): void {
    const own = this.sessionsOf(agent);
    let over = own.length - this.maxSessions;
    for (const [id, s] of own) {
      if (over <= 0) break;
      if (s.busy > 0) continue;
      over--;
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
      // Only for a call that ran: whether the sandbox held it, and a WebAssembly plugin's fuel.
      ...(r.executed && r.result ? executionFacts(r.result) : {}),
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
    // A crash's message already ends with the stderr tail: add it only when it is not there.
    const tail = res.stderr.trim();
    const error = res.error ?? 'unknown error';
    const text = `The tool ran and failed: ${error}${tail && !error.includes(tail) ? `\nstderr (end): ${tail}` : ''}`;
    return { content: [...((r.content as CallToolResult['content'] | undefined) ?? []), { type: 'text', text }], isError: true, _meta: meta };
  }
  const by = describeDecider(r.decider);
  let text: string;
  // An error is not who asked (a wait that ran out carries the error that ended it): only a real asker is named.
  if (r.decision === 'expired') text = `Gatehouse: expired. ${r.reason}${r.decider.kind === 'error' ? '' : ` (asked by ${by})`}`;
  // Allowed but refused by the runner (an open breaker, a full queue): its sentence says why.
  else if (r.decision === 'allow') text = `Gatehouse did not execute this call: ${r.result?.error ?? r.reason}`;
  else if (r.decision === 'ask') text = `Gatehouse: an operator must approve this call (${by}): ${r.reason}`;
  else text = `Gatehouse denied this call. Decided by ${by}. Reason: ${r.reason}`;
  return { content: [{ type: 'text', text }], isError: true, _meta: meta };
}

/**
 * The signal the pipeline withdraws a waiting approval on, with a reason fit for the inbox and
 * the audit log: a cancel's reason is the client's text, so it is bounded and its control, bidi
 * and zero-width characters are replaced.
 */
function withdrawSignal(signal: AbortSignal, connection?: AbortSignal): AbortSignal {
  const ac = new AbortController();
  const forward = () => {
    if (ac.signal.aborted) return;
    const r: unknown = signal.reason;
    const text = typeof r === 'string' && r.trim() !== '' ? r.replace(/[\p{Cc}\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu, '?').slice(0, 200) : null;
    ac.abort(text ? `the MCP client cancelled the call (${text})` : 'the MCP client cancelled the call or its session ended');
  };
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  // The request's connection closed unanswered (a killed client, an aborted fetch): no cancel comes.
  const dropped = () => {
    if (!ac.signal.aborted) ac.abort(String(connection?.reason ?? 'the MCP client\'s connection closed'));
  };
  if (connection?.aborted) dropped();
  else connection?.addEventListener('abort', dropped, { once: true });
  return ac.signal;
}

/** The pipeline's per-call deadline for this client, with the words the inbox shows beside its countdown. */
function deadlineOption(client: string | undefined, sendsProgress: boolean, configured: Readonly<Record<string, number>>): { approvalExpiresInMs?: number; deadlineReason?: string } {
  const ms = clientDeadlineMs(client, sendsProgress, configured);
  if (ms === undefined) return {};
  const s = Math.round((ms + DEADLINE_MARGIN_MS) / 1000);
  const who = cleanLabel(client ?? '', 'the MCP client');
  const known = Object.hasOwn(configured, client ?? '') || Object.hasOwn(KNOWN_CLIENT_TIMEOUTS, client ?? '');
  return { approvalExpiresInMs: ms, deadlineReason: known ? `${who}'s tool timeout (${s} s)` : `${who}'s request timeout (${s} s; it sends no progress token)` };
}

/** The first `file://` root as an absolute folder; other roots say nothing about where calls run. */
function firstRootFolder(roots: ReadonlyArray<{ uri: string }>): string | null {
  for (const r of roots) {
    if (!r.uri.startsWith('file://')) continue;
    try {
      const p = fileURLToPath(r.uri);
      if (isAbsolute(p)) return p;
    } catch {
      // Not a local file URI (a host part): skip it.
    }
  }
  return null;
}

/** The bridge's Gatehouse-Agent-Cwd header, checked: an absolute path, URI-encoded. */
function agentCwd(raw: string | undefined): { ok: true; path: string } | { ok: false; message: string } | null {
  if (raw === undefined || raw === '') return null;
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return { ok: false, message: `The ${AGENT_CWD_HEADER} header is not URI-encoded; send encodeURIComponent(the absolute folder).` };
  }
  if (!isAbsolute(path) || path.includes('\0') || path.length > 4096) {
    return { ok: false, message: `The ${AGENT_CWD_HEADER} header must be an absolute folder (at most 4096 characters); got ${JSON.stringify(path.slice(0, 80))}.` };
  }
  return { ok: true, path };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
