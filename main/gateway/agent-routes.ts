// The HTTP routes agents use, mounted by a shell after it checked Host, Origin and the agent
// token: /mcp (MCP Streamable HTTP), POST /hooks/claude/pre-tool-use (Claude Code's hooks: PreToolUse
// to decide, PostToolUse and PostToolUseFailure to record what ran)
// and /agent/v1/* (the small HTTP API, agent-api.ts). Nothing else is reachable with the agent token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../core/http-body.js';
import { CLAUDE_CODE_AGENT, CLAUDE_HOOK_TIMEOUT_S, decideHook, HOOK_CLIENT_HEADER, HOOK_DEADLINE_HEADER, HOOK_SENT_AT_HEADER, hookAnswer, NO_DECISION, parseHookInput } from './claude-hook.js';
import { boundSession } from './agent-tokens.js';
import { isOwnToolCall, OWN_TOOL_FIELD } from './own-tools.js';
import type { HookOutcomes } from './hook-outcomes.js';
import type { Gateway } from './gateway.js';
import type { McpGateway } from './mcp-server.js';
import { AGENT_API_CALLS, AGENT_API_TOOLS, agentApi } from './agent-api.js';
import type { Settings } from '../../shared/contract.js';
import { AGENT_IDS } from '../../shared/agent-integrations.js';
import type { AgentIdentity } from './agent-tokens.js';

export const MCP_PATH = '/mcp';
export const CLAUDE_HOOK_PATH = '/hooks/claude/pre-tool-use';
export const isAgentPath = (path: string) => path === MCP_PATH || path.startsWith('/hooks/') || path.startsWith('/agent/');

export interface AgentRoutesDeps {
  gateway: Gateway;
  mcp: McpGateway;
  settings: () => Settings;
  /** Records PostToolUse / PostToolUseFailure reports (what became of each hook call). */
  outcomes?: HookOutcomes;
  /** Records a hook request refused before it was judged (hook.refused). */
  refused?: HookRefusalSink;
  log?: (msg: string, err?: unknown) => void;
}

/** `agent`: who the shell authenticated (agent-tokens.ts); calls are filed under its name. */
export type AgentHandler = (req: IncomingMessage, res: ServerResponse, path: string, agent: AgentIdentity) => Promise<void>;

export function agentRoutes(deps: AgentRoutesDeps): AgentHandler {
  return async (req, res, path, agent) => {
    if (path === MCP_PATH) return deps.mcp.handle(req, res, agent);
    if (path === CLAUDE_HOOK_PATH) {
      // Claude Code treats a failed HTTP hook as a non-blocking error and runs the tool: every
      // problem is therefore answered 200 with a deny, never with an error status.
      if (req.method !== 'POST') return refuseHook(res, `send the hook input with POST to ${CLAUDE_HOOK_PATH}, not ${req.method ?? 'no method'}.`, 'bad-method', deps.refused);
      let text: string | null;
      try {
        text = await readBody(req, HOOK_BODY_MAX);
      } catch (err) {
        return refuseHook(res, `the hook input could not be read (${(err as Error).message}).`, 'unreadable', deps.refused);
      }
      if (text === null) {
        deps.refused?.('too-large', `the hook input is over ${HOOK_BODY_MAX >> 20} MiB`);
        return send(res, 200, hookAnswer('deny', `Gatehouse refused the hook input: it is over ${HOOK_BODY_MAX >> 20} MiB.`));
      }
      const parsed = parseHookInput(text);
      if (!parsed.ok) {
        deps.refused?.(refusalKind(text), parsed.message);
        return send(res, 200, hookAnswer('deny', `Gatehouse could not check this call: ${parsed.message}`));
      }
      if ('post' in parsed) {
        // The tool already ran (or failed): nothing to decide, only to record.
        try {
          deps.outcomes?.report(agent, parsed.post);
        } catch (err) {
          deps.log?.('hook outcome not recorded', err);
        }
        return send(res, 200, NO_DECISION);
      }
      // A call of one of Gatehouse's own MCP tools is judged when it arrives there, not here too;
      // only a tool name this host really serves counts (own-tools.ts): another server's tool
      // named like one is judged below.
      await deps.gateway.whenStarted();
      if (isOwnToolCall(parsed.input.tool_name, parsed.input[OWN_TOOL_FIELD], (name) => deps.gateway.find(name) !== undefined)) return send(res, 200, NO_DECISION);
      // The hook gives up when Claude Code's timeout ends or its connection closes: a call waiting
      // in the inbox is withdrawn then, so nobody approves a call nobody is waiting for.
      const gone = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) gone.abort('the hook gave up (its connection closed before Gatehouse answered)');
      });
      // A request read after its hook gave up (the host was stopped or stalled past the deadline,
      // or the connection is already gone) is not judged: Claude Code has gone its own way, and a
      // decision now would be a record of something nobody was told. Recorded as expired; its
      // PostToolUse report, if the tool ran, is linked to this record (hook-outcomes.ts).
      const stale = staleBy(req, gone.signal);
      if (stale !== null) {
        const session = boundSession(agent.name, parsed.input.session_id);
        deps.outcomes?.expired(agent, session, parsed.input.tool_use_id, parsed.input.tool_name, stale);
        return send(res, 200, hookAnswer('deny', `Gatehouse did not judge this call: ${stale}.`));
      }
      try {
        const s = deps.settings();
        const { answer, result } = await decideHook(deps.gateway, parsed.input, { askMode: s.hookAsk, autonomyAllow: s.hookAutonomyAllow, deadlineMs: hookDeadline(req), signal: gone.signal, client: hookClient(req) }, agent);
        deps.outcomes?.expect(result.call.session, parsed.input.tool_use_id, { call: result.call.id, tool: result.call.tool, decision: result.decision, contained: result.contained?.contained === true });
        return send(res, 200, answer);
      } catch (err) {
        deps.log?.('hook failed', err);
        return send(res, 200, hookAnswer('deny', `Gatehouse could not check this call (${(err as Error).message}); it fails closed.`));
      }
    }
    if (await agentApi(deps.gateway, req, res, path, agent, deps.log)) return;
    return send(res, 404, { error: `No agent route ${req.method} ${path}. Agents use ${MCP_PATH}, ${CLAUDE_HOOK_PATH}, ${AGENT_API_TOOLS} and ${AGENT_API_CALLS}.` });
  };
}

