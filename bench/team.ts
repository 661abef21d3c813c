// Team mode on PostgreSQL (issue #28), against a throwaway cluster on loopback (initdb + pg_ctl in a
// temp folder, as the tests start one):
//  - cross-machine approval: a real `gatehouse serve --team` member (A) whose agent's hook call
//    waits in its inbox; a signed decision stored as `approvals approve --team` on another machine
//    stores it; the time from that insert to A's answer reaching the agent. Target p50 ≤ 100 ms.
//  - shipping: the real TeamShipper over an audit log on disk, (1) a backlog of events drained
//    (target ≥ 20,000 events/s) and (2) 20,000 events/s appended for 3 s, the largest lag seen
//    (target ≤ 2,000 ms).
//  - team search over 3 members × 300,000 events (filled by SQL under the schema before migration
//    005, indexed as the shipper indexes, then migrated: the rewrite is timed and printed):
//    words, a phrase with a rarer term, facets; p50 and p95 of 40 queries. Target p50 ≤ 50 ms.
// Skipped, with the reason printed, where PostgreSQL's binaries are missing.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { AuditStore } from '../main/audit/audit-store.js';
import { homePaths } from '../main/home.js';
import { readServeFile } from '../main/shells/serve/serve-file.js';
import { auditDbSource } from '../main/team/chain-source.js';
import { newOperatorKeys, signDecision } from '../main/team/decision-signature.js';
import { TEAM_MIGRATION_005 } from '../main/team/migrations/005-team-search-facets.js';
import { migrateTeam, teamMigrations } from '../main/team/migrations/migrate.js';
import { openTeamPool, type Pool } from '../main/team/team-db.js';
import { ASKS_CHANNEL, insertDecision, type AskRow } from '../main/team/team-decisions.js';
import { teamSearch, type TeamSearchRequest } from '../main/team/team-search.js';
import { SHIPPED_CHANNEL, TeamShipper } from '../main/team/team-shipper.js';
import { findPgBin, startPgCluster, type PgCluster } from '../test/support/pg-cluster.js';
import { quantile, type BenchCase } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = existsSync(join(here, '..', 'package.json')) ? join(here, '..') : join(here, '..', '..');
const cliPath = join(repoRoot, 'bin', 'gatehouse.js');

const APPROVALS_PER_ROUND = 15;
const SEARCH_QUERIES = 40;
const RATE = 20_000;
const SUSTAIN_MS = 3_000;
const BACKLOG = 60_000;
/** An ask as alpha published it: what a console signs a decision over. */
type PublishedAsk = Pick<AskRow, 'approval_id' | 'call_id' | 'args_hash' | 'tool' | 'agent' | 'session' | 'cwd'>;

const WORDS = ['deploy', 'migrate', 'rollback', 'lint', 'format', 'review', 'backup', 'restore', 'compile', 'package', 'publish', 'release'];

function callEvent(i: number) {
  return { type: 'call.received', actor: 'agent:bench', payload: { call: `c-${i}`, agent: 'bench', session: `bench/s-${i % 50}`, tool: 'Bash', source: 'hook', cwd: '/srv/app', arguments: { command: `make ${WORDS[i % WORDS.length]} target-${i % 997}` } } };
}

