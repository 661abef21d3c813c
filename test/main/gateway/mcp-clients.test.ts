// MCP clients as they really behave (issue #21, items 8–12), against a real host on loopback:
// the SDK client over Streamable HTTP and the real `gatehouse mcp` stdio bridge as a child
// process. Tool annotations and the upstream filesystem server's metadata; arguments checked
// against the advertised schema (-32602); the 401 challenge; the agent's working folder from MCP
// roots and from the bridge's own folder; client deadlines; cancellation and session end
// withdrawing a waiting inbox item; the bridge ending its session when its stdin closes.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, ListRootsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parse as parseToml } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { CodexConfigWriter } from '../../../main/agents/codex/config-writer.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import type { ApprovalItemView, Settings } from '../../../shared/contract.js';
import { cliPath, repoRoot } from '../../support/cli.js';
import { http } from '../../support/net.js';
import { request } from 'node:http';
import { tempDir } from '../../support/temp.js';
import { changeHello, HELLO_WRITES } from '../../support/hello-variants.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import { fixtureWat, wasmPlugin } from '../../support/wasm.js';

const rendererDir = join(repoRoot, 'out', 'renderer');
const helloDir = join(repoRoot, 'examples', 'plugins', 'hello');
const FS_SERVER = join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

interface Running {
  home: string;
  host: Host;
  net: Listening;
  port: number;
  close(): Promise<void>;
}

const running: Running[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const r of running.splice(0)) await r.close();
});

/** `hello: 'writes'`: hello given a write path, no confined reader, so at supervised its calls ask. */
/** `hostile`: the hostile MCP server (fixtures/mcp/hostile-server.mjs) as the upstream plugin "hostile". */
async function start(opts: { settings?: Partial<Settings>; hello?: boolean | 'writes'; fsWorkspace?: string; userHome?: string; hostile?: boolean } = {}): Promise<Running> {
  const home = join(tempDir('gatehouse-mcpc-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  if (opts.settings) writeFileSync(join(home, 'settings.json'), JSON.stringify(opts.settings));
  if (opts.hello) cpSync(helloDir, join(home, 'plugins', 'hello'), { recursive: true });
  if (opts.hello === 'writes') changeHello(join(home, 'plugins', 'hello'), HELLO_WRITES);
  if (opts.fsWorkspace) {
    // The filesystem server from npm as an upstream plugin, limited to one folder.
    const dir = join(home, 'plugins', 'fs');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'gatehouse.toml'),
      `name = "fs"\ndescription = "The MCP filesystem server."\nkind = "mcp"\ncommand = "run.sh"\nargs = ["${opts.fsWorkspace}"]\ntimeout_secs = 20\n[permissions]\nread = ["${join(repoRoot, 'node_modules')}", "${opts.fsWorkspace}"]\nwrite = ["${opts.fsWorkspace}"]\n`,
    );
    writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\nexec node "${FS_SERVER}" "$@"\n`, { mode: 0o755 });
  }
  if (opts.hostile) {
    const dir = join(home, 'plugins', 'hostile');
    mkdirSync(dir);
    cpSync(join(repoRoot, 'test', 'fixtures', 'mcp', 'hostile-server.mjs'), join(dir, 'server.mjs'));
    writeFileSync(join(dir, 'gatehouse.toml'), `name = "hostile"\ndescription = "A test MCP server."\nkind = "mcp"\ncommand = "run.sh"\nargs = ["normal"]\ntimeout_secs = 120\n`);
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\nexec node "$(dirname "$0")/server.mjs" "$@"\n', { mode: 0o755 });
  }
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, ...(opts.userHome ? { claudeUserHome: opts.userHome } : {}) });
  await host.ready;
  if (opts.hello) await host.registry.enable('hello', 'tester');
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
  const r: Running = {
    home,
    host,
    net,
    port: net.shell.port,
    async close() {
      await net.shell.close();
      await host.close('test done');
    },
  };
  running.push(r);
  return r;
}

async function mcpClient(r: Running, name = 'test-agent', roots?: string | (() => string)): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, roots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(typeof roots === 'string' ? roots : roots()).href, name: 'project' }] }));
  await client.connect(new StreamableHTTPClientTransport(new URL(r.net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${r.net.agentToken}` } } }));
  return client;
}

/** Enables an upstream MCP plugin and resolves once the gateway serves `tool` of it (its handshake done). */
function enableUpstream(r: Running, plugin: string, tool: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = () => {
      if (!r.host.gateway.find(tool)) return;
      off();
      resolve();
    };
    const off = r.host.bus.subscribe((name) => {
      if (name === 'gateway.toolsChanged') check();
    });
    void r.host.registry.enable(plugin, 'tester', 'test fixture').then(check);
  });
}

/** Resolves when pred() holds, checked on every approvals.changed event (and at once). */
function whenApprovals<T>(r: Running, pred: () => T | null | undefined): Promise<T> {
  return new Promise((resolve) => {
    const check = () => {
      const v = pred();
      if (v === null || v === undefined) return;
      off();
      resolve(v);
    };
    const off = r.host.bus.subscribe((name) => {
      if (name === 'approvals.changed') check();
    });
    check();
  });
}

const nextPending = (r: Running) => whenApprovals(r, () => r.host.approvals.list({ state: 'pending' })[0] as ApprovalItemView | undefined);
const text = (r: CallToolResult) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
const events = (r: Running, type: string) => r.host.audit.tail(2000).filter((e) => e.type === type) as { type: string; payload: Record<string, unknown> }[];

