// Real agents for specs: MCP clients from @modelcontextprotocol/sdk, connected the two ways an
// agent connects (Streamable HTTP to /mcp with the agent token, and the `gatehouse mcp` stdio
// bridge), plus the operator's loopback API for checking the audit log. All of them find the
// host the way real ones do: through GATEHOUSE_HOME/serve.json.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { AGENT_CWD_HEADER } from '../../main/gateway/agent-cwd-header.ts';

const cli = join(import.meta.dirname, '..', '..', 'bin', 'gatehouse.js');

export interface ServeFile {
  url: string;
  token: string;
  agentToken: string;
  mcpUrl: string;
}

/** serve.json of the running host (waits for it: the Electron shell writes it once it listens). */
export async function serveFile(home: string): Promise<ServeFile> {
  const file = join(home, 'serve.json');
  await expect.poll(() => existsSync(file), { message: `${file} is written once the host listens` }).toBe(true);
  return JSON.parse(readFileSync(file, 'utf8')) as ServeFile;
}

/** An MCP client over Streamable HTTP, as an agent configured with the URL and the agent token. */
export async function httpAgent(home: string, name: string, cwd?: string): Promise<Client> {
  const s = await serveFile(home);
  const client = new Client({ name, version: '1.0.0' });
  // With `cwd`, the client says which folder it works in, as `gatehouse mcp` does for its agent;
  // without it, the host judges and runs calls in its own working folder (the user's home when
  // that folder is inside Gatehouse's installation).
  const headers: Record<string, string> = { authorization: `Bearer ${s.agentToken}` };
  if (cwd !== undefined) headers[AGENT_CWD_HEADER] = encodeURIComponent(cwd);
  await client.connect(new StreamableHTTPClientTransport(new URL(s.mcpUrl), { requestInit: { headers } }));
  return client;
}

/** An MCP client over the stdio bridge, as Claude Code runs `gatehouse mcp`. */
export async function stdioAgent(home: string, name: string): Promise<Client> {
  await serveFile(home);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--home', home], stderr: 'pipe' }));
  return client;
}

export interface PendingCall {
  /** Settles with the tool result once the operator decided (or the item expired). */
  result: Promise<CallToolResult>;
  /** Progress notifications received so far (Gatehouse reports while the call waits). */
  progress: Progress[];
}

/** Starts a tool call that will wait for an operator, keeping it alive on progress. */
export function callTool(client: Client, name: string, args: Record<string, unknown>): PendingCall {
  const progress: Progress[] = [];
  const result = client.callTool({ name, arguments: args }, undefined, {
    resetTimeoutOnProgress: true,
    onprogress: (p) => progress.push(p),
  }) as Promise<CallToolResult>;
  // A spec that fails before awaiting must not also fail with an unhandled rejection.
  result.catch(() => {});
  return { result, progress };
}

/** The text parts of a tool result, joined. */
export function resultText(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** An operator call over the loopback API (operator token from serve.json). */
export async function hostCall<T = unknown>(home: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const s = await serveFile(home);
  const res = await fetch(new URL('/api/call', s.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` },
    body: JSON.stringify({ method, params }),
  });
  const envelope = (await res.json()) as { ok: true; result: T } | { ok: false; error: { message: string } };
  if (!envelope.ok) throw new Error(`${method}: ${envelope.error.message}`);
  return envelope.result;
}

export interface HookAnswer {
  hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
}

/** One PreToolUse hook request, as Claude Code's HTTP hook sends it; settles when Gatehouse answers. */
export async function hookCall(home: string, token: string, session: string, cwd: string, tool: string, input: Record<string, unknown>): Promise<HookAnswer> {
  const s = await serveFile(home);
  const res = await fetch(new URL('/hooks/claude/pre-tool-use', s.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ session_id: session, transcript_path: join(cwd, 't.jsonl'), cwd, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: `tu-${Math.random()}`, permission_mode: 'default' }),
  });
  return (await res.json()) as HookAnswer;
}

export interface AuditRow {
  seq: number;
  type: string;
  actor: string;
  payload: Record<string, unknown>;
}

/** The newest audit events of the host (newest first). */
export async function auditTail(home: string, limit = 1000): Promise<AuditRow[]> {
  return (await hostCall<{ events: AuditRow[] }>(home, 'audit.tail', { limit })).events;
}
