// Faults (#14 item 5), each on a real host: the audit database on disk, real plugin processes,
// real HTTP and WebSocket on loopback, the real MCP SDK client and the built CLI. Each case
// asserts what the operator (and the agent) sees and what the audit log holds. No sleeps: every
// wait is for an event, a line of output or a state.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../../main/shells/serve/guards.js';
import { repoRoot, runCli } from '../../support/cli.js';
import { createHash } from 'node:crypto';
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { homePaths } from '../../../main/home.js';
import { request } from 'node:http';
import { readServeFile } from '../../../main/shells/serve/serve-file.js';
import { startCli } from '../../support/cli.js';
import { http, WsClient, wsConnect } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';

interface Running {
  home: string;
  host: Host;
  net: Listening;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

/** A tool plugin; `writes`: a folder its sandbox lets it write (markers of what ran). */
function plugin(parent: string, name: string, script: string, writes?: string): void {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), `name = "${name}"\ndescription = "A test tool."\ncommand = "run.sh"\ntimeout_secs = 10\n${writes ? `\n[permissions]\nwrite = [${JSON.stringify(writes)}]\n` : ''}`);
  writeFileSync(join(dir, 'run.sh'), script);
  chmodSync(join(dir, 'run.sh'), 0o755);
}

async function start(opts: { home?: string; plugins?: Record<string, string>; enable?: string[]; writes?: string } = {}): Promise<Running> {
  const home = opts.home ?? join(tempDir('gatehouse-faults-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  if (!existsSync(join(home, 'settings.json'))) writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  for (const [name, script] of Object.entries(opts.plugins ?? {})) plugin(join(home, 'plugins'), name, script, opts.writes);
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  await host.ready;
  for (const name of opts.enable ?? []) await host.registry.enable(name, 'tester');
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: join(repoRoot, 'out', 'renderer') });
  let closed = false;
  const r: Running = {
    home,
    host,
    net,
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

async function mcpClient(r: Running): Promise<Client> {
  const client = new Client({ name: 'fault-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(r.net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${r.net.agentToken}` } } }));
  return client;
}

async function console_(r: Running): Promise<WsClient> {
  const port = r.net.shell.port;
  const ws = await wsConnect(`ws://127.0.0.1:${port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + r.net.token], origin: `http://127.0.0.1:${port}` });
  if (!ws.ok) throw new Error(`console did not connect: ${ws.status}`);
  return new WsClient(ws.ws);
}

/** Resolves when `ok()` holds, checked now and after every event the host publishes. */
function until(r: Running, ok: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (ok()) return resolve();
    const off = r.host.bus.subscribe(() => {
      if (!ok()) return;
      off();
      resolve();
    });
  });
}

const text = (res: CallToolResult) => (res.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
const meta = (res: CallToolResult) => (res._meta as { gatehouse: { decision: string; executed: boolean; reason: string } }).gatehouse;
const events = (r: Running, type: string) =>
  r.host.audit
    .tail(100_000)
    .filter((e) => e.type === type)
    .reverse();

describe('acknowledged means durable (issue #25)', () => {
  it("an operator's action whose event cannot be written is answered as not recorded, not as done; a read that records nothing is answered as usual", async () => {
    const r = await start({});
    const ctx = { operator: 'alice', console: 'serve' as const };
    expect(await r.host.dispatcher.dispatch('settings.update', { approvalExpiryMinutes: 6 }, ctx)).toMatchObject({ ok: true });
    // The log's file goes away under the running host: every batch from now on fails.
    rmSync(join(r.home, 'audit.db'));
    const changed = await r.host.dispatcher.dispatch('settings.update', { approvalExpiryMinutes: 7 }, ctx);
    expect(changed).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringMatching(/^settings\.update was not recorded in the audit log \(.*\); whatever it changed is not acknowledged/) } });
    expect(await r.host.dispatcher.dispatch('settings.get', {}, ctx)).toMatchObject({ ok: true });
  });

  it('PROMISE "durable before answered": a call refused before it is judged (an unknown tool, arguments nested too deep) is answered only once its record is on disk; when the log cannot write it, the answer says so', async () => {
    const r = await start({});
    const port = r.net.shell.port;
    const api = async (payload: unknown) => {
      const res = await http({ port, path: '/agent/v1/calls', method: 'POST', headers: { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(payload) });
      expect(res.status).toBe(200);
      return JSON.parse(res.body) as { call: string; decision: string; executed: boolean; reason: string };
    };
    // While the log works, the refusals read as themselves, and their trail is whole (received, decided, result).
    const unknown = await api({ agent: 'fault-agent', tool: 'no_such_tool', arguments: {} });
    expect(unknown).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/has no tool named/) });
    expect(['call.received', 'call.decided', 'call.result'].map((t) => events(r, t).filter((e) => (e.payload as { call?: string }).call === unknown.call).length)).toEqual([1, 1, 1]);
    expect(events(r, 'call.result').find((e) => (e.payload as { call?: string }).call === unknown.call)!.payload).toMatchObject({ decision: 'deny', executed: false });
    // The log's file goes away under the running host: every batch from now on fails.
    rmSync(join(r.home, 'audit.db'));
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200; i++) deep = { d: deep };
    for (const payload of [{ agent: 'fault-agent', tool: 'no_such_tool', arguments: {} }, { agent: 'fault-agent', tool: 'shell', arguments: { command: 'true', deep } }]) {
      const answer = await api(payload);
      // Denied either way; but an answer for a call the log lost is the log's sentence, as for any other call.
      expect(answer, JSON.stringify(payload).slice(0, 60)).toMatchObject({ decision: 'deny', executed: false, reason: expect.stringMatching(/^the audit log .*audit\.db was deleted while Gatehouse ran/) });
    }
  });
});