async function mcpErrorOf(p: Promise<unknown>): Promise<McpError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error('expected a JSON-RPC error, got a result');
}

describe('tools/list: annotations and upstream metadata (items 8, 10)', () => {
  it('a read-only plugin says readOnlyHint; the shell says destructive and open world', async () => {
    const r = await start({ hello: true });
    const client = await mcpClient(r);
    const { tools } = await client.listTools();
    const hello = tools.find((t) => t.name === 'hello')!;
    // hello declares no write permission and runs under the strict sandbox with no hosts.
    expect(hello.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    const shell = tools.find((t) => t.name === 'shell')!;
    expect(shell.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    expect(shell.title).toBe('Shell (supervised by Gatehouse)');
    await client.close();
  });

  it("the filesystem server's titles, annotations and output schemas come through", async () => {
    const workspace = realpathSync(tempDir('gatehouse-fsws-'));
    writeFileSync(join(workspace, 'a.txt'), 'from the workspace\n');
    const r = await start({ fsWorkspace: workspace });
    await enableUpstream(r, 'fs', 'fs__read_text_file');
    const client = await mcpClient(r);
    const { tools } = await client.listTools();
    const read = tools.find((t) => t.name === 'fs__read_text_file')!;
    const write = tools.find((t) => t.name === 'fs__write_file')!;
    // As the server itself declares them (its own listing is the reference).
    const upstream = await directListing(workspace);
    const own = (n: string) => upstream.find((t) => t.name === n)!;
    expect(own('read_text_file').annotations).toBeDefined();
    expect(read.title).toBe(own('read_text_file').title);
    expect(read.annotations).toMatchObject(own('read_text_file').annotations!);
    expect(read.annotations).toMatchObject({ readOnlyHint: true });
    expect(read.outputSchema).toEqual(own('read_text_file').outputSchema);
    expect(write.annotations).toMatchObject({ readOnlyHint: false, ...own('write_file').annotations });
    // The SDK client checks structuredContent against the advertised outputSchema: a real call passes it.
    await r.host.settings.update({ mode: 'live', autonomy: 'full' }, 'operator:tester');
    const res = (await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(workspace, 'a.txt') } })) as CallToolResult;
    expect(res.isError).toBeFalsy();
    expect(JSON.stringify(res.structuredContent)).toContain('from the workspace');
    await client.close();
  });
});

/** The filesystem server's own tools/list, straight from it (no Gatehouse in between). */
async function directListing(workspace: string) {
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const c = new Client({ name: 'reference', version: '1' });
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [FS_SERVER, workspace], stderr: 'ignore' }));
  try {
    return (await c.listTools()).tools;
  } finally {
    await c.close();
  }
}

describe('arguments against the advertised schema, unknown tools (item 12)', () => {
  it('missing, wrongly typed, extra and non-object arguments are -32602 naming the field; nothing reaches the pipeline', async () => {
    const r = await start({ hello: true, settings: { mode: 'live', autonomy: 'full' } });
    const client = await mcpClient(r);
    const missing = await mcpErrorOf(client.callTool({ name: 'hello', arguments: {} }));
    expect(missing.code).toBe(ErrorCode.InvalidParams);
    expect(missing.message).toMatch(/missing required field "name"/);
    const wrongType = await mcpErrorOf(client.callTool({ name: 'hello', arguments: { name: 42 } }));
    expect(wrongType.code).toBe(ErrorCode.InvalidParams);
    expect(wrongType.message).toMatch(/field "name" must be a string \(got a number\)/);
    // The shell's schema says additionalProperties: false.
    const extra = await mcpErrorOf(client.callTool({ name: 'shell', arguments: { command: 'true', sudo: true } }));
    expect(extra.code).toBe(ErrorCode.InvalidParams);
    expect(extra.message).toMatch(/unexpected field "sudo"/);
    const nonObject = await mcpErrorOf(client.request({ method: 'tools/call', params: { name: 'hello', arguments: ['Ada'] } } as never, CallToolResultSchema));
    expect(nonObject.code).toBe(ErrorCode.InvalidParams);
    expect(nonObject.message).toMatch(/arguments/);
    expect(events(r, 'call.received')).toHaveLength(0);
    // A valid call still goes through.
    const ok = (await client.callTool({ name: 'hello', arguments: { name: 'Ada' } })) as CallToolResult;
    expect(ok.isError).toBeFalsy();
    await client.close();
  });

  it('an unknown tool is a protocol error, not an isError result', async () => {
    const r = await start();
    const client = await mcpClient(r);
    const err = await mcpErrorOf(client.callTool({ name: 'no_such_tool', arguments: {} }));
    expect(err.code).toBe(ErrorCode.InvalidParams);
    expect(err.message).toMatch(/Unknown tool: "no_such_tool"/);
    await client.close();
  });
});

describe('401 on /mcp (item 12)', () => {
  it('answers with a Bearer challenge and a JSON-RPC error body, without and with a wrong token', async () => {
    const r = await start();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const none = await http({ port: r.port, path: '/mcp', method: 'POST', headers, body });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="gatehouse"');
    expect(JSON.parse(none.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001, message: expect.stringMatching(/agent token is required/) } });
    const wrong = await http({ port: r.port, path: '/mcp', method: 'POST', headers: { ...headers, Authorization: 'Bearer not-the-token' }, body });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer realm="gatehouse", error="invalid_token"/);
    expect(JSON.parse(wrong.body).error.message).not.toContain('not-the-token');
  });
});

