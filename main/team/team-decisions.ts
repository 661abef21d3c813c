// The team inbox in the team database, as both sides use it: the asks members published, the one
// decision each may get (first insert wins: the primary key), and the check of a decision's
// signature against the registered operator keys. Members (team-inbox.ts) read decisions on their
// own asks; operators' CLIs list asks and insert signed decisions; `audit verify --team` checks
// every stored decision.
import type { Pool } from 'pg';
import { verifyDecision, verifyDecisionV1, verifyDecisionV2, type DecisionFields, type ShownAsk, type ShownAskV2 } from './decision-signature.js';
import { TEAM_MIGRATION_006 } from './migrations/006-team-decision-v2.js';
import { TEAM_MIGRATION_007 } from './migrations/007-team-decision-v3.js';

/** The channels the migration's triggers announce on (payload: {"member":…,"approval":…}). */
export const DECIDED_CHANNEL = 'gatehouse_team_decided';
export const ASKS_CHANNEL = 'gatehouse_team_asks';

type Query = Pick<Pool, 'query'>;

export interface TeamAsk {
  member: string;
  approvalId: string;
  callId: string;
  agent: string;
  session: string;
  tool: string;
  /** The call's working directory; null on an ask published before team migration 7, which no team console can sign. */
  cwd: string | null;
  arguments: string;
  argsHash: string;
  reason: string;
  askedAt: number;
  deadline: number;
  state: string;
}

export interface TeamDecision extends DecisionFields {
  /**
   * The tool, agent, session and working directory its ask showed the operator, signed with the
   * rest (a v3 signature). Null: a decision stored before team migration 7 (see `older`).
   */
  shown: ShownAsk | null;
  /** A decision stored before team migration 7: v2 signed the tool, agent and session, v1 none of them. */
  older?: { version: 2; shown: ShownAskV2 } | { version: 1 };
  signature: string;
}

/** A decision as this Gatehouse signs and stores it: v3. */
export type SignedDecision = TeamDecision & { shown: ShownAsk };

/** A row of team_asks as stored (bench/team.ts and the team tests read them too). */
export interface AskRow { member: string; approval_id: string; call_id: string; agent: string; session: string; tool: string; cwd: string | null; arguments: string; args_hash: string; reason: string; asked_at: string; deadline: string; state: string }
interface DecisionRow { member: string; approval_id: string; call_id: string; args_hash: string; tool: string | null; agent: string | null; session: string | null; cwd: string | null; decision: string; reason: string; operator: string; console: string; decided_at: string; signature: string }

const ASK_COLUMNS = 'member, approval_id, call_id, agent, session, tool, cwd, arguments, args_hash, reason, asked_at, deadline, state';
const DECISION_COLUMNS = 'member, approval_id, call_id, args_hash, tool, agent, session, cwd, decision, reason, operator, console, decided_at, signature';

function ask(r: AskRow): TeamAsk {
  return { member: r.member, approvalId: r.approval_id, callId: r.call_id, agent: r.agent, session: r.session, tool: r.tool, cwd: r.cwd, arguments: r.arguments, argsHash: r.args_hash, reason: r.reason, askedAt: Number(r.asked_at), deadline: Number(r.deadline), state: r.state };
}

function decision(r: DecisionRow): TeamDecision {
  // A row missing the working directory is read as v2, one missing any of the other three as v1:
  // never applied, and verified only when stored before migration 7 (v2) or 6 (v1).
  const labels = r.tool !== null && r.agent !== null && r.session !== null ? { tool: r.tool, agent: r.agent, session: r.session } : null;
  const shown = labels !== null && r.cwd !== null ? { ...labels, cwd: r.cwd } : null;
  const older = shown !== null ? {} : { older: labels !== null ? { version: 2 as const, shown: labels } : { version: 1 as const } };
  return { member: r.member, approvalId: r.approval_id, callId: r.call_id, argsHash: r.args_hash, shown, ...older, decision: r.decision === 'approved' ? 'approved' : 'denied', reason: r.reason, operator: r.operator, console: r.console, decidedAt: Number(r.decided_at), signature: r.signature };
}

