// The search index beside the chained events (migration 2): an FTS5 table over the text of each
// event and a facets table (call, session, agent, plugin, decision, severity, terminal), both
// keyed by seq. Neither is chained; both are derived from `events` and can be rebuilt from it.
//
// Indexing happens at commit, in the batch's own transaction, as three set-based statements over
// the rows after the last indexed seq. A per-row trigger writing FTS5 cost 4x the append rate
// (bench/audit-search.ts); one INSERT … SELECT per batch costs a fraction of it, and a row is
// searchable exactly when it is committed.
//
// Facets are denormalised so a filter is one indexed column: events that carry only the call id
// (rule.matched, call.decided, execution.*) get the session and agent of that call's
// call.received; pty.* events, which carry only the terminal id, get the call of the pty.started
// that named it, then its session and agent.
import type { Database, Statement } from 'better-sqlite3';

/** Schema of the index (migration 2 creates it; kept here so the SQL that fills it is beside it). */
export const SEARCH_INDEX_SCHEMA = `
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
  -- Contentless: the text is derived from events.payload, which is where results are read from.
  -- contentless_delete lets retention prune rows (the trigger below) without the original text.
  CREATE VIRTUAL TABLE events_fts USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
  -- Pruning events (retention) prunes their index rows with them.
  CREATE TRIGGER events_search_delete AFTER DELETE ON events BEGIN
    DELETE FROM event_facets WHERE seq = old.seq;
    DELETE FROM events_fts WHERE rowid = old.seq;
  END;
`;

// The searchable text: type, actor and every string value of the payload (tool name, arguments,
// reasons, outputs, transcript chunks), not the keys, which every event of a type shares.
const INSERT_FTS = `
  INSERT INTO events_fts(rowid, text)
  SELECT seq, type || ' ' || actor || ' ' || coalesce((SELECT group_concat(j.value, ' ') FROM json_tree(events.payload) AS j WHERE j.type = 'text'), '')
  FROM events WHERE seq > ? ORDER BY seq`;

const INSERT_FACETS = `
  INSERT INTO event_facets(seq, call, session, agent, plugin, decision, severity, terminal)
  SELECT seq,
    coalesce(json_extract(payload, '$.call'), json_extract(payload, '$.callId')),
    json_extract(payload, '$.session'),
    coalesce(json_extract(payload, '$.agent'), CASE WHEN actor LIKE 'agent:%' THEN substr(actor, 7) END),
    coalesce(json_extract(payload, '$.plugin'), CASE WHEN type LIKE 'plugin.%' THEN json_extract(payload, '$.name') END),
    json_extract(payload, '$.decision'),
    json_extract(payload, '$.severity'),
    CASE WHEN type LIKE 'pty.%' THEN json_extract(payload, '$.id') END
  FROM events WHERE seq > ? ORDER BY seq`;

// pty.* events after pty.started carry only the terminal id: take the call from pty.started.
const FILL_TERMINAL_CALLS = `
  UPDATE event_facets SET call = (SELECT r.call FROM event_facets AS r WHERE r.terminal = event_facets.terminal AND r.call IS NOT NULL LIMIT 1)
  WHERE seq > ? AND call IS NULL AND terminal IS NOT NULL`;

// Events of a call that do not name its session or agent take them from the call's other events.
const FILL_CALL_FACETS = `
  UPDATE event_facets SET
    session = coalesce(session, (SELECT r.session FROM event_facets AS r WHERE r.call = event_facets.call AND r.session IS NOT NULL LIMIT 1)),
    agent = coalesce(agent, (SELECT r.agent FROM event_facets AS r WHERE r.call = event_facets.call AND r.agent IS NOT NULL LIMIT 1))
  WHERE seq > ? AND call IS NOT NULL AND (session IS NULL OR agent IS NULL)`;

export function hasSearchIndex(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event_facets'").get() !== undefined;
}

/** Indexes every event after `afterSeq`; call inside the transaction that wrote them. */
export class SearchIndexer {
  private readonly steps: Statement[];

  constructor(db: Database) {
    this.steps = [INSERT_FTS, INSERT_FACETS, FILL_TERMINAL_CALLS, FILL_CALL_FACETS].map((sql) => db.prepare(sql));
  }

  indexAfter(afterSeq: number): void {
    for (const s of this.steps) s.run(afterSeq);
  }
}

/** Indexes rows that are not indexed yet (the migration's backfill of an existing log). */
export function backfillSearchIndex(db: Database): void {
  const last = (db.prepare('SELECT max(seq) AS seq FROM event_facets').get() as { seq: number | null }).seq ?? 0;
  new SearchIndexer(db).indexAfter(last);
}
