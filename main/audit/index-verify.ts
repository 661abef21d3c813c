// Verification of the search index against the chained rows.
//
// The index (event_facets and events_fts, audit-index.ts) is derived from `events` and not
// chained, so an edit to it alone left every hash intact: turning a call's `decision` facet from
// deny into allow made the Audit view and `audit search --decision deny` lie while `audit verify`
// said "intact". Whoever reads the log through its index must be able to trust it as far as the
// chain, so verify recomputes both from the chained rows and names every difference as tampering.
//
// Facets: recomputed per event with the indexer's own expressions; facets an event takes from
// other events of its call or terminal (audit-index.ts fills them) must be one of the values those
// events carry. Text: the expected text of every event is indexed into a temporary FTS5 table with
// the same tokenizer, and the two indexes are compared word by word (term, event, position)
// through fts5vocab, a range of words at a time. Both passes are chunked so a job can report
// progress and be cancelled between chunks.
import type { Database as Db } from 'better-sqlite3';
import type { Chunked } from '../chunked.js';
import { ftsText, hasSearchIndex } from './audit-index.js';

/** One difference between the index and what the chained rows say it must hold. */
export interface IndexMismatch {
  seq: number;
  /** The index part: a facet column (`facets.decision`), `facets` (the row itself) or `text`. */
  field: string;
  reason: string;
}

export interface IndexVerifyOptions {
  /** Rows at or before this seq were pruned (the retention checkpoint); 0 for a whole log. */
  fromSeq: number;
  /** The last chained row verified: rows after it (appended meanwhile) are checked next time. */
  toSeq: number;
  /** Events per chunk (facets and text); at most this many index words compared per step. */
  chunk?: number;
  /** Mismatches to list at most; the rest are counted. */
  limit?: number;
  /** Commits the writer's open batch (the host's own connection): called before each chunk. */
  flush?: () => void;
}

export interface IndexVerifyResult {
  /** Every mismatch found (up to `limit`), in seq order. */
  mismatches: IndexMismatch[];
  /** All mismatches, including those past `limit`. */
  total: number;
}

// The facets each event carries itself: the same expressions as INSERT_FACETS in audit-index.ts,
// cast to TEXT as the TEXT columns store them (a number or boolean decision is stored as text).
const DIRECT_FACETS = `
  SELECT e.seq AS seq,
    CAST(coalesce(json_extract(e.payload, '$.call'), json_extract(e.payload, '$.callId')) AS TEXT) AS call,
    CAST(json_extract(e.payload, '$.session') AS TEXT) AS session,
    CAST(coalesce(json_extract(e.payload, '$.agent'), CASE WHEN e.actor LIKE 'agent:%' THEN substr(e.actor, 7) END) AS TEXT) AS agent,
    CAST(coalesce(json_extract(e.payload, '$.plugin'), CASE WHEN e.type LIKE 'plugin.%' THEN json_extract(e.payload, '$.name') END) AS TEXT) AS plugin,
    CAST(json_extract(e.payload, '$.decision') AS TEXT) AS decision,
    CAST(json_extract(e.payload, '$.severity') AS TEXT) AS severity,
    CAST(CASE WHEN e.type LIKE 'pty.%' THEN json_extract(e.payload, '$.id') END AS TEXT) AS terminal`;

const FACET_COLUMNS = ['call', 'session', 'agent', 'plugin', 'decision', 'severity', 'terminal'] as const;
type FacetColumn = (typeof FACET_COLUMNS)[number];
type Facets = Record<FacetColumn, string | null>;

const TEMP_TEXT = 'gatehouse_verify_text';

function show(v: string | null): string {
  return v === null ? 'empty' : JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
}

/**
 * Checks event_facets and events_fts for the chained rows (fromSeq, toSeq]. Call after the chain
 * itself verified: the expected index is computed from those rows. A log without the index
 * (before migration 3) has nothing to check.
 */