describe("the agent's working folder (item 11)", () => {
  it('MCP roots: a relative path is judged against the root, and the command runs there', async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' } });
    const project = realpathSync(tempDir('gatehouse-roots-'));
    writeFileSync(join(project, 'notes.txt'), 'notes of the project\n');
    const client = await mcpClient(r, 'roots-agent', project);
    const res = (await client.callTool({ name: 'shell', arguments: { command: 'cat notes.txt && pwd' } })) as CallToolResult;
    expect(res.isError, text(res)).toBeFalsy();
    expect(text(res)).toContain('notes of the project');
    expect(text(res)).toContain(project);
    const call = (res._meta as { gatehouse: { call: string } }).gatehouse.call;
    expect(events(r, 'call.received').find((e) => e.payload.call === call)!.payload.cwd).toBe(project);
    expect(events(r, 'call.extracted').find((e) => e.payload.call === call)!.payload.paths).toContain(join(project, 'notes.txt'));
    await client.close();
  });

  it('roots/list_changed: the next call runs in the new root', async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' } });
    let root = realpathSync(tempDir('gatehouse-root-a-'));
    const client = await mcpClient(r, 'roots-agent', () => root);
    expect(text((await client.callTool({ name: 'shell', arguments: { command: 'pwd' } })) as CallToolResult)).toContain(root);
    root = realpathSync(tempDir('gatehouse-root-b-'));
    await client.sendRootsListChanged();
    expect(text((await client.callTool({ name: 'shell', arguments: { command: 'pwd' } })) as CallToolResult)).toContain(root);
    await client.close();
  });

  it("the stdio bridge sends its own folder: calls are judged and run in the agent's folder", async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' } });
    const workspace = realpathSync(tempDir('gatehouse-bridge-ws-'));
    writeFileSync(join(workspace, 'todo.txt'), 'todo of the workspace\n');
    const b = bridge(r, workspace);
    await b.initialize();
    const res = (await b.request('tools/call', { name: 'shell', arguments: { command: 'cat todo.txt; pwd' } })) as { result: CallToolResult };
    expect(text(res.result)).toContain('todo of the workspace');
    expect(text(res.result)).toContain(workspace);
    const call = (res.result._meta as { gatehouse: { call: string } }).gatehouse.call;
    expect(events(r, 'call.extracted').find((e) => e.payload.call === call)!.payload.paths).toContain(join(workspace, 'todo.txt'));
    b.child.stdin.end();
    await b.exited;
  });
});

