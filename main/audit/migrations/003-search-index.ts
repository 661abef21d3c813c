// Migration 3, as shipped: the search index (facets per event, and an FTS5 text table), and the
// facets of every event already in the log, filled in the migration's own transaction so a
// search never sees half of them. The text was filled by migration 4, which rebuilt that table.
// FROZEN: plain SQL, with no call into the live indexer (audit-index.ts), which later versions
// change; a database upgraded from version 2 must get exactly what version 3 gave it.
export const MIGRATION_003 = {
  version: 3,
  name: 'search index: FTS5 text and facets (session, agent, plugin, decision) per event',
  sql: `
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

    INSERT INTO event_facets(seq, call, session, agent, plugin, decision, severity, terminal)
    SELECT seq,
      coalesce(json_extract(payload, '$.call'), json_extract(payload, '$.callId')),
      json_extract(payload, '$.session'),
      coalesce(json_extract(payload, '$.agent'), CASE WHEN actor LIKE 'agent:%' THEN substr(actor, 7) END),
      coalesce(json_extract(payload, '$.plugin'), CASE WHEN type LIKE 'plugin.%' THEN json_extract(payload, '$.name') END),
      json_extract(payload, '$.decision'),
      json_extract(payload, '$.severity'),
      CASE WHEN type LIKE 'pty.%' THEN json_extract(payload, '$.id') END
    FROM events ORDER BY seq;
    -- pty.* events after pty.started carry only the terminal id: the call comes from pty.started.
    UPDATE event_facets SET call = (SELECT r.call FROM event_facets AS r WHERE r.terminal = event_facets.terminal AND r.call IS NOT NULL LIMIT 1)
    WHERE call IS NULL AND terminal IS NOT NULL;
    -- Events of a call that do not name its session or agent take them from the call's other events.
    UPDATE event_facets SET
      session = coalesce(session, (SELECT r.session FROM event_facets AS r WHERE r.call = event_facets.call AND r.session IS NOT NULL LIMIT 1)),
      agent = coalesce(agent, (SELECT r.agent FROM event_facets AS r WHERE r.call = event_facets.call AND r.agent IS NOT NULL LIMIT 1))
    WHERE call IS NOT NULL AND (session IS NULL OR agent IS NULL);
  `,
} as const;
