// The calls the audit log recorded since a moment, each with the extraction the judge made of it
// and how it ended: what a grant preview ("what would this grant have matched in the last hour")
// runs a candidate over. Reads only; recent calls are few, so this is two bounded queries.
import type { Database } from 'better-sqlite3';
import type { Extraction, ToolCall } from '../policy/types.js';

export interface RecentCall {
  call: ToolCall;
  ts: number;
  /** Null when none was recorded (the call was refused before policy ran). */
  extraction: Extraction | null;
  /** The last recorded decision (`allow`, `deny`, `ask`, `expired`), or null. */
  decision: string | null;
}

/** At most this many calls are read, newest first: a preview is an estimate, not an export. */
export const RECENT_CALLS_CAP = 5_000;

export function recentCalls(db: Database, since: number, filter: { agent?: string; session?: string } = {}, cap = RECENT_CALLS_CAP): RecentCall[] {
  const where = ["type = 'call.received'", 'ts >= ?'];
  const params: unknown[] = [since];
  if (filter.agent !== undefined) {
    where.push("json_extract(payload, '$.agent') = ?");
    params.push(filter.agent);
  }
  if (filter.session !== undefined) {
    where.push("json_extract(payload, '$.session') = ?");
    params.push(filter.session);
  }
  const received = db.prepare(`SELECT seq, ts, payload FROM events WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`).all(...params, cap) as { seq: number; ts: number; payload: string }[];
  if (received.length === 0) return [];
  const fromSeq = received.at(-1)!.seq;
  const ids = new Set<string>();
  const out = new Map<string, RecentCall>();
  for (const r of received) {
    const p = JSON.parse(r.payload) as { call: string; agent: string; session: string; tool: string; arguments?: Record<string, unknown> | null; cwd?: string; source?: ToolCall['source'] };
    ids.add(p.call);
    out.set(p.call, {
      call: { id: p.call, agent: p.agent, session: p.session, tool: p.tool, arguments: p.arguments ?? null, cwd: p.cwd ?? '', source: p.source ?? 'api', receivedAt: r.ts },
      ts: r.ts,
      extraction: null,
      decision: null,
    });
  }
  const rows = db.prepare("SELECT type, payload FROM events WHERE seq >= ? AND type IN ('call.extracted', 'call.decided') ORDER BY seq").all(fromSeq) as { type: string; payload: string }[];
  for (const row of rows) {
    const p = JSON.parse(row.payload) as Record<string, unknown> & { call: string };
    const rc = out.get(p.call);
    if (!rc) continue;
    if (row.type === 'call.extracted') {
      rc.extraction = {
        operations: (p['operations'] as Extraction['operations']) ?? [],
        paths: (p['paths'] as string[]) ?? [],
        hosts: (p['hosts'] as string[]) ?? [],
        command: typeof p['command'] === 'string' ? p['command'] : '',
        content: '',
        // Unknown means unsure: a record without the flag is judged as evasive.
        evasive: p['evasive'] !== false,
        evasiveReasons: (p['evasiveReasons'] as string[]) ?? [],
        ...(Array.isArray(p['programs']) ? { programs: p['programs'] as string[] } : {}),
      };
    } else rc.decision = String(p['decision']);
  }
  return [...out.values()];
}