describe('the audit database reaching full (SQLITE_FULL)', () => {
  it('denies every call with a clear reason, shows it on the console, corrupts nothing, and resumes when space returns without a restart', async () => {
    const ran = join(tempDir('gatehouse-ran-'), 'ran');
    mkdirSync(ran);
    // Each run leaves a marker file: what ran is counted on disk, not taken from the host's word.
    const r = await start({ plugins: { marker: `#!/bin/sh\nmktemp "${ran}/run.XXXXXXXX" >/dev/null\necho "{}"\n` }, enable: ['marker'], writes: ran });
    const client = await mcpClient(r);
    const ws = await console_(r);
    expect(meta((await client.callTool({ name: 'marker', arguments: {} })) as CallToolResult)).toMatchObject({ decision: 'allow', executed: true });
    expect(readdirSync(ran)).toHaveLength(1);

    // The disk fills: the database may not grow by a single page more (on the connection that
    // writes it, the host's writer thread, with the next batch).
    const db = r.host.audit.db;
    const pages = Number(db.pragma('page_count', { simple: true }));
    r.host.audit.queueWrite(`PRAGMA max_page_count = ${pages}`, []);
    const shown = ws.waitForEvent((e) => e.event === 'audit.chain' && typeof (e.payload as { writeError?: unknown }).writeError === 'string');

    // Free space left in existing pages takes a few calls; from the first denial on, every call is denied.
    let first: CallToolResult | null = null;
    for (let i = 0; i < 500 && !first; i++) {
      const res = (await client.callTool({ name: 'marker', arguments: {} })) as CallToolResult;
      if (meta(res).decision === 'deny') first = res;
    }
    expect(first, 'no call was denied although the database could not grow').not.toBeNull();
    const executedBefore = readdirSync(ran).length;
    for (const res of [first!, ...(await Promise.all([1, 2, 3, 4, 5].map(() => client.callTool({ name: 'marker', arguments: {} }))))] as CallToolResult[]) {
      expect(meta(res)).toMatchObject({ decision: 'deny', executed: false });
      expect(meta(res).reason).toMatch(/^the audit log cannot be written: disk full \(database or disk is full; .*audit\.db\)\. Gatehouse denies every call until it can record them again; free space on that disk/);
      expect(text(res)).toContain('the audit log cannot be written: disk full');
    }
    // Nothing ran while the log could not record it.
    expect(readdirSync(ran)).toHaveLength(executedBefore);

    // The console is told, through the event its status bar shows the chain with.
    const pushed = (await shown).payload as { writeError: string };
    expect(pushed.writeError).toMatch(/^the audit log cannot be written: disk full/);
    expect(r.host.chainState().writeError).toBe(pushed.writeError);

    // Nothing corrupted: the chain on disk verifies.
    expect(r.host.audit.verify()).toMatchObject({ ok: true, firstBad: null });

    // Space returns: appends resume by themselves, no restart.
    const cleared = ws.waitForEvent((e) => e.event === 'audit.chain' && (e.payload as { writeError?: unknown }).writeError === null);
    r.host.audit.queueWrite('PRAGMA max_page_count = 1073741823', []);
    const after = (await client.callTool({ name: 'marker', arguments: {} })) as CallToolResult;
    expect(meta(after)).toMatchObject({ decision: 'allow', executed: true });
    expect(readdirSync(ran)).toHaveLength(executedBefore + 1);
    await cleared;
    expect(r.host.chainState().writeError ?? null).toBeNull();
    // The gap is in the chain itself: when it began, what was lost and why.
    const resumed = events(r, 'audit.write-resumed');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.payload).toMatchObject({ code: 'SQLITE_FULL', lostEvents: expect.any(Number), error: expect.stringMatching(/disk full/) });
    expect((resumed[0]!.payload as { lostEvents: number }).lostEvents).toBeGreaterThan(0);
    expect(r.host.audit.verify()).toMatchObject({ ok: true, firstBad: null });
    ws.ws.close();
    await client.close();
  });
});

