// Shadow replay: today's policy, or a draft from the policy editor, over the calls the audit log
// recorded (call.received + call.extracted + call.decided), with the current autonomy settings.
// Changes nothing and runs nothing.
//
// What is replayed is the rules step and autonomy (decideCall) on the recorded extraction. What
// is not: the extraction itself (paths are as they resolved then), checker verdicts (plugin
// processes), session taint, grants and operator approvals (they were decisions about that call
// at that time). Where one of those decided the recorded call, the replayed reason says so, and a
// replayed `ask` is not counted as a change from an operator's or a grant's decision.
import type { Database } from 'better-sqlite3';
import type { RequestOf, ResponseOf } from '../../shared/contract.js';
import { Autonomy, decideCall, type AutonomySettings, type FinalDecision } from '../policy/autonomy.js';
import type { Decider, Extraction, ToolCall } from '../policy/types.js';
import type { PolicyResult } from '../policy/rules/engine.js';
import type { PolicyProblem } from '../policy/rules/load.js';
import { hasSearchIndex } from './audit-index.js';
import { unattended, type Chunked } from '../chunked.js';

export interface ReplayPolicy {
  evaluator(text?: string): { problems: PolicyProblem[]; broken: boolean; evaluate(x: Extraction, call: ToolCall | null): PolicyResult };
}

export interface ReplayDeps {
  db: Database;
  policy: ReplayPolicy;
  /** The current autonomy settings (level, auto-approve and always-ask lists). */
  autonomy: () => AutonomySettings;
}

type Request = RequestOf<'audit.replay'>;
type Response = ResponseOf<'audit.replay'>;
type ReplayedCall = Response['calls'][number];

interface Received {
  seq: number;
  ts: number;
  payload: string;
}

interface Recorded {
  decision: string;
  decider: Decider;
  reason: string;
}

/**
 * Replays the calls a page at a time, for a job: the event loop is given back between pages and
 * a cancel is seen there. Nothing is changed either way.
 */
export async function replayCalls(deps: ReplayDeps, req: Request, job: Chunked = unattended, chunk = 1_000): Promise<Response> {
  const ev = deps.policy.evaluator(req.policyText);
  const policyProblems = ev.problems.map((p) => ({ line: p.line, column: p.column, message: p.message }));
  // A draft that cannot be loaded judges nothing: its problems are the answer.
  if (ev.broken) return { calls: [], changed: 0, policyProblems };

  const q = new ReceivedQuery(deps.db, req);
  const total = q.count(req.limit ?? 10_000);
  job.progress(0, total);
  const autonomy = new Autonomy(deps.autonomy());
  const calls: ReplayedCall[] = [];
  let changed = 0;
  let after = 0;
  while (calls.length < total) {
    const received = q.page(after, Math.min(chunk, total - calls.length));
    if (received.length === 0) break;
    after = received.at(-1)!.seq;
    const ids = received.map((r) => (JSON.parse(r.payload) as { call: string }).call);
    const { extracted, decided } = q.followUps(ids, received[0]!.seq);
    for (const r of received) {
      const p = JSON.parse(r.payload) as { call: string; agent: string; session: string; tool: string; arguments?: Record<string, unknown> | null; cwd?: string; source?: ToolCall['source'] };
      const call: ToolCall = { id: p.call, agent: p.agent, session: p.session, tool: p.tool, arguments: p.arguments ?? null, cwd: p.cwd ?? '', source: p.source ?? 'api', receivedAt: r.ts };
      const recorded = decided.get(p.call) ?? null;
      const x = extracted.get(p.call);
      const replayed = x ? replayOne(call, x, ev.evaluate, autonomy, recorded) : notReplayable(recorded);
      const isChanged = recorded !== null && x !== undefined && differs(recorded, replayed);
      if (isChanged) changed++;
      calls.push({ call: call.id, seq: r.seq, ts: r.ts, agent: call.agent, session: call.session, tool: call.tool, recorded, replayed, changed: isChanged });
    }
    job.progress(calls.length, total);
    if (calls.length < total) await job.checkpoint();
  }
  return { calls, changed, policyProblems };
}

/**
 * The recorded calls of a session or time range, and what followed each. Uses the search index's
 * facets (session and call columns, indexed) where the log has them, so a page costs its own
 * rows rather than a scan of the log; an older log without them is read by its payloads.
 */
class ReceivedQuery {
  private readonly facets: boolean;
  private readonly where: string[];
  private readonly params: unknown[];

