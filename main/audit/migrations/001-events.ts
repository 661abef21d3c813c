// Migration 1, as shipped: the chained events and the head written with each commit.
// FROZEN: a database at this version was made by exactly this SQL. Change the schema with a new
// migration file, never by editing this one (test/main/audit/audit-migrations.test.ts holds its hash).
export const MIGRATION_001 = {
  version: 1,
  name: 'events table with hash chain',
  sql: `
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
  `,
} as const;