export async function verifySearchIndex(db: Db, job: Chunked, opts: IndexVerifyOptions): Promise<IndexVerifyResult> {
  const out: IndexVerifyResult = { mismatches: [], total: 0 };
  if (!hasSearchIndex(db) || opts.toSeq <= opts.fromSeq) return out;
  const limit = opts.limit ?? 100;
  const chunk = opts.chunk ?? 20_000;
  const found: IndexMismatch[] = [];
  const report = (m: IndexMismatch) => {
    out.total++;
    found.push(m);
  };
  const span = opts.toSeq - opts.fromSeq;
  // Facets and text are each one pass over the rows: progress counts both.
  job.progress(0, span * 2);
  await checkFacets(db, job, opts, chunk, report, (done) => job.progress(done, span * 2));
  // The text index took its current form in migration 4 (before it, it was filled by an older
  // indexer, or not at all); a log not yet migrated by a newer host is checked for facets only.
  if ((db.pragma('user_version', { simple: true }) as number) >= 4) await checkText(db, job, opts, chunk, report, (done) => job.progress(span + done, span * 2));
  job.progress(span * 2, span * 2);
  found.sort((a, b) => a.seq - b.seq || a.field.localeCompare(b.field));
  out.mismatches = found.slice(0, limit);
  return out;
}

