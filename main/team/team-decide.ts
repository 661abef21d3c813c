// Deciding a team ask, as `gatehouse approvals approve|deny ID --team` and the console's inbox both
// do it: find the ask, check it is still open and bound to the arguments the operator reviewed,
// sign the decision with this home's operator key, and store it only if nobody decided first
// (insertDecision: one statement). The member that asked applies it once the signature checks.
//
// SECURITY: the signature covers every field the member acts on, and the tool, agent, session and
// working directory the ask shows (decision-signature.ts), which the member compares with its call; the hash check
// refuses a decision on arguments the operator did not see. Dropping either lets a decision made
// for one call be applied to another. What is signed is read from the ask's row here, and is what
// the operator was listed: a member's role cannot change a published ask but to close it (team
// migration 6).
import { UsageError } from '../core/usage-error.js';
import { displayText } from '../../shared/display-text.js';
import { hashCanonical } from '../approvals/args-match.js';
import { signDecision } from './decision-signature.js';
import { asksById, decisionFor, insertDecision, type SignedDecision, type TeamAsk, type TeamDecision } from './team-decisions.js';
import { requireTeamSchema } from './migrations/migrate.js';
import type { Pool } from './team-db.js';

type Query = Pick<Pool, 'query'>;

const d = (v: string) => displayText(v);

/** The ask `id` (of `member`, when ids clash); a usage error naming what to do when there is none or several. */
export async function findAsk(db: Query, id: string, member: string | undefined): Promise<TeamAsk> {
  const found = (await asksById(db, id)).filter((a) => member === undefined || a.member === member);
  if (found.length === 0) throw new UsageError(`No ask ${id}${member ? ` from ${member}` : ''} in the team inbox: gatehouse approvals list --team shows what is waiting.`);
  if (found.length > 1) throw new UsageError(`Members ${found.map((a) => a.member).join(', ')} each have an ask ${id}: say which with --member NAME.`);
  return found[0]!;
}

export interface DecideRequest {
  ask: TeamAsk;
  decision: 'approved' | 'denied';
  reason?: string;
  /** The arguments hash the operator reviewed; a different one is refused. */
  hash?: string;
  key: { name: string; privatePem: string };
  /** Where the decision is made (the console named in it). */
  console: string;
  now: number;
}

export type DecideResult =
  /** Stored and signed: the member applies it once it has checked the signature. */
  | { outcome: 'stored'; decision: TeamDecision }
  /** Another decision came first: the one that stands. */
  | { outcome: 'taken'; standing: TeamDecision }
  /** The ask closed (decided on its member, expired, its agent gone) before this decision could be stored. */
  | { outcome: 'closed'; state: string };

export async function decideAsk(db: Query, r: DecideRequest): Promise<DecideResult> {
  const a = r.ask;
  if (a.state !== 'pending') {
    // Decided through the team first (and applied already), or closed on the member itself.
    const first = await decisionFor(db, a.member, a.approvalId);
    return first && first.decision === a.state ? { outcome: 'taken', standing: first } : { outcome: 'closed', state: a.state };
  }
  // SECURITY: the member's own role may UPDATE its asks, so the arguments operators are shown are
  // only the member's word; the hash signed below is what the member applies. Both come from the
  // same row, so one that is not the SHA-256 of the other was rewritten after the member published
  // it (the shown arguments swapped for harmless ones): nothing is signed for it.
  if (hashCanonical(a.arguments) !== a.argsHash) throw new UsageError(`Approval ${d(a.approvalId)} on ${d(a.member)}: the arguments shown do not match the hash ${d(a.argsHash.slice(0, 12))}… the call is bound to (they were changed in the team database after ${d(a.member)} published them). Nothing was signed; decide it on ${d(a.member)}'s own console.`);
  // Bound to the arguments the operator reviewed: a hash that is not this ask's is refused.
  if (r.hash !== undefined && r.hash !== a.argsHash) throw new UsageError(`Approval ${a.approvalId} carries arguments with hash ${a.argsHash.slice(0, 12)}…, not the ${r.hash.slice(0, 12)}… you reviewed: list it again and decide on what it asks now.`);
  // A database without migration 7 has nowhere to keep the tool, agent, session and folder signed.
  await requireTeamSchema(db);
  // Published by a member before team migration 7: the operator was never shown where it runs.
  if (a.cwd === null) throw new UsageError(`Approval ${d(a.approvalId)} on ${d(a.member)} does not say which folder the call runs in (${d(a.member)} published it before the team database was upgraded), so nothing can be signed for it here. Decide it on ${d(a.member)}'s own console.`);
  const fields = { member: a.member, approvalId: a.approvalId, callId: a.callId, argsHash: a.argsHash, decision: r.decision, reason: r.decision === 'approved' ? '' : (r.reason ?? ''), operator: r.key.name, console: r.console, decidedAt: r.now };
  const shown = { tool: a.tool, agent: a.agent, session: a.session, cwd: a.cwd };
  const signed: SignedDecision = { ...fields, shown, signature: signDecision({ ...fields, ...shown }, r.key.privatePem) };
  const stored = await insertDecision(db, signed);
  if (stored.won) return { outcome: 'stored', decision: signed };
  return stored.standing ? { outcome: 'taken', standing: stored.standing } : { outcome: 'closed', state: 'closed' };
}

/** Why a decision was not stored, as one sentence (null when it was). */
export function notStored(a: TeamAsk, r: DecideResult): string | null {
  if (r.outcome === 'stored') return null;
  if (r.outcome === 'taken') return `Approval ${d(a.approvalId)} on ${d(a.member)} was already ${r.standing.decision} by ${d(r.standing.operator)} from ${d(r.standing.console)}; your decision was not stored.`;
  return r.state === 'closed' && a.state === 'pending' ? `Approval ${d(a.approvalId)} on ${d(a.member)} closed before your decision was stored.` : `Approval ${d(a.approvalId)} on ${d(a.member)} is closed (${d(r.state)}): nobody can decide it any more.`;
}
