// The HTTP routes agents use, mounted by a shell after it checked Host, Origin and the agent
// token: /mcp (MCP Streamable HTTP), POST /hooks/claude/pre-tool-use (Claude Code's HTTP hook)
// and /agent/v1/* (the small HTTP API, agent-api.ts). Nothing else is reachable with the agent token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../host/http-body.js';
import { decideHook, hookAnswer, parseHookInput } from './claude-hook.js';
import type { Gateway } from './gateway.js';
import type { McpGateway } from './mcp-server.js';
import { AGENT_API_CALLS, AGENT_API_TOOLS, agentApi } from './agent-api.js';
import type { Settings } from '../../shared/contract.js';
import type { AgentIdentity } from './agent-tokens.js';

export const MCP_PATH = '/mcp';
export const CLAUDE_HOOK_PATH = '/hooks/claude/pre-tool-use';
export const isAgentPath = (path: string) => path === MCP_PATH || path.startsWith('/hooks/') || path.startsWith('/agent/');

export interface AgentRoutesDeps {
  gateway: Gateway;
  mcp: McpGateway;
  settings: () => Settings;
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
      if (req.method !== 'POST') return refuseHook(res, `send the hook input with POST to ${CLAUDE_HOOK_PATH}, not ${req.method ?? 'no method'}.`);
      let text: string | null;
      try {
        text = await readBody(req, HOOK_BODY_MAX);
      } catch (err) {
        return refuseHook(res, `the hook input could not be read (${(err as Error).message}).`);
      }
      if (text === null) return send(res, 200, hookAnswer('deny', `Gatehouse refused the hook input: it is over ${HOOK_BODY_MAX >> 20} MiB.`));
      const parsed = parseHookInput(text);
      if (!parsed.ok) return send(res, 200, hookAnswer('deny', `Gatehouse could not check this call: ${parsed.message}`));
      try {
        const { answer } = await decideHook(deps.gateway, parsed.input, deps.settings().hookAsk, agent);
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

/** Largest hook input read; Claude Code's inputs are a few KiB (a Write of a big file, a few MiB at most). */
export const HOOK_BODY_MAX = 4 << 20;

/**
 * Answers a hook request Gatehouse will not judge (no or wrong agent token, wrong Host or Origin,
 * wrong method, unreadable or oversized input): 200 with a deny, since Claude Code lets the tool
 * run after a hook that fails with an error status. `reason` never repeats what the client sent.
 */
export function refuseHook(res: ServerResponse, reason: string): void {
  send(res, 200, hookAnswer('deny', `Gatehouse refused this hook request: ${reason}`));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}
