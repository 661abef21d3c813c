// Team search's facets in its index (migration 005, issue #28): rows shipped under an older schema
// and migrated in place are found by --member, --agent, --session, --plugin and --decision (alone,
// together, with a word) exactly as the payload test of the old search found them; rows the real
// shipper sends after the upgrade are indexed with the same words and facets as the same rows
// migrated; a payload jsonb refuses neither stops the migration nor the shipper. Against a real PostgreSQL.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { StoredRow } from '../../../main/audit/chain.js';
import { canonicalJson } from '../../../main/audit/chain.js';
import type { ChainSource } from '../../../main/team/chain-source.js';
import { TEAM_MIGRATION_005 } from '../../../main/team/migrations/005-team-search-facets.js';
import { migrateTeam, TEAM_SCHEMA_VERSION, teamMigrations } from '../../../main/team/migrations/migrate.js';
import { searchText } from '../../../main/team/search-text.js';
import { openTeamPool, pgBigintArrayBinary, pgTextArrayBinary } from '../../../main/team/team-db.js';
import { teamSearch, type TeamSearchRequest } from '../../../main/team/team-search.js';
import { TeamShipper } from '../../../main/team/team-shipper.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { sql } from '../../support/team-hosts.js';

/** Call-like events with every shape a facet takes: in the payload, from the actor, a plugin's name, a non-string. */
function events(): StoredRow[] {
  const rows: StoredRow[] = [];
  const add = (type: string, actor: string, payload: Record<string, unknown>) => {
    const seq = rows.length + 1;
    rows.push({ seq, ts: 1_700_000_000_000 + seq * 1000, type, actor, payloadJson: canonicalJson(payload), prevHash: `p${seq}`, hash: `h${seq}` });
  };
  for (let i = 0; i < 90; i++) {
    const type = i % 5 === 0 ? 'plugin.started' : ['call.received', 'call.decided', 'call.result'][i % 3]!;
    add(type, i % 4 === 0 ? `agent:bot-${i % 3}` : 'host', {
      call: `c-${i}`,
      ...(i % 2 ? { agent: `bot-${(i + 1) % 3}` } : {}),
      ...(i % 3 ? { session: `bot/s-${i % 4}` } : {}),
      // A name on a plugin.* event is its plugin; on another event it is not.
      ...(i % 5 === 0 || i % 6 === 0 ? { name: `plug-${i % 2}` } : {}),
      ...(i % 7 === 0 ? { plugin: `plug-${i % 3}` } : {}),
      ...(i % 3 === 1 ? { decision: i % 2 ? 'deny' : 'allow' } : i % 11 === 0 ? { decision: 1 } : {}),
      ...(i % 13 === 0 ? { agent: { nested: 'bot-0' } } : {}),
      arguments: { command: `make ${i % 2 ? 'deploy' : 'lint'} build-${i}` },
    });
  }
  // Characters an array literal gives a meaning to (the shipper sends each column as one), and text beyond ASCII.
  add('call.received', 'agent:{x},"NULL"', { session: 'NULL', agent: 'a,b', arguments: { command: 'echo "{a,b}" \\" \\\\ } NULL ü 🙂' } });
  // Characters tsquery syntax gives a meaning to, in a facet's value.
  add('call.received', 'host', { session: "O'Neil \\ a&b:* | !C", agent: 'bot-0' });
  // Payloads jsonb refuses (the old search failed on them): only the actor's facet.
  add('call.decided', 'agent:nul-agent', { decision: 'deny', arguments: { content: 'a\u0000b' } });
  add('call.decided', 'host', { decision: 'deny', text: '\ud800' });
  // An escaped backslash before "u0000": text jsonb reads, every facet.
  add('call.decided', 'host', { decision: 'deny', text: '\\u0000' });
  return rows;
}

