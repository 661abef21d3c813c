// Restarts lose nothing silently (issue #14 item 2): session grants and the inbox history live in
// the audit database (a real SQLite file) and come back when a host is built again on the same
// home; a call waiting when `gatehouse serve` stops is answered with a deny and closed with
// `call.abandoned`; one waiting when the host is killed is closed at the next start.
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { readServeFile } from '../../../main/shells/serve/serve-file.js';
import { WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../../main/shells/serve/guards.js';
import { homePaths } from '../../../main/home.js';
import { repoRoot, startCli } from '../../support/cli.js';
import { untilLogged, WsClient, wsConnect } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';
import { nextPending } from '../../support/inbox.js';
import Database from 'better-sqlite3';
import { ApprovalQueue, ApprovalStore } from '../../../main/approvals/index.js';
import { FakeTime } from '../../support/fake-time.js';
import { call, x } from '../../fixtures/policy/helpers.js';

const rendererDir = join(repoRoot, 'out', 'renderer');

interface Running {
  host: Host;
  net: Listening;
  close(): Promise<void>;
}

const open: Running[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

function newHome(): string {
  const home = join(tempDir('gatehouse-restart-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', hookAsk: 'inbox' }));
  return home;
}

async function build(home: string): Promise<Running> {
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
  let closed = false;
  const r: Running = {
    host,
    net,
    async close() {
      if (closed) return;
      closed = true;
      open.splice(open.indexOf(r), 1);
      await host.answerWaiting();
      await net.shell.close();
      await host.close('test restart');
    },
  };
  open.push(r);
  return r;
}

/** A Claude Code PreToolUse hook request over real HTTP; resolves with the answer or the connection error. */
function hook(url: string, agentToken: string, session: string, command: string): Promise<{ status: number; json: Record<string, unknown> } | { error: string }> {
  const body = JSON.stringify({ session_id: session, cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `tu-${command.length}` });
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { Authorization: `Bearer ${agentToken}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
    });
    req.on('error', (err) => resolve({ error: err.message }));
    req.end(body);
  });
}

const decisionOf = (a: Awaited<ReturnType<typeof hook>>) => ('json' in a ? (a.json.hookSpecificOutput as { permissionDecision: string; permissionDecisionReason: string }) : null);

const events = (host: Host, type: string) => host.audit.tail(5000).filter((e) => e.type === type) as { type: string; payload: Record<string, unknown> }[];

describe('grants and history survive a restart', () => {
  it('a session grant comes back live (grant.restored) and still lets its call through; a revoked one does not; the history is there', async () => {
    const home = newHome();
    let r = await build(home);
    const hookUrl = `${r.net.mcpUrl.replace(/\/mcp$/, '')}/hooks/claude/pre-tool-use`;
    // Two asked calls: one approved for the session, one denied; a third approved for the session and then revoked.
    const kept = hook(hookUrl, r.net.agentToken, 'restart-s', 'touch kept.txt');
    const keptItem = await nextPending(r.host);
    const { grant } = r.host.approvals.approve(keptItem.id, { operator: 'tester', argsHash: keptItem.argsHash, scope: 'session', sessionExpiresInMs: 3_600_000 });
    expect(decisionOf(await kept)?.permissionDecision).toBe('allow');
    const denied = hook(hookUrl, r.net.agentToken, 'restart-s', 'touch denied.txt');
    const deniedItem = await nextPending(r.host);
    r.host.approvals.deny(deniedItem.id, { operator: 'tester', reason: 'not today' });
    expect(decisionOf(await denied)?.permissionDecision).toBe('deny');
    const revoked = hook(hookUrl, r.net.agentToken, 'restart-s', 'touch revoked.txt');
    const revokedItem = await nextPending(r.host);
    const { grant: gone } = r.host.approvals.approve(revokedItem.id, { operator: 'tester', argsHash: revokedItem.argsHash, scope: 'session' });
    await revoked;
    r.host.approvals.grants.revoke(gone!.id, 'tester');
    await r.close();

    // The same home, a new host: the same SQLite file.
    r = await build(home);
    expect(r.host.approvals.grants.list()).toEqual([{ ...grant }]);
    expect(events(r.host, 'grant.restored').map((e) => e.payload)).toEqual([expect.objectContaining({ id: grant!.id, expiresAt: grant!.expiresAt, operator: 'tester' })]);
    const history = r.host.approvals.list();
    expect(history.map((i) => [i.id, i.state])).toEqual([
      [keptItem.id, 'approved'],
      [deniedItem.id, 'denied'],
      [revokedItem.id, 'approved'],
    ]);
    expect(history[1]!.outcome?.reason).toBe('not today');
    // The restored grant still covers its call: allowed by the grant, nobody asked.
    const hookUrl2 = `${r.net.mcpUrl.replace(/\/mcp$/, '')}/hooks/claude/pre-tool-use`;
    const again = decisionOf(await hook(hookUrl2, r.net.agentToken, 'restart-s', 'touch kept.txt'));
    expect(again).toMatchObject({ permissionDecision: 'allow', permissionDecisionReason: expect.stringMatching(/grant/) });
    expect(r.host.approvals.list({ state: 'pending' })).toHaveLength(0);
    // The console's history comes from the same list, over the operator API.
    const listed = await r.host.dispatcher.dispatch('approvals.list', {}, { operator: 'tester', console: 'test' } as never);
    expect(listed).toMatchObject({ ok: true });
  });
});

describe('a call waiting when the host stops', () => {
  it('`gatehouse serve` stopped (SIGTERM): the waiting hook is answered with a deny, and call.abandoned is on record', { timeout: 45_000 }, async () => {
    const home = newHome();
    const serve = startCli(['serve', '--home', home, '--port', '0']);
    await serve.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
    const info = readServeFile(homePaths(home).serveJson)!;
    // The inbox, watched over the operator WebSocket: the hook's call is waiting once it says so.
    const wsUrl = `ws://127.0.0.1:${info.port}/ws`;
    const ws = await wsConnect(wsUrl, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + info.token], origin: `http://127.0.0.1:${info.port}` });
    if (!ws.ok) throw new Error(`operator WebSocket refused: ${ws.status}`);
    const console = new WsClient(ws.ws);
    const waiting = console.waitForEvent((e) => e.event === 'approvals.changed' && (e.payload as { pending: number }).pending === 1);
    const answer = hook(info.hookUrl, info.agentToken, 'stop-s', 'touch never.txt');
    await waiting;
    serve.child.kill('SIGTERM');
    const got = await answer;
    expect(got).toMatchObject({ status: 200 });
    expect(decisionOf(got)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/Gatehouse is shutting down/) });
    expect(await serve.exited).toMatchObject({ code: 0 });

    const r = await build(home);
    const abandoned = events(r.host, 'call.abandoned').map((e) => e.payload);
    expect(abandoned).toEqual([expect.objectContaining({ reason: 'host shut down', answered: true })]);
    const item = r.host.approvals.list().find((i) => i.id === abandoned[0]!.approval)!;
    expect(item).toMatchObject({ state: 'denied', outcome: { decider: { kind: 'error', message: 'Gatehouse is shutting down' } } });
    expect(() => r.host.approvals.approve(item.id, { operator: 'tester', argsHash: item.argsHash, scope: 'once' })).toThrow(/already denied/);
  });

  it('killed (SIGKILL): at the next start the call is closed as abandoned ("host stopped unexpectedly") and cannot be approved', async () => {
    const home = newHome();
    const serve = startCli(['serve', '--home', home, '--port', '0']);
    await serve.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
    const info = readServeFile(homePaths(home).serveJson)!;
    const ws = await wsConnect(`ws://127.0.0.1:${info.port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + info.token], origin: `http://127.0.0.1:${info.port}` });
    if (!ws.ok) throw new Error(`operator WebSocket refused: ${ws.status}`);
    const console = new WsClient(ws.ws);
    const waiting = console.waitForEvent((e) => e.event === 'approvals.changed' && (e.payload as { pending: number }).pending === 1);
    const answer = hook(info.hookUrl, info.agentToken, 'kill-s', 'touch never.txt');
    const asked = await waiting;
    expect(asked.payload).toMatchObject({ pending: 1 });
    // Killed once the wait is committed (the item is written in the same transaction as its
    // approval.requested event): what a crash can lose is only what was never acknowledged. Not
    // "the next audit.appended": that can be the batch before, holding only call.received. A
    // console read returns only what is committed.
    await untilLogged(console, (e) => e.type === 'approval.requested');
    serve.child.kill('SIGKILL');
    // Nobody answers a killed host's callers: the connection just ends.
    expect(await answer).toHaveProperty('error');
    await serve.exited;

    const r = await build(home);
    const abandoned = events(r.host, 'call.abandoned').map((e) => e.payload);
    expect(abandoned).toEqual([expect.objectContaining({ reason: 'host stopped unexpectedly', answered: false, tool: 'Bash' })]);
    const item = r.host.approvals.list().find((i) => i.id === abandoned[0]!.approval)!;
    expect(item.state).toBe('denied');
    expect(item.outcome?.reason).toMatch(/stopped unexpectedly/);
    expect(r.host.approvals.list({ state: 'pending' })).toHaveLength(0);
    expect(() => r.host.approvals.approve(item.id, { operator: 'tester', argsHash: item.argsHash, scope: 'once' })).toThrow(/already denied/);
    // Closed once: a second restart does not abandon it again.
    await r.close();
    const again = await build(home);
    expect(events(again.host, 'call.abandoned')).toHaveLength(1);
  });
});

