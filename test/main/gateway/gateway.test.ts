// Agent ingress against a real host on loopback: the MCP server at /mcp with a real SDK client,
// the Claude Code hook over HTTP and as the real `gatehouse hook` command, the agent token's
// limits, dry-run and live mode, and the operator's decisions (approve, deny, expiry, always).
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../../main/shells/serve/guards.js';
import type { ApprovalItemView, Settings } from '../../../shared/contract.js';
import { cliPath, repoRoot, runCli } from '../../support/cli.js';
import { hookCommand } from '../../../shared/claude-config.js';
import { writeServeFile } from '../../../main/shells/serve/serve-file.js';
import { homePaths } from '../../../main/home.js';
import { http, wsConnect } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';
import { changeHello, HELLO_DIR, HELLO_WRITES } from '../../support/hello-variants.js';
import { connectAgent } from '../../support/mcp-agent.js';

const rendererDir = join(repoRoot, 'out', 'renderer');

interface Running {
  home: string;
  host: Host;
  net: Listening;
  port: number;
  /** Operator API call (operator token). */
  op<T = unknown>(method: string, params?: unknown): Promise<{ ok: boolean; result: T; error?: { code: string; message: string } }>;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function start(opts: { settings?: Partial<Settings>; plugins?: string[]; overrides?: Partial<Settings> } = {}): Promise<Running> {
  const home = join(tempDir('gatehouse-gw-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  if (opts.settings) writeFileSync(join(home, 'settings.json'), JSON.stringify(opts.settings));
  for (const p of opts.plugins ?? []) cpSync(p === 'hello' ? HELLO_DIR : p, join(home, 'plugins', p === 'hello' ? 'hello' : p.split('/').pop()!), { recursive: true });
  // Given a write path, hello is no confined reader: at supervised its calls ask, as these tests need.
  if (opts.plugins?.includes('hello')) changeHello(join(home, 'plugins', 'hello'), HELLO_WRITES);
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, ...(opts.overrides ? { settingsOverrides: opts.overrides } : {}) });
  await host.ready;
  for (const p of opts.plugins ?? []) await host.registry.enable(p === 'hello' ? 'hello' : p.split('/').pop()!, 'tester');
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

async function mcpClient(r: Running, name = 'test-agent'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(r.net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${r.net.agentToken}` } } }));
  return client;
}

/** Resolves with the first pending inbox item, waiting for the approvals.changed event. */
function nextPending(r: Running): Promise<ApprovalItemView> {
  return new Promise((resolve) => {
    const check = () => {
      const items = r.host.approvals.list({ state: 'pending' });
      if (items.length === 0) return false;
      off();
      resolve(items[0] as ApprovalItemView);
      return true;
    };
    const off = r.host.bus.subscribe((name) => {
      if (name === 'approvals.changed') check();
    });
    check();
  });
}

const text = (r: CallToolResult) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
const events = (r: Running, type: string) => r.host.audit.tail(1000).filter((e) => e.type === type);

describe('MCP server at /mcp (real SDK client)', () => {
  it('lists enabled plugin tools and the shell, with names MCP accepts', async () => {
    const r = await start({ plugins: ['hello'] });
    const client = await mcpClient(r);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['hello', 'shell']);
    expect(tools.find((t) => t.name === 'hello')!.inputSchema).toMatchObject({ type: 'object', required: ['name'] });
    for (const t of tools) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    await client.close();
  });

  it('an asked call waits with progress, is approved by the operator, and the client gets the plugin result', async () => {
    const r = await start({ plugins: ['hello'], settings: { mode: 'live' } });
    const client = await mcpClient(r);
    const progress: string[] = [];
    const result = client.callTool({ name: 'hello', arguments: { name: 'Ada' } }, undefined, { onprogress: (p) => progress.push(p.message ?? ''), resetTimeoutOnProgress: true });
    const item = await nextPending(r);
    // Filed under the token's agent (serve.json's is "default"); the client's name is a label.
    expect(item).toMatchObject({ call: { agent: 'default', client: 'test-agent', tool: 'hello', arguments: { name: 'Ada' }, source: 'mcp' }, askedBy: { kind: 'autonomy', level: 'supervised' } });
    const approved = await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash });
    expect(approved.ok).toBe(true);
    const res = (await result) as CallToolResult;
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toEqual({ greeting: 'Hello, Ada.' });
    expect(res._meta).toMatchObject({ gatehouse: { decision: 'allow', decider: { kind: 'operator' }, executed: true, approval: item.id } });
    expect(progress.some((m) => m.includes(item.id))).toBe(true);
    // The decider is in the audit log too.
    expect(events(r, 'call.decided').at(-1)!.payload).toMatchObject({ decision: 'allow', decider: { kind: 'operator' } });
    expect(events(r, 'execution.started')).toHaveLength(1);
    await client.close();
  });

  it('a denial is an isError result carrying the reason and the decider', async () => {
    const r = await start({ plugins: ['hello'], settings: { mode: 'live' } });
    const client = await mcpClient(r);
    const result = client.callTool({ name: 'hello', arguments: { name: 'Bob' } });
    const item = await nextPending(r);
    const wrongHash = await r.op('approvals.approve', { id: item.id, argsHash: '0'.repeat(64) });
    expect(wrongHash).toMatchObject({ ok: false, error: { code: 'rejected' } });
    expect((await r.op('approvals.deny', { id: item.id, reason: 'not today' })).ok).toBe(true);
    const res = (await result) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('not today');
    expect(text(res)).toMatch(/Decided by operator/);
    expect(events(r, 'execution.started')).toHaveLength(0);
    await client.close();
  });

  it('an approval nobody decides expires: the client sees "expired", and the plugin never ran', async () => {
    const r = await start({ plugins: ['hello'], settings: { mode: 'live', approvalExpiryMinutes: 0.05 } });
    const client = await mcpClient(r);
    const res = (await client.callTool({ name: 'hello', arguments: { name: 'Eve' } })) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/expired/);
    expect(res._meta).toMatchObject({ gatehouse: { decision: 'expired', executed: false } });
    expect(r.host.approvals.list({ state: 'expired' })).toHaveLength(1);
    expect(events(r, 'execution.started')).toHaveLength(0);
    await client.close();
  });

  it('a rule denial needs no operator: the built-in credential rule names itself', async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' } });
    const client = await mcpClient(r);
    const res = (await client.callTool({ name: 'shell', arguments: { command: 'cat ~/.ssh/id_rsa' } })) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('builtin.credentials.ssh');
    expect(r.host.approvals.list()).toHaveLength(0);
    await client.close();
  });

  it('the shell tool runs in a PTY operators can see, and returns its output', async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' } });
    const client = await mcpClient(r);
    const res = (await client.callTool({ name: 'shell', arguments: { command: 'echo gatehouse-$((6*7))' } })) as CallToolResult;
    expect(res.isError).toBeFalsy();
    expect(text(res)).toContain('gatehouse-42');
    const session = r.host.ptys.list().find((s) => s.tool === 'shell');
    expect(session).toMatchObject({ actor: 'agent:default', state: 'exited', exitCode: 0 });
    await client.close();
  });

  it('in dry-run nothing executes, even an allowed call', async () => {
    const r = await start({ plugins: ['hello'], settings: { autonomy: 'full' } });
    expect(r.host.settings.current.mode).toBe('dry-run');
    const client = await mcpClient(r);
    const res = (await client.callTool({ name: 'hello', arguments: { name: 'Ada' } })) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/Dry run/);
    expect(res._meta).toMatchObject({ gatehouse: { decision: 'allow', executed: false, mode: 'dry-run' } });
    expect(events(r, 'execution.started')).toHaveLength(0);
    await client.close();
  });

  it('sends tools/list_changed when a plugin is enabled', async () => {
    const r = await start();
    cpSync(HELLO_DIR, join(r.home, 'plugins', 'hello'), { recursive: true });
    await r.host.registry.refreshAll();
    const client = await mcpClient(r);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['shell']);
    await r.op('plugins.enable', { name: 'hello' });
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['hello', 'shell']);
    await client.close();
  });

  it('re-exposes an mcp plugin\'s tools namespaced, and relays a call to the upstream server', async () => {
    const home = join(tempDir('gatehouse-gw-'), 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, pluginDirs: [join(repoRoot, 'examples', 'plugins')] });
    const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
    running.push({ home, host, net, port: net.shell.port, op: async () => ({}) as never, close: async () => { await net.shell.close(); await host.close('test done'); } });
    await host.ready;
    const { client, toolsWhen } = await connectAgent(net, 'fs-agent');
    await host.registry.enable('fs-mcp', 'tester');
    // The list changes twice (the plugin enabled, then the server's tools listed): re-list on each notice.
    const names = await toolsWhen((n) => n.includes('fs-mcp__list_allowed_directories'));
    expect(names).toContain('fs-mcp__list_allowed_directories');
    const res = (await client.callTool({ name: 'fs-mcp__list_allowed_directories', arguments: {} })) as CallToolResult;
    expect(res.isError).toBeFalsy();
    expect(text(res)).toContain('/tmp/gatehouse-workspace');
    expect(res._meta).toMatchObject({ gatehouse: { executed: true, decider: { kind: 'autonomy', level: 'full' } } });
    await client.close();
  });

  it('an unknown tool is refused without running anything', async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' } });
    const client = await mcpClient(r);
    // A protocol error (-32602), as MCP says for an unknown tool; test/mcp-clients.test.ts has the rest.
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: "nope"/) });
    expect(events(r, 'execution.started')).toHaveLength(0);
    await client.close();
  });
});

describe('the agent token opens the agents\' routes and nothing else', () => {
  it('cannot approve, change policy or settings, read the audit log, or open the console socket', async () => {
    const r = await start();
    const asAgent = (method: string, params: unknown) =>
      http({ port: r.port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
    expect((await asAgent('approvals.approve', { id: 'x', argsHash: '0'.repeat(64) })).status).toBe(401);
    expect((await asAgent('policy.save', { text: 'rules: []' })).status).toBe(401);
    expect((await asAgent('settings.update', { mode: 'live' })).status).toBe(401);
    expect((await asAgent('audit.tail', { limit: 10 })).status).toBe(401);
    expect((await asAgent('plugins.setTrusted', { name: 'hello', trusted: true, reason: 'let me out' })).status).toBe(401);
    // Nor edit Claude Code's own files (it could unhook itself).
    expect((await asAgent('agents.write', { agent: 'claude-code', scope: 'user', mcp: 'none', hook: 'command', expected: [{ path: '/x', baseHash: 'absent' }] })).status).toBe(401);
    const ws = await wsConnect(`ws://127.0.0.1:${r.port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + r.net.agentToken], origin: `http://127.0.0.1:${r.port}` });
    expect(ws).toEqual({ ok: false, status: 401 });
    expect(r.host.settings.current.mode).toBe('dry-run');
  });

  it('the operator token does not open /mcp or the hook route, and no token opens nothing', async () => {
    const r = await start();
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    expect((await http({ port: r.port, path: '/mcp', method: 'POST', headers: { ...headers, Authorization: `Bearer ${r.net.token}` }, body: init })).status).toBe(401);
    expect((await http({ port: r.port, path: '/mcp', method: 'POST', headers, body: init })).status).toBe(401);
    // The hook route refuses with 200 and a deny decision: Claude Code runs the tool after an error status.
    const hook = await http({ port: r.port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { ...headers, Authorization: `Bearer ${r.net.token}` }, body: '{}' });
    expect(hook.status).toBe(200);
    expect(JSON.parse(hook.body).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('agent token') });
    // A foreign page cannot drive /mcp even with the token (browsers send Origin).
    expect((await http({ port: r.port, path: '/mcp', method: 'POST', headers: { ...headers, Authorization: `Bearer ${r.net.agentToken}`, Origin: 'http://evil.example' }, body: init })).status).toBe(403);
  });

