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
      if (req.method !== 'POST') return send(res, 405, { error: `Send the hook input with POST to ${CLAUDE_HOOK_PATH}.` });
      const text = await readBody(req, 4 << 20);
      // Claude Code treats a failed HTTP hook as a non-blocking error and runs the tool: every
      // problem is therefore answered 200 with a deny, never with an error status.
      if (text === null) return send(res, 200, hookAnswer('deny', 'Gatehouse refused the hook input: it is over 4 MiB.'));
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

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}
