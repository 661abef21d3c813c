// Migration 2, as shipped: where verification starts once retention has pruned the oldest rows.
// FROZEN: change the schema with a new migration file, never by editing this one.
export const MIGRATION_002 = {
  version: 2,
  name: 'chain checkpoint for retention',
  sql: `
    -- The seq and hash of the last row retention deleted: verification starts here instead of
    -- at the genesis hash. The audit.pruned event appended with each prune records it too.
    CREATE TABLE IF NOT EXISTS chain_checkpoint (
      id        INTEGER PRIMARY KEY CHECK (id = 1),
      seq       INTEGER NOT NULL,
      hash      TEXT    NOT NULL,
      pruned_at INTEGER NOT NULL
    );
  `,
} as const;
