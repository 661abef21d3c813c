// The search index beside the chained events (made by migrations 3 and 4): an FTS5 table over the text of each
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

/*
 * The schema is made by the frozen migrations (migrations/003-search-index.ts for the facets,
 * migrations/004-search-text-columnsize.ts for the text table and the delete trigger, which
 * hands FTS5 ftsText('old')); what follows is why the text table has that shape.
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

/**
 * Indexes every event after `afterSeq`; call inside the transaction that wrote them. The same
 * statements the migrations ran on the events already there: test/main/audit/audit-migrations.test.ts checks
 * that a migrated log and a live-indexed one hold the same index.
 */
export class SearchIndexer {
  private readonly steps: Statement[];

  constructor(db: Database) {
    this.steps = [INSERT_FTS, INSERT_FACETS, FILL_TERMINAL_CALLS, FILL_CALL_FACETS].map((sql) => db.prepare(sql));
  }

  indexAfter(afterSeq: number): void {
    for (const s of this.steps) s.run(afterSeq);
  }
}
