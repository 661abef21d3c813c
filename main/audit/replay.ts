// Shadow replay: today's policy, or a draft from the policy editor, over the calls the audit log
// recorded. Changes nothing and runs nothing.
//
// A draft is judged as the saved policy would have judged each call then, so that replaying the
// unchanged policy changes nothing on any log:
//  - the extraction is the recorded one (call.extracted), never redone: files and links change;
//  - the built-in rules' matches are the recorded ones (rule.matched): they depend on the
//    recording host's plugin folders, home and DNS answers, which a replay (the CLI, another
//    host) does not have; only the user rules, the draft's, are judged again;
//  - when the rules step answers as it did then, the recorded outcome stands (grant, operator,
//    checker, taint and all); otherwise autonomy (decideCall) decides again with the level and
//    lists in force at that call (settings.changed) and the grant that allowed it, if one did.
// What cannot be redone is kept, not guessed: an operator's answer to a call that would be asked
// again, a checker's or session taint's block of a call the draft does not deny.
import type { Database } from 'better-sqlite3';
import type { RequestOf, ResponseOf } from '../../shared/contract.js';
import { Autonomy, decideCall, TAINT_RULE, type AutonomySettings, type FinalDecision } from '../policy/autonomy.js';
import type { Decider, Extraction, ToolCall } from '../policy/types.js';
import { policyResult, type PolicyResult } from '../policy/rules/engine.js';
import type { CompiledRule, RuleMatch } from '../policy/rules/compile.js';
import type { PolicyProblem } from '../policy/rules/load.js';
import { hasSearchIndex } from './audit-index.js';
import { unattended, type Chunked } from '../chunked.js';

export interface ReplayPolicy {
  evaluator(text?: string): {
    problems: PolicyProblem[];
    broken: boolean;
    /** The user rules (the saved ones or the draft's) only. */
    evaluateUser(x: Extraction, call: ToolCall | null): PolicyResult;
    /** A rule by name, built-ins included: precedence and message of a recorded match. */
    rule(name: string): Readonly<CompiledRule> | undefined;
  };
}

