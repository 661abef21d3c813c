// Issue #25 finding 6: a transient write failure never leaves a contradictory trail. A real host
// (in this process, so the test can fill its database: `max_page_count` on the connection of the
// host's audit writer is SQLite's real SQLITE_FULL), real plugin processes and eight MCP SDK clients calling
// without pause. Exactly one window of failed batches, then space returns; afterwards every call's
// trail in the file is checked: one decision at most, never an event without its call.received
// unless the trail is closed with call.lost, and every call ends.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { openForVerify, verifyDatabase } from '../../../main/audit/audit-store.js';
import { repoRoot } from '../../support/cli.js';
import { trailProblems } from '../../support/trails.js';
import { tempDir } from '../../support/temp.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function start(): Promise<{ home: string; host: Host; net: Listening; stop: () => Promise<void> }> {
  const home = join(tempDir('gatehouse-trails-'), 'home');
  const dir = join(home, 'plugins', 'echo');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), 'name = "echo"\ndescription = "Answers at once."\ncommand = "run.sh"\ntimeout_secs = 10\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho "{}"\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  await host.ready;
  await host.registry.enable('echo', 'tester');
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: join(repoRoot, 'out', 'renderer') });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await net.shell.close();
    await host.close('test done');
  };
  closers.push(stop);
  return { home, host, net, stop };
}

const meta = (res: CallToolResult) => (res._meta as { gatehouse: { decision: string; executed: boolean; call?: string } }).gatehouse;

describe('a transient write failure (SQLITE_FULL for one window) while agents call', () => {
  it("leaves no contradictory trail: one decision per call at most, no decision without its call.received unless closed by call.lost, every call ends, the chain verifies", async () => {
    const { home, host, net, stop } = await start();
    const db = host.audit.db;
    const clients = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const c = new Client({ name: `trail-agent-${i}`, version: '1.0.0' });
        await c.connect(new StreamableHTTPClientTransport(new URL(net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${net.agentToken}` } } }));
        closers.push(() => c.close());
        return c;
      }),
    );
    // One window: the database may not grow (the disk is full) until an agent is denied for it;
    // then space returns at once, while the other agents' calls are half way through.
    let phase: 'before' | 'full' | 'freed' | 'resumed' = 'before';
    const off = host.bus.subscribe((event, payload) => {
      if (event === 'audit.chain' && phase === 'freed' && (payload as { writeError?: string | null }).writeError === null) phase = 'resumed';
    });
    closers.push(async () => off());
    let calls = 0;
    let resumedAt = -1;
    const answers: CallToolResult[] = [];
    await Promise.all(
      clients.map(async (c) => {
        // Until the window has passed and 40 more calls were answered after it.
        while (!(phase === 'resumed' && calls - resumedAt >= 40)) {
          const res = (await c.callTool({ name: 'echo', arguments: {} })) as CallToolResult;
          answers.push(res);
          calls++;
          if (phase === 'full' && meta(res).decision === 'deny') {
            phase = 'freed';
            host.audit.queueWrite('PRAGMA max_page_count = 1073741823', []);
          }
          if (calls === 40 && phase === 'before') {
            phase = 'full';
            host.audit.queueWrite(`PRAGMA max_page_count = ${Number(db.pragma('page_count', { simple: true }))}`, []);
          }
          if (phase === 'resumed' && resumedAt < 0) resumedAt = calls;
        }
      }),
    );
    // The window denied calls, and calls were answered again after it.
    expect(answers.some((a) => meta(a).decision === 'deny')).toBe(true);
    expect(meta(answers.at(-1)!)).toMatchObject({ decision: 'allow', executed: true });
    await stop();

    const file = openForVerify(join(home, 'audit.db'));
    expect(verifyDatabase(file)).toMatchObject({ ok: true, firstBad: null });
    const events = (file.prepare('SELECT type FROM events ORDER BY seq').all() as { type: string }[]);
    file.close();
    expect(trailProblems(join(home, 'audit.db'))).toEqual([]);
    // The window did cost events, and the trails it broke are closed.
    expect(events.some((e) => e.type === 'audit.write-resumed')).toBe(true);
    expect(events.some((e) => e.type === 'call.lost')).toBe(true);
  }, 60_000);
});