/** The facet filters of the search as it was before migration 005: the payload read as jsonb, row by row. */
const PAYLOAD_TEST: Record<'agent' | 'session' | 'plugin' | 'decision', string> = {
  agent: "(payload::jsonb ->> 'agent' = $K OR actor = 'agent:' || $K)",
  session: "payload::jsonb ->> 'session' = $K",
  plugin: "(payload::jsonb ->> 'plugin' = $K OR (type LIKE 'plugin.%' AND payload::jsonb ->> 'name' = $K))",
  decision: "payload::jsonb ->> 'decision' = $K",
};

const FILTERS: Omit<TeamSearchRequest, 'limit'>[] = [
  { query: '', agent: 'bot-0' },
  { query: '', agent: 'bot-1' },
  { query: '', agent: 'bot-2' },
  { query: '', session: 'bot/s-1' },
  { query: '', plugin: 'plug-0' },
  { query: '', plugin: 'plug-1' },
  { query: '', plugin: 'plug-2' },
  { query: '', decision: 'deny' },
  { query: '', decision: 'allow' },
  { query: 'deploy', decision: 'deny' },
  { query: 'lint', agent: 'bot-1', session: 'bot/s-0' },
  { query: '', plugin: 'plug-0', decision: 'allow' },
  { query: '', session: "O'Neil \\ a&b:* | !C" },
];

/** The seqs the old payload test finds for `f` among `member`'s first `upTo` rows. */
async function foundBefore(url: string, member: string, upTo: number, f: Omit<TeamSearchRequest, 'limit'>): Promise<number[]> {
  const params: unknown[] = [member, upTo];
  const conds = ['member = $1', 'seq <= $2'];
  if (f.query) conds.push(`search @@ websearch_to_tsquery('simple', $${params.push(f.query)})`);
  for (const k of ['agent', 'session', 'plugin', 'decision'] as const) if (f[k]) conds.push(PAYLOAD_TEST[k].replaceAll('$K', `$${params.push(f[k])}`));
  return (await sql<{ seq: string }>(url, `SELECT seq FROM team_events WHERE ${conds.join(' AND ')} ORDER BY seq`, params)).map((r) => Number(r.seq));
}

function arraySource(rows: StoredRow[]): ChainSource {
  return { rowsAfter: (seq, limit) => rows.filter((r) => r.seq > seq).slice(0, limit), hashAt: (seq) => rows[seq - 1]?.hash ?? null, headSeq: () => rows.length };
}

describe('the arrays the shipper sends in binary form', () => {
  it('lays them out as array_send does, counts UTF-8 bytes, and refuses a number bigint cannot hold', () => {
    const header = (oid: number, n: number) => [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, oid, 0, 0, 0, n, 0, 0, 0, 1];
    expect([...pgTextArrayBinary(['ü', ''])]).toEqual([...header(25, 2), 0, 0, 0, 2, 0xc3, 0xbc, 0, 0, 0, 0]);
    expect([...pgBigintArrayBinary([-2])]).toEqual([...header(20, 1), 0, 0, 0, 8, 255, 255, 255, 255, 255, 255, 255, 254]);
    for (const bad of [1.5, NaN, 2 ** 53]) expect(() => pgBigintArrayBinary([1, bad])).toThrow(/not an integer/);
  });
});