describe('a corrupted database page', () => {
  it('the host refuses to start naming the file and what to do; gatehouse audit recover keeps the old file aside and starts a chain that records the break', async () => {
    const r = await start();
    // A log of some size, written the ordinary way, then the host stops cleanly.
    for (let i = 0; i < 400; i++) r.host.audit.append({ type: 'host.note', actor: 'host', payload: { i, text: `event ${i} `.repeat(20) } });
    await r.close();
    const paths = homePaths(r.home);
    expect(existsSync(`${paths.auditDb}-wal`)).toBe(false);

    // Bytes overwritten in the middle of the file, on a whole page (a bad sector, a stray write).
    const pageSize = (() => {
      const db = new Database(paths.auditDb, { readonly: true });
      try {
        return Number(db.pragma('page_size', { simple: true }));
      } finally {
        db.close();
      }
    })();
    const pages = Math.floor(statSync(paths.auditDb).size / pageSize);
    expect(pages).toBeGreaterThan(20);
    const fd = openSync(paths.auditDb, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, Math.floor(pages / 2) * pageSize);
    closeSync(fd);
    const corrupt = readFileSync(paths.auditDb);
    const sha256 = createHash('sha256').update(corrupt).digest('hex');

    // The operator starts it: a clear refusal naming the file and the command, nothing else written.
    const serve = await runCli(['serve', '--port', '0', '--home', r.home]);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(`gatehouse: The audit log ${paths.auditDb} is damaged (`);
    expect(serve.stderr).toContain(`so Gatehouse will not start on it`);
    expect(serve.stderr).toContain(`gatehouse audit recover --home ${r.home}`);
    expect(createHash('sha256').update(readFileSync(paths.auditDb)).digest('hex')).toBe(sha256);
    // In-process too, with the same sentence (the Electron shell shows it).
    expect(() => createHost({ home: r.home, shell: 'serve', log: () => {}, projectDir: r.home, watch: false })).toThrow(/is damaged .*gatehouse audit recover --home/);

    const recovered = await runCli(['audit', 'recover', '--home', r.home, '--reason', 'disk replaced']);
    expect(recovered.stderr).toBe('');
    expect(recovered.code).toBe(0);
    // The database file (its -wal and -shm, when it had them, beside it under the same name).
    const kept = readdirSync(r.home).filter((f) => /^audit\.db\.corrupt-[\dTZ-]+$/.test(f));
    expect(kept).toHaveLength(1);
    const oldFile = join(r.home, kept[0]!);
    expect(recovered.stdout).toContain(`Kept the old audit log as ${oldFile} (${corrupt.length} bytes, SHA-256 ${sha256})`);
    // The old file is kept as it was.
    expect(createHash('sha256').update(readFileSync(oldFile)).digest('hex')).toBe(sha256);

    // The new chain verifies and its first event names the old file, its size, digest and the reason.
    const verify = await runCli(['audit', 'verify', '--home', r.home]);
    expect(verify.stdout).toMatch(/^Audit chain intact: 1 events/);
    const again = await start({ home: r.home });
    const first = again.host.audit.tail(10).reverse()[0]!;
    expect(first).toMatchObject({ seq: 1, type: 'audit.chain-restarted', actor: expect.stringMatching(/^operator:/), payload: { oldFile, size: corrupt.length, sha256, reason: expect.stringMatching(/^damaged.*\(operator: disk replaced\)$/) } });
    expect(again.host.chainState()).toMatchObject({ state: 'verified' });
    // Recovering an intact log is refused: nothing to recover.
    await again.close();
    const intact = await runCli(['audit', 'recover', '--home', r.home]);
    expect(intact.code).toBe(2);
    expect(intact.stderr).toContain('is intact');
  });
});

