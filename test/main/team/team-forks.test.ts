// Issue #28: a fork in the team trail. Two logs (real SQLite) shipping under one member name to a
// real PostgreSQL: the second is refused at the first row that differs, the fork is recorded
// (never overwriting what was shipped), its shipper stops with the link "forked", and `gatehouse
// audit verify --team` names the fork and the member that stopped shipping with events unshipped.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrateTeam } from '../../../main/team/migrations/migrate.js';
import { openTeamPool } from '../../../main/team/team-db.js';
import { runCli } from '../../support/cli.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { shipperOver } from '../../support/team-hosts.js';

describe.runIf(pgMissing('team-forks') === null)('a fork in the team trail', () => {
  const cluster = useCluster();

  it('is recorded and stops the second log, never overwriting the first; verify --team names it', async () => {
    const url = await cluster().createDatabase('forks');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await migrateTeam(client);
    const pool = await openTeamPool(url, () => {});
    try {
      const first = shipperOver(pool, 'twin', ['a', 'b', 'c']);
      first.shipper.start();
      expect((await first.until('up')).shippedSeq).toBe(3);
      await first.shipper.close();

      // Another log under the same name: its rows 1-3 differ (other words), and it has a fourth.
      const second = shipperOver(pool, 'twin', ['x', 'y', 'z', 'w']);
      second.shipper.start();
      const forked = await second.until('forked');
      expect(forked.error).toMatch(/holds another row 3 for member twin.*give this host its own --team-member name/);
      expect(second.shipper.status().link).toBe('forked');
      await second.shipper.close();

      const kept = (await client.query<{ seq: string; hash: string }>("SELECT seq, hash FROM team_events WHERE member = 'twin' ORDER BY seq")).rows;
      expect(kept.map((r) => [Number(r.seq), r.hash])).toEqual([1, 2, 3].map((s) => [s, (first.store.db.prepare('SELECT hash FROM events WHERE seq = ?').get(s) as { hash: string }).hash]));
      const forks = (await client.query<{ seq: string }>("SELECT seq FROM team_forks WHERE member = 'twin'")).rows;
      expect(forks.map((f) => Number(f.seq))).toEqual([3]);
      // The second log's head (4) was reported while the team holds 3: it has not shipped one event.
      await client.query("UPDATE team_members SET last_seen_at = now() - interval '1 hour' WHERE name = 'twin'");

      const verify = await runCli(['audit', 'verify', '--team', '--stale', '10m'], { GATEHOUSE_TEAM_URL: url });
      expect(verify.stdout).toMatch(/^twin: chain intact: 3 events/m);
      expect(verify.stdout).toMatch(/^twin: fork at row 3: the team database holds [0-9a-f]{12}…, the member later offered [0-9a-f]{12}…/m);
      expect(verify.stdout).toMatch(/^twin: stopped shipping: last seen .*, 1 events not shipped then\./m);
      expect(verify.stdout).toMatch(/Team trail NOT intact: twin\./);
      expect(verify.code).toBe(1);
      first.store.close();
      second.store.close();
    } finally {
      await pool.end();
      await client.end();
    }
  }, 120_000);
});
