// One throwaway PostgreSQL cluster for a test file's describe block (pg-cluster.ts), and the reason
// it cannot run when PostgreSQL's binaries are missing: printed once, the block not run.
import { afterAll, beforeAll } from 'vitest';
import { findPgBin, startPgCluster, type PgCluster } from './pg-cluster.js';

const found = findPgBin();

/** Why the PostgreSQL tests of `file` cannot run here (printed), or null when they can. */
export function pgMissing(file: string): string | null {
  if (!('missing' in found)) return null;
  console.log(`${file}: PostgreSQL tests not run: ${found.missing}`);
  return found.missing;
}

/** Call inside the describe block: the cluster is started before its tests and destroyed after them. */
export function useCluster(): () => PgCluster {
  let cluster: PgCluster | undefined;
  beforeAll(async () => {
    cluster = await startPgCluster();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });
  return () => {
    if (!cluster) throw new Error('the PostgreSQL cluster is not started (call useCluster() inside the describe block)');
    return cluster;
  };
}
