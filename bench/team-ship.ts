// Team shipping throughput (issue #28), a quick measurement, not part of `npm run bench` yet: a
// throwaway PostgreSQL cluster (test/support/pg-cluster.ts), an in-memory audit log filled with
// call-like events, and the real TeamShipper. Prints (1) how fast a backlog drains and (2) the lag
// while events are appended at a steady rate. Run:
//   npx esbuild bench/team-ship.ts --bundle --platform=node --format=esm --packages=external --outfile=out/bench/team-ship.mjs && node out/bench/team-ship.mjs
import pg from 'pg';
import { AuditStore } from '../main/audit/audit-store.js';
import { auditDbSource } from '../main/team/chain-source.js';
import { migrateTeam } from '../main/team/migrations/migrate.js';
import { openTeamPool } from '../main/team/team-db.js';
import { TeamShipper } from '../main/team/team-shipper.js';
import { startPgCluster } from '../test/support/pg-cluster.js';

const BACKLOG = Number(process.env.BACKLOG ?? 200_000);
const RATE = Number(process.env.RATE ?? 20_000);
const SECONDS = Number(process.env.SECONDS ?? 10);

function event(i: number) {
  return { type: 'call.received', actor: 'agent:bench', payload: { call: `c-${i}`, agent: 'bench', session: `bench/s-${i % 50}`, tool: 'Read', source: 'hook', cwd: '/srv/app', arguments: { file_path: `/srv/app/src/module-${i % 997}.ts` } } };
}

const until = async (ok: () => boolean) => {
  while (!ok()) await new Promise((r) => setTimeout(r, 5));
};

const cluster = await startPgCluster();
try {
  const url = await cluster.createDatabase('bench');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await migrateTeam(c);
  await c.end();

  // (1) Backlog: BACKLOG events already in the log when the shipper starts.
  const store = new AuditStore({ path: ':memory:', log: () => {} });
  for (let i = 0; i < BACKLOG; i++) store.append(event(i));
  store.flush();
  const pool = await openTeamPool(url, () => {});
  const source = auditDbSource(store.db);
  const shipper = new TeamShipper({ source, pool, clock: { now: () => Date.now() }, member: 'bench', version: 'bench', ...(process.env.BATCH ? { batchSize: Number(process.env.BATCH) } : {}) });
  const t0 = performance.now();
  shipper.start();
  await until(() => shipper.status().shippedSeq === source.headSeq());
  const drain = (performance.now() - t0) / 1000;
  console.log(`backlog: ${BACKLOG} events shipped in ${drain.toFixed(2)} s = ${Math.round(BACKLOG / drain)} events/s`);

  // (2) Sustained: RATE events/s appended for SECONDS, in 10 ms ticks, the shipper nudged at each commit as in a host.
  const perTick = Math.round(RATE / 100);
  let maxLag = 0;
  let maxLagMs = 0;
  let i = BACKLOG;
  const start = performance.now();
  const shippedBefore = shipper.status().shippedSeq!;
  while (performance.now() - start < SECONDS * 1000) {
    const tickStart = performance.now();
    for (let k = 0; k < perTick; k++) store.append(event(i++));
    store.flush();
    shipper.nudge();
    const s = shipper.status();
    maxLag = Math.max(maxLag, s.lag);
    maxLagMs = Math.max(maxLagMs, s.lagMs);
    await new Promise((r) => setTimeout(r, Math.max(0, 10 - (performance.now() - tickStart))));
  }
  const appended = i - BACKLOG;
  const appendSecs = (performance.now() - start) / 1000;
  await until(() => shipper.status().shippedSeq === source.headSeq());
  const total = (performance.now() - start) / 1000;
  console.log(`sustained: ${appended} events appended in ${appendSecs.toFixed(1)} s (${Math.round(appended / appendSecs)}/s offered), all shipped after ${total.toFixed(1)} s (${Math.round((shipper.status().shippedSeq! - shippedBefore) / total)}/s); max lag ${maxLag} events, ${maxLagMs} ms`);
  await shipper.close();
  await pool.end();
  store.close();
} finally {
  await cluster.destroy();
}