export interface ReplayDeps {
  db: Database;
  policy: ReplayPolicy;
  /** The current autonomy settings; earlier calls get those in force then (settings.changed). */
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

/** What followed one call in the log. */
interface FollowUps {
  extraction?: Extraction;
  matches: RuleMatch[];
  decided?: Recorded;
  /** The inbox item's ask, when the call was asked (approval.requested). */
  asked?: Recorded;
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
  const autonomyAt = recordedAutonomy(deps.db, deps.autonomy());
  const calls: ReplayedCall[] = [];
  let changed = 0;
  let after = 0;
  while (calls.length < total) {
    const received = q.page(after, Math.min(chunk, total - calls.length));
    if (received.length === 0) break;
    after = received.at(-1)!.seq;
    const ids = received.map((r) => (JSON.parse(r.payload) as { call: string }).call);
    const followUps = q.followUps(ids, received[0]!.seq);
    for (const r of received) {
      const p = JSON.parse(r.payload) as { call: string; agent: string; session: string; tool: string; arguments?: Record<string, unknown> | null; cwd?: string; source?: ToolCall['source'] };
      const call: ToolCall = { id: p.call, agent: p.agent, session: p.session, tool: p.tool, arguments: p.arguments ?? null, cwd: p.cwd ?? '', source: p.source ?? 'api', receivedAt: r.ts };
      const f = followUps.get(p.call) ?? { matches: [] };
      // Asked and not answered yet: the ask is what was recorded so far.
      const waiting = f.decided === undefined && f.asked !== undefined;
      const recorded = f.decided ?? f.asked ?? null;
      const x = f.extraction;
      const replayed = x && recorded ? replayOne({ call, x, matches: f.matches, recorded, asked: f.asked !== undefined, waiting, ev, autonomy: autonomyAt(r.seq) }) : notReplayable(recorded);
      const isChanged = recorded !== null && x !== undefined && recorded.decision !== replayed.decision;
      if (isChanged) changed++;
      calls.push({ call: call.id, seq: r.seq, ts: r.ts, agent: call.agent, session: call.session, tool: call.tool, command: x?.command || argumentSummary(call.arguments), waiting, recorded, replayed, changed: isChanged });
    }
    job.progress(calls.length, total);
    if (calls.length < total) await job.checkpoint();
  }
  return { calls, changed, policyProblems };
}

/** A call without a shell command, named by its arguments (`file_path=/a/b, limit=20`), short. */
function argumentSummary(args: Record<string, unknown> | null): string {
  if (!args) return '';
  const text = Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

const AUTONOMY_KEYS = { autonomy: 'level', autoApprove: 'autoApprove', alwaysAsk: 'alwaysAsk' } as const;

/**
 * The autonomy settings in force at each point of the log: today's, with every later
 * settings.changed undone (its `from`). A level changed for an hour judges that hour's calls.
 */
function recordedAutonomy(db: Database, now: AutonomySettings): (seq: number) => Autonomy {
  const changes = (db.prepare("SELECT seq, payload FROM events WHERE type = 'settings.changed' ORDER BY seq DESC").all() as { seq: number; payload: string }[])
    .map((r) => ({ seq: r.seq, changes: (JSON.parse(r.payload) as { changes?: Record<string, { from: unknown }> }).changes ?? {} }))
    .filter((c) => Object.keys(AUTONOMY_KEYS).some((k) => k in c.changes));
  const cache = new Map<string, Autonomy>();
  return (seq) => {
    const s: Record<string, unknown> = { level: now.level, autoApprove: now.autoApprove ?? [], alwaysAsk: now.alwaysAsk ?? [] };
    // Newest first: undoing down to the call leaves each key at its value then.
    for (const c of changes) {
      if (c.seq <= seq) break;
      for (const [k, field] of Object.entries(AUTONOMY_KEYS)) if (k in c.changes) s[field] = c.changes[k]!.from;
    }
    const key = JSON.stringify(s);
    let a = cache.get(key);
    if (!a) cache.set(key, (a = new Autonomy(s as unknown as AutonomySettings)));
    return a;
  };
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

  /** The extraction, rule matches, ask and last decision of each call. */
  followUps(ids: string[], fromSeq: number): Map<string, FollowUps> {
    const out = new Map<string, FollowUps>();
    if (ids.length === 0) return out;
    const types = "('call.extracted', 'rule.matched', 'approval.requested', 'call.decided')";
    const sql = this.facets
      ? `SELECT e.type, e.payload FROM event_facets f JOIN events e ON e.seq = f.seq
         WHERE f.call IN (SELECT value FROM json_each(?)) AND f.seq > ? AND e.type IN ${types}
         ORDER BY f.seq`
      : `SELECT type, payload FROM events
         WHERE json_extract(payload, '$.call') IN (SELECT value FROM json_each(?)) AND seq > ? AND type IN ${types}
         ORDER BY seq`;
    const rows = this.db.prepare(sql).all(JSON.stringify(ids), fromSeq) as { type: string; payload: string }[];
    for (const row of rows) {
      const p = JSON.parse(row.payload) as Record<string, unknown> & { call: string };
      let f = out.get(p.call);
      if (!f) out.set(p.call, (f = { matches: [] }));
      if (row.type === 'call.extracted') {
        f.extraction = {
          operations: (p.operations as Extraction['operations']) ?? [],
          paths: (p.paths as string[]) ?? [],
          hosts: (p.hosts as string[]) ?? [],
          command: (p.command as string) ?? '',
          // Written content goes to checkers, which are not replayed; rules do not read it.
          content: '',
          evasive: p.evasive === true,
          evasiveReasons: (p.evasiveReasons as string[]) ?? [],
          ...(Array.isArray(p.programs) ? { programs: p.programs as string[] } : {}),
          ...(Array.isArray(p.recursive) ? { recursive: p.recursive as string[] } : {}),
        };
      } else if (row.type === 'rule.matched') {
        f.matches.push({
          rule: String(p.rule),
          origin: String(p.origin ?? ''),
          source: p.source as RuleMatch['source'],
          decision: p.decision as RuleMatch['decision'],
          severity: p.severity as RuleMatch['severity'],
          // Older logs did not record it: the rule's own, looked up by name (replayOne).
          priority: typeof p.priority === 'number' ? p.priority : Number.NaN,
          locked: p.locked === true,
          message: '',
          detail: String(p.detail ?? ''),
        });
      } else if (row.type === 'approval.requested') {
        f.asked = { decision: 'ask', decider: p.askedBy as Decider, reason: String(p.reason ?? '') };
      } else {
        // The last one wins: a call decided again (after an approval) ends with the final decision.
        f.decided = { decision: String(p.decision), decider: p.decider as Decider, reason: String(p.reason ?? '') };
      }
    }
    return out;
  }
}

interface ReplayInput {
  call: ToolCall;
  x: Extraction;
  /** The rules that matched when the call was judged. */
  matches: RuleMatch[];
  recorded: Recorded;
  /** An operator was asked about it (answered, expired, or still waiting). */
  asked: boolean;
  waiting: boolean;
  ev: ReturnType<ReplayPolicy['evaluator']>;
  autonomy: Autonomy;
}

/** The decision the call gets with the draft's user rules beside the built-ins' recorded matches. */
function replayOne(i: ReplayInput): FinalDecision {
  const { recorded, ev } = i;
  const known = (m: RuleMatch): RuleMatch => {
    const r = ev.rule(m.rule)?.rule;
    return { ...m, priority: Number.isNaN(m.priority) ? (r?.priority ?? 100) : m.priority, message: r?.message ?? m.rule };
  };
  const split = (ms: RuleMatch[]) => ({ matched: ms.filter((m) => m.decision !== 'log'), logs: ms.filter((m) => m.decision === 'log') });
  const then = split(i.matches.map(known));
  const builtins = split(i.matches.filter((m) => m.source === 'builtin').map(known));
  const user = ev.evaluateUser(i.x, i.call);
  const before = policyResult(then.matched, then.logs);
  const policy = policyResult([...builtins.matched, ...user.matched], [...builtins.logs, ...user.logs]);
  // The rules step answers as it did: everything after it (autonomy, grant, checker, taint, the
  // operator) would too, so what was recorded stands.
  if (sameAnswer(before, policy)) return { ...recorded, decision: recorded.decision as FinalDecision['decision'] };
  const kind = recorded.decider?.kind;
  if (policy.decision !== 'deny') {
    // Blocks after the rules step that replay cannot judge again: they would block again.
    if (kind === 'checker') return keep(recorded, 'Checker verdicts are not replayed: the checker would block it again.');
    if (kind === 'rule' && recorded.decider.rule === TAINT_RULE) return keep(recorded, 'Session taint is not replayed: it would block it again.');
  }
  const grant = kind === 'grant' ? recorded.decider.grant : undefined;
  const d = decideCall({ call: i.call, extraction: i.x, policy, autonomy: i.autonomy, grant });
  // Asked again, and an operator was asked then too: their answer (or the wait) is the same path.
  if (d.decision === 'ask' && (i.asked || recorded.decision === 'ask' || recorded.decision === 'expired')) {
    return keep(recorded, i.waiting ? 'Still waiting for an operator; it would be asked the same.' : `It would be asked again (${d.reason}); the operator's answer is kept.`);
  }
  return d;
}

function keep(recorded: Recorded, note: string): FinalDecision {
  return { decision: recorded.decision as FinalDecision['decision'], decider: recorded.decider, reason: `${recorded.reason} ${note}` };
}

/** The same decision by the same rule (or by no rule). */
function sameAnswer(a: PolicyResult, b: PolicyResult): boolean {
  if (a.decision !== b.decision) return false;
  return (a.decisive?.rule ?? null) === (b.decisive?.rule ?? null);
}

function notReplayable(recorded: Recorded | null): FinalDecision {
  const why = 'No extraction was recorded for this call (it was refused before policy ran), so it cannot be replayed.';
  return recorded
    ? { decision: recorded.decision as FinalDecision['decision'], decider: recorded.decider, reason: `${why} Recorded: ${recorded.reason}` }
    : { decision: 'deny', decider: { kind: 'error', message: 'not replayable' }, reason: why };
}
