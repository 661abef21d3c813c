// The PostgreSQL test harness itself (test/support/pg-cluster.ts): a throwaway cluster on loopback,
// stopped and started again with its data kept, as the team outage tests need.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { findPgBin, startPgCluster, type PgCluster } from './support/pg-cluster.js';

const bin = findPgBin();
if ('missing' in bin) console.log(`team-cluster tests not run: ${bin.missing}`);

describe.runIf(!('missing' in bin))('a throwaway PostgreSQL cluster', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPgCluster();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });

  it('runs on loopback, keeps its data over a stop and a start, and refuses connections while stopped', async () => {
    const url = await cluster.createDatabase('harness');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE t (n int)');
    await client.query('INSERT INTO t VALUES (1), (2)');
    await client.end();
    await cluster.stop();
    const refused = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    await expect(refused.connect()).rejects.toThrow(/ECONNREFUSED/);
    await cluster.start();
    const again = new pg.Client({ connectionString: url });
    await again.connect();
    const r = await again.query<{ n: number }>('SELECT sum(n)::int AS n FROM t');
    await again.end();
    expect(r.rows[0]!.n).toBe(3);
  });
});
