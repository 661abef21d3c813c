// Per-agent identity (issue #13, finding 16) against a real host on loopback: named agent tokens,
// the agent name taken from the token and not from the client's claim, sessions bound to their
// transport, names checked at the boundary, and the real CLI creating, listing and revoking.
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import type { ApprovalItemView, Settings } from '../../../shared/contract.js';
import { cliPath, repoRoot, runCli } from '../../support/cli.js';
import { http } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';
import { changeHello, HELLO_DIR, HELLO_WRITES } from '../../support/hello-variants.js';

const rendererDir = join(repoRoot, 'out', 'renderer');

interface Running {
  home: string;
  host: Host;
  net: Listening;
  port: number;
  op<T = unknown>(method: string, params?: unknown): Promise<{ ok: boolean; result: T; error?: { code: string; message: string } }>;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function start(settings: Partial<Settings> = {}, home = join(tempDir('gatehouse-id-'), 'home'), mcpMaxSessions?: number): Promise<Running> {
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', ...settings }));
  cpSync(HELLO_DIR, join(home, 'plugins', 'hello'), { recursive: true });
  // Given a write path, hello is no confined reader: at supervised its calls ask, as these tests need.
  changeHello(join(home, 'plugins', 'hello'), HELLO_WRITES);
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, ...(mcpMaxSessions !== undefined ? { mcpMaxSessions } : {}) });
  await host.ready;
  await host.registry.enable('hello', 'tester');
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
  const port = net.shell.port;
  const r: Running = {
    home,
    host,
    net,
    port,
    async op(method, params = {}) {
      const res = await http({ port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${net.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
      return JSON.parse(res.body);
    },
    async close() {
      await net.shell.close();
      await host.close('test done');
    },
  };
  running.push(r);
  return r;
}

async function newToken(r: Running, name: string): Promise<string> {
  const res = await r.op<{ name: string; token: string }>('agents.tokens.create', { name });
  expect(res.ok, JSON.stringify(res.error)).toBe(true);
  return res.result.token;
}

/** The first pending inbox item that `known` does not hold, waiting for approvals.changed. */
function nextPending(r: Running, known: Set<string> = new Set()): Promise<ApprovalItemView> {
  return new Promise((resolve) => {
    const check = () => {
      const item = r.host.approvals.list({ state: 'pending' }).find((i) => !known.has(i.id));
      if (!item) return;
      off();
      known.add(item.id);
      resolve(item as ApprovalItemView);
    };
    const off = r.host.bus.subscribe((name) => {
      if (name === 'approvals.changed') check();
    });
    check();
  });
}

const api = (r: Running, token: string, body: unknown) =>
  http({ port: r.port, path: '/agent/v1/calls', method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((res) => ({
    status: res.status,
    json: JSON.parse(res.body) as Record<string, unknown>,
  }));

const hookInput = (session: string, tool: string, input: Record<string, unknown>) =>
  JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 'tu-1', permission_mode: 'default' });

const postHook = (r: Running, token: string, body: string) =>
  http({ port: r.port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body }).then((res) => ({
    status: res.status,
    json: (res.body ? JSON.parse(res.body) : null) as { hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string } } | null,
  }));

async function mcpClient(r: Running, token: string, name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(r.net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, transport };
}

const received = (r: Running) => r.host.audit.tail(1000).filter((e) => e.type === 'call.received');
/** The newest call.received (tail is newest first). */
const latest = (r: Running) => received(r)[0]!;

describe('finding 16: a session grant cannot be borrowed by claiming the same agent and session names', () => {
  it('agent API: token A is granted a session; token B naming the same agent and session is asked, not allowed', async () => {
    const r = await start();
    const a = await newToken(r, 'agent-a');
    const b = await newToken(r, 'agent-b');
    const known = new Set<string>();
    const call = { agent: 'ci', session: 'build-1', tool: 'hello', arguments: { name: 'Ada' } };

    const first = api(r, a, call);
    const item = await nextPending(r, known);
    expect(item.call).toMatchObject({ agent: 'agent-a', session: 'agent-a/build-1', client: 'ci', source: 'api' });
    expect((await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'session' })).ok).toBe(true);
    expect((await first).json).toMatchObject({ decision: 'allow', executed: true });
    // The grant covers A's own next call.
    expect((await api(r, a, call)).json).toMatchObject({ decision: 'allow', decider: { kind: 'grant' } });

    // B claims A's names exactly: its call is filed under B and waits for an operator.
    const borrowed = api(r, b, call);
    const asked = await nextPending(r, known);
    expect(asked.call).toMatchObject({ agent: 'agent-b', session: 'agent-b/build-1', client: 'ci' });
    // The operator's terminal shows the same: the token's agent, the claim in brackets.
    const list = await runCli(['approvals', 'list', '--home', r.home], { GATEHOUSE_HOME: r.home });
    expect(list.stdout).toContain(`${asked.id}  pending`);
    expect(list.stdout).toMatch(/ agent-b \(ci\) \/ agent-b\/build-1 {2}hello/);
    expect((await r.op('approvals.deny', { id: asked.id, reason: 'not yours' })).ok).toBe(true);
    expect((await borrowed).json).toMatchObject({ decision: 'deny', executed: false, decider: { kind: 'operator' } });
    expect(r.host.audit.tail(1000).filter((e) => e.type === 'execution.started')).toHaveLength(2);
  });

  it('one token, two transports: a hook session grant does not cover an API call naming that session (the original reproduction)', async () => {
    const r = await start({ hookAsk: 'inbox' });
    const token = r.net.agentToken;
    const known = new Set<string>();
    const hook = postHook(r, token, hookInput('sess-1', 'hello', { name: 'Ada' }));
    const item = await nextPending(r, known);
    expect(item.call).toMatchObject({ agent: 'default', session: 'default/sess-1', client: 'claude-code', source: 'hook' });
    await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'session' });
    expect((await hook).json?.hookSpecificOutput?.permissionDecision).toBe('allow');
    expect((await postHook(r, token, hookInput('sess-1', 'hello', { name: 'Ada' }))).json?.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow', permissionDecisionReason: expect.stringMatching(/grant/) });

    // Before: the API's free `agent` and `session` fields named the hook's agent and session and
    // the grant let the call run without asking anyone.
    const borrowed = api(r, token, { agent: 'claude-code', session: 'sess-1', tool: 'hello', arguments: { name: 'Ada' } });
    const asked = await nextPending(r, known);
    expect(asked.call).toMatchObject({ agent: 'default', source: 'api' });
    await r.op('approvals.deny', { id: asked.id, reason: 'no borrowing' });
    expect((await borrowed).json).toMatchObject({ decision: 'deny', executed: false });
  });

  it('hooks: token B sending token A\'s session_id gets a session of its own', async () => {
    const r = await start({ hookAsk: 'inbox' });
    const a = await newToken(r, 'laptop');
    const b = await newToken(r, 'intruder');
    const known = new Set<string>();
    const first = postHook(r, a, hookInput('sess-9', 'hello', { name: 'Ada' }));
    const item = await nextPending(r, known);
    await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'session' });
    expect((await first).json?.hookSpecificOutput?.permissionDecision).toBe('allow');
    const borrowed = postHook(r, b, hookInput('sess-9', 'hello', { name: 'Ada' }));
    const asked = await nextPending(r, known);
    expect(asked.call).toMatchObject({ agent: 'intruder', session: 'intruder/sess-9', source: 'hook' });
    await r.op('approvals.deny', { id: asked.id, reason: 'not yours' });
    expect((await borrowed).json?.hookSpecificOutput?.permissionDecision).toBe('deny');
  });

  it('MCP: calls are filed under the token\'s agent in the transport\'s session, and another token cannot use that session id', async () => {
    const r = await start();
    const a = await newToken(r, 'ci-bot');
    const b = await newToken(r, 'other');
    const { client, transport } = await mcpClient(r, a, 'claude-code');
    const known = new Set<string>();
    const pending = client.callTool({ name: 'hello', arguments: { name: 'Ada' } });
    const item = await nextPending(r, known);
    expect(item.call).toMatchObject({ agent: 'ci-bot', client: 'claude-code', session: transport.sessionId, source: 'mcp' });
    await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'session' });
    expect(((await pending) as CallToolResult).isError).toBeFalsy();
    expect(((await client.callTool({ name: 'hello', arguments: { name: 'Ada' } })) as CallToolResult)._meta).toMatchObject({ gatehouse: { decision: 'allow', decider: { kind: 'grant' } } });

    // The session id A's transport uses is no key for token B: it reads as unknown.
    const hijack = await http({
      port: r.port,
      path: '/mcp',
      method: 'POST',
      headers: { Authorization: `Bearer ${b}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'hello', arguments: { name: 'Ada' } } }),
    });
    expect(hijack.status).toBe(404);
    // B with its own session and A's client name gets asked, under its own name.
    const other = await mcpClient(r, b, 'claude-code');
    const borrowed = other.client.callTool({ name: 'hello', arguments: { name: 'Ada' } });
    const asked = await nextPending(r, known);
    expect(asked.call).toMatchObject({ agent: 'other', client: 'claude-code' });
    expect(asked.call.session).not.toBe(transport.sessionId);
    await r.op('approvals.deny', { id: asked.id, reason: 'no' });
    expect(((await borrowed) as CallToolResult).isError).toBe(true);
    await client.close();
    await other.client.close();
  });
});

describe('named agent tokens', () => {
  it('the audit log names the token\'s agent, keeps the client\'s claim as a label, and never stores the token', async () => {
    const r = await start({ autoApprove: ['hello'] });
    const t = await newToken(r, 'nightly');
    expect((await api(r, t, { agent: 'claude-code', session: 's1', tool: 'hello', arguments: { name: 'Ada' } })).json).toMatchObject({ decision: 'allow', agent: 'nightly', session: 'nightly/s1' });
    const ev = latest(r);
    expect(ev.actor).toBe('agent:nightly');
    expect(ev.payload).toMatchObject({ agent: 'nightly', session: 'nightly/s1', client: 'claude-code', source: 'api' });
    expect(r.host.audit.tail(1000).find((e) => e.type === 'agent.token-created')).toMatchObject({ actor: expect.stringMatching(/^operator:/), payload: { name: 'nightly' } });

    const file = join(r.home, 'agent-tokens.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(t);
    expect(JSON.parse(text).tokens).toEqual([expect.objectContaining({ name: 'nightly', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
    const list = await r.op<{ tokens: { name: string; isDefault: boolean; lastUsedAt: number | null }[] }>('agents.tokens.list');
    expect(list.result.tokens).toEqual([expect.objectContaining({ name: 'default', isDefault: true }), expect.objectContaining({ name: 'nightly', isDefault: false, lastUsedAt: expect.any(Number) })]);
    expect(JSON.stringify(list)).not.toContain(t);
  });

  it('a revoked token is refused at once, on every agent route, and an MCP session it opened ends with it', async () => {
    const r = await start({ autoApprove: ['hello'] });
    const t = await newToken(r, 'temp');
    const { client } = await mcpClient(r, t, 'x');
    expect((await api(r, t, { agent: 'x', tool: 'hello', arguments: { name: 'Ada' } })).json).toMatchObject({ decision: 'allow' });
    expect(r.host.mcp.sessionCount).toBe(1);
    expect((await r.op('agents.tokens.revoke', { name: 'temp' })).ok).toBe(true);
    // Its MCP session ends at once, not at its next request.
    expect(r.host.mcp.sessionCount).toBe(0);
    const before = received(r).length;

    expect((await api(r, t, { agent: 'x', tool: 'hello', arguments: { name: 'Ada' } })).status).toBe(401);
    const hook = await postHook(r, t, hookInput('s1', 'Bash', { command: 'ls' }));
    // Claude Code runs the tool after an HTTP hook error status: the refusal is a deny, status 200.
    expect(hook.status).toBe(200);
    expect(hook.json?.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('agent token') });
    expect(hook.json?.hookSpecificOutput?.permissionDecisionReason).not.toContain(t);
    await expect(client.callTool({ name: 'hello', arguments: { name: 'Ada' } })).rejects.toThrow();
    expect(received(r).length).toBe(before);
    expect(r.host.audit.tail(1000).find((e) => e.type === 'agent.token-revoked')).toMatchObject({ payload: { name: 'temp' } });
    // Revoking again, revoking the default, bad and duplicate names: refused with a sentence.
    expect(await r.op('agents.tokens.revoke', { name: 'temp' })).toMatchObject({ ok: false, error: { message: expect.stringContaining('no agent token named') } });
    expect(await r.op('agents.tokens.revoke', { name: 'default' })).toMatchObject({ ok: false, error: { message: expect.stringContaining('serve.json') } });
    await newToken(r, 'twice');
    expect(await r.op('agents.tokens.create', { name: 'twice' })).toMatchObject({ ok: false, error: { message: expect.stringContaining('already') } });
    expect(await r.op('agents.tokens.create', { name: 'default' })).toMatchObject({ ok: false });
    expect(await r.op('agents.tokens.create', { name: 'TWICE' })).toMatchObject({ ok: false, error: { message: expect.stringContaining('already') } });
    expect(await r.op('agents.tokens.create', { name: 'Default' })).toMatchObject({ ok: false });
    await client.close().catch(() => {});
  });

  it('tokens outlive a restart; the serve.json token stays the agent "default"', async () => {
    const first = await start({ autoApprove: ['hello'] });
    const t = await newToken(first, 'kept');
    const home = first.home;
    running.splice(running.indexOf(first), 1);
    await first.close();
    const r = await start({ autoApprove: ['hello'] }, home);
    expect((await api(r, t, { agent: 'x', tool: 'hello', arguments: { name: 'Ada' } })).json).toMatchObject({ decision: 'allow', agent: 'kept' });
    expect((await api(r, r.net.agentToken, { agent: 'x', tool: 'hello', arguments: { name: 'Ada' } })).json).toMatchObject({ decision: 'allow', agent: 'default' });
    // The operator token opens no agent route, whatever file holds what.
    expect((await api(r, r.net.token, { agent: 'x', tool: 'hello', arguments: { name: 'Ada' } })).status).toBe(401);
  });

  it('a damaged agent-tokens.json authenticates no named agent and is not overwritten; the default token still works', async () => {
    const home = join(tempDir('gatehouse-id-bad-'), 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'agent-tokens.json'), '{"version": 1, "tokens": [', { mode: 0o600 });
    const r = await start({ autoApprove: ['hello'] }, home);
    expect(await r.op('agents.tokens.create', { name: 'new-one' })).toMatchObject({ ok: false, error: { message: expect.stringContaining('could not be read') } });
    expect(readFileSync(join(home, 'agent-tokens.json'), 'utf8')).toBe('{"version": 1, "tokens": [');
    expect((await api(r, r.net.agentToken, { agent: 'x', tool: 'hello', arguments: { name: 'Ada' } })).json).toMatchObject({ decision: 'allow', agent: 'default' });
  });
});

describe('MCP sessions: the cap is per agent', () => {
  it("an agent opening 300 sessions ends only its own idle ones: another agent's session and its call waiting in the inbox carry on", async () => {
    const r = await start();
    const bob = await newToken(r, 'bob');
    const eve = await newToken(r, 'eve');
    const { client } = await mcpClient(r, bob, 'bob-client');
    // At supervised, hello (given a write path) asks: bob's call waits in the inbox.
    const waiting = client.callTool({ name: 'hello', arguments: { name: 'Ada' } }, undefined, { timeout: 60_000 });
    const item = await nextPending(r);
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${eve}` };
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      const res = await http({ port: r.port, path: '/mcp', method: 'POST', headers, body: init });
      expect(res.status).toBe(200);
      ids.push(String(res.headers['mcp-session-id']));
    }
    // Eve's oldest sessions went, to keep her at 256.
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect((await http({ port: r.port, path: '/mcp', method: 'POST', headers: { ...headers, 'Mcp-Session-Id': ids[0]! }, body: list })).status).toBe(404);
    expect((await http({ port: r.port, path: '/mcp', method: 'POST', headers: { ...headers, 'Mcp-Session-Id': ids[299]! }, body: list })).status).toBe(200);
    expect(r.host.mcp.sessionCount).toBe(257);
    // Bob's call is still waiting; approved, it runs and answers in his session, which still works.
    expect(r.host.approvals.list({ state: 'pending' }).map((i) => i.id)).toContain(item.id);
    r.host.approvals.approve(item.id, { operator: 'tester', argsHash: item.argsHash, scope: 'once' });
    const result = (await waiting) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('hello');
    await client.close();
  });

  it('at its cap, an agent whose every session has a call in flight gets its new session refused (503, saying why); one that goes idle makes room again', async () => {
    const r = await start({}, undefined, 2);
    const eve = await newToken(r, 'eve');
    const known = new Set<string>();
    const a = await mcpClient(r, eve, 'a');
    const b = await mcpClient(r, eve, 'b');
    const waitA = a.client.callTool({ name: 'hello', arguments: { name: 'A' } }, undefined, { timeout: 60_000 });
    const itemA = await nextPending(r, known);
    const waitB = b.client.callTool({ name: 'hello', arguments: { name: 'B' } }, undefined, { timeout: 60_000 });
    await nextPending(r, known);
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'third', version: '1' } } });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${eve}` };
    const refused = await http({ port: r.port, path: '/mcp', method: 'POST', headers, body: init });
    expect(refused.status).toBe(503);
    expect(refused.body).toContain('2 MCP sessions open, each with a request in flight');
    // A's call answered: A is idle, and the next session takes its place.
    r.host.approvals.approve(itemA.id, { operator: 'tester', argsHash: itemA.argsHash, scope: 'once' });
    expect(((await waitA) as CallToolResult).isError ?? false).toBe(false);
    expect((await http({ port: r.port, path: '/mcp', method: 'POST', headers, body: init })).status).toBe(200);
    expect(r.host.mcp.sessionCount).toBe(2);
    // B's waiting call was not touched.
    expect(r.host.approvals.list({ state: 'pending' })).toHaveLength(1);
    await b.client.close();
    await expect(waitB).rejects.toThrow();
    await a.client.close();
  });
});

describe('names at the boundary', () => {
  const ESC = '\u001b[2K\r';
  const BIDI = '\u202e';

  it('agent and session names with escape codes, newlines or bidi are refused naming the field, or cleaned when only a label', async () => {
    const r = await start({ autoApprove: ['hello'] });
    const token = r.net.agentToken;
    const badAgent = await api(r, token, { agent: `evil${ESC}approved`, tool: 'hello', arguments: { name: 'Ada' } });
    expect(badAgent.status).toBe(400);
    expect(badAgent.json.error).toMatch(/field `agent`: agent must be at most 128 characters of/);
    const badSession = await api(r, token, { agent: 'ok', session: `s\napproved by alice${BIDI}`, tool: 'hello', arguments: { name: 'Ada' } });
    expect(badSession.status).toBe(400);
    expect(badSession.json.error).toMatch(/field `session`/);
    const hook = await postHook(r, token, hookInput(`s1${ESC}`, 'Bash', { command: 'ls' }));
    expect(hook.status).toBe(200);
    expect(hook.json?.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('session_id') });
    expect(received(r)).toEqual([]);

    // An MCP client's name is only a label: it is cleaned, and the call goes on under the token's agent.
    const { client } = await mcpClient(r, token, `claude${ESC}\napproved${BIDI}`);
    expect(((await client.callTool({ name: 'hello', arguments: { name: 'Ada' } })) as CallToolResult).isError).toBeFalsy();
    const ev = latest(r).payload as { agent: string; client: string; session: string };
    expect(ev.agent).toBe('default');
    expect(ev.client).toMatch(/^[A-Za-z0-9._:@/-]+$/);
    expect(ev.client.startsWith('claude')).toBe(true);
    expect(ev.session).toMatch(/^[A-Za-z0-9._:@/-]+$/);
    await client.close();

    // A token name is checked too: it becomes the agent's name everywhere.
    expect(await r.op('agents.tokens.create', { name: `bot${ESC}` })).toMatchObject({ ok: false, error: { code: 'bad_request', message: expect.stringContaining('agent name') } });
    expect(await r.op('agents.tokens.create', { name: 'a/b' })).toMatchObject({ ok: false });
  });
});

describe('gatehouse agent token (the real CLI)', () => {
  it('creates a token shown once, lists it, and revokes it in the running host', async () => {
    const r = await start({ autoApprove: ['hello'] });
    const env = { GATEHOUSE_HOME: r.home };
    const created = await runCli(['agent', 'token', 'create', 'cli-bot', '--home', r.home], env);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.split('\n')[1]!.trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(created.stdout).toContain('agent "cli-bot"');
    expect((await api(r, token, { agent: 'x', tool: 'hello', arguments: { name: 'Ada' } })).json).toMatchObject({ decision: 'allow', agent: 'cli-bot' });

    const list = await runCli(['agent', 'token', 'list', '--json', '--home', r.home], env);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'cli-bot', isDefault: false }), expect.objectContaining({ name: 'default', isDefault: true })]));
    expect(list.stdout).not.toContain(token);
    const plain = await runCli(['agent', 'token', 'list', '--home', r.home], env);
    expect(plain.stdout).toMatch(/^cli-bot {2}\(created .* last used /m);

    const revoked = await runCli(['agent', 'token', 'revoke', 'cli-bot', '--home', r.home], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe('Revoked the agent token cli-bot.\n');
    expect((await api(r, token, { agent: 'x', tool: 'hello', arguments: { name: 'Ada' } })).status).toBe(401);

    const again = await runCli(['agent', 'token', 'revoke', 'cli-bot', '--home', r.home], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('no agent token named "cli-bot"');
    const bad = await runCli(['agent', 'token', 'create', 'bad name', '--home', r.home], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not allowed');
  });

  it('`gatehouse hook` and `gatehouse mcp` file their calls under a named token read from --agent-token-file', async () => {
    const r = await start({ autoApprove: ['hello'] });
    const token = await newToken(r, 'laptop-claude');
    const file = join(tempDir('gatehouse-id-tok-'), 'agent-token');
    writeFileSync(file, token + '\n', { mode: 0o600 });
    const env = { GATEHOUSE_HOME: r.home };

    const hook = await runCli(['hook', '--home', r.home, '--agent-token-file', file], env, hookInput('s7', 'Read', { file_path: '/etc/hostname' }));
    expect(hook.code, hook.stderr).toBe(0);
    // Autonomy's allow is no decision (empty output); an ask is an answer.
    expect(hook.stdout === '' || /allow|ask/.test(JSON.parse(hook.stdout).hookSpecificOutput.permissionDecision)).toBe(true);
    expect(latest(r).payload).toMatchObject({ agent: 'laptop-claude', session: 'laptop-claude/s7', client: 'claude-code', source: 'hook' });
    // A token file that cannot be read denies: it never falls back to the default agent's token.
    const missing = await runCli(['hook', '--home', r.home, '--agent-token-file', join(r.home, 'nope')], env, hookInput('s7', 'Read', { file_path: '/etc/hostname' }));
    expect(JSON.parse(missing.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('--agent-token-file') });

    const bridge = new Client({ name: 'stdio-client', version: '1.0.0' });
    await bridge.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp', '--home', r.home, '--agent-token-file', file], env: { ...(process.env as Record<string, string>), ...env }, cwd: repoRoot, stderr: 'pipe' }));
    expect(((await bridge.callTool({ name: 'hello', arguments: { name: 'Ada' } })) as CallToolResult).isError).toBeFalsy();
    expect(latest(r).payload).toMatchObject({ agent: 'laptop-claude', client: 'stdio-client', source: 'mcp' });
    await bridge.close();
  });

  it('without a running host, the command starts one for itself and the token works once Gatehouse serves', async () => {
    const home = join(tempDir('gatehouse-id-cli-'), 'home');
    const created = await runCli(['agent', 'token', 'create', 'offline', '--json', '--home', home], { GATEHOUSE_HOME: home });
    expect(created.code, created.stderr).toBe(0);
    const { token } = JSON.parse(created.stdout) as { token: string };
    const r = await start({ autoApprove: ['hello'] }, home);
    expect((await api(r, token, { agent: 'x', tool: 'hello', arguments: { name: 'Ada' } })).json).toMatchObject({ decision: 'allow', agent: 'offline' });
    await r.close();
    running.splice(running.indexOf(r), 1);
    rmSync(join(home, 'serve.json')); // as `gatehouse serve` does when it stops
    // Listed without a running host too, the default (the kept agent-token file) with it.
    const list = await runCli(['agent', 'token', 'list', '--json', '--home', home], { GATEHOUSE_HOME: home });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'default', isDefault: true }), expect.objectContaining({ name: 'offline', isDefault: false })]);
  });
});