/**
 * The hook's own deadline (HOOK_DEADLINE_HEADER), or Claude Code's default hook timeout when it
 * sends none. A value that is not a positive number of milliseconds is ignored, not trusted:
 * the default is the longest Claude Code waits unless its settings say otherwise.
 */
export function hookDeadline(req: IncomingMessage): number {
  const raw = req.headers[HOOK_DEADLINE_HEADER];
  const n = Number(Array.isArray(raw) ? raw[0] : raw);
  const fallback = CLAUDE_HOOK_TIMEOUT_S * 1000;
  return Number.isFinite(n) && n > 0 ? Math.min(n, fallback * 10) : fallback;
}

/** The agent whose hook sent the request (HOOK_CLIENT_HEADER) when it is one Gatehouse integrates, else Claude Code. */
export function hookClient(req: IncomingMessage): string {
  const raw = req.headers[HOOK_CLIENT_HEADER];
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v !== undefined && (AGENT_IDS as readonly string[]).includes(v) ? v : CLAUDE_CODE_AGENT;
}

/**
 * Why a hook request is too late to judge, or null: its deadline (sent at + deadline) has passed,
 * or its connection closed before Gatehouse got to it.
 */
export function staleBy(req: IncomingMessage, gone: AbortSignal, now = Date.now()): string | null {
  // The close may have come before its listener was added: the socket itself says so too.
  if (gone.aborted || req.socket.destroyed) return 'the hook had already given up (its connection closed before Gatehouse read the request)';
  const raw = req.headers[HOOK_SENT_AT_HEADER];
  const sentAt = Number(Array.isArray(raw) ? raw[0] : raw);
  if (!Number.isFinite(sentAt) || sentAt <= 0) return null;
  const deadline = sentAt + hookDeadline(req);
  return now > deadline ? `its hook's deadline passed ${Math.round((now - deadline) / 1000)} s before Gatehouse read it (the host was stopped or stalled)` : null;
}

/** Largest hook input read; Claude Code's inputs are a few KiB (a Write of a big file, a few MiB at most). */
export const HOOK_BODY_MAX = 4 << 20;

/**
 * Answers a hook request Gatehouse will not judge (no or wrong agent token, wrong Host or Origin,
 * wrong method, unreadable or oversized input): 200 with a deny, since Claude Code lets the tool
 * run after a hook that fails with an error status. `reason` never repeats what the client sent.
 */
export function refuseHook(res: ServerResponse, reason: string, kind?: HookRefusalKind, refused?: HookRefusalSink): void {
  if (kind) refused?.(kind, reason);
  send(res, 200, hookAnswer('deny', `Gatehouse refused this hook request: ${reason}`));
}

/** Why a hook request was refused before judgement; recorded as hook.refused (never with the token or the input). */
export type HookRefusalKind = 'malformed' | 'empty' | 'wrong-event' | 'too-large' | 'bad-token' | 'bad-host' | 'bad-origin' | 'bad-method' | 'unreadable' | 'internal';
export const HOOK_REFUSAL_KINDS: readonly HookRefusalKind[] = ['malformed', 'empty', 'wrong-event', 'too-large', 'bad-token', 'bad-host', 'bad-origin', 'bad-method', 'unreadable', 'internal'];
export type HookRefusalSink = (kind: HookRefusalKind, reason: string) => void;

/** A refused input, classified for the audit log: an agent probing with odd events reads differently from a broken client. */
function refusalKind(text: string): HookRefusalKind {
  if (text.trim() === '') return 'empty';
  try {
    const event = (JSON.parse(text) as { hook_event_name?: unknown } | null)?.hook_event_name;
    if (event !== undefined && event !== 'PreToolUse' && event !== 'PostToolUse' && event !== 'PostToolUseFailure') return 'wrong-event';
  } catch {
    // Not JSON: malformed.
  }
  return 'malformed';
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}
