// A team decision's signature binds every field a member acts on: changing any one of them (the
// tool, agent, session and working directory its ask showed included), signing with another key,
// or offering a key that is not ed25519 fails verification; and a v1 signature (no tool, agent or
// session) or a v2 one (no working directory) never passes for a v3 one, nor the other way round.
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newOperatorKeys, publicPemOf, signDecision, signedMessageV1, signedMessageV2, verifyDecision, verifyDecisionV1, verifyDecisionV2, type SignedFields } from '../../../main/team/decision-signature.js';

const fields: SignedFields = { member: 'alpha', approvalId: 'appr-1', callId: 'call-1', argsHash: 'a'.repeat(64), tool: 'Bash', agent: 'default', session: 'hook:s-1', cwd: '/home/ana/proj', decision: 'approved', reason: '', operator: 'ana', console: 'beta', decidedAt: 1_700_000_000_000 };

describe('team decision signatures', () => {
  it('verify for the operator who signed, over exactly the fields signed', () => {
    const ana = newOperatorKeys();
    expect(publicPemOf(ana.privatePem)).toBe(ana.publicPem);
    const sig = signDecision(fields, ana.privatePem);
    expect(verifyDecision(fields, sig, ana.publicPem)).toBe(true);
    const changed: Partial<SignedFields>[] = [
      { member: 'beta' },
      { approvalId: 'appr-2' },
      { callId: 'call-2' },
      { argsHash: 'b'.repeat(64) },
      { tool: 'mcp__ci__dry_run' },
      { agent: 'ci' },
      { session: 'hook:s-2' },
      { cwd: '/' },
      { cwd: '/home/ana/proj/' },
      { decision: 'denied' },
      { reason: 'x' },
      { operator: 'bob' },
      { console: 'gamma' },
      { decidedAt: fields.decidedAt + 1 },
    ];
    for (const c of changed) expect(verifyDecision({ ...fields, ...c }, sig, ana.publicPem), JSON.stringify(c)).toBe(false);
  });

  it('keep v1 and v2 apart: an operator\'s v1 signature is no v2 one, whatever tool is claimed beside it', () => {
    const ana = newOperatorKeys();
    // What an older Gatehouse signed: the same decision without the tool, agent and session.
    const v1 = sign(null, signedMessageV1(fields), ana.privatePem).toString('base64');
    expect(verifyDecisionV1(fields, v1, ana.publicPem)).toBe(true);
    expect(verifyDecisionV1({ ...fields, callId: 'call-2' }, v1, ana.publicPem)).toBe(false);
    for (const tool of ['Bash', 'mcp__ci__dry_run', '']) expect(verifyDecision({ ...fields, tool }, v1, ana.publicPem), tool).toBe(false);
    expect(verifyDecisionV1(fields, signDecision(fields, ana.privatePem), ana.publicPem)).toBe(false);
  });

  it('keep v2 and v3 apart: an operator\'s v2 signature is no v3 one, whatever folder is claimed beside it', () => {
    const ana = newOperatorKeys();
    // What Gatehouse signed from team migration 6 until 7: the labels, not the working directory.
    const v2 = sign(null, signedMessageV2(fields), ana.privatePem).toString('base64');
    expect(verifyDecisionV2(fields, v2, ana.publicPem)).toBe(true);
    expect(verifyDecisionV2({ ...fields, tool: 'Read' }, v2, ana.publicPem)).toBe(false);
    for (const cwd of ['/home/ana/proj', '/', '']) expect(verifyDecision({ ...fields, cwd }, v2, ana.publicPem), cwd).toBe(false);
    expect(verifyDecisionV2(fields, signDecision(fields, ana.privatePem), ana.publicPem)).toBe(false);
  });

  it('refuse another key, a key that is not ed25519, and a signature that is not one', () => {
    const ana = newOperatorKeys();
    const sig = signDecision(fields, ana.privatePem);
    expect(verifyDecision(fields, sig, newOperatorKeys().publicPem)).toBe(false);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(verifyDecision(fields, sig, rsa)).toBe(false);
    expect(verifyDecision(fields, sig, 'not a key')).toBe(false);
    expect(verifyDecision(fields, '', ana.publicPem)).toBe(false);
    expect(verifyDecision(fields, 'AAAA', ana.publicPem)).toBe(false);
  });
});
