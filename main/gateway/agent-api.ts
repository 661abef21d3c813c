// The small HTTP API for agents that speak neither MCP nor Claude Code's hooks: a custom agent
// (a script, a CI job) lists the tools and sends a call, and gets Gatehouse's decision, who made
// it, and the tool's result. Behind the agent token like the other agent routes; the call goes
// through the same gateway (policy, checkers, approvals, runner, audit) with source "api".
//
//   GET  /agent/v1/tools   → { tools: [{ name, description, inputSchema }] }
//   POST /agent/v1/calls   { agent, tool, arguments?, session?, cwd? }
//                          → { call, agent, session, decision, decider, reason, executed, mode, approval, result }
// A call policy asks about waits here for an operator (up to the approval expiry); the answer is
// always 200 with the decision once the request was valid, and 400 naming the field when not.
// A caller that disconnects while its call waits is gone: the inbox item closes as "agent gone".
import { z } from 'zod';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../core/http-body.js';
import { describeIssues } from '../core/handlers.js';
import { executionFacts } from './execution-facts.js';
import { describeDecider } from '../pipeline/call-pipeline.js';
import type { Gateway } from './gateway.js';
import { boundSession, SAFE_NAME, SAFE_NAME_RULE, type AgentIdentity } from './agent-tokens.js';

export const AGENT_API_TOOLS = '/agent/v1/tools';
export const AGENT_API_CALLS = '/agent/v1/calls';

const callRequest = z
  .object({
    // A label only: the call is filed under the agent token's name. Both names reach the audit
    // log, the inbox and operators' terminals, so only a safe character set is taken.
    agent: z.string().regex(SAFE_NAME, `agent must be ${SAFE_NAME_RULE}`),
    tool: z.string().min(1).max(200),
    arguments: z.record(z.string(), z.unknown()).nullable().default({}),
    session: z.string().regex(SAFE_NAME, `session must be ${SAFE_NAME_RULE}`).default('default'),
    // Absolute only: a relative folder has no meaning the agent and Gatehouse are sure to share.
    cwd: z
      .string()
      .min(1)
      .max(4096)
      .refine((c) => c.startsWith('/'), 'cwd must be an absolute path (starting with "/"); send the folder the call works in, not one relative to anything')
      .optional(),
  })
  .strict();

/** Sends the answer to a request on an agent API path; false when the path is not one. */
export async function agentApi(gateway: Gateway, req: IncomingMessage, res: ServerResponse, path: string, agent: AgentIdentity, log?: (msg: string, err?: unknown) => void): Promise<boolean> {
  if (path === AGENT_API_TOOLS) {
    if (req.method !== 'GET') return send(res, 405, { error: `Use GET ${AGENT_API_TOOLS}.` }), true;
    await gateway.whenStarted();
    send(res, 200, { tools: gateway.tools().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })) });
    return true;
  }
  if (path !== AGENT_API_CALLS) return false;
  if (req.method !== 'POST') return send(res, 405, { error: `Send the call with POST to ${AGENT_API_CALLS}.` }), true;
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return send(res, 415, { error: 'Send the call as Content-Type: application/json.' }), true;
  const text = await readBody(req, 4 << 20);
  if (text === null) return send(res, 413, { error: 'The call is over 4 MiB.' }), true;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return send(res, 400, { error: `The body is not JSON: ${(err as Error).message}.` }), true;
  }
  const parsed = callRequest.safeParse(raw);
  if (!parsed.success) {
    const { message, issues } = describeIssues(parsed.error);
    return send(res, 400, { error: `Invalid call: ${message}. Send {"agent": "…", "tool": "…", "arguments": {…}}; GET ${AGENT_API_TOOLS} lists the tools.`, issues }), true;
  }
  const c = parsed.data;
  // The connection closing before the answer is the caller leaving: nobody may approve its call then.
  const gone = new AbortController();
  const left = 'the API caller disconnected before Gatehouse answered';
  res.on('close', () => {
    if (!res.writableFinished) gone.abort(left);
  });
  // The close may have come while the body was read, before this listener: the socket says so too.
  if (req.socket.destroyed) gone.abort(left);
  try {
    // The session lives in the token's namespace: another token naming it gets another session.
    const r = await gateway.call({ agent: agent.name, client: c.agent, session: boundSession(agent.name, c.session), tool: c.tool, arguments: c.arguments, ...(c.cwd ? { cwd: c.cwd } : {}), source: 'api' }, { signal: gone.signal });
    const result = r.result
      ? { ok: r.result.ok, output: r.result.output ?? null, error: r.result.error ?? null, content: r.content ?? null, ...executionFacts(r.result) }
      : null;
    send(res, 200, { call: r.call.id, agent: r.call.agent, session: r.call.session, decision: r.decision, decider: r.decider, decidedBy: describeDecider(r.decider), reason: r.reason, executed: r.executed, mode: r.mode ?? null, approval: r.approval ?? null, result });
  } catch (err) {
    // The gateway never throws on a decision; anything here is the host's fault, and nothing ran.
    log?.('agent API call failed', err);
    send(res, 500, { error: `Gatehouse could not handle the call (${(err as Error).message}); nothing was run.` });
  }
  return true;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}