describe('10,000 files changed at once under the plugin folders (a git checkout)', () => {
  it('is coalesced into one rescan: one change told to consoles and MCP clients, not one per folder', async () => {
    const home = join(tempDir('gatehouse-burst-'), 'home');
    const place = join(home, 'plugins');
    mkdirSync(place, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'dry-run' }));
    const names = Array.from({ length: 20 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    for (const n of names) plugin(place, n, '#!/bin/sh\necho "{}"\n');
    // A burst that goes on past maxWaitMs is rescanned anyway (5 s by default): on a loaded machine
    // the watcher took longer than that to take in these 10,000 events, and a second rescan of the
    // same burst came mid-way. A pause of debounceMs (120 ms by default) ends a burst: CI once saw
    // the watcher's own reading of the new folders stall that long. The coalescing is what is
    // checked here, so the burst gets all the time it takes and a pause must be a real one.
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watchTiming: { debounceMs: 1000, maxWaitMs: 120_000 } });
    running.push({ home, host, net: null as unknown as Listening, close: () => host.close('test done') });
    await host.ready;
    const changes: string[][] = [];
    host.bus.subscribe((name, payload) => {
      if (name === 'plugins.changed') changes.push((payload as { names: string[] }).names);
    });

    // The burst: 500 new files in each of the 20 plugin folders, written as fast as the disk takes them.
    const last = 'data/f0499.txt';
    for (const n of names) {
      mkdirSync(join(place, n, 'data'));
      for (let i = 0; i < 500; i++) writeFileSync(join(place, n, 'data', `f${String(i).padStart(4, '0')}.txt`), `${n} ${i}\n`);
    }
    // Wait for the rescan that saw all of it: every plugin's digest holds its last file.
    const sawAll = () => names.every((n) => host.registry.get(n)?.digest?.files.some((f) => f.path === last));
    await new Promise<void>((resolve) => {
      const off = host.bus.subscribe((name) => {
        if (name === 'plugins.changed' && sawAll()) {
          off();
          resolve();
        }
      });
    });
    // A barrier: one more change in one folder, rescanned on its own. Whatever the burst still had
    // in flight would arrive before it (and show as another rescan of many folders).
    const barrier = new Promise<void>((resolve) => {
      const off = host.bus.subscribe((name, payload) => {
        if (name === 'plugins.changed' && (payload as { names: string[] }).names.includes('p07') && host.registry.get('p07')?.digest?.files.some((f) => f.path === 'barrier.txt')) {
          off();
          resolve();
        }
      });
    });
    writeFileSync(join(place, 'p07', 'barrier.txt'), 'after the burst\n');
    await barrier;
    await host.watcher!.idle();

    // One rescan for the 10,000 files (naming all 20 plugins), then the barrier's own.
    expect(changes).toHaveLength(2);
    expect([...changes[0]!].sort()).toEqual(names);
    expect(changes[1]).toEqual(['p07']);
    expect(host.watcher!.rescans).toBe(2);
  });
});

