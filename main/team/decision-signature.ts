// Team signatures, ed25519 (node:crypto), made with an operator's key: decisions, policy versions, grants.
// A team decision's signature: ed25519 (node:crypto) over every field a member acts on. A member
// honours a decision from the team database only when this verifies against the named operator's
// registered public key. SECURITY: each field below is what stops a reuse: the member and approval
// id (a signature for one ask approving another), the call id and args hash (the same ask id with
// other arguments), the tool, agent, session and working directory the ask showed (an ask
// relabelled so that a Bash call reads as a harmless tool, or another agent's, or `rm -rf build`
// shown in a scratch folder runs in the project), the decision and reason (a denial turned into
// an approval), the operator and console (a decision claimed for someone else), the time. Dropping
// one lets a row written with a member's own database credentials replay a real operator's
// signature onto what that field no longer pins.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/** What a decision says, in every version of its signature. */
export interface DecisionFields {
  member: string;
  approvalId: string;
  callId: string;
  argsHash: string;
  decision: 'approved' | 'denied';
  reason: string;
  operator: string;
  console: string;
  decidedAt: number;
}

/** The labels a v2 signature covers (team migrations 6 and on). */
export interface ShownAskV2 {
  tool: string;
  agent: string;
  session: string;
}

/**
 * What the ask showed the operator beside its arguments, and which the member compares with the
 * call it is about to release: the tool that runs, the agent and session it runs for, and the
 * folder it runs in, which decides where every relative path in the arguments lands. (The ask's
 * reason and deadline are shown too, but are the member's own account: they decide nothing that
 * runs.)
 */
export interface ShownAsk extends ShownAskV2 {
  cwd: string;
}

/** A decision's signed fields: what it says and what its ask showed (v3, team migration 7 on). */
export type SignedFields = DecisionFields & ShownAsk;

const DOMAIN = 'gatehouse.team-decision.v3';
/**
 * v2 did not sign the working directory, v1 neither the tool, the agent nor the session. Only
 * `audit verify --team` still checks them, on decisions the database stored before migration 7
 * (v2) or 6 (v1); nothing signs them any more, and a member never applies them (team-decisions.ts).
 */
const DOMAIN_V2 = 'gatehouse.team-decision.v2';
const DOMAIN_V1 = 'gatehouse.team-decision.v1';

/** The exact bytes signed: a JSON array, so no field can run into the next. */
export function signedMessage(f: SignedFields): Buffer {
  return Buffer.from(JSON.stringify([DOMAIN, f.member, f.approvalId, f.callId, f.argsHash, f.tool, f.agent, f.session, f.cwd, f.decision, f.reason, f.operator, f.console, f.decidedAt]), 'utf8');
}

/** The bytes a v2 signature covers (decisions stored from team migration 6 until 7). */
export function signedMessageV2(f: DecisionFields & ShownAskV2): Buffer {
  return Buffer.from(JSON.stringify([DOMAIN_V2, f.member, f.approvalId, f.callId, f.argsHash, f.tool, f.agent, f.session, f.decision, f.reason, f.operator, f.console, f.decidedAt]), 'utf8');
}

/** The bytes a v1 signature covers (decisions stored before team migration 6). */
export function signedMessageV1(f: DecisionFields): Buffer {
  return Buffer.from(JSON.stringify([DOMAIN_V1, f.member, f.approvalId, f.callId, f.argsHash, f.decision, f.reason, f.operator, f.console, f.decidedAt]), 'utf8');
}

export function newOperatorKeys(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

export function publicPemOf(privatePem: string): string {
  return createPublicKey(createPrivateKey(privatePem)).export({ type: 'spki', format: 'pem' }).toString();
}

export function signDecision(f: SignedFields, privatePem: string): string {
  return signBytes(signedMessage(f), privatePem);
}

/** True only for a well-formed ed25519 key and a v3 signature over exactly these fields. */
export function verifyDecision(f: SignedFields, signature: string, publicPem: string): boolean {
  return verifyBytes(signedMessage(f), signature, publicPem);
}

/** True only for a v2 signature over exactly these fields: a decision stored before team migration 7. */
export function verifyDecisionV2(f: DecisionFields & ShownAskV2, signature: string, publicPem: string): boolean {
  return verifyBytes(signedMessageV2(f), signature, publicPem);
}

/** True only for a v1 signature over exactly these fields: a decision stored before team migration 6. */
export function verifyDecisionV1(f: DecisionFields, signature: string, publicPem: string): boolean {
  return verifyBytes(signedMessageV1(f), signature, publicPem);
}

/**
 * A team policy version's signed fields. SECURITY: the version number stops a replay of an old
 * signed text as a newer version (a rollback), the digest pins the text, operator and console
 * who published it, the time.
 */
export interface PolicyFields {
  version: number;
  sha256: string;
  operator: string;
  console: string;
  publishedAt: number;
}

const POLICY_DOMAIN = 'gatehouse.team-policy.v1';

export function policyMessage(f: PolicyFields): Buffer {
  return Buffer.from(JSON.stringify([POLICY_DOMAIN, f.version, f.sha256, f.operator, f.console, f.publishedAt]), 'utf8');
}

export function signPolicy(f: PolicyFields, privatePem: string): string {
  return signBytes(policyMessage(f), privatePem);
}

export function verifyPolicy(f: PolicyFields, signature: string, publicPem: string): boolean {
  return verifyBytes(policyMessage(f), signature, publicPem);
}

/**
 * A team grant's signed fields. SECURITY: the id ties a revocation to the grant; kind, value and
 * member say what it allows and where (a signature moved onto a wider value or onto every member
 * fails); the times bound it.
 */
export interface GrantFields {
  id: string;
  kind: 'command' | 'path' | 'host';
  value: string;
  /** One member, or '' for every member. */
  member: string;
  operator: string;
  console: string;
  createdAt: number;
  expiresAt: number;
}

const GRANT_DOMAIN = 'gatehouse.team-grant.v1';

function grantMessage(f: GrantFields): Buffer {
  return Buffer.from(JSON.stringify([GRANT_DOMAIN, f.id, f.kind, f.value, f.member, f.operator, f.console, f.createdAt, f.expiresAt]), 'utf8');
}

export function signGrant(f: GrantFields, privatePem: string): string {
  return signBytes(grantMessage(f), privatePem);
}

export function verifyGrant(f: GrantFields, signature: string, publicPem: string): boolean {
  return verifyBytes(grantMessage(f), signature, publicPem);
}

// The domains keep one operator key's signatures apart: a decision's bytes never parse as a
// policy's, nor a v1 decision's as a v2 one's (their first element differs), so none can be passed
// off as another.
function signBytes(message: Buffer, privatePem: string): string {
  return sign(null, message, createPrivateKey(privatePem)).toString('base64');
}

function verifyBytes(message: Buffer, signature: string, publicPem: string): boolean {
  let key: KeyObject;
  try {
    key = createPublicKey(publicPem);
  } catch {
    return false;
  }
  if (key.asymmetricKeyType !== 'ed25519') return false;
  try {
    return verify(null, message, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