/** Asks still waiting for a decision (open on their member, none stored yet), oldest first. */
export async function pendingAsks(db: Query): Promise<TeamAsk[]> {
  const r = await db.query<AskRow>(
    `SELECT ${ASK_COLUMNS} FROM team_asks a WHERE state = 'pending'
       AND NOT EXISTS (SELECT 1 FROM team_decisions d WHERE d.member = a.member AND d.approval_id = a.approval_id)
     ORDER BY asked_at, member, approval_id`,
  );
  return r.rows.map(ask);
}

/** Every ask with this approval id (ids are random, so one, unless someone wrote another under another member). */
export async function asksById(db: Query, approvalId: string): Promise<TeamAsk[]> {
  return (await db.query<AskRow>(`SELECT ${ASK_COLUMNS} FROM team_asks WHERE approval_id = $1 ORDER BY member`, [approvalId])).rows.map(ask);
}

export async function decisionFor(db: Query, member: string, approvalId: string): Promise<TeamDecision | null> {
  const row = (await db.query<DecisionRow>(`SELECT ${DECISION_COLUMNS} FROM team_decisions WHERE member = $1 AND approval_id = $2`, [member, approvalId])).rows[0];
  return row ? decision(row) : null;
}

/** Decisions stored for asks of `member` that are still open there (a member catching up after a reconnect). */
export async function decisionsOnOpenAsks(db: Query, member: string): Promise<TeamDecision[]> {
  const r = await db.query<DecisionRow>(
    `SELECT ${DECISION_COLUMNS.split(', ').map((c) => `d.${c}`).join(', ')} FROM team_decisions d
     JOIN team_asks a ON a.member = d.member AND a.approval_id = d.approval_id WHERE d.member = $1 AND a.state = 'pending'`,
    [member],
  );
  return r.rows.map(decision);
}

/**
 * Stores a signed decision if the ask is still open and nobody decided it first; one statement, so
 * two operators pressing at once cannot both win. Returns the decision that stands: this one, or
 * the one stored first (null: the ask is closed, or there is none).
 */
export async function insertDecision(db: Query, d: SignedDecision): Promise<{ won: boolean; standing: TeamDecision | null }> {
  const r = await db.query(
    `INSERT INTO team_decisions (${DECISION_COLUMNS})
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14
     WHERE EXISTS (SELECT 1 FROM team_asks WHERE member = $1 AND approval_id = $2 AND state = 'pending')
     ON CONFLICT (member, approval_id) DO NOTHING`,
    [d.member, d.approvalId, d.callId, d.argsHash, d.shown.tool, d.shown.agent, d.shown.session, d.shown.cwd, d.decision, d.reason, d.operator, d.console, d.decidedAt, d.signature],
  );
  if (r.rowCount === 1) return { won: true, standing: d };
  return { won: false, standing: await decisionFor(db, d.member, d.approvalId) };
}

/**
 * Why something signed as `operator` must not be honoured, or null when `verifies` accepts the
 * operator's registered key. Decisions, policy versions and team grants are all checked here.
 * A revoked key signs nothing from its revocation on: a live check (no `storedAt`) refuses it
 * outright; `audit verify --team` passes the time the database stored the row (set by the
 * database itself: migration 004), so what was signed before the revocation still verifies.
 */
export async function signerProblem(db: Query, operator: string, verifies: (publicPem: string) => boolean, what: string, storedAt?: Date): Promise<string | null> {
  const row = (await db.query<{ public_key: string; revoked_at: Date | null }>('SELECT public_key, revoked_at FROM team_operators WHERE name = $1', [operator])).rows[0];
  const who = JSON.stringify(operator);
  if (!row) return `operator ${who} is not registered in team_operators`;
  if (row.revoked_at !== null && !(storedAt !== undefined && storedAt < row.revoked_at)) return `operator ${who}'s key was revoked at ${row.revoked_at.toISOString()}`;
  if (!verifies(row.public_key)) return `the signature is not operator ${who}'s over this ${what}`;
  return null;
}

