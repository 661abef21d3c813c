// `gatehouse audit search --team`: PostgreSQL full-text search over every member's shipped events,
// newest first, with the local search's facets. The query is PostgreSQL's web-search syntax
// (words, "a phrase", OR, -word) over the text the shipper indexed (search-text.ts), with the
// 'simple' configuration: no stemming, as the local FTS5 index has none.
import type { Pool } from 'pg';
import type { AuditRow } from '../audit/audit-store.js';
import { redactEvent } from '../audit/redact.js';
import { searchQuery } from './search-text.js';

/** Counting stops here, as the local search's does. */
export const TEAM_COUNT_CAP = 10_000;

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
  if (searchQuery(req.query).trim()) conds.push(`search @@ websearch_to_tsquery('simple', ${p(searchQuery(req.query))})`);
  if (req.member) conds.push(`member = ${p(req.member)}`);
  // As the local facets take them (audit-index.ts): the payload's field, or for the agent the actor's name.
  if (req.agent) conds.push(`(payload::jsonb ->> 'agent' = ${p(req.agent)} OR actor = 'agent:' || $${params.length})`);
  if (req.session) conds.push(`payload::jsonb ->> 'session' = ${p(req.session)}`);
  if (req.plugin) conds.push(`(payload::jsonb ->> 'plugin' = ${p(req.plugin)} OR (type LIKE 'plugin.%' AND payload::jsonb ->> 'name' = $${params.length}))`);
  if (req.decision) conds.push(`payload::jsonb ->> 'decision' = ${p(req.decision)}`);
  if (req.types?.length) conds.push(`type = ANY(${p(req.types)}::text[])`);
  if (req.from !== undefined) conds.push(`ts >= ${p(req.from)}`);
  return { sql: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params };
}

export async function teamSearch(pool: Pick<Pool, 'query'>, req: TeamSearchRequest): Promise<TeamSearchResult> {
  const t0 = performance.now();
  const w = where(req);
  const rows = await pool.query<{ member: string; seq: string; ts: string; type: string; actor: string; payload: string; hash: string }>(
    `SELECT member, seq, ts, type, actor, payload, hash FROM team_events ${w.sql} ORDER BY ts DESC, member, seq DESC LIMIT ${Number(req.limit)}`,
    w.params,
  );
  const counted = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 FROM team_events ${w.sql} LIMIT ${TEAM_COUNT_CAP + 1}) AS m`, w.params);
  const n = Number(counted.rows[0]!.n);
  // Secrets masked on the way out, as in every local view: the stored rows keep what was chained.
  const events = rows.rows.map((r) => redactEvent({ member: r.member, seq: Number(r.seq), ts: Number(r.ts), type: r.type, actor: r.actor, payload: JSON.parse(r.payload) as unknown, hash: r.hash }));
  return { events, total: Math.min(n, TEAM_COUNT_CAP), totalCapped: n > TEAM_COUNT_CAP, nextBefore: null, tookMs: Math.round((performance.now() - t0) * 100) / 100 };
}