  constructor(private readonly db: Database, req: Request) {
    this.facets = hasSearchIndex(db);
    this.where = ["e.type = 'call.received'"];
    this.params = [];
    if (req.session !== undefined) {
      this.where.push(this.facets ? 'e.seq IN (SELECT seq FROM event_facets WHERE session = ?)' : "json_extract(e.payload, '$.session') = ?");
      this.params.push(req.session);
    }
    if (req.from !== undefined) {
      this.where.push('e.ts >= ?');
      this.params.push(req.from);
    }
    if (req.to !== undefined) {
      this.where.push('e.ts <= ?');
      this.params.push(req.to);
    }
  }

  count(limit: number): number {
    return (this.db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM events e WHERE ${this.where.join(' AND ')} LIMIT ?)`).get(...this.params, limit) as { n: number }).n;
  }

  page(afterSeq: number, limit: number): Received[] {
    return this.db.prepare(`SELECT e.seq, e.ts, e.payload FROM events e WHERE ${this.where.join(' AND ')} AND e.seq > ? ORDER BY e.seq LIMIT ?`).all(...this.params, afterSeq, limit) as Received[];
  }

  /** The extraction and the last decision of each call. */
  followUps(ids: string[], fromSeq: number): { extracted: Map<string, Extraction>; decided: Map<string, Recorded> } {
    const extracted = new Map<string, Extraction>();
    const decided = new Map<string, Recorded>();
    if (ids.length === 0) return { extracted, decided };
    const sql = this.facets
      ? `SELECT e.type, e.payload FROM event_facets f JOIN events e ON e.seq = f.seq
         WHERE f.call IN (SELECT value FROM json_each(?)) AND f.seq > ? AND e.type IN ('call.extracted', 'call.decided')
         ORDER BY f.seq`
      : `SELECT type, payload FROM events
         WHERE json_extract(payload, '$.call') IN (SELECT value FROM json_each(?)) AND seq > ? AND type IN ('call.extracted', 'call.decided')
         ORDER BY seq`;
    const rows = this.db.prepare(sql).all(JSON.stringify(ids), fromSeq) as { type: string; payload: string }[];
    for (const row of rows) {
      const p = JSON.parse(row.payload) as Record<string, unknown> & { call: string };
      if (row.type === 'call.extracted') {
        extracted.set(p.call, {
          operations: (p.operations as Extraction['operations']) ?? [],
          paths: (p.paths as string[]) ?? [],
          hosts: (p.hosts as string[]) ?? [],
          command: (p.command as string) ?? '',
          // Written content goes to checkers, which are not replayed; rules do not read it.
          content: '',
          evasive: p.evasive === true,
          evasiveReasons: (p.evasiveReasons as string[]) ?? [],
          ...(Array.isArray(p.programs) ? { programs: p.programs as string[] } : {}),
        });
      } else {
        // The last one wins: a call decided again (after an approval) ends with the final decision.
        decided.set(p.call, { decision: String(p.decision), decider: p.decider as Decider, reason: String(p.reason ?? '') });
      }
    }
    return { extracted, decided };
  }
}

function replayOne(call: ToolCall, x: Extraction, evaluate: (x: Extraction, call: ToolCall | null) => PolicyResult, autonomy: Autonomy, recorded: Recorded | null): FinalDecision {
  const d = decideCall({ call, extraction: x, policy: evaluate(x, call), autonomy });
  const notes: string[] = [];
  const kind = recorded?.decider?.kind;
  if (kind === 'operator' || recorded?.decision === 'expired') notes.push('Approvals are not replayed: an operator would be asked again.');
  if (kind === 'grant') notes.push('Grants are not replayed.');
  if (kind === 'checker') notes.push('Checker verdicts are not replayed.');
  if (recorded?.decider?.kind === 'rule' && recorded.decider.rule === 'builtin.taint-write-down') notes.push('Session taint is not replayed.');
  return notes.length ? { ...d, reason: `${d.reason} ${notes.join(' ')}` } : d;
}

function notReplayable(recorded: Recorded | null): FinalDecision {
  const why = 'No extraction was recorded for this call (it was refused before policy ran), so it cannot be replayed.';
  return recorded
    ? { decision: recorded.decision as FinalDecision['decision'], decider: recorded.decider, reason: `${why} Recorded: ${recorded.reason}` }
    : { decision: 'deny', decider: { kind: 'error', message: 'not replayable' }, reason: why };
}

/** Whether today's answer differs from what happened, counting what replay cannot redo as unchanged. */
function differs(recorded: Recorded, replayed: FinalDecision): boolean {
  const kind = recorded.decider?.kind;
  // An operator decided (or let expire) a call policy asked about: asking again is the same path.
  if (kind === 'operator' || recorded.decision === 'expired') return replayed.decision !== 'ask';
  // A grant allowed a call that would otherwise be asked: still asked, or allowed, is the same path.
  if (kind === 'grant') return replayed.decision === 'deny';
  // A checker blocked it after policy let it through: the checker would block it again.
  if (kind === 'checker') return false;
  return recorded.decision !== replayed.decision;
}
