// Issue #25 finding 6: after a crash every interrupted execution and every abandoned call gets a
// closing event with its decision at the next start. A real `gatehouse serve` (the built CLI) in a
// temporary data folder, a real plugin process, the real MCP SDK client and the hook route, killed
// with SIGKILL while a tool runs and a call waits in the inbox; the restart is a real host on the
// same folder, and `gatehouse audit verify` checks the file.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { homePaths } from '../../../main/home.js';
import { readServeFile } from '../../../main/shells/serve/serve-file.js';
import { WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../../main/shells/serve/guards.js';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { runCli, startCli, type RunningCli } from '../../support/cli.js';
import { untilLogged, WsClient, wsConnect } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';
import { connectAgent } from '../../support/mcp-agent.js';

interface Row {
  seq: number;
  type: string;
  payload: Record<string, unknown>;
}

function rows(home: string): Row[] {
  const db = new Database(homePaths(home).auditDb, { readonly: true });
  try {
    return (db.prepare('SELECT seq, type, payload FROM events ORDER BY seq').all() as { seq: number; type: string; payload: string }[]).map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}

async function serve(home: string, extra: string[] = []): Promise<{ cli: RunningCli; op: WsClient; info: NonNullable<ReturnType<typeof readServeFile>> }> {
  const cli = startCli(['serve', '--home', home, '--port', '0', ...extra]);
  await cli.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
  const info = readServeFile(homePaths(home).serveJson)!;
  const ws = await wsConnect(`ws://127.0.0.1:${info.port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + info.token], origin: `http://127.0.0.1:${info.port}` });
  if (!ws.ok) throw new Error(`operator WebSocket refused: ${ws.status}`);
  return { cli, op: new WsClient(ws.ws), info };
}

function postHook(url: string, token: string, body: unknown): Promise<unknown> {
  const text = JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent: false, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', (err) => resolve(err.message));
    });
    req.on('error', (err) => resolve(err.message));
    req.end(text);
  });
}

/** A home with the `slow` plugin: a tool that runs until the host stops it (the tests never wait for it to end). */
function slowHome(prefix: string): string {
  const home = join(tempDir(prefix), 'home');
  const dir = join(home, 'plugins', 'slow');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), 'name = "slow"\ndescription = "A tool that takes its time."\ncommand = "run.sh"\ntimeout_secs = 300\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\nexec sleep 300\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  return home;
}

