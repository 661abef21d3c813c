// `gatehouse audit search --team`: PostgreSQL full-text search over every member's shipped events,
// newest first, with the local search's facets. The query is PostgreSQL's web-search syntax
// (words, "a phrase", OR, -word) over the text the shipper indexed (search-text.ts), with the
// 'simple' configuration: no stemming, as the local FTS5 index has none.
import type { Pool } from 'pg';
import type { AuditRow } from '../audit/audit-store.js';
import { redactEvent } from '../audit/redact.js';
import { facetQuery } from './search-facets.js';
import { searchQuery } from './search-text.js';

/** Counting stops here, as the local search's does. */
export const TEAM_COUNT_CAP = 10_000;

/**
 * The count gets this long on the server. Counting a common word's matches (or a facet read from
 * every payload) up to the cap took 100-500 ms over 900,000 events, while the page itself took a
 * few: past this budget the answer is "at least the rows shown" (total = shown, totalCapped).
 */
export const TEAM_COUNT_BUDGET_MS = 25;

export interface TeamSearchRequest {
  query: string;
  limit: number;
  member?: string;
  agent?: string;
  session?: string;
  plugin?: string;
  decision?: string;
  types?: string[];
  /** Events at or after this time (ms). */
  from?: number;
  /** Events at or before this time (ms). */
  to?: number;
}

export interface TeamAuditRow extends AuditRow {
  member: string;
}

export interface TeamSearchResult {
  events: TeamAuditRow[];
  total: number;
  totalCapped: boolean;
  /** Paging is not built for team search yet: always null (narrow with --since or facets). */
  nextBefore: null;
  tookMs: number;
}

function where(req: TeamSearchRequest): { sql: string; params: unknown[] } {
  const conds: string[] = [];
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  // Words and facets in one tsquery (the facets are lexemes of each row's tsvector: search-facets.ts),
  // so the one GIN index answers both: two conditions would be two index scans and a bitmap AND.
  const words = searchQuery(req.query).trim() ? `websearch_to_tsquery('simple', ${p(searchQuery(req.query))})` : null;
  const facets = facetQuery(req);
  const facetTerm = facets === null ? null : `${p(facets)}::tsquery`;
  if (words || facetTerm) conds.push(`search @@ ${words && facetTerm ? `(${words} && ${facetTerm})` : (words ?? facetTerm)}`);
  // Also the column: the same rows, and exact for a row inserted without its lexemes.
  if (req.member) conds.push(`member = ${p(req.member)}`);
  if (req.types?.length) conds.push(`type = ANY(${p(req.types)}::text[])`);
  if (req.from !== undefined) conds.push(`ts >= ${p(req.from)}`);
  if (req.to !== undefined) conds.push(`ts <= ${p(req.to)}`);
  return { sql: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params };
}

export async function teamSearch(pool: Pick<Pool, 'query' | 'connect'>, req: TeamSearchRequest, countBudgetMs = TEAM_COUNT_BUDGET_MS): Promise<TeamSearchResult> {
  const t0 = performance.now();
  const w = where(req);
  // The page and the count on two connections at once: the answer waits for the slower, not both.
  const counting = countWithin(pool, w, countBudgetMs);
  const rows = await pool
    .query<{ member: string; seq: string; ts: string; type: string; actor: string; payload: string; hash: string }>(
      `SELECT member, seq, ts, type, actor, payload, hash FROM team_events ${w.sql} ORDER BY ts DESC, member, seq DESC LIMIT ${Number(req.limit)}`,
      w.params,
    )
    .catch(async (err: unknown) => {
      await counting.catch(() => {});
      throw err;
    });
  const counted = await counting;
  // A page that is not full holds every match, whatever the count could do in its time.
  const n = rows.rows.length < Number(req.limit) ? rows.rows.length : counted;
  // Secrets masked on the way out, as in every local view: the stored rows keep what was chained.
  const events = rows.rows.map((r) => redactEvent({ member: r.member, seq: Number(r.seq), ts: Number(r.ts), type: r.type, actor: r.actor, payload: JSON.parse(r.payload) as unknown, hash: r.hash }));
  const total = n === null ? events.length : Math.min(n, TEAM_COUNT_CAP);
  return { events, total, totalCapped: n === null || n > TEAM_COUNT_CAP, nextBefore: null, tookMs: Math.round((performance.now() - t0) * 100) / 100 };
}

/** The matches up to the cap (+1), or null when the server cannot count them within `ms`. */
async function countWithin(pool: Pick<Pool, 'connect'>, w: { sql: string; params: unknown[] }, ms: number): Promise<number | null> {
  const c = await pool.connect();
  let broken: Error | undefined;
  // A checked-out connection the server drops would otherwise be an unhandled 'error' event.
  const dropped = (err: Error) => (broken ??= err);
  c.on('error', dropped);
  try {
    await c.query('BEGIN');
    // Only this transaction's statements: the connection goes back to the pool with its own timeout.
    await c.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.round(ms))}`);
    const counted = await c.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 FROM team_events ${w.sql} LIMIT ${TEAM_COUNT_CAP + 1}) AS m`, w.params);
    await c.query('COMMIT');
    return Number(counted.rows[0]!.n);
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    // 57014: canceled by the statement timeout, i.e. too many to count in time.
    if ((err as { code?: string }).code === '57014') return null;
    broken ??= err as Error;
    throw err;
  } finally {
    c.removeListener('error', dropped);
    c.release(broken);
  }
}