export async function teamCases(): Promise<{ cases: BenchCase[]; close: () => Promise<void>; note: () => string | null }> {
  const found = findPgBin();
  if ('missing' in found) return { cases: [], close: async () => {}, note: () => `Team cases not run: ${found.missing}` };

  let cluster: PgCluster | null = null;
  const clusterUrl = async (db: string, migrations = teamMigrations): Promise<string> => {
    cluster ??= await startPgCluster();
    const url = await cluster.createDatabase(db);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await migrateTeam(c, migrations);
    } finally {
      await c.end();
    }
    return url;
  };
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };

  // ---- cross-machine approval -------------------------------------------------------------------
  type Approvals = { member: ChildProcess; hookUrl: string; token: string; pool: Pool; listener: pg.Client; waiters: Map<string, (ask: PublishedAsk) => void>; privatePem: string };
  let approvals: Approvals | null = null;
  const openApprovals = async (): Promise<Approvals> => {
    if (approvals) return approvals;
    const url = await clusterUrl('bench_approvals');
    const { privatePem, publicPem } = newOperatorKeys();
    const pool = await openTeamPool(url, () => {});
    await pool.query("INSERT INTO team_operators (name, public_key, console) VALUES ('bench-operator', $1, 'bench-b')", [publicPem]);
    const home = join(tempDir('gatehouse-bench-team-a-'), 'home');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' }));
    const member = spawn(process.execPath, [cliPath, 'serve', '--home', home, '--port', '0', '--team', url, '--team-member', 'alpha'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    member.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    member.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const check = () => /Agents: MCP at /.test(out) && resolve();
      member.stdout!.on('data', check);
      member.once('exit', () => reject(new Error(`the team member host exited:\n${out}`)));
    });
    const info = readServeFile(homePaths(home).serveJson)!;
    // The asks alpha publishes, heard as a console hears them.
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const waiters = new Map<string, (a: PublishedAsk) => void>();
    listener.on('notification', (n) => {
      const p = JSON.parse(n.payload ?? '{}') as { approval?: string; state?: string };
      if (p.state !== 'pending' || !p.approval) return;
      void listener.query<PublishedAsk>('SELECT approval_id, call_id, args_hash, tool, agent, session, cwd FROM team_asks WHERE approval_id = $1', [p.approval]).then((r) => {
        const row = r.rows[0];
        const w = row && waiters.get(row.session.split('/').pop()!);
        if (row && w) w(row);
      });
    });
    await listener.query(`LISTEN ${ASKS_CHANNEL}`);
    approvals = { member, hookUrl: info.hookUrl, token: info.agentToken, pool, listener, waiters, privatePem };
    return approvals;
  };
  let asked = 0;
  const oneApproval = async (a: Approvals): Promise<number> => {
    const session = `bench-${++asked}`;
    const published = new Promise<PublishedAsk>((resolve) => a.waiters.set(session, resolve));
    const body = JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: `make release-${asked}` }, tool_use_id: `tu-${asked}`, permission_mode: 'default' });
    let answeredAt = 0;
    const answered = new Promise<string>((resolve, reject) => {
      const req = request(a.hookUrl, { method: 'POST', agent: false, headers: { Authorization: `Bearer ${a.token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => {
          answeredAt = performance.now();
          resolve(text);
        });
      });
      req.on('error', reject);
      req.end(body);
    });
    const ask = await published;
    a.waiters.delete(session);
    const fields = { member: 'alpha', approvalId: ask.approval_id, callId: ask.call_id, argsHash: ask.args_hash, decision: 'approved' as const, reason: '', operator: 'bench-operator', console: 'bench-b', decidedAt: Date.now() };
    if (ask.cwd === null) throw new Error(`team approval bench: alpha published ${ask.approval_id} without its working directory`);
    const shown = { tool: ask.tool, agent: ask.agent, session: ask.session, cwd: ask.cwd };
    const t0 = performance.now();
    const stored = await insertDecision(a.pool, { ...fields, shown, signature: signDecision({ ...fields, ...shown }, a.privatePem) });
    if (!stored.won) throw new Error(`team approval bench: the decision on ${ask.approval_id} was not stored`);
    const answer = JSON.parse(await answered) as { hookSpecificOutput?: { permissionDecision?: string } };
    if (answer.hookSpecificOutput?.permissionDecision !== 'allow') throw new Error(`team approval bench: alpha answered ${JSON.stringify(answer)}`);
    return answeredAt - t0;
  };
  const approvalCase: BenchCase = {
    name: "team approval: decision stored on B → A's agent answered p50",
    unit: 'ms',
    better: 'lower',
    target: { median: 100 },
    async run() {
      const a = await openApprovals();
      const ms: number[] = [];
      for (let k = 0; k < APPROVALS_PER_ROUND; k++) ms.push(await oneApproval(a));
      return quantile(ms, 0.5);
    },
  };

  // ---- shipping -----------------------------------------------------------------------------------
  type Shipping = { store: AuditStore; shipper: TeamShipper; source: ReturnType<typeof auditDbSource>; pool: Pool; listener: pg.Client; next: number; notified: number; shipped: () => void };
  let shipping: Shipping | null = null;
  const openShipping = async (): Promise<Shipping> => {
    if (shipping) return shipping;
    const url = await clusterUrl('bench_shipping');
    // On disk, as a host keeps it (WAL, the same pragmas): the shipper reads what the writer committed.
    const store = new AuditStore({ path: join(tempDir('gatehouse-bench-team-ship-'), 'audit.db'), log: () => {} });
    const pool = await openTeamPool(url, () => {});
    const source = auditDbSource(store.db);
    // Each shipped batch is announced (pg_notify in its transaction): waiting for the head to be shipped needs no polling.
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const s: Shipping = { store, shipper: new TeamShipper({ source, pool, clock: { now: () => Date.now() }, member: 'bench', version: 'bench' }), source, pool, listener, next: 0, notified: 0, shipped: () => {} };
    listener.on('notification', (n) => {
      s.notified = Math.max(s.notified, Number((JSON.parse(n.payload ?? '{}') as { seq?: number }).seq ?? 0));
      s.shipped();
    });
    await listener.query(`LISTEN ${SHIPPED_CHANNEL}`);
    s.shipper.start();
    shipping = s;
    return s;
  };
  /** Resolves once everything committed to the local log is in the team database. */
  const caughtUp = async (s: Shipping): Promise<void> => {
    for (;;) {
      const next = new Promise<void>((resolve) => (s.shipped = resolve));
      const head = s.source.headSeq();
      if (Math.max(s.notified, s.shipper.status().shippedSeq ?? 0) >= head) return;
      await next;
    }
  };
  const backlogCase: BenchCase = {
    name: `team shipping: a backlog of ${BACKLOG.toLocaleString('en-US')} events drained`,
    unit: 'events/s',
    better: 'higher',
    target: { median: 20_000 },
    async run() {
      const s = await openShipping();
      await caughtUp(s);
      // Appended in one go (no turn of the event loop meanwhile), then timed until all are shipped.
      for (let k = 0; k < BACKLOG; k++) s.store.append(callEvent(s.next++));
      s.store.flush();
      const t0 = performance.now();
      s.shipper.nudge();
      await caughtUp(s);
      return BACKLOG / ((performance.now() - t0) / 1000);
    },
  };
  const lagCase: BenchCase = {
    name: `team shipping: ${RATE.toLocaleString('en-US')} events/s for ${SUSTAIN_MS / 1000} s, largest lag`,
    unit: 'ms',
    better: 'lower',
    target: { median: 2_000 },
    async run() {
      const s = await openShipping();
      await caughtUp(s);
      // 10 ms ticks, the shipper nudged at each commit as in a host.
      const perTick = RATE / 100;
      let worst = 0;
      const start = performance.now();
      for (let tick = 0; performance.now() - start < SUSTAIN_MS; tick++) {
        for (let k = 0; k < perTick; k++) s.store.append(callEvent(s.next++));
        s.store.flush();
        s.shipper.nudge();
        worst = Math.max(worst, s.shipper.status().lagMs);
        const due = start + (tick + 1) * 10;
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      }
      await caughtUp(s);
      return Math.max(worst, s.shipper.status().lagMs);
    },
  };

  // ---- team search ----------------------------------------------------------------------------------
  const MEMBERS = 3;
  const PER_MEMBER = 300_000;
  let searchPool: Pool | null = null;
  /** What filling the search database showed: migration 005's rewrite of it, and its size. */
  let searchNote: string | null = null;
  const openSearch = async (): Promise<Pool> => {
    if (searchPool) return searchPool;
    // Filled under the schema before 005 and then migrated, as a team database that upgrades is: the rewrite is timed.
    const url = await clusterUrl('bench_search', teamMigrations.filter((m) => m.version < TEAM_MIGRATION_005.version));
    const members = Array.from({ length: MEMBERS }, (_, i) => `member-${i + 1}`);
    // The fill takes longer than the pool's statement timeout allows one query: its own connection.
    const fill = new pg.Client({ connectionString: url });
    await fill.connect();
    await fill.query('INSERT INTO team_members (name) SELECT unnest($1::text[])', [members]);
    // Call-like events: a Bash call's command carries one of 12 words, a build number (1 in 997) and a job (1 in 50,021).
    await fill.query(
      `INSERT INTO team_events (member, seq, ts, type, actor, payload, prev_hash, hash, search)
       SELECT m, g, 1700000000000 + g * 1000, t, 'agent:bot-' || (g % 7), p, '', md5(m || g), to_tsvector('simple', regexp_replace(t || ' agent:bot-' || (g % 7) || ' ' || p, '[^[:alnum:]_]+', ' ', 'g'))
       FROM unnest($1::text[]) AS m, generate_series(1, $2::int) AS g,
       LATERAL (SELECT (ARRAY['call.received', 'call.decided', 'call.result'])[g % 3 + 1] AS t) AS ty,
       LATERAL (SELECT json_build_object('call', 'c-' || g, 'agent', 'bot-' || (g % 7), 'session', 'bot-' || (g % 7) || '/s-' || (g / 200), 'tool', 'Bash',
         'arguments', json_build_object('command', 'make ' || ($3::text[])[g % 12 + 1] || ' build-' || (g % 997) || ' job' || (g % 50021)),
         'decision', CASE WHEN g % 11 = 0 THEN 'deny' ELSE 'allow' END)::text AS p) AS pa`,
      [members, PER_MEMBER, WORDS],
    );
    const t0 = performance.now();
    await migrateTeam(fill);
    const migrated = performance.now() - t0;
    await fill.query('VACUUM ANALYZE team_events');
    // The fill and the migration's rewrite leave a gigabyte of dirty pages, which a spread
    // checkpoint writes out over the next minutes, while the shipping cases of the next rounds run
    // in the same cluster: written now, so those cases measure shipping, not this fill's write-back.
    await fill.query('CHECKPOINT');
    const size = (await fill.query<{ table: string; indexes: string }>("SELECT pg_table_size('team_events') AS table, pg_indexes_size('team_events') AS indexes")).rows[0]!;
    const n = MEMBERS * PER_MEMBER;
    searchNote = `Team search database: ${n.toLocaleString('en-US')} events took ${Math.round(Number(size.table) / n)} bytes each in team_events and ${Math.round(Number(size.indexes) / n)} in its indexes; migrating them to the latest schema took ${(migrated / 1000).toFixed(1)} s.`;
    await fill.end();
    const pool = await openTeamPool(url, () => {});
    searchPool = pool;
    return pool;
  };
  const searchQueries = (k: number): TeamSearchRequest => {
    const forms: TeamSearchRequest[] = [
      { query: WORDS[k % WORDS.length]!, limit: 200 },
      { query: `${WORDS[(k * 5) % WORDS.length]} "build ${(k * 37) % 997}"`, limit: 200 },
      { query: `job${(k * 7919) % 50_021}`, limit: 200 },
      { query: '', agent: `bot-${k % 7}`, limit: 200 },
      { query: WORDS[(k * 3) % WORDS.length]!, member: `member-${(k % MEMBERS) + 1}`, decision: 'deny', limit: 200 },
    ];
    return forms[k % forms.length]!;
  };
  let searchRound = 0;
  const searchLatencies = async (): Promise<number[]> => {
    const pool = await openSearch();
    searchRound++;
    const ms: number[] = [];
    for (let k = 0; k < SEARCH_QUERIES; k++) {
      const q = searchQueries(searchRound * SEARCH_QUERIES + k);
      const t = performance.now();
      const r = await teamSearch(pool, q);
      ms.push(performance.now() - t);
      if (r.events.length === 0) throw new Error(`team search bench: ${JSON.stringify(q)} found nothing`);
    }
    return ms;
  };
  const searchCase = (q: 'p50' | 'p95'): BenchCase => ({
    name: `team search, ${MEMBERS} members × ${PER_MEMBER.toLocaleString('en-US')} events ${q}`,
    unit: 'ms',
    better: 'lower',
    ...(q === 'p50' ? { target: { median: 50 } } : {}),
    async run() {
      return quantile(await searchLatencies(), q === 'p50' ? 0.5 : 0.95);
    },
  });

  return {
    cases: [approvalCase, backlogCase, lagCase, searchCase('p50'), searchCase('p95')],
    note: () => searchNote,
    async close() {
      if (approvals) {
        approvals.member.kill('SIGTERM');
        await new Promise((r) => (approvals!.member.exitCode !== null ? r(null) : approvals!.member.once('exit', r)));
        await approvals.listener.end();
        await approvals.pool.end();
      }
      if (shipping) {
        await shipping.shipper.close();
        await shipping.listener.end();
        await shipping.pool.end();
        shipping.store.close();
      }
      await searchPool?.end();
      await (cluster as PgCluster | null)?.destroy();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}