/**
 * When a stored decision was written: the time the database stored it, and since when every
 * decision is v2 and v3 (null: never, which no older row passes).
 */
export interface StoredAt {
  at: Date;
  v2Since: Date | null;
  v3Since: Date | null;
}

/** What each older signature leaves out, for the reasons below. */
const UNSIGNED = { 1: 'the tool, agent, session and working directory', 2: 'the working directory' } as const;

/**
 * Why a decision must not be honoured, or null when its signature is a named operator's.
 * SECURITY (downgrade): a v1 signature covers neither the tool, nor the agent, nor the session the
 * ask showed, a v2 one not its working directory, so such a decision for a relabelled ask (or one
 * placed in another folder) verifies as well as for a true one. A member therefore never applies
 * one (a live check: no `stored`), whoever signed it and however the row was written; `audit
 * verify --team` accepts one only on a row the database stored before the migration from which
 * every decision is signed the next way (6 for v1, 7 for v2; the database refuses a new row
 * without the fields). An older signature offered as v3 (the fields filled in) fails: its bytes
 * are another domain's.
 */
export function signatureProblem(db: Query, d: TeamDecision, stored?: StoredAt): Promise<string | null> {
  if (d.shown !== null) {
    const signed = { ...d, ...d.shown };
    return signerProblem(db, d.operator, (key) => verifyDecision(signed, d.signature, key), 'decision', stored?.at);
  }
  const older = d.older ?? { version: 1 as const };
  const v = older.version;
  const v3 = `a member applies only v3 decisions`;
  if (stored === undefined) return Promise.resolve(`it carries a v${v} signature, which does not cover ${UNSIGNED[v]} its ask showed: ${v3}`);
  const migration = v === 1 ? TEAM_MIGRATION_006 : TEAM_MIGRATION_007;
  const since = v === 1 ? stored.v2Since : stored.v3Since;
  if (since === null) return Promise.resolve(`it carries a v${v} signature, and team_schema does not say when team migration ${migration.version} was applied: no v${v} signature is taken`);
  if (stored.at >= since) {
    return Promise.resolve(`it carries a v${v} signature (${UNSIGNED[v]} not signed) on a row stored ${stored.at.toISOString()}, after team migration ${migration.version} (${since.toISOString()}), from which every decision is signed v${v + 1}`);
  }
  if (older.version === 1) return signerProblem(db, d.operator, (key) => verifyDecisionV1(d, d.signature, key), 'decision', stored.at);
  const signed = { ...d, ...older.shown };
  return signerProblem(db, d.operator, (key) => verifyDecisionV2(signed, d.signature, key), 'decision', stored.at);
}

/** When a team migration was applied (recorded by the owner's `team init`, after the migration took its lock). */
async function appliedAt(db: Query, version: number): Promise<Date | null> {
  return (await db.query<{ applied_at: Date }>('SELECT applied_at FROM team_schema WHERE version = $1', [version])).rows[0]?.applied_at ?? null;
}

/** Every stored decision whose signature does not verify (for `audit verify --team`), and how many there are in all. */
export async function unsignedDecisions(db: Query, member?: string): Promise<{ checked: number; bad: { decision: TeamDecision; problem: string }[] }> {
  const since = { v2Since: await appliedAt(db, TEAM_MIGRATION_006.version), v3Since: await appliedAt(db, TEAM_MIGRATION_007.version) };
  const rows = (await db.query<DecisionRow & { stored_at: Date }>(`SELECT ${DECISION_COLUMNS}, stored_at FROM team_decisions ${member !== undefined ? 'WHERE member = $1' : ''} ORDER BY member, decided_at`, member !== undefined ? [member] : [])).rows;
  const bad: { decision: TeamDecision; problem: string }[] = [];
  for (const r of rows) {
    const d = decision(r);
    const problem = await signatureProblem(db, d, { at: r.stored_at, ...since });
    if (problem) bad.push({ decision: d, problem });
  }
  return { checked: rows.length, bad };
}
