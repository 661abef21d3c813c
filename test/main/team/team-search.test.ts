// Team search's count (issue #28): exact when the page is not full, counted up to the cap when the
// server can within its budget, and "at least the rows shown" when it cannot; against a real
// PostgreSQL with 12,000 matching events.
import { describe, expect, it } from 'vitest';
import { openTeamPool } from '../../../main/team/team-db.js';
import { TEAM_COUNT_CAP, teamSearch } from '../../../main/team/team-search.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { sql, teamDatabase } from '../../support/team-hosts.js';

describe.runIf(pgMissing('team-search') === null)('team search counts within a budget', () => {
  const cluster = useCluster();

  it('an exact total for a page that is not full, the capped count within the budget, and "at least the page" past it', async () => {
    const url = await teamDatabase(cluster(), 'search_count');
    await sql(url, "INSERT INTO team_members (name) VALUES ('m1')");
    await sql(
      url,
      `INSERT INTO team_events (member, seq, ts, type, actor, payload, prev_hash, hash, search)
       SELECT 'm1', g, 1700000000000 + g, 'call.received', 'agent:bot', '{"tool":"Bash"}', '', md5(g::text), to_tsvector('simple', CASE WHEN g <= 12000 THEN 'deploy' ELSE 'rare' END)
       FROM generate_series(1, 12005) AS g`,
    );
    const pool = await openTeamPool(url, () => {});
    try {
      const few = await teamSearch(pool, { query: 'rare', limit: 50 });
      expect([few.events.length, few.total, few.totalCapped]).toEqual([5, 5, false]);
      // A generous budget: 12,000 matches counted up to the cap.
      const counted = await teamSearch(pool, { query: 'deploy', limit: 50 }, 30_000);
      expect([counted.events.length, counted.total, counted.totalCapped]).toEqual([50, TEAM_COUNT_CAP, true]);
      // No time to count 10,001 rows in 1 ms: the answer is the page, marked as more.
      const rushed = await teamSearch(pool, { query: 'deploy', limit: 50 }, 1);
      expect([rushed.events.length, rushed.total, rushed.totalCapped]).toEqual([50, 50, true]);
      // The timeout was the count's own: the pool's connections still answer at their usual timeout.
      expect((await pool.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows[0]!.statement_timeout).toBe('30s');
    } finally {
      await pool.end();
    }
  }, 60_000);
});