describe('the store under the queue (a real SQLite file, fake time)', () => {
  function queueOn(file: string, time: FakeTime) {
    const db = new Database(file);
    const events: { type: string; payload: Record<string, unknown> }[] = [];
    const store = new ApprovalStore(db);
    const queue = new ApprovalQueue({ clock: time, timers: time, store, record: (type, _actor, payload) => events.push({ type, payload }) });
    const kept = store.load();
    queue.restore(kept.items);
    queue.grants.restore(kept.grants);
    return { db, queue, events, types: () => events.map((e) => e.type) };
  }
  const ask = (q: ApprovalQueue, path: string) =>
    q.request({ call: call('write_file', { arguments: { path, content: 'hi' } }), extraction: x('write', [path]), askedBy: { kind: 'autonomy', level: 'supervised' }, reason: 'supervised: writes ask' });

  it('a grant that expired while the host was stopped is recorded as expired, not restored; a live one is restored; a crash leftover is abandoned once', async () => {
    const file = join(tempDir('gatehouse-astore-'), 'audit.db');
    const time = new FakeTime();
    const a = queueOn(file, time);
    const short = ask(a.queue, '/tmp/a');
    a.queue.approve(short.id, { operator: 'alice', argsHash: a.queue.get(short.id)!.argsHash, scope: 'session', sessionExpiresInMs: 60_000 });
    const long = ask(a.queue, '/tmp/b');
    a.queue.approve(long.id, { operator: 'alice', argsHash: a.queue.get(long.id)!.argsHash, scope: 'session', sessionExpiresInMs: 3_600_000 });
    const left = ask(a.queue, '/tmp/c');
    // A crash: nothing closes the queue; the file is all that is left.
    a.db.close();
    time.jump(120_000);

    const b = queueOn(file, time);
    expect(b.queue.grants.list().map((g) => g.approval)).toEqual([long.id]);
    expect(b.types()).toEqual(['call.abandoned', 'grant.expired', 'grant.restored']);
    expect(b.events[0]!.payload).toMatchObject({ approval: left.id, reason: 'host stopped unexpectedly', answered: false });
    expect(b.queue.get(left.id)).toMatchObject({ state: 'denied', outcome: { decider: { kind: 'error', message: 'host stopped unexpectedly' } } });
    expect(b.queue.list().map((i) => i.id)).toEqual([short.id, long.id, left.id]);
    b.db.close();

    const c = queueOn(file, time);
    expect(c.types()).toEqual(['grant.restored']);
    c.db.close();
  });

  it('a store that cannot write (SQLITE_FULL) throws before anyone is told (nothing pending, nothing recorded), which the pipeline turns into a denial of that call', () => {
    const file = join(tempDir('gatehouse-astore-full-'), 'audit.db');
    const time = new FakeTime();
    const a = queueOn(file, time);
    // The file may not grow past its current pages: the next item does not fit.
    const pages = a.db.pragma('page_count', { simple: true }) as number;
    a.db.pragma(`max_page_count = ${pages}`);
    expect(() => ask(a.queue, `/tmp/${'x'.repeat(20_000)}`)).toThrow(/full/i);
    expect(a.queue.pendingSize()).toBe(0);
    expect(a.types()).toEqual([]);
    a.db.close();
  });
});