async function checkFacets(db: Db, job: Chunked, opts: IndexVerifyOptions, chunk: number, report: (m: IndexMismatch) => void, progress: (done: number) => void): Promise<void> {
  const cols = FACET_COLUMNS.map((c) => `d.${c} AS d_${c}, f.${c} AS f_${c}`).join(', ');
  const page = db.prepare(`WITH d AS (${DIRECT_FACETS} FROM events AS e WHERE e.seq > ? AND e.seq <= ?)
    SELECT d.seq AS seq, f.seq AS present, ${cols} FROM d LEFT JOIN event_facets AS f ON f.seq = d.seq ORDER BY d.seq`).raw(true);
  // Facet rows with no chained event behind them (inserted, or left when their event was deleted).
  const orphans = db.prepare('SELECT f.seq AS seq FROM event_facets AS f WHERE f.seq > ? AND f.seq <= ? AND NOT EXISTS (SELECT 1 FROM events AS e WHERE e.seq = f.seq) ORDER BY f.seq');
  const outside = db.prepare('SELECT seq FROM event_facets WHERE seq <= ? OR seq > ? ORDER BY seq LIMIT 1000');
  // What an event may take from the other events of its terminal or call (see FILL_* in audit-index.ts).
  const terminalCalls = db.prepare(`SELECT DISTINCT d.call AS v, d.seq AS seq FROM event_facets AS r JOIN (${DIRECT_FACETS} FROM events AS e) AS d ON d.seq = r.seq WHERE r.terminal = ? AND d.call IS NOT NULL`);
  const callValues = (col: 'session' | 'agent') => db.prepare(`SELECT d.${col} AS v, d.seq AS seq FROM event_facets AS r JOIN (${DIRECT_FACETS} FROM events AS e) AS d ON d.seq = r.seq WHERE r.call = ? AND d.${col} IS NOT NULL`);
  const callLookups = { session: callValues('session'), agent: callValues('agent') };

  const inherited = (rows: { v: string; seq: number }[], seq: number, stored: string | null, col: FacetColumn, via: string): IndexMismatch | null => {
    if (stored === null) {
      // The indexer fills from every event indexed before or with this one: an earlier event
      // carrying the value means it was filled, so an empty facet was erased.
      const earlier = rows.find((r) => r.seq < seq);
      return earlier ? { seq, field: `facets.${col}`, reason: `row ${seq}: the search index's ${col} is empty, but ${via} says ${show(earlier.v)} (row ${earlier.seq}); the index was altered` } : null;
    }
    if (rows.some((r) => r.v === stored)) return null;
    // Retention pruned the events the value was taken from (a call that began before the
    // checkpoint): nothing left in the chain says what it was, so it cannot be checked.
    if (rows.length === 0 && opts.fromSeq > 0) return null;
    return { seq, field: `facets.${col}`, reason: `row ${seq}: the search index's ${col} is ${show(stored)}, but ${via} ${rows.length ? `says ${show(rows[0]!.v)}` : 'names none'}; the index was altered` };
  };

  // Values the events of a call carry themselves, from the rows already read: a call's events
  // are close together, so most inherited facets are settled without a query per row.
  const known = { session: new Map<string, { v: string; seq: number }[]>(), agent: new Map<string, { v: string; seq: number }[]>() };
  const note = (col: 'session' | 'agent', call: string, v: string, seq: number) => {
    const list = known[col].get(call);
    if (list) list.push({ v, seq });
    else known[col].set(call, [{ v, seq }]);
  };
  for (let lo = opts.fromSeq; lo < opts.toSeq; lo += chunk) {
    const hi = Math.min(lo + chunk, opts.toSeq);
    opts.flush?.();
    known.session.clear();
    known.agent.clear();
    // Rows as arrays (seq, present, then the event's and the index's value of each column): a
    // third cheaper than objects over a long log.
    for (const raw of page.all(lo, hi) as (string | number | null)[][]) {
      const seq = raw[0] as number;
      if (raw[1] === null) {
        report({ seq, field: 'facets', reason: `row ${seq} has no row in the search index's facets (event_facets): it was deleted, so filters skip this event` });
        continue;
      }
      const d = {} as Facets;
      const f = {} as Facets;
      FACET_COLUMNS.forEach((c, i) => {
        d[c] = raw[2 + 2 * i] as string | null;
        f[c] = raw[3 + 2 * i] as string | null;
      });
      // call: the event's own, else its terminal's (pty.* events after pty.started).
      let call: string | null = d.call;
      if (d.call !== null) {
        if (f.call !== d.call) report({ seq, field: 'facets.call', reason: `row ${seq}: the search index's call is ${show(f.call)}, but the event says ${show(d.call)}; the index was altered` });
      } else if (d.terminal !== null) {
        const m = inherited(terminalCalls.all(d.terminal) as { v: string; seq: number }[], seq, f.call, 'call', `terminal ${show(d.terminal)}`);
        if (m) report(m);
        else call = f.call;
      } else if (f.call !== null) {
        report({ seq, field: 'facets.call', reason: `row ${seq}: the search index's call is ${show(f.call)}, but the event names no call; the index was altered` });
      }
      for (const c of ['session', 'agent'] as const) {
        if (d[c] !== null) {
          if (d.call !== null) note(c, d.call, d[c]!, seq);
          if (f[c] !== d[c]) report({ seq, field: `facets.${c}`, reason: `row ${seq}: the search index's ${c} is ${show(f[c])}, but the event says ${show(d[c])}; the index was altered` });
        } else if (call !== null) {
          const seen = known[c].get(call);
          // Settled by an earlier row of the call: the stored value is one it carries.
          if (f[c] !== null && seen?.some((r) => r.v === f[c])) continue;
          const m = inherited(callLookups[c].all(call) as { v: string; seq: number }[], seq, f[c], c, `call ${show(call)}`);
          if (m) report(m);
        } else if (f[c] !== null) {
          report({ seq, field: `facets.${c}`, reason: `row ${seq}: the search index's ${c} is ${show(f[c])}, but the event names none; the index was altered` });
        }
      }
      for (const c of ['plugin', 'decision', 'severity', 'terminal'] as const) {
        if (f[c] !== d[c]) report({ seq, field: `facets.${c}`, reason: `row ${seq}: the search index's ${c} is ${show(f[c])}, but the event says ${show(d[c])}; the index was altered` });
      }
    }
    for (const o of orphans.all(lo, hi) as { seq: number }[]) {
      report({ seq: o.seq, field: 'facets', reason: `row ${o.seq} is in the search index's facets but not in the log: it was added or its event deleted` });
    }
    progress(hi - opts.fromSeq);
    await job.checkpoint();
  }
  opts.flush?.();
  for (const o of outside.all(opts.fromSeq, opts.toSeq) as { seq: number }[]) {
    // After toSeq: rows appended while verifying are indexed with their commit; anything past the
    // head is not Gatehouse's. Rows appended during the check are not "outside": skip those.
    if (o.seq > opts.toSeq && db.prepare('SELECT 1 FROM events WHERE seq = ?').get(o.seq)) continue;
    report({ seq: o.seq, field: 'facets', reason: `row ${o.seq} is in the search index's facets but ${o.seq <= opts.fromSeq ? 'was pruned from the log' : 'not in the log'}: the index was altered` });
  }
}

