// Migration 4, as shipped: the FTS5 text table made again without per-row sizes (columnsize=0),
// its delete trigger recomputing a pruned row's text, and the text of every event indexed anew in
// the migration's transaction (search sees the old index or the whole new one).
// FROZEN: plain SQL (the text expression written out as audit-index.ts's ftsText gave it then).
export const MIGRATION_004 = {
  version: 4,
  name: 'search index: FTS5 without per-row sizes (columnsize=0), rebuilt from events',
  sql: `
    DROP TRIGGER events_search_delete;
    DROP TABLE events_fts;
    CREATE VIRTUAL TABLE events_fts USING fts5(text, content='', columnsize=0, tokenize='unicode61 remove_diacritics 2');
    -- Pruning events (retention) prunes their index rows with them: the same text goes out as went in.
    CREATE TRIGGER events_search_delete AFTER DELETE ON events BEGIN
      DELETE FROM event_facets WHERE seq = old.seq;
      INSERT INTO events_fts(events_fts, rowid, text) VALUES ('delete', old.seq, old.type || ' ' || old.actor || ' ' || coalesce((SELECT group_concat(j.value, ' ') FROM json_tree(old.payload) AS j WHERE j.type = 'text'), ''));
    END;
    INSERT INTO events_fts(rowid, text)
    SELECT seq, events.type || ' ' || events.actor || ' ' || coalesce((SELECT group_concat(j.value, ' ') FROM json_tree(events.payload) AS j WHERE j.type = 'text'), '')
    FROM events ORDER BY seq;
    -- One segment instead of one per batch: what a search reads first.
    INSERT INTO events_fts(events_fts) VALUES ('optimize');
  `,
} as const;