  it('serve.json holds both tokens, distinct, owner-only', async () => {
    const r = await start();
    const info = JSON.parse(readFileSync(r.host.paths.serveJson, 'utf8'));
    expect(info.agentToken).toBe(r.net.agentToken);
    expect(info.token).toBe(r.net.token);
    expect(info.agentToken).not.toBe(info.token);
    expect(info.mcpUrl).toBe(`http://127.0.0.1:${r.port}/mcp`);
  });
});

const hookInput = (tool: string, input: Record<string, unknown>, cwd = '/tmp') =>
  JSON.stringify({ session_id: 'sess-1', transcript_path: '/tmp/t.jsonl', cwd, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 'tu-1', permission_mode: 'default' });

describe('Claude Code PreToolUse hook', () => {
  const postHook = (r: Running, body: string) =>
    http({ port: r.port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json' }, body }).then((res) => ({ status: res.status, json: JSON.parse(res.body) }));

  it('over HTTP: allow, deny and ask, in Claude Code\'s JSON', async () => {
    // hookAutonomyAllow "allow": autonomy's allow as an allow (the default defers: test/claude-hooks.test.ts).
    const r = await start({ settings: { mode: 'live', hookAutonomyAllow: 'allow' } });
    const allow = await postHook(r, hookInput('Read', { file_path: '/tmp/notes.txt' }));
    expect(allow).toEqual({ status: 200, json: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: expect.stringContaining('autonomy supervised') } } });
    const deny = await postHook(r, hookInput('Read', { file_path: join(homedir(), '.ssh', 'id_rsa') }));
    expect(deny.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('builtin.credentials.ssh') });
    const ask = await postHook(r, hookInput('Write', { file_path: '/tmp/out.txt', content: 'x' }));
    expect(ask.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('asks') });
    // Hook calls are decided, never executed here, and recorded with their source.
    expect(events(r, 'call.received').map((e) => (e.payload as { source: string }).source)).toEqual(['hook', 'hook', 'hook']);
  });

  it('with hookAsk=inbox an asked call waits for the operator and is answered with the decision', async () => {
    const r = await start({ settings: { mode: 'live', hookAsk: 'inbox' } });
    const answer = postHook(r, hookInput('Bash', { command: 'touch /tmp/gatehouse-hook-test' }));
    const item = await nextPending(r);
    expect(item.call).toMatchObject({ agent: 'default', client: 'claude-code', session: 'default/sess-1', source: 'hook' });
    await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash });
    expect((await answer).json.hookSpecificOutput.permissionDecision).toBe('allow');
  });

  it('bad input is denied with a sentence (a failed HTTP hook would let the call through)', async () => {
    const r = await start();
    const bad = await postHook(r, '{"hook_event_name":"PreToolUse"}');
    expect(bad.status).toBe(200);
    expect(bad.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/session_id/) });
  });

  it('in dry-run the hook lets Claude Code ask its user and says what Gatehouse would have done', async () => {
    const r = await start();
    const res = await postHook(r, hookInput('Read', { file_path: '/tmp/notes.txt' }));
    expect(res.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringMatching(/dry-run.*would have allowed/) });
  });

  it('command form (`gatehouse hook`): the same answers over stdin and stdout', async () => {
    const r = await start({ settings: { mode: 'live', hookAutonomyAllow: 'allow' } });
    const run = (input: string) => runCliWithStdin(['hook', '--home', r.home], input);
    // A folder of its own: a search of all of /tmp would walk this host's home (a temp folder) and is denied.
    const allow = await run(hookInput('Grep', { pattern: 'x', path: tempDir('gatehouse-grep-') }));
    expect(allow.code).toBe(0);
    expect(JSON.parse(allow.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    const deny = await run(hookInput('Read', { file_path: '~/.aws/credentials' }));
    expect(JSON.parse(deny.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('builtin.credentials.cloud') });
    const ask = await run(hookInput('Edit', { file_path: '/tmp/x', old_string: 'a', new_string: 'b' }));
    expect(JSON.parse(ask.stdout).hookSpecificOutput.permissionDecision).toBe('ask');
  });

  it('the command form as Claude Code runs it (a shell): answers with exit 0, and blocks with exit 2 when gatehouse cannot run', async () => {
    const r = await start({ settings: { mode: 'live', hookAutonomyAllow: 'allow' } });
    const command = hookCommand(r.home);
    const searched = tempDir('gatehouse-grep-');
    const sh = (path: string) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn('/bin/sh', ['-c', command], { env: { ...process.env, PATH: path }, stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
        // Without gatehouse on the PATH the shell exits before it reads its input: the write may
        // then fail with EPIPE, which is that case working, not an error of the test.
        child.stdin.on('error', () => {});
        child.stdin.end(hookInput('Grep', { pattern: 'x', path: searched }));
      });
    // gatehouse on the PATH (as npm installs it): the answer, exit 0.
    const bin = tempDir('gatehouse-bin-');
    symlinkSync(cliPath, join(bin, 'gatehouse'));
    const ok = await sh(`${bin}:${dirname(process.execPath)}:/usr/bin:/bin`);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    // Not on the PATH: Claude Code would let a non-2 exit through, so the command blocks.
    const missing = await sh('/usr/bin:/bin');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Gatehouse: the hook command could not run');
  });

  it('command form without a running host denies with a sentence, or asks when configured to', async () => {
    const home = tempDir('gatehouse-nohost-');
    const deny = await runCliWithStdin(['hook', '--home', home], hookInput('Read', { file_path: '/tmp/x' }));
    expect(deny.code).toBe(0);
    expect(JSON.parse(deny.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('Gatehouse is not running') });
    const ask = await runCliWithStdin(['hook', '--home', home, '--unreachable', 'ask'], hookInput('Read', { file_path: '/tmp/x' }));
    expect(JSON.parse(ask.stdout).hookSpecificOutput.permissionDecision).toBe('ask');
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ hookUnreachable: 'ask' }));
    const fromSettings = await runCliWithStdin(['hook', '--home', home], hookInput('Read', { file_path: '/tmp/x' }));
    expect(JSON.parse(fromSettings.stdout).hookSpecificOutput.permissionDecision).toBe('ask');
  });

  it('command form: what Claude Code starts before every tool call loads only Node\'s own modules until it must read the settings', () => {
    // zod and fetch's undici were half of its start-up (bench/gateway.ts, "hook round trip, command form").
    const hook = readFileSync(join(repoRoot, 'out', 'main', 'hook.js'), 'utf8');
    const statics = [...hook.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map((m) => m[1]);
    expect(statics.length).toBeGreaterThan(0);
    expect(statics.filter((s) => !s!.startsWith('node:'))).toEqual([]);
    expect(hook).not.toMatch(/\bfetch\(/);
  });

  it('command form: a host that refuses, stalls or answers without a decision gets a denial with a sentence', async () => {
    // A serve.json naming a live process (this one) and a hook address this test controls.
    const homeFor = (port: number) => {
      const home = tempDir('gatehouse-hookhost-');
      writeServeFile(homePaths(home).serveJson, { url: `http://127.0.0.1:${port}/`, host: '127.0.0.1', port, pid: process.pid, token: 'op', agentToken: 'agent-t', mcpUrl: `http://127.0.0.1:${port}/mcp`, hookUrl: `http://127.0.0.1:${port}/hooks/claude/pre-tool-use`, startedAt: 0 });
      return home;
    };
    const input = hookInput('Read', { file_path: '/tmp/x' });
    const answerOf = (r: { stdout: string }) => JSON.parse(r.stdout).hookSpecificOutput as { permissionDecision: string; permissionDecisionReason: string };

    // A serve.json that is not what the host writes: not running, saying what is wrong with the file.
    const garbled = tempDir('gatehouse-hookhost-');
    writeFileSync(homePaths(garbled).serveJson, '{"pid": "one"');
    expect(answerOf(await runCliWithStdin(['hook', '--home', garbled], input))).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/serve\.json could not be read: .*JSON/) });
    writeFileSync(homePaths(garbled).serveJson, JSON.stringify({ pid: process.pid, hookUrl: 'http://127.0.0.1:1/' }));
    expect(answerOf(await runCliWithStdin(['hook', '--home', garbled], input)).permissionDecisionReason).toMatch(/serve\.json has no pid, hookUrl and agentToken/);

    // Nothing listens on the port: "unreachable", which the setting turns into ask.
    const closed = createServer();
    const closedPort = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const refused = homeFor(closedPort);
    expect(answerOf(await runCliWithStdin(['hook', '--home', refused], input))).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(new RegExp(`127\\.0\\.0\\.1:${closedPort}/hooks/claude/pre-tool-use did not answer: .*ECONNREFUSED`)) });
    expect(answerOf(await runCliWithStdin(['hook', '--home', refused, '--unreachable', 'ask'], input)).permissionDecision).toBe('ask');

    // Accepts and never answers: denied at the timeout, whatever the unreachable answer.
    const seen: string[] = [];
    const stall = createServer((req) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => seen.push(`${req.method} ${req.url} ${req.headers.authorization} ${body}`));
    });
    const stalled = homeFor(await listen(stall));
    try {
      const timedOut = answerOf(await runCliWithStdin(['hook', '--home', stalled, '--timeout', '1', '--unreachable', 'ask'], input));
      expect(timedOut).toEqual({ hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Gatehouse did not answer within 1 s, so the call is denied.' });
      // What it sent: the hook input as it came, with the agent token.
      expect(seen).toEqual([`POST /hooks/claude/pre-tool-use Bearer agent-t ${input}`]);
    } finally {
      stall.closeAllConnections();
      await new Promise((resolve) => stall.close(resolve));
    }

    // Answers, but not with a decision.
    const broken = createServer((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}'));
    const brokenHome = homeFor(await listen(broken));
    try {
      expect(answerOf(await runCliWithStdin(['hook', '--home', brokenHome, '--unreachable', 'ask'], input))).toEqual({ hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Gatehouse answered the hook with HTTP 500 and no decision; the call is denied.' });
    } finally {
      await new Promise((resolve) => broken.close(resolve));
    }
  });
});

describe('operator decisions and settings', () => {
  it('`gatehouse approvals list | approve | deny` act on the running host\'s inbox', async () => {
    const r = await start({ plugins: ['hello'], settings: { mode: 'live' } });
    const client = await mcpClient(r, 'cli-agent');
    const first = client.callTool({ name: 'hello', arguments: { name: 'one' } });
    const item = await nextPending(r);
    const list = await runCli(['approvals', 'list', '--json', '--home', r.home]);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject([{ id: item.id, call: { agent: 'default', client: 'cli-agent', tool: 'hello' } }]);
    const human = await runCli(['approvals', 'list', '--home', r.home]);
    expect(human.stdout).toContain('asked by autonomy supervised');
    expect((await runCli(['approvals', 'approve', item.id, '--home', r.home])).code).toBe(0);
    expect(((await first) as CallToolResult).structuredContent).toEqual({ greeting: 'Hello, one.' });

    const second = client.callTool({ name: 'hello', arguments: { name: 'two' } });
    const item2 = await nextPending(r);
    const noReason = await runCli(['approvals', 'deny', item2.id, '--home', r.home]);
    expect(noReason.code).toBe(2);
    expect((await runCli(['approvals', 'deny', item2.id, '--reason', 'from the CLI', '--home', r.home])).code).toBe(0);
    expect(text((await second) as CallToolResult)).toContain('from the CLI');
    await client.close();
  });

  it('`gatehouse approvals` without a running host says so', async () => {
    const res = await runCli(['approvals', 'list', '--home', tempDir('gatehouse-nohost-')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/No Gatehouse is running/);
  });

  it('a session grant lets the same call through again without asking', async () => {
    const r = await start({ plugins: ['hello'], settings: { mode: 'live' } });
    const client = await mcpClient(r);
    const first = client.callTool({ name: 'hello', arguments: { name: 'Ada' } });
    const item = await nextPending(r);
    const approved = await r.op<{ grant: { id: string; expiresAt: number } }>('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'session' });
    expect(approved.result.grant.id).toMatch(/^grant-/);
    await first;
    const again = (await client.callTool({ name: 'hello', arguments: { name: 'Ada' } })) as CallToolResult;
    expect(again._meta).toMatchObject({ gatehouse: { decision: 'allow', decider: { kind: 'grant', grant: approved.result.grant.id } } });
    expect((await r.op<{ grants: unknown[] }>('grants.list')).result.grants).toHaveLength(1);
    await r.op('grants.revoke', { id: approved.result.grant.id });
    expect((await r.op<{ grants: unknown[] }>('grants.list')).result.grants).toHaveLength(0);
    await client.close();
  });

  it('"always" writes the proposed rule to policy.yaml, and the next identical call is allowed by it', async () => {
    const r = await start({ settings: { mode: 'live' } });
    const client = await mcpClient(r);
    // Not in the Gatehouse home: no agent may touch that, whatever an operator approves.
    const target = join(tempDir('gatehouse-always-'), 'scratch.txt');
    const first = client.callTool({ name: 'shell', arguments: { command: `touch ${target}` } });
    const item = await nextPending(r);
    const proposed = await r.op<{ name: string; yaml: string }>('approvals.proposeRule', { id: item.id });
    expect(proposed.result.yaml).toContain(target);
    await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'always' });
    await first;
    expect(existsSync(target)).toBe(true);
    expect(readFileSync(r.host.paths.policy, 'utf8')).toContain(proposed.result.name);
    const again = (await client.callTool({ name: 'shell', arguments: { command: `touch ${target}` } })) as CallToolResult;
    expect(again._meta).toMatchObject({ gatehouse: { decision: 'allow', decider: { kind: 'rule', rule: proposed.result.name } } });
    expect(events(r, 'policy.rule-added')).toHaveLength(1);
    await client.close();
  });

  it('switching the mode is audited; a broken settings file falls back to the safe defaults', async () => {
    const r = await start();
    const res = await r.op<{ mode: string }>('settings.update', { mode: 'live' });
    expect(res.result.mode).toBe('live');
    expect(events(r, 'gateway.mode-changed').at(-1)).toMatchObject({ actor: expect.stringMatching(/^operator:/), payload: { from: 'dry-run', to: 'live' } });
    expect(JSON.parse(readFileSync(join(r.home, 'settings.json'), 'utf8')).mode).toBe('live');
    const bad = await r.op('settings.update', { autonomy: 'yolo' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    await r.close();
    running.splice(running.indexOf(r), 1);
    writeFileSync(join(r.home, 'settings.json'), '{"mode": "live", ');
    const host = createHost({ home: r.home, shell: 'serve', log: () => {} });
    expect(host.settings.current.mode).toBe('dry-run');
    expect(host.settings.view().error).toMatch(/not valid JSON/);
    await host.close('test done');
  });

  it('--live and --autonomy apply to one run and are shown as overridden', async () => {
    const r = await start({ overrides: { mode: 'live', autonomy: 'read-only' } });
    const view = await r.op<{ mode: string; autonomy: string; overridden: string[] }>('settings.get');
    expect(view.result).toMatchObject({ mode: 'live', autonomy: 'read-only', overridden: ['mode', 'autonomy'] });
    expect(existsSync(join(r.home, 'settings.json'))).toBe(false);
  });

  it('policy.save refuses a policy with problems and writes nothing; a good one is live at once', async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' } });
    const broken = 'rules:\n  - name: x\n    actions: [fly]\n';
    const refused = await r.op<{ saved: boolean; problems: { line: number }[] }>('policy.save', { text: broken });
    expect(refused.result.saved).toBe(false);
    expect(refused.result.problems[0]!.line).toBe(3);
    expect(existsSync(r.host.paths.policy)).toBe(false);
    const good = 'rules:\n  - name: no-tmp-writes\n    actions: [write]\n    block_paths: ["/tmp/gh-blocked/**"]\n    message: not there\n';
    expect((await r.op<{ saved: boolean }>('policy.save', { text: good })).result.saved).toBe(true);
    const client = await mcpClient(r);
    const res = (await client.callTool({ name: 'shell', arguments: { command: 'echo hi > /tmp/gh-blocked/a' } })) as CallToolResult;
    expect(text(res)).toContain('no-tmp-writes');
    await client.close();
  });
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

function runCliWithStdin(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCli(args, {}, input);
}

describe('the agent HTTP API (/agent/v1)', () => {
  const api = (r: Running, method: string, path: string, body?: unknown, token = r.net.agentToken) =>
    http({ port: r.port, path, method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }).then((res) => ({ status: res.status, json: JSON.parse(res.body) as Record<string, unknown> }));

  it('lists the tools and runs an allowed call, answering with the result and who decided', async () => {
    const r = await start({ settings: { mode: 'live', autoApprove: ['hello'] }, plugins: ['hello'] });
    const tools = await api(r, 'GET', '/agent/v1/tools');
    expect(tools.status).toBe(200);
    expect((tools.json.tools as { name: string; inputSchema: unknown }[]).map((t) => t.name)).toEqual(expect.arrayContaining(['shell', 'hello']));
    const res = await api(r, 'POST', '/agent/v1/calls', { agent: 'nightly-ci', session: 'build-42', tool: 'hello', arguments: { name: 'Ada' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ decision: 'allow', executed: true, mode: 'live', decidedBy: expect.stringMatching(/^autonomy/), result: { ok: true, output: { greeting: expect.stringContaining('Ada') } } });
    expect(events(r, 'call.received').map((e) => e.payload)).toEqual([expect.objectContaining({ agent: 'default', client: 'nightly-ci', session: 'default/build-42', tool: 'hello', source: 'api' })]);
  });

  it('a denial says why and by which rule; nothing runs', async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' } });
    const res = await api(r, 'POST', '/agent/v1/calls', { agent: 'nightly-ci', tool: 'shell', arguments: { command: `cat ${join(homedir(), '.ssh', 'id_rsa')}` } });
    expect(res.json).toMatchObject({ decision: 'deny', executed: false, decider: { kind: 'rule', rule: 'builtin.credentials.ssh' }, result: null });
    expect(res.json.reason).toMatch(/ssh/i);
    expect(events(r, 'execution.started')).toEqual([]);
  });

  it("arguments the tool's inputSchema rules out are refused naming the field, as /mcp refuses them; the plugin never receives them", async () => {
    const r = await start({ settings: { mode: 'live', autoApprove: ['hello'] }, plugins: ['hello'] });
    for (const args of [{}, { name: 42 }]) {
      const res = await api(r, 'POST', '/agent/v1/calls', { agent: 'nightly-ci', tool: 'hello', arguments: args });
      expect(res.json, JSON.stringify(args)).toMatchObject({ decision: 'deny', executed: false, decider: { kind: 'error', message: 'invalid arguments' }, result: null });
      expect(res.json.reason).toMatch(/^Invalid arguments for tool hello: .*"name"/);
    }
    expect(events(r, 'execution.started')).toEqual([]);
    // Refused on record, like every other refusal before judgement.
    expect(events(r, 'call.decided').map((e) => e.payload)).toEqual([expect.objectContaining({ decision: 'deny' }), expect.objectContaining({ decision: 'deny' })]);
  });

  it('a call policy asks about waits for the operator, who decides it', async () => {
    const r = await start({ settings: { mode: 'live' }, plugins: ['hello'] });
    const answer = api(r, 'POST', '/agent/v1/calls', { agent: 'nightly-ci', tool: 'hello', arguments: { name: 'Grace' } });
    const item = await nextPending(r);
    expect(item.call).toMatchObject({ agent: 'default', client: 'nightly-ci', source: 'api' });
    await r.op('approvals.deny', { id: item.id, reason: 'not from CI' });
    expect((await answer).json).toMatchObject({ decision: 'deny', approval: item.id, decider: { kind: 'operator' }, reason: expect.stringContaining('not from CI') });
  });

  it('bad requests name the field; only the agent token opens it', async () => {
    const r = await start();
    const bad = await api(r, 'POST', '/agent/v1/calls', { tool: 'shell', arguments: 'ls' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/^Invalid call: field `agent`: .*; field `arguments`: /);
    expect((await api(r, 'POST', '/agent/v1/calls', { agent: 'a', tool: 'shell', extra: 1 })).status).toBe(400);
    expect((await api(r, 'GET', '/agent/v1/calls')).status).toBe(405);
    expect((await api(r, 'GET', '/agent/v1/tools', undefined, r.net.token)).status).toBe(401);
    expect((await api(r, 'POST', '/agent/v1/calls', { agent: 'a', tool: 'shell', arguments: { command: 'ls' } }, 'not-a-token-at-all-000')).status).toBe(401);
    expect(events(r, 'call.received')).toEqual([]);
  });
});
