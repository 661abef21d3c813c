// The search index beside the chained events (migration 3; migration 4 rebuilt its FTS5 table): an FTS5 table over the text of each
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

/**
 * The searchable text of an event (`row`: the table or trigger row it is read from): type, actor
 * and every string value of the payload (tool name, arguments, reasons, outputs, transcript
 * chunks), not the keys, which every event of a type shares. The delete trigger hands FTS5 the
 * same text again, so this must stay a function of the chained (immutable) columns alone.
 */
export function ftsText(row: string): string {
  return `${row}.type || ' ' || ${row}.actor || ' ' || coalesce((SELECT group_concat(j.value, ' ') FROM json_tree(${row}.payload) AS j WHERE j.type = 'text'), '')`;
}

/**
 * The text index and the trigger that keeps it in step with retention (migration 4 rebuilt both in
 * this form; SEARCH_INDEX_SCHEMA below is the whole index for a fresh database).
 *
 * Contentless (content=''): the text is derived from events, which is where results are read from.
 * columnsize=0: no per-row size record (the _docsize table), which only bm25/rank would read; search
 * orders by seq. FTS5 refuses it together with contentless_delete=1, so a pruned event is removed
 * with FTS5's 'delete' command and its text recomputed by ftsText from the row being deleted.
 * Dropping the size record (and contentless_delete's per-row origin with it) made an indexed insert
 * ~0.9 µs cheaper per event (bench/audit-append.ts: ~12.4 → ~11.5 µs of CPU per appended event).
 *
 * detail=full stays: detail=column or detail=none reject every phrase query ("rm -rf", "build-12",
 * "prod/app.yaml": any quoted text of more than one token, which is how paths and flags are
 * searched) and NEAR, and a contentless table has no text to re-check a phrase against; they saved
 * ≤0.15 µs per event here. The ascii tokenizer was no faster than unicode61 and would lose
 * case-folding and diacritics outside ASCII (Müller, CAFÉ), so unicode61 stays. Leaving the ids
 * (call, session) out of the text saved ~0.15 µs and would stop a pasted call id from finding its
 * call, so every string value stays indexed. (A row whose payload was edited after it was indexed,
 * i.e. tampered with, leaves stray terms behind when pruned; searches join events, so they never
 * show, and verify names the edit.)
 */
export const SEARCH_TEXT_SCHEMA = `
  CREATE VIRTUAL TABLE events_fts USING fts5(text, content='', columnsize=0, tokenize='unicode61 remove_diacritics 2');
  -- Pruning events (retention) prunes their index rows with them: the same text goes out as went in.
  CREATE TRIGGER events_search_delete AFTER DELETE ON events BEGIN
    DELETE FROM event_facets WHERE seq = old.seq;
    INSERT INTO events_fts(events_fts, rowid, text) VALUES ('delete', old.seq, ${ftsText('old')});
  END;
`;

/** Schema of the index (migration 3 created it, migration 4 rebuilt its text part; kept here so the SQL that fills it is beside it). */
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
  ${SEARCH_TEXT_SCHEMA}
`;

const INSERT_FTS = `
  INSERT INTO events_fts(rowid, text)
  SELECT seq, ${ftsText('events')}
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

  constructor(db: Database, opts: { text?: boolean } = {}) {
    this.steps = [...(opts.text === false ? [] : [INSERT_FTS]), INSERT_FACETS, FILL_TERMINAL_CALLS, FILL_CALL_FACETS].map((sql) => db.prepare(sql));
  }

  indexAfter(afterSeq: number): void {
    for (const s of this.steps) s.run(afterSeq);
  }
}

/** Indexes the text of every event (migration 4, after it made the text index afresh). */
export function rebuildSearchText(db: Database): void {
  db.prepare(INSERT_FTS).run(0);
  // One segment instead of one per batch: what a search reads first.
  db.prepare("INSERT INTO events_fts(events_fts) VALUES ('optimize')").run();
}

/** Indexes rows that are not indexed yet (the migration's backfill of an existing log); text: false fills the facets only. */
export function backfillSearchIndex(db: Database, opts: { text?: boolean } = {}): void {
  const last = (db.prepare('SELECT max(seq) AS seq FROM event_facets').get() as { seq: number | null }).seq ?? 0;
  new SearchIndexer(db, opts).indexAfter(last);
}
