// The PostgreSQL test harness itself (test/support/pg-cluster.ts): a throwaway cluster on loopback,
// stopped and started again with its data kept, as the team outage tests need.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { pgMissing, useCluster } from '../../support/pg-suite.js';


describe.runIf(pgMissing('team-cluster') === null)('a throwaway PostgreSQL cluster', () => {
  const cluster = useCluster();

  it('runs on loopback, keeps its data over a stop and a start, and refuses connections while stopped', async () => {
    const url = await cluster().createDatabase('harness');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE t (n int)');
    await client.query('INSERT INTO t VALUES (1), (2)');
    await client.end();
    await cluster().stop();
    const refused = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    await expect(refused.connect()).rejects.toThrow(/ECONNREFUSED/);
    await cluster().start();
    const again = new pg.Client({ connectionString: url });
    await again.connect();
    const r = await again.query<{ n: number }>('SELECT sum(n)::int AS n FROM t');
    await again.end();
    expect(r.rows[0]!.n).toBe(3);
  });
});
