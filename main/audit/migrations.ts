// Numbered, forward-only schema migrations; PRAGMA user_version records the last one applied.
import type { Database } from 'better-sqlite3';
import { SEARCH_INDEX_SCHEMA, backfillSearchIndex } from './audit-index.js';

export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'events table with hash chain',
    up(db) {
      db.exec(`
        CREATE TABLE events (
          seq       INTEGER PRIMARY KEY,
          ts        INTEGER NOT NULL,
          type      TEXT    NOT NULL,
          actor     TEXT    NOT NULL,
          payload   TEXT    NOT NULL,
          prev_hash TEXT    NOT NULL,
          hash      TEXT    NOT NULL
        );
        CREATE INDEX events_ts ON events(ts);
        CREATE INDEX events_type ON events(type);
        -- The head as of the last commit, written in the same transaction as the rows:
        -- it lets verify notice a truncated tail, which the chain alone cannot.
        CREATE TABLE chain_head (
          id   INTEGER PRIMARY KEY CHECK (id = 1),
          seq  INTEGER NOT NULL,
          hash TEXT    NOT NULL
        );
      `);
    },
  },
  {
    version: 2,
    name: 'chain checkpoint for retention',
    up(db) {
      db.exec(`
        -- The seq and hash of the last row retention deleted: verification starts here instead of
        -- at the genesis hash. The audit.pruned event appended with each prune records it too.
        CREATE TABLE IF NOT EXISTS chain_checkpoint (
          id        INTEGER PRIMARY KEY CHECK (id = 1),
          seq       INTEGER NOT NULL,
          hash      TEXT    NOT NULL,
          pruned_at INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 3,
    name: 'search index: FTS5 text and facets (session, agent, plugin, decision) per event',
    up(db) {
      db.exec(SEARCH_INDEX_SCHEMA);
      // An existing log is indexed now, in the migration's transaction: search never sees half of it.
      backfillSearchIndex(db);
    },
  },
];

export function migrate(db: Database, list: Migration[] = migrations): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = list.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(`The audit database is at schema version ${current}, newer than this Gatehouse understands (${latest}). Upgrade Gatehouse or use another GATEHOUSE_HOME.`);
  }
  for (const m of list) {
    if (m.version <= current) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return latest;
}