describe('a host killed mid-run (SIGKILL): the next start closes what it left open', () => {
  it('a running tool gets call.interrupted with its allow, a waiting call gets call.abandoned with deny, once each, and the chain verifies', async () => {
    const home = slowHome('gatehouse-crash-');
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full', hookAsk: 'inbox' }));
    const first = await serve(home, ['--allowed-plugins', 'slow']);

    // A tool call that runs (its process started), and a hook call that waits in the inbox.
    // The host loads its plugins after it listens: the call goes once `slow` is listed.
    const agent = await connectAgent(first.info, 'crash-agent');
    const client = agent.client;
    await agent.toolsWhen((names) => names.includes('slow'));
    void client.callTool({ name: 'slow', arguments: {} }, undefined, { timeout: 600_000 }).catch(() => {});
    const waiting = first.op.waitForEvent((e) => e.event === 'approvals.changed' && (e.payload as { pending: number }).pending === 1);
    // Under full autonomy a program Gatehouse does not know is still asked about.
    void postHook(first.info.hookUrl, first.info.agentToken, { session_id: 'crash-s', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'frobnicate src/index.ts' }, tool_use_id: 'tu-crash' });
    await waiting;
    await untilLogged(first.op, (e) => e.type === 'execution.started' && e.payload.plugin === 'slow');

    first.cli.child.kill('SIGKILL');
    await first.cli.exited;
    first.op.ws.terminate();
    await client.close().catch(() => {});

    const before = rows(home);
    const received = before.filter((r) => r.type === 'call.received');
    const slow = received.find((r) => r.payload.tool === 'slow')!.payload.call as string;
    const asked = received.find((r) => r.payload.tool === 'Bash')!.payload.call as string;

    // The next start, then a clean stop and a third start: closed once, by the start after the crash.
    for (let i = 0; i < 2; i++) {
      const again = await serve(home);
      again.op.ws.terminate();
      again.cli.child.kill('SIGTERM');
      expect((await again.cli.exited).code).toBe(0);
    }
    const after = rows(home).filter((r) => r.seq > before.at(-1)!.seq);
    const closings = after.filter((r) => r.type === 'call.interrupted' || r.type === 'call.abandoned');
    expect(closings.map((r) => [r.type, r.payload.call])).toEqual(expect.arrayContaining([['call.interrupted', slow], ['call.abandoned', asked]]));
    expect(closings).toHaveLength(2);
    expect(closings.find((r) => r.type === 'call.interrupted')!.payload).toMatchObject({ call: slow, tool: 'slow', plugin: 'slow', decision: 'allow', reason: 'host stopped before the call finished', answered: false });
    expect(closings.find((r) => r.type === 'call.abandoned')!.payload).toMatchObject({ call: asked, decision: 'deny', reason: 'host stopped unexpectedly', answered: false });

    // Every call of the crashed run now ends: a result, or a closing event.
    const ends = new Set(rows(home).filter((r) => ['call.result', 'call.interrupted', 'call.abandoned', 'call.lost'].includes(r.type)).map((r) => r.payload.call));
    expect(received.map((r) => r.payload.call).filter((c) => !ends.has(c))).toEqual([]);
    const verified = await runCli(['audit', 'verify', '--home', home]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    // Three hosts start and stop in turn: longer than the default on a busy machine.
  }, 120_000);

  it('a call killed while still being judged is closed as abandoned with deny, its decided neighbour is left alone', async () => {
    const home = join(tempDir('gatehouse-crash-'), 'home');
    mkdirSync(home, { recursive: true });
    // What a run killed between a call's arrival and its decision leaves: written by a real store,
    // which is closed without host.stopped (that is what a kill leaves).
    const store = new AuditStore({ path: homePaths(home).auditDb, headFile: join(home, 'audit.head') });
    store.append({ type: 'host.started', actor: 'host', payload: { shell: 'serve', pid: 1, version: 'test', operator: 'tester' } });
    store.append({ type: 'call.received', actor: 'agent:a', payload: { call: 'call-judged', agent: 'a', session: 'a/s', tool: 'shell', arguments: { command: 'ls' }, source: 'api', cwd: '/tmp' } });
    store.append({ type: 'call.extracted', actor: 'host', payload: { call: 'call-judged', operations: ['read'], paths: [], hosts: [], command: 'ls', evasive: false, evasiveReasons: [] } });
    store.append({ type: 'call.received', actor: 'agent:a', payload: { call: 'call-done', agent: 'a', session: 'a/s', tool: 'shell', arguments: { command: 'pwd' }, source: 'api', cwd: '/tmp' } });
    store.append({ type: 'call.decided', actor: 'rule:x', payload: { call: 'call-done', decision: 'deny', decider: { kind: 'rule', rule: 'x' }, reason: 'no' } });
    store.close();

    const first = await serve(home);
    first.op.ws.terminate();
    first.cli.child.kill('SIGTERM');
    expect((await first.cli.exited).code).toBe(0);
    const closings = rows(home).filter((r) => r.type === 'call.abandoned');
    expect(closings.map((r) => r.payload)).toEqual([expect.objectContaining({ call: 'call-judged', agent: 'a', tool: 'shell', approval: null, decision: 'deny', reason: 'host stopped unexpectedly', detail: 'host stopped before the call finished', answered: false })]);
    const verified = await runCli(['audit', 'verify', '--home', home]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  }, 60_000);
});

describe('a host stopped cleanly (SIGTERM) while calls are in flight', () => {
  it('closes each call it leaves unfinished itself, before host.stopped: a running tool with call.interrupted, once, and the next start adds nothing', async () => {
    const home = slowHome('gatehouse-stop-');
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    const first = await serve(home, ['--allowed-plugins', 'slow']);
    // The host loads its plugins after it listens: the call goes once `slow` is listed.
    const agent = await connectAgent(first.info, 'stop-agent');
    const client = agent.client;
    await agent.toolsWhen((names) => names.includes('slow'));
    void client.callTool({ name: 'slow', arguments: {} }, undefined, { timeout: 600_000 }).catch(() => {});
    await untilLogged(first.op, (e) => e.type === 'execution.started' && e.payload.plugin === 'slow');

    first.op.ws.terminate();
    first.cli.child.kill('SIGTERM');
    expect((await first.cli.exited).code).toBe(0);
    await client.close().catch(() => {});

    const all = rows(home);
    expect(all.at(-1)!.type).toBe('host.stopped');
    const slow = all.find((r) => r.type === 'call.received' && r.payload.tool === 'slow')!.payload.call as string;
    const ends = all.filter((r) => r.payload.call === slow && ['call.result', 'call.interrupted', 'call.abandoned', 'call.lost'].includes(r.type));
    expect(ends.map((r) => r.type)).toEqual(['call.interrupted']);
    expect(ends[0]!.payload).toMatchObject({ call: slow, tool: 'slow', plugin: 'slow', decision: 'allow', reason: 'the host shut down before the call finished', answered: false });

    // A clean stop is not read again: the next start closes nothing more.
    const again = await serve(home);
    again.op.ws.terminate();
    again.cli.child.kill('SIGTERM');
    expect((await again.cli.exited).code).toBe(0);
    expect(rows(home).filter((r) => r.payload.call === slow && ['call.result', 'call.interrupted', 'call.abandoned'].includes(r.type))).toHaveLength(1);
    const verified = await runCli(['audit', 'verify', '--home', home]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  }, 120_000);
});