describe('client deadlines, cancellation and session end (item 9)', () => {
  it("an approval never outlives the client's wait: 55 s without progress, 295 s for Codex by default, its configured timeout less 5 s", async () => {
    const r = await start({ hello: 'writes', settings: { mode: 'live' } });
    const span = (i: ApprovalItemView) => i.expiresAt - i.requestedAt;
    const ask = async (client: Client, progress: boolean) => {
      const ac = new AbortController();
      const p = client.callTool({ name: 'hello', arguments: { name: 'Ada' } }, undefined, { signal: ac.signal, ...(progress ? { onprogress: () => {}, resetTimeoutOnProgress: true } : {}) }).catch(() => null);
      const item = await nextPending(r);
      ac.abort('test done');
      await whenApprovals(r, () => (r.host.approvals.list({ state: 'pending' }).length === 0 ? true : null));
      await p;
      return item;
    };
    const inspector = await mcpClient(r, 'mcp-inspector');
    const fromInspector = await ask(inspector, false);
    expect(span(fromInspector)).toBe(55_000);
    // The inbox says whose deadline it counts down to.
    expect(fromInspector.deadlineReason).toBe("mcp-inspector's request timeout (60 s; it sends no progress token)");
    const patient = await mcpClient(r, 'patient-agent');
    // Progress keeps it alive: the approval expiry setting (10 minutes) alone applies.
    expect(span(await ask(patient, true))).toBe(600_000);
    const codex = await mcpClient(r, 'codex-mcp-client');
    // Codex gives up at tool_timeout_sec (300 s by default) even while progress arrives.
    const fromCodexDefault = await ask(codex, true);
    expect(span(fromCodexDefault)).toBe(295_000);
    expect(fromCodexDefault.deadlineReason).toBe("codex-mcp-client's tool timeout (300 s)");
    r.host.settings.update({ mcpClientTimeouts: { 'codex-mcp-client': 200 } }, 'operator:tester');
    const fromCodex = await ask(codex, true);
    expect(span(fromCodex)).toBe(195_000);
    expect(fromCodex.deadlineReason).toBe("codex-mcp-client's tool timeout (200 s)");
    for (const c of [inspector, patient, codex]) await c.close();
  });

  it('a cancelled waiting call leaves the inbox, can no longer be approved, and never runs', async () => {
    const r = await start({ settings: { mode: 'live' } });
    const marker = join(realpathSync(tempDir('gatehouse-cancel-')), 'marker');
    const client = await mcpClient(r);
    const ac = new AbortController();
    const call = client.callTool({ name: 'shell', arguments: { command: `touch ${marker}` } }, undefined, { signal: ac.signal }).catch((e: unknown) => e);
    const item = await nextPending(r);
    ac.abort('the user pressed Esc\u202e');
    const closed = await whenApprovals(r, () => {
      const i = r.host.approvals.get(item.id);
      return i && i.state !== 'pending' ? i : null;
    });
    expect(closed).toMatchObject({ state: 'gone', outcome: { state: 'gone', decider: { kind: 'error', message: expect.stringMatching(/^agent gone/) } } });
    // The client's reason is kept, bounded and with its bidi character replaced.
    expect(closed.outcome!.reason).toContain('the MCP client cancelled the call (the user pressed Esc?)');
    expect(r.host.approvals.list({ state: 'pending' })).toHaveLength(0);
    expect(() => r.host.approvals.approve(item.id, { operator: 'tester', argsHash: item.argsHash, scope: 'once' })).toThrow(/cannot be approved/);
    await call;
    expect(events(r, 'approval.withdrawn')).toEqual([expect.objectContaining({ payload: expect.objectContaining({ id: item.id, state: 'gone' }) })]);
    expect(events(r, 'call.result').at(-1)!.payload).toMatchObject({ executed: false });
    expect(existsSync(marker)).toBe(false);
    await client.close();
  });

  it('a running upstream call the agent cancels is cancelled upstream too (notifications/cancelled): it ends as cancelled at once, not at its timeout', async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' }, hostile: true });
    await enableUpstream(r, 'hostile', 'hostile__hang');
    const client = await mcpClient(r);
    const ac = new AbortController();
    const call = client.callTool({ name: 'hostile__hang', arguments: {} }, undefined, { signal: ac.signal, timeout: 600_000 }).catch((e: unknown) => e);
    // Running upstream (the server never answers "hang" by itself; its timeout is 120 s).
    await expect.poll(() => events(r, 'execution.started').length, { timeout: 30_000 }).toBe(1);
    ac.abort('the user pressed Esc');
    await call;
    // The gateway handed the agent's cancel to the upstream call: it ends now, as cancelled.
    await expect.poll(() => events(r, 'call.result').at(-1)?.payload, { timeout: 30_000 }).toMatchObject({ executed: true, ok: false, failure: 'cancelled' });
    await client.close();
  });

  it('a waiting call whose HTTP connection drops without a cancel (a killed client, an aborted fetch) is withdrawn at once as agent gone and never runs (issue #25)', async () => {
    const r = await start({ settings: { mode: 'live' } });
    const marker = join(realpathSync(tempDir('gatehouse-dropped-')), 'marker');
    const client = await mcpClient(r);
    const session = (client.transport as StreamableHTTPClientTransport).sessionId!;
    // The call on a connection of its own, as a client that is then killed sends it: no cancel will come.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'shell', arguments: { command: `touch ${marker}` } } });
    const port = Number(new URL(r.net.mcpUrl).port);
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } });
    req.on('error', () => {});
    req.end(body);
    const item = await nextPending(r);
    req.destroy();
    const closed = await whenApprovals(r, () => {
      const i = r.host.approvals.get(item.id);
      return i && i.state !== 'pending' ? i : null;
    });
    expect(closed).toMatchObject({ state: 'gone', outcome: { state: 'gone', reason: expect.stringContaining("the MCP client's connection closed before Gatehouse answered") } });
    expect(() => r.host.approvals.approve(item.id, { operator: 'tester', argsHash: item.argsHash, scope: 'once' })).toThrow(/cannot be approved/);
    expect(existsSync(marker)).toBe(false);
    // The session itself goes on: the client's own connection still works.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it('PROMISE "an asked call whose client went away is not executed when an operator approves it": a connection that drops while Gatehouse asks the client for its roots is still withdrawn, and the call never runs', async () => {
    const r = await start({ settings: { mode: 'live' } });
    const marker = join(realpathSync(tempDir('gatehouse-dropped-roots-')), 'marker');
    const project = realpathSync(tempDir('gatehouse-dropped-roots-project-'));
    // A client that offers roots (as Claude Code and VS Code do): the first call asks it for them, on that call's own stream.
    const client = await mcpClient(r, 'roots-agent', project);
    const session = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const port = Number(new URL(r.net.mcpUrl).port);
    const headers = { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'shell', arguments: { command: `touch ${marker}` } } });
    // The call on a connection of its own; it reads the server's roots/list request, then is killed (no cancel comes).
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers });
    req.on('error', () => {});
    const rootsRequest = await new Promise<{ id: number }>((resolve) => {
      req.on('response', (res) => {
        let seen = '';
        res.setEncoding('utf8');
        res.on('error', () => {});
        res.on('data', (d: string) => {
          seen += d;
          for (const line of seen.split('\n')) {
            if (!line.startsWith('data: ')) continue;
            const m = JSON.parse(line.slice(6)) as { id?: number; method?: string };
            if (m.method === 'roots/list' && m.id !== undefined) resolve({ id: m.id });
          }
        });
      });
      req.end(body);
    });
    req.destroy();
    // The server has seen the connection close once the request id is free again (409 while it runs).
    const post = (payload: unknown) => http({ port, path: '/mcp', method: 'POST', headers, body: JSON.stringify(payload) });
    for (;;) {
      const ping = await post({ jsonrpc: '2.0', id: 77, method: 'ping' });
      if (ping.status !== 409) break;
    }
    // The client answers the roots request it had read (its answer travels on a POST of its own).
    expect((await post({ jsonrpc: '2.0', id: rootsRequest.id, result: { roots: [{ uri: pathToFileURL(project).href, name: 'project' }] } })).status).toBe(202);
    // Pending, or already closed: whichever the inbox shows first.
    const item = await whenApprovals(r, () => r.host.approvals.list().find((i) => (i.call.arguments as { command?: string } | null)?.command === `touch ${marker}`));
    let approveError: unknown = null;
    try {
      r.host.approvals.approve(item.id, { operator: 'tester', argsHash: item.argsHash, scope: 'once' });
    } catch (err) {
      approveError = err;
    }
    // The call's trail ends either way: withdrawn (nobody waits for it) or run after the approval.
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!events(r, 'call.result').some((e) => e.payload.call === item.call.id)) return;
        off();
        resolve();
      };
      const off = r.host.bus.subscribe((name) => {
        if (name === 'audit.appended') check();
      });
      check();
    });
    expect(r.host.approvals.get(item.id)).toMatchObject({ state: 'gone', outcome: { reason: expect.stringContaining("the MCP client's connection closed before Gatehouse answered") } });
    expect(String(approveError)).toMatch(/cannot be approved/);
    expect(events(r, 'call.result').find((e) => e.payload.call === item.call.id)!.payload).toMatchObject({ executed: false });
    expect(existsSync(marker)).toBe(false);
    await client.close();
  });

  it('tools/call without params, or with a name that is not a string, is answered -32602 with one line naming the field (issue #25)', async () => {
    const r = await start({ settings: { mode: 'live' } });
    const client = await mcpClient(r);
    const session = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const port = Number(new URL(r.net.mcpUrl).port);
    const send = async (params: unknown) => {
      const res = await http({ port, path: '/mcp', method: 'POST', headers: { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', ...(params === undefined ? {} : { params }) }) });
      const text = res.body.startsWith('event:') ? res.body.split('\n').find((l) => l.startsWith('data: '))!.slice(6) : res.body;
      return (JSON.parse(text) as { error: { code: number; message: string } }).error;
    };
    for (const params of [undefined, {}, { name: 5 }]) {
      const e = await send(params);
      expect(e.code, JSON.stringify(params)).toBe(-32602);
      expect(e.message).toMatch(/^MCP error -32602: tools\/call needs params \{"name": "<tool>", "arguments": \{…\}\}: /);
      expect(e.message).toMatch(params === undefined ? /the request has none\.$/ : /name/);
      expect(e.message).not.toContain('\n');
    }
    await client.close();
  });

  it("revoking the agent's token ends its MCP sessions and withdraws what they had waiting", async () => {
    const r = await start({ settings: { mode: 'live' } });
    const op = async (method: string, params: unknown) => {
      const res = await http({ port: r.port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${r.net.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
      return JSON.parse(res.body) as { ok: boolean; result: { token: string } };
    };
    const { token } = (await op('agents.tokens.create', { name: 'ci-bot' })).result;
    const client = new Client({ name: 'ci', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(r.net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const marker = join(realpathSync(tempDir('gatehouse-revoke-')), 'marker');
    const call = client.callTool({ name: 'shell', arguments: { command: `touch ${marker}` } }).catch((e: unknown) => e);
    const item = await nextPending(r);
    expect(item.call.agent).toBe('ci-bot');
    await op('agents.tokens.revoke', { name: 'ci-bot' });
    const closed = await whenApprovals(r, () => {
      const i = r.host.approvals.get(item.id);
      return i && i.state !== 'pending' ? i : null;
    });
    expect(closed).toMatchObject({ state: 'gone', outcome: { decider: { kind: 'error', message: expect.stringMatching(/^agent gone/) } } });
    await call;
    expect(existsSync(marker)).toBe(false);
    await client.close().catch(() => {});
  });

  it('the stdio bridge ends its MCP session when its stdin closes: the waiting item is withdrawn, the call never runs', async () => {
    const r = await start({ settings: { mode: 'live' } });
    const dir = realpathSync(tempDir('gatehouse-bridge-end-'));
    const b = bridge(r, dir);
    await b.initialize();
    expect(r.host.mcp.sessionCount).toBe(1);
    void b.request('tools/call', { name: 'shell', arguments: { command: 'touch marker' } }).catch(() => null);
    const item = await nextPending(r);
    b.child.stdin.end();
    expect((await b.exited).code).toBe(0);
    const closed = await whenApprovals(r, () => {
      const i = r.host.approvals.get(item.id);
      return i && i.state !== 'pending' ? i : null;
    });
    expect(closed.outcome?.decider).toMatchObject({ kind: 'error', message: expect.stringMatching(/^agent gone/) });
    expect(r.host.mcp.sessionCount).toBe(0);
    expect(existsSync(join(dir, 'marker'))).toBe(false);
  });
});

describe('tool list changes, results and the stdio bridge (issue #26, item 16)', () => {
  const mcpHeaders = (r: Running, sid?: string) => ({ Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(sid ? { 'mcp-session-id': sid } : {}) });
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const addHello = async (r: Running) => {
    cpSync(helloDir, join(r.home, 'plugins', 'hello'), { recursive: true });
    await r.host.registry.refreshAll();
  };

  /** Opens the session's GET stream and resolves with the first message on it. */
  function firstOnStream(r: Running, sid: string): Promise<{ method?: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: r.port, path: '/mcp', method: 'GET', headers: { Host: `127.0.0.1:${r.port}`, ...mcpHeaders(r, sid), Accept: 'text/event-stream' } }, (res) => {
        let buf = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          buf += d;
          const line = buf.split('\n').find((l) => l.startsWith('data: '));
          if (!line) return;
          resolve(JSON.parse(line.slice(6)) as { method?: string });
          req.destroy();
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });
  }

  it('a tools/list_changed sent before the client opened its stream reaches it when the stream opens', async () => {
    const r = await start();
    await addHello(r);
    const init = await http({ port: r.port, path: '/mcp', method: 'POST', headers: mcpHeaders(r), body: initialize });
    const sid = init.headers['mcp-session-id'] as string;
    expect(init.body).toContain('"listChanged":true');
    // The plugins finish loading after the client's first tools/list and before its GET stream.
    const listed = await http({ port: r.port, path: '/mcp', method: 'POST', headers: mcpHeaders(r, sid), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(listed.body).not.toContain('"hello"');
    const told = new Promise<void>((resolve) => {
      const off = r.host.bus.subscribe((name) => {
        if (name !== 'gateway.toolsChanged') return;
        off();
        resolve();
      });
    });
    await r.host.registry.enable('hello', 'tester');
    // The session was told while it had no stream to hear it on.
    await told;
    expect(await firstOnStream(r, sid)).toMatchObject({ method: 'notifications/tools/list_changed' });
    const again = await http({ port: r.port, path: '/mcp', method: 'POST', headers: mcpHeaders(r, sid), body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
    expect(again.body).toContain('"name":"hello"');
  });

  it('the stdio bridge relays tools/list_changed: a plugin enabled after connect is in the next tools/list', async () => {
    const r = await start();
    await addHello(r);
    const b = bridge(r, realpathSync(tempDir('gatehouse-bridge-list-')));
    await b.initialize();
    const names = (m: unknown) => (m as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(names(await b.request('tools/list', {}))).toEqual(['shell']);
    const changed = b.notified('notifications/tools/list_changed');
    await r.host.registry.enable('hello', 'tester');
    await changed;
    expect(names(await b.request('tools/list', {})).sort()).toEqual(['hello', 'shell']);
  });

  it('the stdio bridge holds what the client writes before initialize is answered, instead of failing it', async () => {
    const r = await start();
    const b = bridge(r, realpathSync(tempDir('gatehouse-bridge-early-')));
    // Written back to back, as clients do, without waiting for the initialize answer.
    const init = b.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'eager', version: '1' } });
    b.notify('notifications/initialized');
    const list = b.request('tools/list', {});
    const call = b.request('tools/call', { name: 'nope', arguments: {} });
    expect(await init).toMatchObject({ result: { capabilities: { tools: { listChanged: true } } } });
    expect(await list).toMatchObject({ result: { tools: [{ name: 'shell' }] } });
    // Reached the session: the host's own answer for an unknown tool, not "No MCP session".
    expect(await call).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/Unknown tool: "nope"/) } });
    expect(r.host.mcp.sessionCount).toBe(1);
  });

  it("a sandboxed process plugin's result says it ran sandboxed, and has no fuel", async () => {
    const r = await start({ hello: true, settings: { mode: 'live', autonomy: 'full' } });
    const client = await mcpClient(r);
    const res = (await client.callTool({ name: 'hello', arguments: { name: 'Ada' } })) as CallToolResult;
    expect(res.isError ?? false).toBe(false);
    expect(res.structuredContent).toEqual({ greeting: 'Hello, Ada.' });
    // Sandboxed wherever bubblewrap works (here and in CI); without it the plugin runs unsandboxed and says so.
    expect(res._meta).toMatchObject({ gatehouse: { decision: 'allow', executed: true, sandboxed: detectSandbox().kind === 'bwrap' } });
    expect((res._meta as { gatehouse: Record<string, unknown> }).gatehouse).not.toHaveProperty('fuel');
    await client.close();
  });

  it("a WebAssembly tool's result carries the fuel it burnt of its limit", async () => {
    const r = await start({ settings: { mode: 'live', autonomy: 'full' } });
    const data = realpathSync(tempDir('gatehouse-fuel-'));
    const path = join(data, 'fact.json');
    writeFileSync(path, '{"fact":"metered"}');
    const wat = fixtureWat('reader.wat', { __PATH__: path, __LEN__: String(Buffer.byteLength(path)) }).replace('"reader"', '"read"');
    await wasmPlugin(join(r.home, 'plugins'), 'facts', `name = "facts"\ndescription = "Reads a fact."\nkind = "wasm"\nwasm = "plugin.wasm"\n[tools.read]\ndescription = "Read the fact."\n[permissions]\nread = [${JSON.stringify(data)}]\n`, wat);
    await r.host.registry.refreshAll();
    await r.host.registry.enable('facts', 'tester');
    const client = await mcpClient(r);
    const res = (await client.callTool({ name: 'facts', arguments: {} })) as CallToolResult;
    expect(res.isError ?? false, JSON.stringify(res)).toBe(false);
    const meta = (res._meta as { gatehouse: { fuel: { used: number; limit: number }; sandboxed: boolean } }).gatehouse;
    expect(meta.fuel.used).toBeGreaterThan(0);
    expect(meta.fuel.used).toBeLessThanOrEqual(meta.fuel.limit);
    expect(typeof meta.sandboxed).toBe('boolean');
    await client.close();
  });
});

interface Bridge {
  child: ChildProcessWithoutNullStreams;
  initialize(): Promise<void>;
  request(method: string, params: unknown): Promise<unknown>;
  /** Writes a notification without waiting for anything. */
  notify(method: string): void;
  /** Resolves at the next notification of that method the bridge writes. */
  notified(method: string): Promise<void>;
  exited: Promise<{ code: number | null }>;
}

/** The real `gatehouse mcp`, started in `cwd`, spoken to as an MCP client over its stdio. */
function bridge(r: Running, cwd: string): Bridge {
  const child = spawn(process.execPath, [cliPath, 'mcp', '--home', r.home], { cwd, env: { ...process.env, GATEHOUSE_NO_ELECTRON: '1' } });
  children.push(child);
  let buf = '';
  let next = 1;
  const waiting = new Map<number, (m: unknown) => void>();
  const listeners: { method: string; resolve: () => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const m = JSON.parse(line) as { id?: number; method?: string };
      if (typeof m.id === 'number') waiting.get(m.id)?.(m);
      else if (m.method) {
        const heard = listeners.filter((l) => l.method === m.method);
        listeners.splice(0, listeners.length, ...listeners.filter((l) => l.method !== m.method));
        for (const l of heard) l.resolve();
      }
    }
  });
  child.stderr.resume();
  const exited = new Promise<{ code: number | null }>((resolve) => child.on('exit', (code) => resolve({ code })));
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const request = (method: string, params: unknown) =>
    new Promise<unknown>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      send({ jsonrpc: '2.0', id, method, params });
    });
  return {
    child,
    exited,
    request,
    notify: (method) => send({ jsonrpc: '2.0', method }),
    notified: (method) => new Promise<void>((resolve) => listeners.push({ method, resolve })),
    async initialize() {
      const init = (await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bridge-test', version: '1' } })) as { result?: unknown; error?: unknown };
      expect(init.result, JSON.stringify(init)).toBeDefined();
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    },
  };
}


