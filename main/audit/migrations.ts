// Numbered, forward-only schema migrations; PRAGMA user_version records the last one applied.
import type { Database } from 'better-sqlite3';
import { SEARCH_TEXT_SCHEMA, backfillSearchIndex, rebuildSearchText } from './audit-index.js';

export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

/**
 * The search index as migration 3 created it. Frozen here: later migrations change it from this
 * shape, and audit-index.ts holds the current one.
 */
const SEARCH_INDEX_V3 = `
  CREATE TABLE event_facets (
    seq      INTEGER PRIMARY KEY,
    call     TEXT,
    session  TEXT,
    agent    TEXT,
    plugin   TEXT,
    decision TEXT,
    severity TEXT,
    terminal TEXT
  );
  CREATE INDEX event_facets_call ON event_facets(call) WHERE call IS NOT NULL;
  CREATE INDEX event_facets_session ON event_facets(session) WHERE session IS NOT NULL;
  CREATE INDEX event_facets_agent ON event_facets(agent) WHERE agent IS NOT NULL;
  CREATE INDEX event_facets_plugin ON event_facets(plugin) WHERE plugin IS NOT NULL;
  CREATE INDEX event_facets_decision ON event_facets(decision) WHERE decision IS NOT NULL;
  CREATE INDEX event_facets_terminal ON event_facets(terminal) WHERE terminal IS NOT NULL;
  CREATE VIRTUAL TABLE events_fts USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
  CREATE TRIGGER events_search_delete AFTER DELETE ON events BEGIN
    DELETE FROM event_facets WHERE seq = old.seq;
    DELETE FROM events_fts WHERE rowid = old.seq;
  END;
`;

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
      db.exec(SEARCH_INDEX_V3);
      // An existing log is indexed now, in the migration's transaction: search never sees half of it.
      // Facets only since migration 4: it rebuilds the text index from every event right after.
      backfillSearchIndex(db, { text: false });
    },
  },
  {
    version: 4,
    name: 'search index: FTS5 without per-row sizes (columnsize=0), rebuilt from events',
    up(db) {
      // The text index is derived from events: drop it and index every event again in this
      // transaction (search sees the old index or the whole new one). Facets are unchanged.
      db.exec(`
        DROP TRIGGER events_search_delete;
        DROP TABLE events_fts;
        ${SEARCH_TEXT_SCHEMA}
      `);
      rebuildSearchText(db);
    },
  },
];

/**
 * Applies the migrations the database lacks. `upgrading` hears of each one applied to an existing
 * log (not a new one): some rebuild an index over every event, which takes a while on a big log.
 */
export function migrate(db: Database, list: Migration[] = migrations, upgrading?: (m: Migration) => void): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = list.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(`The audit database is at schema version ${current}, newer than this Gatehouse understands (${latest}). Upgrade Gatehouse or use another GATEHOUSE_HOME.`);
  }
  for (const m of list) {
    if (m.version <= current) continue;
    if (current > 0) upgrading?.(m);
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return latest;
}
