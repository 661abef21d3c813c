// The team database's pool (team-db.ts) against a throwaway PostgreSQL cluster: a connection the
// server drops just as the pool hands it out is not an 'error' event nobody listens to (which ends
// a host: `gatehouse serve` has no handler for uncaught exceptions); its first query fails, and the
// pool connects anew once PostgreSQL is back.
import { describe, expect, it, onTestFinished } from 'vitest';
import { openTeamPool } from '../../../main/team/team-db.js';
import { burstRelay } from '../../support/burst-relay.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';

describe.runIf(pgMissing('team-db') === null)('team database pool', () => {
  const cluster = useCluster();

  it('a connection PostgreSQL drops as the pool hands it out fails its first query; nothing is thrown at the process', async () => {
    // The server's answer to the connection's start is held until the cluster is stopped, then
    // delivered with its "terminating connection" in one read (burst-relay.ts).
    const relay = await burstRelay(cluster().port, 'application_name\0gatehouse');
    onTestFinished(() => relay.close());
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => void uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    onTestFinished(() => void process.off('uncaughtException', onUncaught));
    const dropped: Error[] = [];
    const pool = await openTeamPool(relay.url(cluster().url), (err) => dropped.push(err));
    onTestFinished(() => pool.end());

    const handing = pool.connect();
    await relay.held;
    await cluster().stop();
    const c = await handing;
    await expect(c.query('SELECT 1')).rejects.toThrow(/not queryable/);
    c.release();
    await cluster().start();
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(uncaught).toEqual([]);
  }, 60_000);
});