describe('"write it for me" for Codex (deliverable 6)', () => {
  const existing = [
    '# my Codex settings',
    'model = "o3"  # the model I like',
    '',
    '[mcp_servers.docs]',
    'command = "docs-server"',
    '',
    '# an old Gatehouse entry',
    '[mcp_servers.gatehouse]',
    'command = "gatehouse"',
    'args = ["mcp"]',
    '',
    '[mcp_servers.gatehouse.env]',
    'OLD = "1"',
    '',
    '# profiles below',
    '[profiles.fast]',
    'model = "o4-mini"',
    '',
  ].join('\n');

  it("writes config.toml with the stdio bridge, approval mode and a timeout above the approval deadline, keeping the user's content and comments", () => {
    const codexHome = tempDir('gatehouse-codex-');
    const file = join(codexHome, 'config.toml');
    writeFileSync(file, existing, { mode: 0o600 });
    const records: { type: string; payload: Record<string, unknown> }[] = [];
    const timeouts: Record<string, number> = {};
    const w = new CodexConfigWriter({
      codexHome,
      gatehouseHome: '/srv/gatehouse home',
      endpoints: () => ({ mcpUrl: 'http://127.0.0.1:7411/mcp' }),
      approvalExpiryS: () => 600,
      setClientTimeout: (client, s) => (timeouts[client] = s),
      record: (type, _actor, payload) => records.push({ type, payload }),
      launcher: { node: '/usr/bin/node', entry: '/opt/gatehouse/bin/gatehouse.js' },
    });
    const preview = w.preview({ mcp: 'stdio' });
    const [planned] = preview.files;
    expect(planned).toMatchObject({ path: file, kind: 'mcp', exists: true, changed: true });
    const after = parseToml(planned!.after) as { mcp_servers: Record<string, unknown> } & Record<string, unknown>;
    expect(after.model).toBe('o3');
    expect(after.profiles).toEqual({ fast: { model: 'o4-mini' } });
    expect(after.mcp_servers.docs).toEqual({ command: 'docs-server' });
    expect(after.mcp_servers.gatehouse).toEqual({
      command: '/usr/bin/node',
      args: ['/opt/gatehouse/bin/gatehouse.js', 'mcp', '--home', '/srv/gatehouse home'],
      // Codex waits for Gatehouse's tools before its first turn (else the first call races the list).
      required: true,
      default_tools_approval_mode: 'approve',
      tool_timeout_sec: 635,
    });
    // Comments stay, the old entry (and its env subtable) is gone, and no token is anywhere.
    for (const c of ['# my Codex settings', '# the model I like', '# an old Gatehouse entry', '# profiles below']) expect(planned!.after).toContain(c);
    expect(planned!.after).not.toContain('OLD = "1"');
    expect(w.write({ mcp: 'stdio' }, [{ path: file, baseHash: planned!.baseHash }], 'operator:tester').files[0]).toMatchObject({ written: true, created: false });
    expect(readFileSync(file, 'utf8')).toBe(planned!.after);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const backups = readdirSync(codexHome).filter((f) => f.startsWith('config.toml.gatehouse-backup-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(codexHome, backups[0]!), 'utf8')).toBe(existing);
    // The host now knows how long Codex waits; the write is audited, and a second run changes nothing.
    expect(timeouts).toEqual({ 'codex-mcp-client': 635 });
    expect(records).toEqual([expect.objectContaining({ type: 'agent.config-written', payload: expect.objectContaining({ client: 'codex', mcp: 'stdio' }) })]);
    expect(w.preview({ mcp: 'stdio' }).files[0]!.changed).toBe(false);
    // The HTTP form names the variable Codex reads the token from, never the token.
    const http = parseToml(w.preview({ mcp: 'http' }).files[0]!.after) as { mcp_servers: Record<string, unknown> };
    expect(http.mcp_servers.gatehouse).toEqual({ url: 'http://127.0.0.1:7411/mcp', bearer_token_env_var: 'GATEHOUSE_AGENT_TOKEN', required: true, default_tools_approval_mode: 'approve', tool_timeout_sec: 635 });
  });

  it('refuses a file that is not TOML, and a gatehouse entry written inline, naming the file', () => {
    const codexHome = tempDir('gatehouse-codex-bad-');
    const file = join(codexHome, 'config.toml');
    const w = new CodexConfigWriter({ codexHome, gatehouseHome: '/g', endpoints: () => null, approvalExpiryS: () => 600, launcher: null });
    writeFileSync(file, 'model = "o3"\n[mcp_servers\n');
    expect(() => w.preview({ mcp: 'stdio' })).toThrow(/config\.toml is not valid TOML: line 2/);
    writeFileSync(file, 'mcp_servers = { gatehouse = { command = "x" } }\n');
    expect(() => w.preview({ mcp: 'stdio' })).toThrow(/inline table or dotted keys/);
    expect(() => w.preview({ mcp: 'http' })).toThrow(/does not listen for agents over HTTP/);
  });

  it('first run: hello installed but not enabled is named in the notes with the command that enables it, which works as printed from any folder', async () => {
    const userHome = tempDir('gatehouse-codex-first-');
    const r = await start({ userHome });
    cpSync(helloDir, join(r.home, 'plugins', 'hello'), { recursive: true });
    await r.host.registry.refreshAll();
    const op = async (method: string, params: unknown) => (await r.host.dispatcher.dispatch(method as never, params as never, { console: 'serve', operator: 'tester' })) as { ok: boolean; result: { notes: string[] } };
    const note = (await op('agents.preview', { agent: 'codex', mcp: 'stdio' })).result.notes.find((n) => n.includes('hello'));
    expect(note).toMatch(/hello is installed but not enabled/);
    // Claude Code's dialog says it too when it writes an MCP server; a hook alone lists no tools.
    expect((await op('agents.preview', { agent: 'claude-code', scope: 'user', mcp: 'stdio', hook: 'none' })).result.notes).toContain(note);
    expect((await op('agents.preview', { agent: 'claude-code', scope: 'user', mcp: 'none', hook: 'command' })).result.notes.join(' ')).not.toMatch(/hello is installed/);
    const command = /`([^`]+)`/.exec(note!)![1]!.split(' ');
    expect(command.slice(0, 4)).toEqual(['gatehouse', 'plugin', 'enable', 'hello']);
    // As printed, from a folder that has nothing to do with Gatehouse.
    const child = spawn(process.execPath, [cliPath, ...command.slice(1)], { cwd: realpathSync(tempDir('gatehouse-clean-')), env: { ...process.env, GATEHOUSE_NO_ELECTRON: '1' } });
    children.push(child);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.resume();
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve)), stderr).toBe(0);
    expect(r.host.registry.get('hello')?.status).toBe('enabled');
    expect((await op('agents.preview', { agent: 'codex', mcp: 'stdio' })).result.notes.join(' ')).not.toMatch(/hello is installed/);
  });

  it('through the host: preview and write as operator methods; approvals for Codex then follow its timeout', async () => {
    const userHome = tempDir('gatehouse-codex-user-');
    const r = await start({ userHome, hello: 'writes', settings: { mode: 'live', approvalExpiryMinutes: 10 } });
    const op = async (method: string, params: unknown) => {
      const res = await http({ port: r.port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${r.net.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
      return JSON.parse(res.body) as { ok: boolean; result: { files: unknown[] }; error?: { message: string } };
    };
    const preview = await op('agents.preview', { agent: 'codex', mcp: 'stdio' });
    expect(preview.ok, preview.error?.message).toBe(true);
    const file = join(userHome, '.codex', 'config.toml');
    expect(preview.result.files[0]).toMatchObject({ path: file, exists: false, changed: true });
    const written = await op('agents.write', { agent: 'codex', mcp: 'stdio', expected: [{ path: file, baseHash: 'absent' }] });
    expect(written.result.files[0]).toMatchObject({ written: true, created: true });
    const server = (parseToml(readFileSync(file, 'utf8')) as { mcp_servers: Record<string, unknown> }).mcp_servers.gatehouse;
    expect(server).toMatchObject({ args: expect.arrayContaining(['mcp', '--home', r.home]), required: true, default_tools_approval_mode: 'approve', tool_timeout_sec: 635 });
    expect(r.host.settings.current.mcpClientTimeouts).toEqual({ 'codex-mcp-client': 635 });
    // The agent token cannot write it.
    const asAgent = await http({ port: r.port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method: 'agents.write', params: { agent: 'codex', mcp: 'stdio', expected: [{ path: file, baseHash: 'absent' }] } }) });
    expect(asAgent.status).toBe(401);
    // With Codex's timeout known (635 s), its approvals get the full expiry (10 min) instead of 295 s.
    const codex = await mcpClient(r, 'codex-mcp-client');
    const ac = new AbortController();
    const p = codex.callTool({ name: 'hello', arguments: { name: 'Ada' } }, undefined, { signal: ac.signal }).catch(() => null);
    const item = await nextPending(r);
    expect(item.expiresAt - item.requestedAt).toBe(600_000);
    ac.abort();
    await p;
    await codex.close();
  });
});