async function checkText(db: Db, job: Chunked, opts: IndexVerifyOptions, chunk: number, report: (m: IndexMismatch) => void, progress: (done: number) => void): Promise<void> {
  const main = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events_fts'").get() as { sql: string } | undefined;
  if (!main) return;
  // The same definition (tokenizer, detail) as the real table, in the connection's own temp
  // schema: works on the read-only connection `audit verify` uses and leaves the file untouched.
  const tokenize = /tokenize\s*=\s*('(?:[^']|'')*')/i.exec(main.sql)?.[1] ?? "'unicode61 remove_diacritics 2'";
  opts.flush?.();
  db.exec(`DROP TABLE IF EXISTS temp.${TEMP_TEXT}_i; DROP TABLE IF EXISTS temp.${TEMP_TEXT}_e; DROP TABLE IF EXISTS temp.${TEMP_TEXT}_r; DROP TABLE IF EXISTS temp.${TEMP_TEXT};
    CREATE VIRTUAL TABLE temp.${TEMP_TEXT} USING fts5(text, content='', columnsize=0, tokenize=${tokenize});
    CREATE VIRTUAL TABLE temp.${TEMP_TEXT}_r USING fts5vocab(temp, ${TEMP_TEXT}, row);
    CREATE VIRTUAL TABLE temp.${TEMP_TEXT}_e USING fts5vocab(temp, ${TEMP_TEXT}, instance);
    CREATE VIRTUAL TABLE temp.${TEMP_TEXT}_i USING fts5vocab(main, events_fts, instance);`);
  try {
    const fill = db.prepare(`INSERT INTO temp.${TEMP_TEXT}(rowid, text) SELECT seq, ${ftsText('events')} FROM events WHERE seq > ? AND seq <= ? ORDER BY seq`);
    const span = opts.toSeq - opts.fromSeq;
    for (let lo = opts.fromSeq; lo < opts.toSeq; lo += chunk) {
      const hi = Math.min(lo + chunk, opts.toSeq);
      opts.flush?.();
      fill.run(lo, hi);
      progress((hi - opts.fromSeq) / 2);
      await job.checkpoint();
    }
    // Word ranges of about 10 × `chunk` occurrences each (a range costs about as much as `chunk`
    // events of the passes above), from the expected index's own word list.
    const terms = db.prepare(`SELECT term, cnt FROM temp.${TEMP_TEXT}_r`).all() as { term: string; cnt: number }[];
    const bounds: string[] = [];
    let acc = 0;
    for (const t of terms) {
      acc += t.cnt;
      if (acc >= chunk * 10) {
        bounds.push(t.term);
        acc = 0;
      }
    }
    // [lo, hi) ranges; null is open-ended, so words only the real index has are compared too.
    const ranges: [string | null, string | null][] = [];
    let prev: string | null = null;
    for (const b of bounds) {
      ranges.push([prev, b]);
      prev = b;
    }
    ranges.push([prev, null]);
    const range = (lo: string | null, hi: string | null) => `${lo === null ? '1' : 'term >= @lo'} AND ${hi === null ? '1' : 'term < @hi'}`;
    const docs = 'doc > @from AND doc <= @to';
    // Each word's occurrences (event, position) summed through a keyed quadratic hash: equal sums
    // for equal occurrence sets, and the key is drawn afresh per verify, so an edit cannot be
    // shaped to keep the sums. Only words whose sums differ are compared occurrence by occurrence
    // (an EXCEPT over every occurrence costs ~10x as much).
    const P = 2_147_483_629;
    const k = Array.from({ length: 5 }, () => 1 + Math.floor(Math.random() * (P - 1)));
    const mix = `sum((((doc % ${P}) * ${k[0]} + "offset" * ${k[1]} + ${k[2]}) % ${P}) * (((doc % ${P}) * ${k[3]} + "offset" + ${k[4]}) % ${P}) % ${P})`;
    const sums = (table: string, where: string, withDocs: boolean) => `SELECT term, count(*) AS n, ${mix} AS h FROM temp.${table} WHERE ${where}${withDocs ? ` AND ${docs}` : ''} GROUP BY term`;
    const occurrences = (table: string, withDocs: boolean) => `SELECT doc, "offset" FROM temp.${table} WHERE term = @term${withDocs ? ` AND ${docs}` : ''}`;
    const sumsIndex = (where: string) => db.prepare(sums(`${TEMP_TEXT}_i`, where, true)).raw(true);
    const sumsEvents = (where: string) => db.prepare(sums(`${TEMP_TEXT}_e`, where, false)).raw(true);
    const extraOf = db.prepare(`SELECT DISTINCT doc FROM (${occurrences(`${TEMP_TEXT}_i`, true)} EXCEPT ${occurrences(`${TEMP_TEXT}_e`, false)}) ORDER BY doc LIMIT 100`);
    const missingOf = db.prepare(`SELECT DISTINCT doc FROM (${occurrences(`${TEMP_TEXT}_e`, false)} EXCEPT ${occurrences(`${TEMP_TEXT}_i`, true)}) ORDER BY doc LIMIT 100`);
    const docsHaving = (table: string, withDocs: boolean) => db.prepare(`SELECT DISTINCT doc FROM temp.${table} WHERE term = @term${withDocs ? ` AND ${docs}` : ''}`);
    const inIndex = docsHaving(`${TEMP_TEXT}_i`, true);
    const inEvents = docsHaving(`${TEMP_TEXT}_e`, false);
    const seen = new Set<string>();
    const once = (key: string) => (seen.has(key) ? false : (seen.add(key), true));
    for (let i = 0; i < ranges.length; i++) {
      const [lo, hi] = ranges[i]!;
      opts.flush?.();
      const where = range(lo, hi);
      const params = { from: opts.fromSeq, to: opts.toSeq, ...(lo === null ? {} : { lo }), ...(hi === null ? {} : { hi }) };
      const a = new Map((sumsIndex(where).all(params) as [string, number, number][]).map(([t, n, h]) => [t, `${n}:${h}`]));
      const differ: { term: string }[] = [];
      for (const [t, n, h] of sumsEvents(where).all(params) as [string, number, number][]) {
        if (a.get(t) !== `${n}:${h}`) differ.push({ term: t });
        a.delete(t);
      }
      for (const t of a.keys()) differ.push({ term: t });
      for (const { term } of differ) {
        const p = { from: opts.fromSeq, to: opts.toSeq, term };
        const had = new Set((inIndex.all(p) as { doc: number }[]).map((r) => r.doc));
        const has = new Set((inEvents.all(p) as { doc: number }[]).map((r) => r.doc));
        // One report per event and kind: a row whose text was replaced differs in many words.
        for (const { doc } of missingOf.all(p) as { doc: number }[]) {
          if (!had.has(doc)) {
            if (once(`m${doc}`)) report({ seq: doc, field: 'text', reason: `row ${doc}: the search index lacks the word ${show(term)} the event contains, so a search for it skips this event; the index was altered` });
          } else if (once(`o${doc}`)) report({ seq: doc, field: 'text', reason: `row ${doc}: the search index holds the event's word ${show(term)} at other positions, so phrase searches see other text; the index was altered` });
        }
        for (const { doc } of extraOf.all(p) as { doc: number }[]) {
          if (!has.has(doc)) {
            if (once(`x${doc}`)) report({ seq: doc, field: 'text', reason: `row ${doc}: the search index holds the word ${show(term)}, which the event does not contain; the index was altered` });
          } else if (once(`o${doc}`)) report({ seq: doc, field: 'text', reason: `row ${doc}: the search index holds the event's word ${show(term)} at other positions, so phrase searches see other text; the index was altered` });
        }
      }
      progress(span / 2 + (span / 2) * ((i + 1) / ranges.length));
      await job.checkpoint();
    }
    // Text indexed for rows the log does not hold (before the checkpoint or after the head).
    opts.flush?.();
    const strays = db.prepare(`SELECT DISTINCT doc FROM temp.${TEMP_TEXT}_i WHERE (doc <= ? OR doc > ?) AND doc NOT IN (SELECT seq FROM events) LIMIT 1000`).all(opts.fromSeq, opts.toSeq) as { doc: number }[];
    for (const s of strays) report({ seq: s.doc, field: 'text', reason: `row ${s.doc} has words in the search index but is not in the log: the index was altered` });
  } finally {
    // A cancel lands here between chunks, maybe with the writer's batch open: commit it first so
    // the drop is not part of (or rolled back with) the log's own transaction.
    try {
      opts.flush?.();
    } catch {
      // The store reports its own commit failures to the appenders.
    }
    db.exec(`DROP TABLE IF EXISTS temp.${TEMP_TEXT}_i; DROP TABLE IF EXISTS temp.${TEMP_TEXT}_e; DROP TABLE IF EXISTS temp.${TEMP_TEXT}_r; DROP TABLE IF EXISTS temp.${TEMP_TEXT};`);
  }
}
