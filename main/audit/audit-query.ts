// Incident review queries over the audit log: search (FTS5 + facets), one event with its call,
// a session's timeline, export as JSONL. Reads the search index beside the events
// (audit-index.ts); works on the host's store or on a database opened read-only (the CLI).
// Every event leaves redacted (redact.ts) unless the operator opted in to raw values.
import type { Database as Db } from 'better-sqlite3';
import type { RequestOf, ResponseOf } from '../../shared/contract.js';
import { READ_SETTLE_MS, type AuditRow, type AuditStore } from './audit-store.js';
import { hasSearchIndex } from './audit-index.js';
import { redactEvent } from './redact.js';
import { OperationError } from '../core/operation-error.js';
import { unattended, type Chunked } from '../chunked.js';

/** Matches are counted up to this many; past it the total says "at least". */
export const COUNT_CAP = 10_000;

export interface AuditQueryDeps {
  /** The host's store (pending events are flushed before a query), or a database (the CLI). */
  store?: AuditStore;
  db?: Db;
  /** True when the operator opted in to raw values (settings.auditRaw). */
  raw?: () => boolean;
}

export type AuditFilter = Omit<RequestOf<'audit.search'>, 'limit' | 'before'> & { before?: number; after?: number };

interface StoredRow {
  seq: number;
  ts: number;
  type: string;
  actor: string;
  payload: string;
  hash: string;
}

const COLS = 'e.seq, e.ts, e.type, e.actor, e.payload, e.hash';

export class AuditQuery {
  private readonly db: Db;

  constructor(private readonly deps: AuditQueryDeps) {
    const db = deps.db ?? deps.store?.db;
    if (!db) throw new Error('AuditQuery needs a store or a database');
    this.db = db;
  }

  search(req: RequestOf<'audit.search'>): ResponseOf<'audit.search'> {
    const t0 = performance.now();
    this.ready();
    const limit = req.limit ?? 200;
    const page = this.select({ ...req, ...(req.before !== undefined ? { before: req.before } : {}) }, 'DESC', limit);
    const events = page.map((r) => this.out(r));
    const counted = this.count(req);
    return {
      events,
      total: Math.min(counted, COUNT_CAP),
      totalCapped: counted > COUNT_CAP,
      nextBefore: events.length === limit ? events.at(-1)!.seq : null,
      tookMs: Math.round((performance.now() - t0) * 100) / 100,
    };
  }

  get(seq: number): ResponseOf<'audit.get'> {
    this.ready();
    const row = this.db.prepare(`SELECT ${COLS}, f.call AS call FROM events e LEFT JOIN event_facets f ON f.seq = e.seq WHERE e.seq = ?`).get(seq) as (StoredRow & { call: string | null }) | undefined;
    if (!row) throw new OperationError('not_found', `Audit event ${seq} does not exist (it may have been pruned by retention, or the log is shorter).`);
    const related = row.call === null
      ? []
      : (this.db.prepare(`SELECT ${COLS} FROM event_facets f JOIN events e ON e.seq = f.seq WHERE f.call = ? AND f.seq != ? ORDER BY f.seq`).all(row.call, seq) as StoredRow[]);
    return { event: this.out(row), related: related.map((r) => this.out(r)) };
  }

  /**
   * A session's events in seq order: those naming the session, every event of its calls (the
   * index copies a call's session onto them), and the PTY events of terminals its calls opened.
   */
  session(session: string, limit: number): ResponseOf<'audit.session'> {
    this.ready();
    const rows = this.db
      .prepare(
        `WITH calls AS (SELECT DISTINCT call FROM event_facets WHERE session = @session AND call IS NOT NULL),
              terms AS (SELECT DISTINCT terminal FROM event_facets WHERE terminal IS NOT NULL AND call IN (SELECT call FROM calls))
         SELECT ${COLS} FROM event_facets f JOIN events e ON e.seq = f.seq
         WHERE f.session = @session OR f.call IN (SELECT call FROM calls) OR f.terminal IN (SELECT terminal FROM terms)
         ORDER BY f.seq LIMIT @limit`,
      )
      .all({ session, limit: limit + 1 }) as StoredRow[];
    const truncated = rows.length > limit;
    return { events: rows.slice(0, limit).map((r) => this.out(r)), truncated };
  }

  /**
   * The filter as JSONL, a page at a time (for a job): the total is counted first (up to the
   * limit), then pages follow the seq cursor, with the event loop given back (and a cancel seen)
   * between them.
   */
  async export(req: RequestOf<'audit.export'>, job: Chunked = unattended, chunk = 5_000): Promise<ResponseOf<'audit.export'>> {
    this.ready();
    const limit = req.limit ?? 100_000;
    const matching = this.countUpTo(req, limit + 1);
    const total = Math.min(matching, limit);
    job.progress(0, total);
    const lines: string[] = [];
    for (const page of this.exportPages(req, chunk)) {
      for (const line of page.slice(0, total - lines.length)) lines.push(line);
      job.progress(lines.length, total);
      if (lines.length >= total) break;
      await job.checkpoint();
    }
    return { jsonl: lines.length ? lines.join('\n') + '\n' : '', count: lines.length, truncated: matching > limit };
  }

