// First run and the Getting Started panel's host side, on a real host on loopback: a new home is
// given the example plugins (discovered, disabled), each step's state comes from the registry and
// the audit log, and the console's test call goes through the real gateway as agent
// console-test — let through as a read (hello, held by the sandbox) or, for a tool that may write,
// waiting in the inbox, decided by the operator; recorded like any agent's call.
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEvent } from '../../../main/audit/event-schemas.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import type { ApprovalItemView, GettingStartedView, ResponseOf, Settings, TestCallView } from '../../../shared/contract.js';
import { repoRoot } from '../../support/cli.js';
import { http } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';
import { changeHello, HELLO_DIR, HELLO_WRITES } from '../../support/hello-variants.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';

const examplesDir = join(repoRoot, 'examples', 'plugins');
const rendererDir = join(repoRoot, 'out', 'renderer');

interface Running {
  home: string;
  host: Host;
  net: Listening;
  op<T = unknown>(method: string, params?: unknown): Promise<T>;
  opRaw(method: string, params?: unknown): Promise<{ ok: boolean; error?: { code: string; message: string } }>;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function start(opts: { home?: string; settings?: Partial<Settings>; examples?: string | null } = {}): Promise<Running> {
  const home = opts.home ?? join(tempDir('gatehouse-gs-'), 'home');
  if (opts.settings) {
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify(opts.settings));
  }
  const examples = opts.examples === undefined ? examplesDir : opts.examples;
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, ...(examples ? { examplesDir: examples } : {}) });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
  const port = net.shell.port;
  const opRaw = async (method: string, params: unknown = {}) => {
    const res = await http({ port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${net.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
    return JSON.parse(res.body) as { ok: boolean; result?: unknown; error?: { code: string; message: string } };
  };
  let closed = false;
  const r: Running = {
    home,
    host,
    net,
    opRaw,
    async op<T>(method: string, params: unknown = {}) {
      const env = await opRaw(method, params);
      if (!env.ok) throw new Error(`${method}: ${env.error?.code} ${env.error?.message}`);
      return env.result as T;
    },
    async close() {
      if (closed) return;
      closed = true;
      await net.shell.close();
      await host.close('test done');
    },
  };
  running.push(r);
  return r;
}

/**
 * A new home whose hello was given a write path before the first start (the examples copy leaves
 * an operator's folder alone): no confined reader, so at supervised its test call asks.
 */
function homeWithWritingHello(): string {
  const home = join(tempDir('gatehouse-gs-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  cpSync(HELLO_DIR, join(home, 'plugins', 'hello'), { recursive: true });
  changeHello(join(home, 'plugins', 'hello'), HELLO_WRITES);
  return home;
}

/** The pipeline recorded the call's result (it finishes after the approval is answered). */
const resultRecorded = (r: Running, call: string) => r.host.audit.tail(200).some((e) => e.type === 'call.result' && (e.payload as { call?: string }).call === call);

const guide = (r: Running) => r.op<GettingStartedView>('gettingStarted.get');

/** Resolves once `test` holds, checked now and after each event the host pushes (no sleeping). */
function until<T>(r: Running, test: () => T | undefined | null | false): Promise<T> {
  return new Promise((resolve) => {
    const check = () => {
      const v = test();
      if (!v) return;
      off();
      resolve(v);
    };
    const off = r.host.bus.subscribe(() => check());
    check();
  });
}

describe('first run', () => {
  it('a new home is given the example plugins, discovered and disabled, once', async () => {
    const r = await start();
    const list = await r.op<ResponseOf<'plugins.list'>>('plugins.list');
    const byName = new Map(list.plugins.map((p) => [p.name, p]));
    for (const name of ['hello', 'path-guard', 'rate-limit']) {
      expect(byName.get(name), name).toMatchObject({ origin: 'home', status: 'disabled', dir: join(r.home, 'plugins', name) });
    }
    // fs-mcp starts its server from Gatehouse's node_modules by a relative path: not copied.
    expect(byName.has('fs-mcp')).toBe(false);
    expect(r.host.settings.current).toMatchObject({ mode: 'dry-run', autonomy: 'supervised' });
    const copied = r.host.audit.tail(1000).filter((e) => e.type === 'plugin.examples-copied');
    expect(copied).toHaveLength(1);
    expect(copied[0]!.payload).toMatchObject({ names: ['hello', 'path-guard', 'rate-limit'], from: examplesDir, to: join(r.home, 'plugins') });
    expect((await guide(r)).examples).toEqual({ from: examplesDir, copied: ['hello', 'path-guard', 'rate-limit'] });

    // Deleted by the operator: the next start does not bring it back.
    await r.close();
    rmSync(join(r.home, 'plugins', 'rate-limit'), { recursive: true });
    const again = await start({ home: r.home });
    expect((await again.op<ResponseOf<'plugins.list'>>('plugins.list')).plugins.map((p) => p.name).sort()).toEqual(['hello', 'path-guard']);
    expect(again.host.audit.tail(1000).filter((e) => e.type === 'plugin.examples-copied')).toHaveLength(1);
  });

  it('a plugin folder the operator already has is left alone, and a host without examples copies nothing', async () => {
    const home = join(tempDir('gatehouse-gs-'), 'home');
    mkdirSync(join(home, 'plugins', 'hello'), { recursive: true });
    writeFileSync(join(home, 'plugins', 'hello', 'mine.txt'), 'the operator\'s own hello');
    const r = await start({ home });
    expect((await guide(r)).examples?.copied).toEqual(['path-guard', 'rate-limit']);
    expect(existsSync(join(home, 'plugins', 'hello', 'tool.toml'))).toBe(false);

    const bare = await start({ examples: null });
    expect((await bare.op<ResponseOf<'plugins.list'>>('plugins.list')).plugins).toEqual([]);
    expect((await guide(bare)).examples).toBeNull();
    expect((await guide(bare)).plugin).toMatchObject({ name: 'hello', found: false, done: false });
  });
});

describe('the Getting Started steps', () => {
  it('in a new home, the test call of hello passes as a read without asking (the sandbox holds it), and the walk is recorded', async () => {
    expect(detectSandbox().kind, 'this test needs bubblewrap working here (gatehouse doctor)').toBe('bwrap');
    const r = await start();
    await r.op('plugins.enable', { name: 'hello' });
    const sent = await r.op<TestCallView>('gateway.testCall', { tool: 'hello', arguments: { name: 'Gatehouse' } });
    expect(sent).toMatchObject({ tool: 'hello', agent: 'console-test', plugin: 'hello', approval: null, approvalState: null, decision: 'allow' });
    expect(sent.reason).toMatch(/hello runs in the sandbox with no write paths and no hosts/);
    await until(r, () => resultRecorded(r, sent.call));
    const g = await guide(r);
    // Dry run (a new home's mode): allowed, not executed.
    expect(g.testCall).toMatchObject({ call: sent.call, stage: 'finished', approvalState: null, decision: 'allow', decidedBy: 'autonomy supervised', executed: false, mode: 'dry-run' });
    expect(g.testCallDone).toBe(true);
    expect(r.host.approvals.list()).toEqual([]);
    expect(r.host.audit.tail(1000).map((e) => checkEvent(e)).filter(Boolean)).toEqual([]);
  });

  it('walks from a new home to a test call decided in the inbox and recorded in the audit log', async () => {
    // hello with a write path: a call that does more than read, which supervised asks about.
    const r = await start({ home: homeWithWritingHello() });
    let g = await guide(r);
    expect(g).toMatchObject({ dismissed: false, completed: false, mode: 'dry-run', testCall: null, testCallDone: false });
    expect(g.plugin).toMatchObject({ name: 'hello', found: true, status: 'disabled', scanPassed: true, done: false });
    expect(g.agent).toEqual({ done: false, skipped: false, seen: null });

    // Step 1: enabled by the operator (the step follows the registry, not a click).
    await r.op('plugins.enable', { name: 'hello' });
    expect((await guide(r)).plugin).toMatchObject({ status: 'enabled', done: true });

    // Step 3: the test call answers while it waits in the inbox (supervised: this hello may write).
    const sent = await r.op<TestCallView>('gateway.testCall', { tool: 'hello', arguments: { name: 'Gatehouse' } });
    expect(sent).toMatchObject({ tool: 'hello', agent: 'console-test', plugin: 'hello', stage: 'waiting', approvalState: 'pending', decision: null, executed: null });
    expect(sent.session).toMatch(/^console-test-[0-9a-f]{8}$/);
    expect(sent.approval).toBeTruthy();
    const items = (await r.op<ResponseOf<'approvals.list'>>('approvals.list', { state: 'pending' })).items;
    expect(items).toHaveLength(1);
    const item = items[0] as ApprovalItemView;
    expect(item).toMatchObject({ id: sent.approval, call: { id: sent.call, agent: 'console-test', session: sent.session, tool: 'hello', source: 'console', arguments: { name: 'Gatehouse' } }, askedBy: { kind: 'autonomy', level: 'supervised' } });
    g = await guide(r);
    expect(g.testCall).toMatchObject({ call: sent.call, stage: 'waiting' });
    expect(g.testCallDone).toBe(false);

    // The operator approves it in the inbox; in dry-run it is then not executed.
    await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash });
    await until(r, () => resultRecorded(r, sent.call));
    g = await guide(r);
    expect(g.testCall).toMatchObject({
      call: sent.call,
      stage: 'finished',
      approvalState: 'approved',
      approvedBy: r.host.approvals.get(item.id)!.operator,
      decision: 'allow',
      executed: false,
      mode: 'dry-run',
    });
    expect(g.testCall!.decidedBy).toMatch(/^operator /);
    expect(g.testCall!.reason).toMatch(/Dry run/);
    expect(g.testCallDone).toBe(true);
    // Not complete: no agent yet. Marking the step done by hand completes it.
    expect(g.completed).toBe(false);
    g = await r.op<GettingStartedView>('gettingStarted.update', { agentSkipped: true });
    expect(g.agent).toEqual({ done: true, skipped: true, seen: null });
    expect(g.completed).toBe(true);

    // Recorded like any other call: the operator's send, then the call's own events as console-test.
    const search = await r.op<ResponseOf<'audit.search'>>('audit.search', { agent: 'console-test' });
    const types = search.events.map((e) => e.type).reverse();
    expect(types).toEqual(expect.arrayContaining(['call.received', 'call.extracted', 'approval.requested', 'approval.decided', 'call.decided', 'call.result']));
    const received = search.events.find((e) => e.type === 'call.received')!;
    expect(received).toMatchObject({ actor: 'agent:console-test', payload: { call: sent.call, session: sent.session, source: 'console', tool: 'hello' } });
    const bySession = await r.op<ResponseOf<'audit.search'>>('audit.search', { session: sent.session });
    const sentEvent = bySession.events.find((e) => e.type === 'gateway.test-call');
    expect(sentEvent).toMatchObject({ actor: expect.stringMatching(/^operator:/), payload: { call: sent.call, tool: 'hello', agent: 'console-test' } });
    expect(sentEvent!.seq).toBeLessThan(received.seq);
    // Full-text search finds it too.
    const fts = await r.op<ResponseOf<'audit.search'>>('audit.search', { query: '"console-test"' });
    expect(fts.events.some((e) => e.type === 'call.received' && (e.payload as { call?: string }).call === sent.call)).toBe(true);
    // Every event of the walk, the new ones included, has the shape docs/audit-events.md gives.
    expect(r.host.audit.tail(1000).map((e) => checkEvent(e)).filter(Boolean)).toEqual([]);
  });

  it('live: the approved test call runs the plugin and its output is on record', async () => {
    const r = await start({ home: homeWithWritingHello(), settings: { mode: 'live' } });
    await r.op('plugins.enable', { name: 'hello' });
    const sent = await r.op<TestCallView>('gateway.testCall', { tool: 'hello', arguments: { name: 'Ada' } });
    const item = r.host.approvals.get(sent.approval!)!;
    await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash });
    await until(r, () => resultRecorded(r, sent.call));
    const g = await guide(r);
    expect(g.testCall).toMatchObject({ stage: 'finished', executed: true, mode: 'live', ok: true });
    expect(JSON.parse(g.testCall!.output!)).toEqual({ greeting: 'Hello, Ada.' });
  });

  it('a denial and a tool that is not enabled are both decided, and nothing runs', async () => {
    const r = await start({ home: homeWithWritingHello(), settings: { mode: 'live' } });
    // hello is not enabled yet: the gateway refuses at once, and says so.
    const missing = await r.op<TestCallView>('gateway.testCall', { tool: 'hello', arguments: { name: 'Eve' } });
    expect(missing).toMatchObject({ stage: 'finished', decision: 'deny', executed: false, approval: null, plugin: null });
    expect(missing.reason).toMatch(/no tool named "hello" enabled/);

    await r.op('plugins.enable', { name: 'hello' });
    const sent = await r.op<TestCallView>('gateway.testCall', { tool: 'hello', arguments: { name: 'Eve' } });
    await r.op('approvals.deny', { id: sent.approval, reason: 'just trying the deny key' });
    await until(r, () => resultRecorded(r, sent.call));
    const g = await guide(r);
    expect(g.testCall).toMatchObject({ call: sent.call, stage: 'finished', approvalState: 'denied', decision: 'deny', executed: false, reason: 'just trying the deny key' });
    expect(g.testCallDone).toBe(true);
    expect(r.host.audit.tail(200).some((e) => e.type === 'execution.started')).toBe(false);
  });

  it('the agent step is done by a real agent call over MCP, and the panel state survives a restart', async () => {
    const r = await start();
    await r.op('gettingStarted.update', { dismissed: true });
    const client = new Client({ name: 'first-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(r.net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${r.net.agentToken}` } } }));
    // A call a locked rule denies at once (an unknown tool is a protocol error and no call at all):
    // denied, but the agent is on record as connected.
    const res = await client.callTool({ name: 'shell', arguments: { command: 'cat ~/.ssh/id_rsa' } });
    expect(res.isError).toBe(true);
    await client.close();
    const g = await guide(r);
    // The agent is the token's (serve.json's is "default"), not the client's own name.
    expect(g.agent).toMatchObject({ done: true, skipped: false, seen: { agent: 'default', source: 'mcp' } });

    await r.close();
    const again = await start({ home: r.home });
    const after = await guide(again);
    expect(after.dismissed).toBe(true);
    expect(after.agent.seen).toMatchObject({ agent: 'default' });
    expect((await again.op<GettingStartedView>('gettingStarted.update', { dismissed: false })).dismissed).toBe(false);
  });

  it('refuses a malformed test call at the boundary', async () => {
    const r = await start({ examples: null });
    expect(await r.opRaw('gateway.testCall', { tool: '' })).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(await r.opRaw('gateway.testCall', { tool: 'hello', arguments: {}, agent: 'someone-else' })).toMatchObject({ ok: false, error: { code: 'bad_request' } });
  });
});
