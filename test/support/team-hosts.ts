// Team-mode hosts for tests: real `gatehouse serve --team URL --team-member NAME` processes (the
// built CLI) in homes of their own, their local logs read from SQLite, hook calls over HTTP, and
// a migrated team database in a throwaway cluster (pg-cluster.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { homePaths } from '../../main/home.js';
import { readServeFile, type ServeInfo } from '../../main/shells/serve/serve-file.js';
import { WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../main/shells/serve/guards.js';
import { migrateTeam, teamMigrations } from '../../main/team/migrations/migrate.js';
import type { Migration } from '../../main/audit/migrations/migrate.js';
import { ASKS_CHANNEL } from '../../main/team/team-decisions.js';
import { runCli, startCli, type RunningCli } from './cli.js';
import { WsClient, wsConnect } from './net.js';
import { tempDir } from './temp.js';
import type { PgCluster } from './pg-cluster.js';
import { AuditStore } from '../../main/audit/audit-store.js';
import { auditDbSource } from '../../main/team/chain-source.js';
import type { Pool } from '../../main/team/team-db.js';
import { TeamShipper, type LinkChange } from '../../main/team/team-shipper.js';

export interface LocalRow {
  seq: number;
  type: string;
  hash: string;
  payload: Record<string, unknown>;
}

export function localRows(home: string): LocalRow[] {
  const db = new Database(homePaths(home).auditDb, { readonly: true });
  try {
    return (db.prepare('SELECT seq, type, hash, payload FROM events ORDER BY seq').all() as (Omit<LocalRow, 'payload'> & { payload: string })[]).map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}

export interface TeamHost {
  home: string;
  info: ServeInfo;
  op: WsClient;
  /** The running `gatehouse serve`: its output, for the lines it logs. */
  cli: RunningCli;
}

/** A team member: `gatehouse serve --team URL --team-member NAME` in a home of its own (with `settings` in its settings.json), with an operator WebSocket to follow its log. */
export async function member(url: string, name: string, settings?: Record<string, unknown>): Promise<TeamHost> {
  const home = join(tempDir(`gatehouse-team-${name}-`), 'home');
  if (settings) {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(join(home, 'settings.json'), JSON.stringify(settings));
  }
  const cli = startCli(['serve', '--home', home, '--port', '0', '--team', url, '--team-member', name]);
  await cli.waitForLine(/^Team: shipping this host's audit events to postgres:\/\/.* as member /);
  return connected(home, cli);
}

/** A host outside team mode (`gatehouse serve` without --team), with its operator WebSocket. */
export async function soloHost(): Promise<TeamHost> {
  const home = join(tempDir('gatehouse-solo-'), 'home');
  return connected(home, startCli(['serve', '--home', home, '--port', '0']));
}

async function connected(home: string, cli: RunningCli): Promise<TeamHost> {
  await cli.waitForLine(/^Agents: MCP at/);
  const info = readServeFile(homePaths(home).serveJson)!;
  const ws = await wsConnect(`ws://127.0.0.1:${info.port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + info.token], origin: `http://127.0.0.1:${info.port}` });
  if (!ws.ok) throw new Error(`operator WebSocket refused: ${ws.status}`);
  return { home, info, op: new WsClient(ws.ws), cli };
}

/** Resolves once the host's own log holds rows `ok` accepts: checked now and after each commit the host announces. */
export async function untilLocal(home: string, op: WsClient, ok: (rows: LocalRow[]) => boolean): Promise<LocalRow[]> {
  for (;;) {
    const rows = localRows(home);
    if (ok(rows)) return rows;
    const head = rows.at(-1)?.seq ?? 0;
    await op.waitForEvent((e) => e.event === 'audit.appended' && (e.payload as { lastSeq: number }).lastSeq > head);
  }
}

/** A Claude Code PreToolUse hook call: the HTTP status and the answer. */
export function hookCall(info: ServeInfo, session: string, n: number, tool = { name: 'Read', input: { file_path: `/tmp/notes-${n}.txt` } as Record<string, unknown> }): Promise<{ status: number; body: string }> {
  const text = JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: tool.name, tool_input: tool.input, tool_use_id: `tu-${session}-${n}`, permission_mode: 'default' });
  return new Promise((resolve, reject) => {
    const req = request(info.hookUrl, { method: 'POST', agent: false, headers: { Authorization: `Bearer ${info.agentToken}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** Runs one statement on the team database with its own connection. */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** A new database in the cluster, migrated to the team schema (or only through `migrations`); its URL. */
export async function teamDatabase(cluster: PgCluster, name: string, migrations: readonly Migration[] = teamMigrations): Promise<string> {
  const url = await cluster.createDatabase(name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await migrateTeam(client, migrations);
  } finally {
    await client.end();
  }
  return url;
}

export interface AskRow {
  approval_id: string;
  state: string;
  args_hash: string;
  call_id: string;
}

/** Resolves with `read`'s first non-null answer: read now, then again at each NOTIFY on `channel`. */
export async function untilNotified<T>(url: string, channel: string, read: (c: pg.Client) => Promise<T | null>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // A failing test's cluster stops under this client: that is not another error.
  client.on('error', () => {});
  await client.connect();
  try {
    let wake: () => void = () => {};
    client.on('notification', () => wake());
    await client.query(`LISTEN ${channel}`);
    for (;;) {
      const changed = new Promise<void>((resolve) => (wake = resolve));
      const v = await read(client);
      if (v !== null) return v;
      await changed;
    }
  } finally {
    await client.end();
  }
}

/** The team ask of the call a member's agent made in `session`, once it is published. */
export function askOf(url: string, session: string, state = 'pending'): Promise<AskRow> {
  return untilNotified(url, ASKS_CHANNEL, async (c) => (await c.query<AskRow>('SELECT approval_id, state, args_hash, call_id FROM team_asks WHERE session LIKE $1 AND state = $2', [`%${session}`, state])).rows[0] ?? null);
}

/**
 * The least-privilege setup most team tests start from: a member role `alpha_host` for member
 * alpha and a console role `consoles` (both made with `gatehouse team add-role` as the owner), and
 * operator ana's key made in a home of its own (registered by the owner). Returns the role URLs,
 * ana's home, and the environment of ana's CLI on her desk, through the console role.
 */
export async function alphaAndAna(url: string): Promise<{ alphaUrl: string; consoles: string; anaHome: string; asAna: NodeJS.ProcessEnv }> {
  for (const [role, as] of [['alpha_host', ['--member', 'alpha']], ['consoles', ['--console']]] as const) {
    const r = await runCli(['team', 'add-role', role, ...as], { GATEHOUSE_TEAM_URL: url });
    if (r.code !== 0) throw new Error(`team add-role ${role}: ${r.stderr}`);
  }
  const roleUrl = (role: string) => url.replace('//gatehouse@', `//${role}@`);
  const anaHome = join(tempDir('gatehouse-team-operator-'), 'home');
  const ana = await runCli(['operator', 'create', 'ana', '--home', anaHome], { GATEHOUSE_TEAM_URL: url, GATEHOUSE_TEAM_MEMBER: 'desk' });
  if (ana.code !== 0) throw new Error(`operator create ana: ${ana.stderr}`);
  return { alphaUrl: roleUrl('alpha_host'), consoles: roleUrl('consoles'), anaHome, asAna: { GATEHOUSE_TEAM_URL: roleUrl('consoles'), GATEHOUSE_TEAM_MEMBER: 'desk' } };
}

/** A shipper over its own in-memory log; `until(state)` resolves at that link transition. */
export function shipperOver(pool: Pool, member: string, events: string[]) {
  const store = new AuditStore({ path: ':memory:', log: () => {} });
  for (const word of events) store.append({ type: 'note', actor: 'host', payload: { word } });
  store.flush();
  const changes: LinkChange[] = [];
  let notify: () => void = () => {};
  const shipper = new TeamShipper({ source: auditDbSource(store.db), pool, clock: { now: () => Date.now() }, member, version: 'test', linkChanged: (c) => { changes.push(c); notify(); } });
  const until = (state: LinkChange['state']) => new Promise<LinkChange>((resolve) => {
    const check = () => { const c = changes.find((x) => x.state === state); if (c) resolve(c); };
    notify = check;
    check();
  });
  return { store, shipper, until };
}