  /** How many events match, counting no further than `cap` (the CLI's export progress). */
  countUpTo(filter: AuditFilter, cap: number): number {
    this.ready();
    const { sql, params } = this.build({ ...filter, before: undefined } as AuditFilter, 'ASC', cap, '1');
    return this.run(() => (this.db.prepare(`SELECT count(*) AS n FROM (${sql})`).get(...params) as { n: number }).n);
  }

  /**
   * The newest call an agent sent through an ingress (MCP, a hook, the HTTP API), for Getting
   * Started's "connect an agent" step; the console's own test call (source console) does not count.
   */
  lastAgentCall(): { agent: string; source: string; at: number } | null {
    // A short cap: a lock held by another process must not freeze the console (it reads what is committed).
    this.deps.store?.flush(READ_SETTLE_MS);
    const row = this.db
      .prepare("SELECT ts, json_extract(payload, '$.agent') AS agent, json_extract(payload, '$.source') AS source FROM events WHERE type = 'call.received' AND json_extract(payload, '$.source') IN ('mcp', 'hook', 'api') ORDER BY seq DESC LIMIT 1")
      .get() as { ts: number; agent: unknown; source: string } | undefined;
    return row ? { agent: String(row.agent ?? 'unknown'), source: row.source, at: row.ts } : null;
  }

  /** The filtered events oldest first as JSONL lines, a page at a time by the seq cursor (the CLI streams these). */
  *exportPages(filter: AuditFilter, chunk = 5_000): Generator<string[]> {
    this.ready();
    let after: number | undefined;
    for (;;) {
      const rows = this.select({ ...filter, ...(after !== undefined ? { after } : {}) }, 'ASC', chunk);
      if (rows.length === 0) return;
      after = rows.at(-1)!.seq;
      yield rows.map((r) => JSON.stringify(this.out(r)));
      if (rows.length < chunk) return;
    }
  }

  /** An event as it leaves the host: payload parsed and, unless raw values were opted in, redacted. */
  private out(r: StoredRow): AuditRow {
    const e: AuditRow = { seq: r.seq, ts: r.ts, type: r.type, actor: r.actor, payload: JSON.parse(r.payload) as unknown, hash: r.hash };
    return this.deps.raw?.() ? e : redactEvent(e);
  }

  private ready(): void {
    // A short cap: a lock held by another process must not freeze the console (it reads what is committed).
    this.deps.store?.flush(READ_SETTLE_MS);
    if (!hasSearchIndex(this.db)) {
      throw new OperationError('unavailable', 'This audit database has no search index yet: start Gatehouse once (it migrates the database), then search again.');
    }
  }

  private select(filter: AuditFilter, order: 'ASC' | 'DESC', limit: number): StoredRow[] {
    const { sql, params } = this.build(filter, order, limit);
    return this.run(() => this.db.prepare(sql).all(...params) as StoredRow[]);
  }

  private count(filter: AuditFilter): number {
    const { sql, params } = this.build({ ...filter, before: undefined } as AuditFilter, 'DESC', COUNT_CAP + 1, '1');
    return this.run(() => (this.db.prepare(`SELECT count(*) AS n FROM (${sql})`).get(...params) as { n: number }).n);
  }

  private build(filter: AuditFilter, order: 'ASC' | 'DESC', limit: number, cols = COLS): { sql: string; params: unknown[] } {
    const where: string[] = [];
    const params: unknown[] = [];
    const query = (filter.query ?? '').trim();
    let from: string;
    let key: string;
    if (query) {
      // FTS5 drives: it yields rowids (seqs) in order, so the newest page is read without sorting.
      from = 'events_fts JOIN event_facets f ON f.seq = events_fts.rowid JOIN events e ON e.seq = f.seq';
      where.push('events_fts MATCH ?');
      params.push(query);
      key = 'events_fts.rowid';
    } else {
      from = 'event_facets f JOIN events e ON e.seq = f.seq';
      key = 'f.seq';
    }
    const eq = (col: string, v: string | undefined) => {
      if (v === undefined || v === '') return;
      where.push(`${col} = ?`);
      params.push(v);
    };
    eq('f.agent', filter.agent);
    eq('f.session', filter.session);
    eq('f.plugin', filter.plugin);
    eq('f.decision', filter.decision);
    eq('f.severity', filter.severity);
    if (filter.from !== undefined) {
      where.push('e.ts >= ?');
      params.push(filter.from);
    }
    if (filter.to !== undefined) {
      where.push('e.ts <= ?');
      params.push(filter.to);
    }
    if (filter.types && filter.types.length > 0) {
      where.push(`e.type IN (${filter.types.map(() => '?').join(', ')})`);
      params.push(...filter.types);
    }
    if (filter.before !== undefined) {
      where.push(`${key} < ?`);
      params.push(filter.before);
    }
    if (filter.after !== undefined) {
      where.push(`${key} > ?`);
      params.push(filter.after);
    }
    params.push(limit);
    return { sql: `SELECT ${cols} FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${key} ${order} LIMIT ?`, params };
  }

  /** Runs a query; an FTS5 syntax error is the operator's to fix, so it says what and how. */
  private run<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      const msg = (err as Error).message ?? String(err);
      if (/fts5|syntax error|no such column|unterminated|unknown special query/i.test(msg)) {
        throw new OperationError(
          'invalid',
          `The search query is not valid FTS5 syntax (${msg}). Put words with punctuation in double quotes ("foo.txt", "rm -rf"), use AND, OR, NOT in capitals, and end a prefix with * (deplo*).`,
        );
      }
      throw err;
    }
  }
}
