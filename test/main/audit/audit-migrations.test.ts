// The audit database's migrations are frozen SQL, one file each (main/audit/migrations/): a log at
// version N was made by exactly migrations 1..N, whatever the live indexer has become. Each file's
// SQL is pinned here by its hash (editing a shipped migration fails this test: write a new one).
// Each migration is applied to a real SQLite file at the version before it, and the index it
// leaves must be the one the live code would have built from the same events, so an upgraded log
// and a new one search alike.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ftsText, SearchIndexer } from '../../../main/audit/audit-index.js';
import { migrate, migrations } from '../../../main/audit/migrations/migrate.js';
import { tempDir } from '../../support/temp.js';

/** sha256 of each migration's SQL as shipped. */
const SHIPPED: Record<number, string> = {
  1: 'e8f5a247fd46683fa447f844d4f0bd9312b5398c225cb53d77ae54f008780717',
  2: '4035e044da2b76c73ef9a48b6c7b809fce087e09b049f60fa3356928cac368b6',
  3: '518adb7bc3f2d8ee1051cce17773df2264b5555eab98bcd367d1100641be4957',
  4: '84b3080ad15bee311f90e4e4fae9902c52da333c9f028ba922649108241cc7f6',
};

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

function dbAt(version: number): Database.Database {
  const db = new Database(join(tempDir('gatehouse-migrations-'), 'audit.db'));
  migrate(db, migrations.filter((m) => m.version <= version));
  expect(db.pragma('user_version', { simple: true })).toBe(version);
  return db;
}

/** Events of two calls and a terminal, written as rows (the chain columns are not what is tested here). */
function addEvents(db: Database.Database): void {
  const insert = db.prepare("INSERT INTO events (seq, ts, type, actor, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, '', '')");
  const rows: [string, string, Record<string, unknown>][] = [
    ['call.received', 'agent:claude', { call: 'c1', session: 's1', agent: 'claude', tool: 'Bash', arguments: { command: 'grep platypus /var/log' } }],
    ['call.decided', 'host', { call: 'c1', decision: 'allow' }],
    ['pty.started', 'host', { id: 't1', call: 'c1' }],
    ['pty.output', 'host', { id: 't1', text: 'wombat Müller' }],
    ['plugin.enabled', 'operator:ada', { name: 'hello' }],
    ['call.received', 'agent:codex', { call: 'c2', session: 's2', agent: 'codex', tool: 'Write', arguments: { file_path: '/tmp/numbat.txt' } }],
  ];
  rows.forEach(([type, actor, payload], i) => insert.run(i + 1, 1000 + i, type, actor, JSON.stringify(payload)));
}

const facets = (db: Database.Database) => db.prepare('SELECT * FROM event_facets ORDER BY seq').all();
const matches = (db: Database.Database, q: string) => (db.prepare('SELECT rowid FROM events_fts WHERE events_fts MATCH ? ORDER BY rowid').all(q) as { rowid: number }[]).map((r) => r.rowid);
const schema = (db: Database.Database) => db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all();

describe('audit migrations: frozen SQL, one file each', () => {
  it('each migration is the SQL it shipped with (a changed schema is a new migration file)', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    for (const m of migrations) expect(sha(m.sql), `migration ${m.version} (${m.name}) changed: add a new migration instead`).toBe(SHIPPED[m.version]);
  });

  it('1 and 2: the chained events, the head and the retention checkpoint', () => {
    const db = dbAt(2);
    expect(schema(db).map((r) => (r as { name: string }).name)).toEqual(['chain_checkpoint', 'chain_head', 'events', 'events_ts', 'events_type']);
  });

  it("3: on a log at version 2, fills every event's facets as the live indexer does", () => {
    const old = dbAt(2);
    addEvents(old);
    migrate(old, migrations.filter((m) => m.version <= 3));
    const live = dbAt(4);
    addEvents(live);
    new SearchIndexer(live).indexAfter(0);
    expect(facets(old)).toEqual(facets(live));
    // The terminal's output belongs to its call, and so to that call's session and agent.
    expect(facets(old)[3]).toMatchObject({ seq: 4, call: 'c1', session: 's1', agent: 'claude', terminal: 't1' });
  });

  it('4: on a log at version 3, rebuilds the text index as the live indexer builds it, and pruning takes the text out again', () => {
    const old = dbAt(2);
    addEvents(old);
    migrate(old);
    const live = dbAt(4);
    addEvents(live);
    new SearchIndexer(live).indexAfter(0);
    for (const q of ['platypus', 'muller', 'numbat', '"grep platypus"', 'hello']) expect(matches(old, q), q).toEqual(matches(live, q));
    expect(matches(old, 'wombat')).toEqual([4]);
    old.prepare('DELETE FROM events WHERE seq = 4').run();
    expect(matches(old, 'wombat')).toEqual([]);
    expect(facets(old).map((f) => (f as { seq: number }).seq)).toEqual([1, 2, 3, 5, 6]);
  });

  it("the live indexer's text is the text the frozen trigger removes (else a change here needs a new migration)", () => {
    const db = dbAt(4);
    const trigger = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'events_search_delete'").get() as { sql: string }).sql;
    expect(trigger).toContain(ftsText('old'));
    expect(migrations.at(-1)!.sql).toContain(ftsText('events'));
  });
});