describe.runIf(pgMissing('team-search-facets') === null)('team search facets in the search index', () => {
  const cluster = useCluster();

  it('finds migrated rows as the payload test did, and the shipper gives new rows the same facets', async () => {
    const url = await cluster().createDatabase('facets');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows = events();
    const plain = rows.length - 3;
    try {
      // A team database as it was before 005, with a member's rows shipped as the shipper then shipped them.
      expect(await migrateTeam(client, teamMigrations.filter((m) => m.version < TEAM_MIGRATION_005.version))).toMatchObject({ from: 0 });
      await client.query("INSERT INTO team_members (name) VALUES ('before')");
      await client.query(
        `INSERT INTO team_events (member, seq, ts, type, actor, payload, prev_hash, hash, search)
         SELECT 'before', u.seq, u.ts, u.type, u.actor, u.payload, u.prev_hash, u.hash, to_tsvector('simple', u.text)
         FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS u(seq, ts, type, actor, payload, prev_hash, hash, text)`,
        [rows.map((r) => r.seq), rows.map((r) => r.ts), rows.map((r) => r.type), rows.map((r) => r.actor), rows.map((r) => r.payloadJson), rows.map((r) => r.prevHash), rows.map((r) => r.hash), rows.map((r) => searchText(r.type, r.actor, r.payloadJson))],
      );
      // What each filter found before the upgrade (over the rows the old search could read at all).
      const before = await Promise.all(FILTERS.map((f) => foundBefore(url, 'before', plain, f)));
      expect(before.map((seqs) => seqs.length > 0)).toEqual(FILTERS.map(() => true));
      // The upgrade: through 005 to the newest schema (which the shipper below requires).
      expect(await migrateTeam(client)).toEqual({ from: TEAM_MIGRATION_005.version - 1, to: TEAM_SCHEMA_VERSION });
    } finally {
      await client.end();
    }

    const pool = await openTeamPool(url, () => {});
    let shipper: TeamShipper | null = null;
    try {
      const search = async (member: string, f: Omit<TeamSearchRequest, 'limit'>) => (await teamSearch(pool, { ...f, member, limit: 1000 })).events.map((e) => e.seq).filter((s) => s <= plain).sort((a, b) => a - b);
      for (const f of FILTERS) expect(await search('before', f), JSON.stringify(f)).toEqual(await foundBefore(url, 'before', plain, f));

      // The same rows shipped after the upgrade by the real shipper, as member 'after'.
      const up = new Promise<void>((resolve, reject) => {
        shipper = new TeamShipper({ source: arraySource(rows), pool, clock: { now: () => Date.now() }, member: 'after', version: 'test', linkChanged: (c) => (c.state === 'up' ? resolve() : reject(new Error(c.error))) });
      });
      shipper!.start();
      await up;
      // Each row's words and facets but its member's, as the index holds them.
      const indexed = async (member: string) =>
        (await sql<{ words: string; facets: string[] }>(url, "SELECT ts_delete(search, ARRAY(SELECT lexeme FROM unnest(search) WHERE lexeme LIKE '%=%'))::text AS words, ARRAY(SELECT lexeme FROM unnest(search) WHERE lexeme LIKE '%=%' ORDER BY lexeme) AS facets FROM team_events WHERE member = $1 ORDER BY seq", [member])).map((r) => ({ words: r.words, facets: r.facets.filter((f) => f !== `member=${member}`), member: r.facets.includes(`member=${member}`) }));
      // Every column as the log holds it: the arrays the shipper writes read back as the rows they came from.
      const stored = (await sql<{ seq: string; ts: string; type: string; actor: string; payload: string; prev_hash: string; hash: string }>(url, 'SELECT seq, ts, type, actor, payload, prev_hash, hash FROM team_events WHERE member = $1 ORDER BY seq', ['after'])).map((r) => ({ seq: Number(r.seq), ts: Number(r.ts), type: r.type, actor: r.actor, payloadJson: r.payload, prevHash: r.prev_hash, hash: r.hash }));
      expect(stored).toEqual(rows);
      const migrated = await indexed('before');
      expect(await indexed('after')).toEqual(migrated);
      expect(migrated.every((r) => r.member)).toBe(true);
      expect(migrated.slice(-3).map((r) => r.facets)).toEqual([['agent=nul-agent'], [], ['decision=deny']]);
      for (const f of FILTERS) expect(await search('after', f), JSON.stringify(f)).toEqual(await foundBefore(url, 'before', plain, f));
    } finally {
      await (shipper as TeamShipper | null)?.close();
      await pool.end();
    }
  }, 60_000);
});
