// The life of a call waiting in the inbox (issue #14 item 1, #21 item 3), against a real host on
// loopback with real clients: an MCP client that cancels, a hook whose connection closes, a hook
// whose own deadline comes first, an approval that expires, and a host that shuts down. Each
// closes the item with its own state and reason, records its closing event, refuses a late
// approval, and never runs the call.
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { CLAUDE_HOOK_TIMEOUT_S, HOOK_COMMAND_TIMEOUT_S, HOOK_DEADLINE_HEADER, HOOK_MARGIN_MS } from '../../../main/gateway/hook-answer.js';
import type { ApprovalItemView, Settings } from '../../../shared/contract.js';
import { repoRoot, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';
import { formatItem } from '../../../main/cli/approval-commands.js';

const rendererDir = join(repoRoot, 'out', 'renderer');

interface Running {
  home: string;
  host: Host;
  net: Listening;
  port: number;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function start(settings: Partial<Settings> = {}): Promise<Running> {
  const home = join(tempDir('gatehouse-life-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', hookAsk: 'inbox', ...settings }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
  let closed = false;
  const r: Running = {
    home,
    host,
    net,
    port: net.shell.port,
    async close() {
      if (closed) return;
      closed = true;
      // The order `gatehouse serve` stops in: waiting calls answered, then connections closed.
      await host.answerWaiting();
      await net.shell.close();
      await host.close('test done');
    },
  };
  running.push(r);
  return r;
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
const closedItem = (r: Running, id: string) =>
  whenApprovals(r, () => {
    const i = r.host.approvals.get(id);
    return i && i.state !== 'pending' ? i : null;
  });
const events = (r: Running, type: string) => r.host.audit.tail(2000).filter((e) => e.type === type) as { type: string; payload: Record<string, unknown> }[];

async function mcpClient(r: Running): Promise<Client> {
  const client = new Client({ name: 'lifecycle-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(r.net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${r.net.agentToken}` } } }));
  return client;
}

function markerPath(): string {
  return join(realpathSync(tempDir('gatehouse-life-marker-')), 'ran');
}

/** A Claude Code PreToolUse hook request over real HTTP; `sent` lets the test cut its connection. */
function hookRequest(r: Running, command: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ session_id: 'life-1', cwd: r.home, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'tu-life' });
  let cut = () => {};
  const answer = new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
    const req = request(
      { host: '127.0.0.1', port: r.port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', (err) => resolve({ error: err.message }));
    req.end(body);
    cut = () => req.destroy();
  });
  return { answer, cut: () => cut() };
}

function expectApproveRefused(r: Running, item: ApprovalItemView, pattern: RegExp): void {
  expect(() => r.host.approvals.approve(item.id, { operator: 'tester', argsHash: item.argsHash, scope: 'once' })).toThrow(pattern);
}

describe('a waiting call whose agent is gone', () => {
  it('MCP cancellation (notifications/cancelled): agent gone, approval.withdrawn, approve refused, the tool never runs', async () => {
    const r = await start();
    const marker = markerPath();
    const client = await mcpClient(r);
    const ac = new AbortController();
    const call = client.callTool({ name: 'shell', arguments: { command: `touch ${marker}` } }, undefined, { signal: ac.signal }).catch((e: unknown) => e);
    const item = await nextPending(r);
    ac.abort('the user pressed Esc');
    const closed = await closedItem(r, item.id);
    expect(closed).toMatchObject({ state: 'gone', outcome: { state: 'gone', decider: { kind: 'error', message: expect.stringMatching(/^agent gone/) } } });
    expectApproveRefused(r, item, /cannot be approved: its agent is gone/);
    await call;
    expect(events(r, 'approval.withdrawn').map((e) => e.payload)).toEqual([expect.objectContaining({ id: item.id, call: item.call.id, state: 'gone', reason: expect.stringMatching(/Agent gone/) })]);
    expect(events(r, 'call.result').find((e) => e.payload.call === item.call.id)?.payload).toMatchObject({ executed: false });
    expect(existsSync(marker)).toBe(false);
    await client.close();
  });

  it("a hook whose connection closes (req/res 'close'): agent gone with that reason, approve refused", async () => {
    const r = await start();
    const h = hookRequest(r, 'touch /tmp/gatehouse-life-never');
    const item = await nextPending(r);
    expect(item.call.source).toBe('hook');
    h.cut();
    const closed = await closedItem(r, item.id);
    expect(closed.state).toBe('gone');
    expect(closed.outcome?.reason).toMatch(/connection closed/);
    expectApproveRefused(r, item, /its agent is gone/);
    expect(await h.answer).toHaveProperty('error');
    expect(events(r, 'approval.withdrawn').map((e) => e.payload)).toEqual([expect.objectContaining({ id: item.id, state: 'gone' })]);
  });

  it('an agent API caller (/agent/v1/calls) that disconnects while its call waits: agent gone, approve refused, never run', async () => {
    const r = await start();
    const marker = markerPath();
    const body = JSON.stringify({ agent: 'script', tool: 'shell', arguments: { command: `touch ${marker}` } });
    let cut = () => {};
    const answer = new Promise<string>((resolve) => {
      const req = request({ host: '127.0.0.1', port: r.port, path: '/agent/v1/calls', method: 'POST', headers: { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => res.resume().on('end', () => resolve('answered')));
      req.on('error', (err) => resolve(err.message));
      req.end(body);
      cut = () => req.destroy();
    });
    const item = await nextPending(r);
    expect(item.call.source).toBe('api');
    expect(item.deadlineReason).toBe('approval expiry');
    cut();
    const closed = await closedItem(r, item.id);
    expect(closed.state).toBe('gone');
    expect(closed.outcome?.reason).toMatch(/the API caller disconnected/);
    expectApproveRefused(r, item, /its agent is gone/);
    expect(await answer).not.toBe('answered');
    expect(events(r, 'approval.withdrawn').map((e) => e.payload)).toEqual([expect.objectContaining({ id: item.id, state: 'gone' })]);
    expect(existsSync(marker)).toBe(false);
  });

  it("the hook's own deadline comes first: the inbox counts down to it, says whose it is, and the item closes as agent gone with a deny answered in time", async () => {
    const r = await start();
    // The hook says it waits 6 s: Gatehouse answers 5 s before, so the item may wait 1 s.
    const h = hookRequest(r, 'touch /tmp/gatehouse-life-never', { [HOOK_DEADLINE_HEADER]: '6000' });
    const item = await nextPending(r);
    expect(item.deadline - item.requestedAt).toBe(1000);
    expect(item.deadline).toBe(item.expiresAt);
    expect(item.deadlineReason).toBe("the hook's own timeout");
    expect(events(r, 'approval.requested').at(-1)!.payload).toMatchObject({ id: item.id, deadline: item.deadline, deadlineReason: "the hook's own timeout" });
    // `gatehouse approvals list` counts down to the same deadline and says whose it is.
    expect(formatItem(item, item.requestedAt).split('\n')[0]).toContain("pending (1 s left, the hook's own timeout)");
    const closed = await closedItem(r, item.id);
    expect(formatItem(closed, closed.decidedAt!).split('\n')[0]).toMatch(new RegExp(`^${item.id}  agent gone  `));
    expect(closed.state).toBe('gone');
    expect(closed.outcome?.reason).toMatch(/the hook's own timeout ends at .* before an operator decided/);
    const answer = await h.answer;
    expect(answer).toMatchObject({ status: 200 });
    const reply = JSON.parse((answer as { body: string }).body).hookSpecificOutput as { permissionDecision: string; permissionDecisionReason: string };
    expect(reply).toMatchObject({ permissionDecision: 'deny' });
    // The model reads this while its hook still waits: its wait ran out, it is not "gone".
    expect(reply.permissionDecisionReason).toMatch(/^Gatehouse \(error: wait ran out: the hook's own timeout ends at .*\): The time this agent waits ran out before an operator decided/);
    expect(reply.permissionDecisionReason).not.toMatch(/agent gone/i);
    expectApproveRefused(r, item, /its agent is gone/);
    expect(events(r, 'approval.withdrawn').map((e) => e.payload)).toEqual([expect.objectContaining({ id: item.id, state: 'gone' })]);
  });

  it('an approval expiry nearer than the caller\'s deadline: expired (not gone), approval.expired, approve refused', async () => {
    // 0.05 minutes: 3 s, nearer than the hook's default deadline (600 s less the margin).
    const r = await start({ approvalExpiryMinutes: 0.05 });
    const h = hookRequest(r, 'touch /tmp/gatehouse-life-never');
    const item = await nextPending(r);
    expect(item.deadlineReason).toBe('approval expiry');
    expect(item.deadline - item.requestedAt).toBe(3000);
    const closed = await closedItem(r, item.id);
    expect(closed.state).toBe('expired');
    expectApproveRefused(r, item, /cannot be approved: it expired/);
    expect(JSON.parse(((await h.answer) as { body: string }).body).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(events(r, 'approval.expired').map((e) => e.payload)).toEqual([expect.objectContaining({ id: item.id, state: 'expired' })]);
    expect(events(r, 'approval.withdrawn')).toEqual([]);
  });

  it('host shutdown: the waiting MCP client is answered with a deny ("Gatehouse is shutting down"), call.abandoned is recorded, approve refused', async () => {
    const r = await start();
    const marker = markerPath();
    const client = await mcpClient(r);
    const call = client.callTool({ name: 'shell', arguments: { command: `touch ${marker}` } }) as Promise<CallToolResult>;
    const item = await nextPending(r);
    const waiting = await r.host.answerWaiting();
    expect(waiting).toBe(1);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Gatehouse is shutting down/);
    const closed = r.host.approvals.get(item.id)!;
    expect(closed).toMatchObject({ state: 'denied', outcome: { decider: { kind: 'error', message: 'Gatehouse is shutting down' } } });
    expectApproveRefused(r, item, /cannot be approved: it was already denied/);
    expect(events(r, 'call.abandoned').map((e) => e.payload)).toEqual([
      expect.objectContaining({ call: item.call.id, approval: item.id, reason: 'host shut down', answered: true }),
    ]);
    await client.close();
    await r.close();
    expect(existsSync(marker)).toBe(false);
  });
});

describe('one deadline (#21 item 3)', () => {
  it("`gatehouse hook` waits as long as Claude Code's hook timeout allows (600 s less 10 s), and the inbox counts down to that less the margin", async () => {
    expect(HOOK_COMMAND_TIMEOUT_S).toBe(CLAUDE_HOOK_TIMEOUT_S - 10);
    const r = await start();
    const input = JSON.stringify({ session_id: 'life-cmd', cwd: r.home, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'touch /tmp/gatehouse-life-never' }, tool_use_id: 'tu-cmd' });
    // The real command, with no --timeout: the default it gave up at was 55 s, 9 minutes before the inbox did.
    const run = runCli(['hook', '--home', r.home], {}, input);
    const item = await nextPending(r);
    expect(item.deadline - item.requestedAt).toBe(HOOK_COMMAND_TIMEOUT_S * 1000 - HOOK_MARGIN_MS);
    expect(item.deadlineReason).toBe("the hook's own timeout");
    r.host.approvals.deny(item.id, { operator: 'tester', reason: 'checked the deadline' });
    const out = await run;
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('checked the deadline') });
  });
});