describe('a checker in a crash loop under load', () => {
  const CRASHLOOP = `import { serve, lifecycle } from './lib.mjs';\nserve((method) => {\n  if (method !== 'evaluate') return lifecycle(method);\n  process.stderr.write('crashloop: dying on purpose\\n');\n  process.exit(3);\n});\n`;

  async function hostWithCrashLoop(optional: boolean): Promise<{ r: Running; ran: string }> {
    const ran = join(tempDir('gatehouse-ran-'), 'ran');
    mkdirSync(ran);
    const home = join(tempDir('gatehouse-crashloop-'), 'home');
    const dir = join(home, 'plugins', 'crashloop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'lib.mjs'), readFileSync(join(repoRoot, 'test', 'fixtures', 'checkers', 'lib.mjs')));
    writeFileSync(join(dir, 'crashloop.mjs'), CRASHLOOP);
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\nexec node crashloop.mjs\n', { mode: 0o755 });
    writeFileSync(join(dir, 'gatehouse.toml'), `name = "crashloop"\ndescription = "Crashes on every call."\nkind = "checker"\ncommand = "run.sh"\n${optional ? 'optional = true\n' : ''}`);
    const r = await start({ home, plugins: { marker: `#!/bin/sh\nmktemp "${ran}/run.XXXXXXXX" >/dev/null\necho "{}"\n` }, enable: ['marker', 'crashloop'], writes: ran });
    // The checker host starts the checker after the enable (asynchronously): wait for its process.
    await until(r, () => (r.host.health.list().plugins.find((p) => p.name === 'crashloop')?.processes?.running ?? 0) > 0);
    return { r, ran };
  }

  /** 60 calls at once from 4 MCP clients (within the tool's own queue of 4 running + 64 waiting); every one must be answered. */
  async function load(r: Running): Promise<CallToolResult[]> {
    const clients = await Promise.all([1, 2, 3, 4].map(() => mcpClient(r)));
    const calls = clients.flatMap((c) => Array.from({ length: 15 }, () => c.callTool({ name: 'marker', arguments: {} }) as Promise<CallToolResult>));
    const answers = await Promise.all(calls);
    await Promise.all(clients.map((c) => c.close()));
    return answers;
  }

  const breakerOf = (r: Running, name: string) => r.host.health.list().plugins.find((p) => p.name === name)!.breaker;

  it('a required checker: its breaker opens and every call is answered at once with a deny naming the breaker; nothing runs', async () => {
    const { r, ran } = await hostWithCrashLoop(false);
    const answers = await load(r);
    expect(answers).toHaveLength(60);
    for (const a of answers) expect(meta(a), JSON.stringify(meta(a))).toMatchObject({ decision: "deny", executed: false });
    expect(breakerOf(r, 'crashloop')).toMatchObject({ state: 'open', consecutiveFailures: 3 });
    // Once open, the checker is skipped: no more starts, and the calls say why.
    const skipped = answers.filter((a) => /crashloop was skipped: its circuit breaker is open after 3 failures \(last: .*\); it closes at \d\d:\d\d UTC if a trial call then succeeds, or when an operator resets it/.test(meta(a).reason));
    expect(skipped.length).toBeGreaterThanOrEqual(50);
    // Not starved: no call sat in the checker's queue until its timeout behind the crash loop.
    for (const a of answers) expect(meta(a).reason).not.toContain('did not take the call within');
    expect(readdirSync(ran)).toHaveLength(0);
    // The audit log holds a decision and a result for every call.
    expect(events(r, 'call.result').filter((e) => (e.payload as { decision: string }).decision === 'deny')).toHaveLength(60);
  });

  it('an optional checker: its breaker opens and the other calls go on and run', async () => {
    const { r, ran } = await hostWithCrashLoop(true);
    const answers = await load(r);
    expect(answers).toHaveLength(60);
    for (const a of answers) expect(meta(a), JSON.stringify(meta(a))).toMatchObject({ decision: "allow", executed: true });
    expect(readdirSync(ran)).toHaveLength(60);
    expect(breakerOf(r, 'crashloop')).toMatchObject({ state: 'open' });
    // Every verdict lists the checker's failure; most of them are the open breaker (no start at all).
    const failures = events(r, 'checker.verdict').map((e) => (e.payload as { failures: { kind: string }[] }).failures.map((f) => f.kind));
    expect(failures).toHaveLength(60);
    expect(failures.filter((f) => f.includes('breaker_open')).length).toBeGreaterThanOrEqual(50);
    // Not starved: no call waited out the checker's timeout behind the crash loop.
    expect(failures.filter((f) => f.includes('timeout'))).toEqual([]);
  });
});

describe('SIGKILL under load, then restart', () => {
  /** One HTTP request (the hook route or the agent API); resolves with the JSON answer or the connection error. */
  function post(url: string, token: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> } | { error: string }> {
    const text = JSON.stringify(body);
    return new Promise((resolve) => {
      const req = request(url, { method: 'POST', agent: false, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } }, (res) => {
        let out = '';
        res.setEncoding('utf8').on('data', (d: string) => (out += d));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(out) as Record<string, unknown> });
          } catch {
            resolve({ error: `cut short: ${out.length} bytes` });
          }
        });
        res.on('error', (err) => resolve({ error: err.message }));
      });
      req.on('error', (err) => resolve({ error: err.message }));
      req.end(text);
    });
  }
  const hookBody = (session: string, command: string) => ({ session_id: session, cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `tu-${session}` });
  const decision = (a: Awaited<ReturnType<typeof post>>) => ('json' in a ? (a.json.hookSpecificOutput as { permissionDecision: string; permissionDecisionReason: string } | undefined) : undefined);

  it('every acknowledged call is on record, the chain verifies, waiting calls are closed and grants come back', async () => {
    const home = join(tempDir('gatehouse-kill-'), 'home');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', hookAsk: 'inbox' }));
    const serve = startCli(['serve', '--home', home, '--port', '0']);
    await serve.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
    const info = readServeFile(homePaths(home).serveJson)!;
    const ws = await wsConnect(`ws://127.0.0.1:${info.port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + info.token], origin: `http://127.0.0.1:${info.port}` });
    if (!ws.ok) throw new Error(`operator WebSocket refused: ${ws.status}`);
    const op = new WsClient(ws.ws);
    const pendingCount = (n: number) => op.waitForEvent((e) => e.event === 'approvals.changed' && (e.payload as { pending: number }).pending === n);

    // A session grant, approved by the operator over the console API.
    const asked = pendingCount(1);
    const granted = post(info.hookUrl, info.agentToken, hookBody('grant-s', 'touch granted.txt'));
    await asked;
    const item = ((await op.call('approvals.list', { state: 'pending' })).result as { items: { id: string; argsHash: string }[] }).items[0]!;
    const approved = (await op.call('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'session', sessionMinutes: 60 })) as { ok: boolean; result: { grant: { id: string } } };
    expect(approved.ok).toBe(true);
    expect(decision(await granted)).toMatchObject({ permissionDecision: 'allow' });
    const grantId = approved.result.grant.id;

    // Three calls left waiting in the inbox.
    const three = pendingCount(3);
    const waiting = ['w1', 'w2', 'w3'].map((s) => post(info.hookUrl, info.agentToken, hookBody(s, `touch ${s}.txt`)));
    await three;

    // Load: 12 agents calling the agent API without pause (each call denied by a locked rule, so
    // nothing runs); every answer that arrives is an acknowledged call.
    const acknowledged: string[] = [];
    let stop = false;
    let enough!: () => void;
    const reached = new Promise<void>((resolve) => (enough = resolve));
    const agents = Array.from({ length: 12 }, async (_, i) => {
      while (!stop) {
        const a = await post(new URL('/agent/v1/calls', info.url).href, info.agentToken, { agent: `load${i}`, session: `s${i}`, tool: 'shell', arguments: { command: 'cat ~/.ssh/id_rsa' } });
        if ('error' in a) return;
        if (a.status === 200 && typeof a.json.call === 'string') acknowledged.push(a.json.call);
        if (acknowledged.length >= 300) enough();
      }
    });
    // Killed in the middle of it, once a few hundred calls have been answered.
    await reached;
    serve.child.kill('SIGKILL');
    stop = true;
    await serve.exited;
    await Promise.all(agents);
    for (const w of await Promise.all(waiting)) expect(w).toHaveProperty('error');
    ws.ws.terminate();

    // Restart on the same data folder.
    const r = await start({ home });
    const db = r.host.audit.db;
    const ofType = (type: string) => new Set((db.prepare('SELECT payload FROM events WHERE type = ?').all(type) as { payload: string }[]).map((row) => (JSON.parse(row.payload) as { call: string }).call));
    const decided = ofType('call.decided');
    const results = ofType('call.result');
    const lost = acknowledged.filter((id) => !decided.has(id) || !results.has(id));
    expect(acknowledged.length).toBeGreaterThanOrEqual(300);
    expect(lost).toEqual([]);
    // The chain verifies, across the kill.
    expect(r.host.audit.verify()).toMatchObject({ ok: true, firstBad: null });
    expect(r.host.chainState()).toMatchObject({ state: 'verified' });
    // The three waiting calls are closed, once each, as abandoned by a host that stopped unexpectedly.
    // (A load call the kill caught half judged is closed too, without an approval: crash-trails.test.ts.)
    const abandoned = events(r, 'call.abandoned')
      .map((e) => e.payload as { reason: string; answered: boolean; session: string; approval: string | null })
      .filter((a) => a.approval !== null);
    expect(abandoned.map((a) => a.reason)).toEqual(['host stopped unexpectedly', 'host stopped unexpectedly', 'host stopped unexpectedly']);
    expect(r.host.approvals.list({ state: 'pending' })).toHaveLength(0);
    // The grant is back, and lets its call through again without asking.
    expect(events(r, 'grant.restored').map((e) => (e.payload as { id: string }).id)).toEqual([grantId]);
    const again = await post(r.net.hookUrl, r.net.agentToken, hookBody('grant-s', 'touch granted.txt'));
    expect(decision(again)).toMatchObject({ permissionDecision: 'allow', permissionDecisionReason: expect.stringContaining(grantId) });
  });
});
