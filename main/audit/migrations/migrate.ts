// Numbered, forward-only schema migrations; PRAGMA user_version records the last one applied.
// Each lives in its own file as the plain SQL it shipped with, frozen: a database at version N was
// made by exactly migrations 1..N, whatever the live code (the indexer, the store) has become
// since. test/main/audit/audit-migrations.test.ts pins each file's SQL and checks that the migrations build
// the schema the live code expects.
import type { Database } from 'better-sqlite3';
import { MIGRATION_001 } from './001-events.js';
import { MIGRATION_002 } from './002-chain-checkpoint.js';
import { MIGRATION_003 } from './003-search-index.js';
import { MIGRATION_004 } from './004-search-text-columnsize.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  /** Run whole, in one transaction with the version bump. */
  readonly sql: string;
}

/** In order; a new migration is a new file and one more entry here. */
export const migrations: readonly Migration[] = [MIGRATION_001, MIGRATION_002, MIGRATION_003, MIGRATION_004];

/**
 * Applies the migrations the database lacks. `upgrading` hears of each one applied to an existing
 * log (not a new one): some rebuild an index over every event, which takes a while on a big log.
 */
export function migrate(db: Database, list: readonly Migration[] = migrations, upgrading?: (m: Migration) => void): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = list.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(`The audit database is at schema version ${current}, newer than this Gatehouse understands (${latest}). Upgrade Gatehouse or use another GATEHOUSE_HOME.`);
  }
  for (const m of list) {
    if (m.version <= current) continue;
    if (current > 0) upgrading?.(m);
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return latest;
}
