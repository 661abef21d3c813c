// Red-team findings on team mode, each against a real PostgreSQL (pg-cluster.ts) and, where an
// operator decides, real `gatehouse serve --team` hosts (the built CLI).
//
// 1. A member's own database role (its agents can read the credentials) may UPDATE its own team
//    asks. It rewrote the arguments an operator is shown while leaving the args hash the member
//    binds the decision to: the operator approved `make test` and the member ran `make release`.
// 2. A log behind the team database (restored from an older copy, or a second host under the
//    member's name with a shorter log) stopped shipping as "forked" without recording the fork:
//    `audit verify --team` then reported the member intact, exit 0.
// 3. The same role relabelled an ask's tool. The tool was in neither the args hash nor the signed
//    fields, so an operator shown `mcp__ci__dry_run {"command":"make release"}` approved a Bash
//    call. Now a published ask can only be closed (team migration 6), the decision signs the tool,
//    agent and session shown (v2), and the member denies a call a signed decision does not match.
// 4. Downgrade: a v1 signature (no tool, agent or session) of a real operator, on a row whoever can
//    write decisions stores, is never applied; `audit verify --team` takes v1 only on old rows.
//
// A role that writes an ask before its host publishes it (an agent that read the credentials and
// was faster) is played by askWrittenFirst: the ask table held under a lock until it has.
import pg from 'pg';
import { sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalArgs } from '../../../main/approvals/args-match.js';
import { newOperatorKeys, signDecision, signedMessageV1, signedMessageV2, type DecisionFields } from '../../../main/team/decision-signature.js';
import { migrateTeam, teamMigrations } from '../../../main/team/migrations/migrate.js';
import { openTeamPool } from '../../../main/team/team-db.js';
import type { AskRow } from '../../../main/team/team-decisions.js';
import { runCli } from '../../support/cli.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { alphaAndAna, askOf, hookCall, localRows, member, shipperOver, sql, teamDatabase, untilLocal, type LocalRow, type TeamHost } from '../../support/team-hosts.js';

const SETTINGS = { mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' };
const RELEASE = { name: 'Bash', input: { command: 'make release' } as Record<string, unknown> };

function answer(body: string): { permissionDecision: string; permissionDecisionReason: string } {
  return (JSON.parse(body) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
}

function permission(body: string): string {
  return answer(body).permissionDecision;
}

type ShownRow = Pick<AskRow, 'approval_id' | 'call_id' | 'args_hash' | 'tool' | 'agent' | 'session' | 'cwd' | 'arguments'>;

/**
 * Alpha's agent, with alpha's own database role, writes the team ask of its call first, as
 * `edit` changes it: the owner locks team_asks (alpha's INSERT waits), the call is made, and the
 * row is built from alpha's local `approval.requested` and inserted under alpha's role (SET ROLE:
 * row-level security applies) in the lock's transaction. Alpha's own INSERT then finds it there.
 */
async function askWrittenFirst(url: string, role: string, host: TeamHost, session: string, tool: { name: string; input: Record<string, unknown> }, edit: (row: ShownRow) => ShownRow) {
  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  try {
    await owner.query('BEGIN');
    await owner.query('LOCK TABLE team_asks IN EXCLUSIVE MODE');
    const call = hookCall(host.info, session, 1, tool);
    const requested = (await untilLocal(host.home, host.op, (r) => r.some((x) => x.type === 'approval.requested' && String(x.payload.session).endsWith(session)))).find((x) => x.type === 'approval.requested' && String(x.payload.session).endsWith(session))!;
    const p = requested.payload as { id: string; call: string; agent: string; session: string; tool: string; argsHash: string; reason: string; expiresAt: number };
    // hookCall's calls run in /tmp.
    const row = edit({ approval_id: p.id, call_id: p.call, args_hash: p.argsHash, tool: p.tool, agent: p.agent, session: p.session, cwd: '/tmp', arguments: canonicalArgs(tool.input) });
    await owner.query(`SET LOCAL ROLE ${role}`);
    await owner.query('INSERT INTO team_asks (member, approval_id, call_id, agent, session, tool, cwd, arguments, args_hash, reason, asked_at, deadline) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)', ['alpha', row.approval_id, row.call_id, row.agent, row.session, row.tool, row.cwd, row.arguments, row.args_hash, p.reason, Date.now(), p.expiresAt]);
    await owner.query('COMMIT');
    return { call, ask: await askOf(url, session), real: p };
  } finally {
    await owner.end();
  }
}

const refusals = (rows: LocalRow[]) => rows.filter((x) => x.type === 'team.decision-refused');

describe.runIf(pgMissing('team-redteam') === null)('team mode under attack', () => {
  const cluster = useCluster();

  it("an operator is never shown other arguments than the ones the member's call carries", async () => {
    const url = await teamDatabase(cluster(), 'redteam_args');
    const { alphaUrl, anaHome, asAna } = await alphaAndAna(url);
    const alpha = await member(alphaUrl, 'alpha', SETTINGS);
    const asAnaHere = { ...asAna, GATEHOUSE_HOME: anaHome };

    // Alpha's agent, with alpha's own credentials, rewrites the arguments of its published ask:
    // PostgreSQL refuses it (a member closes its asks, and changes nothing else in them).
    const published = hookCall(alpha.info, 'published', 1, RELEASE);
    const pub = await askOf(url, 'published');
    await expect(sql(alphaUrl, `UPDATE team_asks SET arguments = '{"command":"make test"}' WHERE approval_id = $1`, [pub.approval_id])).rejects.toThrow(/permission denied for table team_asks/);
    expect((await runCli(['approvals', 'deny', pub.approval_id, '--reason', 'not now', '--home', alpha.home])).code).toBe(0);
    expect(permission((await published).body)).toBe('deny');

    // Written so from the start, before alpha published it: the arguments shown are not the hash's.
    const { call, ask } = await askWrittenFirst(url, 'alpha_host', alpha, 'swap', RELEASE, (row) => ({ ...row, arguments: '{"command":"make test"}' }));
    const listed = await runCli(['approvals', 'list', '--team'], asAnaHere);
    expect(listed.stdout).toContain('arguments: {"command":"make test"}');

    const approved = await runCli(['approvals', 'approve', ask.approval_id, '--team'], asAnaHere);
    // What the operator was shown is not what the call carries: nothing may be signed or stored.
    expect(approved.code, approved.stdout).toBe(2);
    expect(approved.stderr).toMatch(/the arguments shown do not match the hash/);
    expect(await sql(url, 'SELECT 1 FROM team_decisions WHERE approval_id = $1', [ask.approval_id])).toEqual([]);
    // The call still waits; decided at alpha itself it is denied.
    expect((await runCli(['approvals', 'deny', ask.approval_id, '--reason', 'swapped arguments', '--home', alpha.home])).code).toBe(0);
    expect(permission((await call).body)).toBe('deny');
  }, 180_000);

  it('an ask relabelled as a harmless tool: the operator signs the label, and the member denies the real call', async () => {
    const url = await teamDatabase(cluster(), 'redteam_tool');
    const { alphaUrl, anaHome, asAna } = await alphaAndAna(url);
    const alpha = await member(alphaUrl, 'alpha', SETTINGS);
    const asAnaHere = { ...asAna, GATEHOUSE_HOME: anaHome };

    // Relabelling a published ask is refused by PostgreSQL: what an operator lists is what is signed.
    const published = hookCall(alpha.info, 'published', 1, RELEASE);
    const pub = await askOf(url, 'published');
    for (const column of ['tool', 'agent', 'session', 'cwd']) {
      await expect(sql(alphaUrl, `UPDATE team_asks SET ${column} = 'mcp__ci__dry_run' WHERE approval_id = $1`, [pub.approval_id]), column).rejects.toThrow(/permission denied for table team_asks/);
    }
    expect((await runCli(['approvals', 'deny', pub.approval_id, '--reason', 'not now', '--home', alpha.home])).code).toBe(0);
    expect(permission((await published).body)).toBe('deny');
    // A closed ask stays closed: alpha's role cannot reopen it for another decision.
    expect(await sql(alphaUrl, "UPDATE team_asks SET state = 'pending' WHERE approval_id = $1 RETURNING 1", [pub.approval_id])).toEqual([]);

    // A Bash call whose ask alpha's role wrote first, labelled as a dry-run tool of a CI server.
    const { call, ask, real } = await askWrittenFirst(url, 'alpha_host', alpha, 'relabel', RELEASE, (row) => ({ ...row, tool: 'mcp__ci__dry_run' }));
    expect(real.tool).toBe('Bash');
    const listed = await runCli(['approvals', 'list', '--team'], asAnaHere);
    expect(listed.stdout).toMatch(/alpha {2}\S+ \/ \S*relabel {2}mcp__ci__dry_run\n {2}arguments: \{"command":"make release"\}/);

    // Ana approves what she was shown; the decision is signed and stored, over the label.
    const approved = await runCli(['approvals', 'approve', ask.approval_id, '--team'], asAnaHere);
    const [row] = await sql<{ tool: string; decision: string }>(url, 'SELECT tool, decision FROM team_decisions WHERE approval_id = $1', [ask.approval_id]);
    expect(row).toEqual({ tool: 'mcp__ci__dry_run', decision: 'approved' });
    // Alpha checks it against the call it would release, a Bash call: no approval of it, the call is denied, and says why.
    const got = answer((await call).body);
    expect(got.permissionDecision).toBe('deny');
    expect(got.permissionDecisionReason).toMatch(/operator ana decided, from desk, a team ask that showed tool "mcp__ci__dry_run", not this call's "Bash"; the ask in the team database was not the one this host published/);
    expect(approved.code).toBe(1);
    expect(approved.stderr).toMatch(/was stored, but alpha closed the ask as denied instead .*team\.decision-refused/);
    const rows = await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'approval.decided' && x.payload.id === ask.approval_id));
    expect(refusals(rows).map((x) => x.payload)).toEqual([expect.objectContaining({ id: ask.approval_id, operator: 'ana', decision: 'approved', denied: true, problem: expect.stringMatching(/^it was signed for tool "mcp__ci__dry_run", not this call's "Bash": the ask it was made on is not the one this host published$/) })]);
    const decided = rows.find((x) => x.type === 'approval.decided' && x.payload.id === ask.approval_id)!;
    expect(decided.payload).toMatchObject({ state: 'denied', tool: 'Bash' });
    expect(decided.payload.operator).toBeUndefined();
    expect(localRows(alpha.home).filter((x) => x.type === 'approval.decided' && x.payload.state === 'approved')).toEqual([]);
    await askOf(url, 'relabel', 'denied');

    // The same with the folder: `make release` shown in a scratch folder, made in /tmp. Ana is
    // shown the scratch folder and signs it; alpha's call runs elsewhere, so it is denied.
    const moved = await askWrittenFirst(url, 'alpha_host', alpha, 'refolder', RELEASE, (r) => ({ ...r, cwd: '/home/alpha/scratch' }));
    const listedMoved = await runCli(['approvals', 'list', '--team', '--json'], asAnaHere);
    expect((JSON.parse(listedMoved.stdout) as { approvalId: string; cwd: string }[]).find((a) => a.approvalId === moved.ask.approval_id)?.cwd).toBe('/home/alpha/scratch');
    await runCli(['approvals', 'approve', moved.ask.approval_id, '--team'], asAnaHere);
    const [movedRow] = await sql<{ cwd: string }>(url, 'SELECT cwd FROM team_decisions WHERE approval_id = $1', [moved.ask.approval_id]);
    expect(movedRow).toEqual({ cwd: '/home/alpha/scratch' });
    const gotMoved = answer((await moved.call).body);
    expect(gotMoved.permissionDecision).toBe('deny');
    expect(gotMoved.permissionDecisionReason).toMatch(/a team ask that showed working directory "\/home\/alpha\/scratch", not this call's "\/tmp"/);
    expect(localRows(alpha.home).filter((x) => x.type === 'approval.decided' && x.payload.state === 'approved')).toEqual([]);
  }, 180_000);

  it('a v1 or v2 signature is never applied, however the row is stored; audit verify --team takes one only on a row stored before migration 6 (v1) or 7 (v2)', async () => {
    const url = await teamDatabase(cluster(), 'redteam_downgrade');
    const { alphaUrl, consoles, anaHome } = await alphaAndAna(url);
    const alpha = await member(alphaUrl, 'alpha', SETTINGS);
    const anaKey = readFileSync(join(anaHome, 'operators', 'ana.key'), 'utf8');
    const call = hookCall(alpha.info, 'downgrade', 1, RELEASE);
    const ask = await askOf(url, 'downgrade');
    const [shown] = await sql<{ tool: string; agent: string; session: string; cwd: string }>(url, 'SELECT tool, agent, session, cwd FROM team_asks WHERE approval_id = $1', [ask.approval_id]);
    const labels = { tool: shown!.tool, agent: shown!.agent, session: shown!.session };
    // Ana's own v1 signature on this very ask, as an older Gatehouse would make it: real, but it signed no tool;
    // and her v2 one, as Gatehouse made it from team migration 6 until 7: real, but it signed no folder.
    const fields: DecisionFields = { member: 'alpha', approvalId: ask.approval_id, callId: ask.call_id, argsHash: ask.args_hash, decision: 'approved', reason: '', operator: 'ana', console: 'desk', decidedAt: Date.now() };
    const v1 = sign(null, signedMessageV1(fields), anaKey).toString('base64');
    const v2 = sign(null, signedMessageV2({ ...fields, ...labels }), anaKey).toString('base64');
    const insert = (db: string, t: { tool: string; agent: string; session: string; cwd?: string } | null, signature = v1) =>
      sql(db, 'INSERT INTO team_decisions (member, approval_id, call_id, args_hash, tool, agent, session, cwd, decision, reason, operator, console, decided_at, signature) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)', [fields.member, fields.approvalId, fields.callId, fields.argsHash, t?.tool ?? null, t?.agent ?? null, t?.session ?? null, t?.cwd ?? null, fields.decision, fields.reason, fields.operator, fields.console, fields.decidedAt, signature]);

    // A console role may insert decisions, but no v1 or v2 one: the database wants the four signed fields.
    await expect(insert(consoles, null)).rejects.toThrow(/violates check constraint "team_decisions_v2"/);
    await expect(insert(consoles, labels, v2)).rejects.toThrow(/violates check constraint "team_decisions_v3"/);
    // With them filled in (the ask's own), the v1 signature is no v3 one: refused, the call waits.
    await insert(consoles, shown!);
    await untilLocal(alpha.home, alpha.op, (r) => refusals(r).length === 1);
    await sql(url, 'DELETE FROM team_decisions WHERE approval_id = $1', [ask.approval_id]);
    // Without the constraints (the owner dropped them): a v1 row, then a v2 row, is stored, and alpha refuses each.
    await sql(url, 'ALTER TABLE team_decisions DROP CONSTRAINT team_decisions_v2, DROP CONSTRAINT team_decisions_v3');
    await insert(consoles, null);
    await untilLocal(alpha.home, alpha.op, (r) => refusals(r).length === 2);
    await sql(url, 'DELETE FROM team_decisions WHERE approval_id = $1', [ask.approval_id]);
    await insert(consoles, labels, v2);
    const rows = await untilLocal(alpha.home, alpha.op, (r) => refusals(r).length === 3);
    expect(refusals(rows).map((x) => [x.payload.operator, x.payload.problem, x.payload.denied])).toEqual([
      ['ana', `the signature is not operator "ana"'s over this decision`, undefined],
      ['ana', 'it carries a v1 signature, which does not cover the tool, agent, session and working directory its ask showed: a member applies only v3 decisions', undefined],
      ['ana', 'it carries a v2 signature, which does not cover the working directory its ask showed: a member applies only v3 decisions', undefined],
    ]);
    const local = await runCli(['approvals', 'list', '--json', '--home', alpha.home]);
    expect((JSON.parse(local.stdout) as { id: string; state: string }[]).map((i) => [i.id, i.state])).toEqual([[ask.approval_id, 'pending']]);
    const verify = await runCli(['audit', 'verify', '--team'], { GATEHOUSE_TEAM_URL: consoles });
    expect(verify.stdout).toMatch(new RegExp(`alpha: decision on ${ask.approval_id} NOT signed by an operator: it carries a v2 signature \\(the working directory not signed\\) on a row stored \\S+, after team migration 7 \\(\\S+\\), from which every decision is signed v3`));
    expect(verify.code).toBe(1);
    expect((await runCli(['approvals', 'deny', ask.approval_id, '--reason', 'downgrade seen', '--home', alpha.home])).code).toBe(0);
    expect(permission((await call).body)).toBe('deny');

    // A decision ana signed (v1) before the team database was migrated to 6, and one (v2) before 7, still verify; the same bytes with one field changed do not.
    const oldUrl = await cluster().createDatabase('redteam_v1_rows');
    const client = new pg.Client({ connectionString: oldUrl });
    await client.connect();
    try {
      await migrateTeam(client, teamMigrations.slice(0, 5));
      const ana = newOperatorKeys();
      await client.query("INSERT INTO team_operators (name, public_key, console) VALUES ('ana', $1, 'desk')", [ana.publicPem]);
      const old: DecisionFields[] = ['appr-old-1', 'appr-old-2'].map((id) => ({ ...fields, approvalId: id, callId: `call-${id}` }));
      for (const [i, f] of old.entries()) {
        await client.query("INSERT INTO team_asks (member, approval_id, call_id, agent, session, tool, arguments, args_hash, reason, asked_at, deadline, state) VALUES ('alpha', $1, $2, 'default', 's', 'Bash', '{}', $3, 'asked', 1, 2, 'approved')", [f.approvalId, f.callId, f.argsHash]);
        const signature = sign(null, signedMessageV1(f), ana.privatePem).toString('base64');
        await client.query('INSERT INTO team_decisions (member, approval_id, call_id, args_hash, decision, reason, operator, console, decided_at, signature) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [f.member, f.approvalId, f.callId, f.argsHash, f.decision, i === 0 ? f.reason : 'edited', f.operator, f.console, f.decidedAt, signature]);
      }
      expect(await migrateTeam(client, teamMigrations.slice(0, 6))).toEqual({ from: 5, to: 6 });
      // A v2 decision stored before migration 7 verifies beside them, and so does a v3 one after it.
      const f2 = { ...fields, approvalId: 'appr-v2', callId: 'call-v2', tool: 'Bash', agent: 'default', session: 's' };
      await client.query("INSERT INTO team_asks (member, approval_id, call_id, agent, session, tool, arguments, args_hash, reason, asked_at, deadline) VALUES ('alpha', 'appr-v2', 'call-v2', 'default', 's', 'Bash', '{}', $1, 'asked', 1, 2)", [f2.argsHash]);
      await client.query('INSERT INTO team_decisions (member, approval_id, call_id, args_hash, tool, agent, session, decision, reason, operator, console, decided_at, signature) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)', [f2.member, f2.approvalId, f2.callId, f2.argsHash, f2.tool, f2.agent, f2.session, f2.decision, f2.reason, f2.operator, f2.console, f2.decidedAt, sign(null, signedMessageV2(f2), ana.privatePem).toString('base64')]);
      expect(await migrateTeam(client)).toEqual({ from: 6, to: 7 });
      const after = await runCli(['audit', 'verify', '--team'], { GATEHOUSE_TEAM_URL: oldUrl });
      expect(after.stdout).toContain(`alpha: decision on appr-old-2 NOT signed by an operator: the signature is not operator "ana"'s over this decision`);
      expect(after.stdout).toMatch(/Team decisions: 1 of 3 NOT signed by a registered operator\./);
      expect(after.stdout).not.toContain('appr-old-1');
      expect(after.stdout).not.toContain('appr-v2');
      const f = { ...fields, approvalId: 'appr-new', callId: 'call-new', tool: 'Bash', agent: 'default', session: 's', cwd: '/srv/app' };
      await client.query("INSERT INTO team_asks (member, approval_id, call_id, agent, session, tool, cwd, arguments, args_hash, reason, asked_at, deadline) VALUES ('alpha', 'appr-new', 'call-new', 'default', 's', 'Bash', '/srv/app', '{}', $1, 'asked', 1, 2)", [f.argsHash]);
      await client.query('INSERT INTO team_decisions (member, approval_id, call_id, args_hash, tool, agent, session, cwd, decision, reason, operator, console, decided_at, signature) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)', [f.member, f.approvalId, f.callId, f.argsHash, f.tool, f.agent, f.session, f.cwd, f.decision, f.reason, f.operator, f.console, f.decidedAt, signDecision(f, ana.privatePem)]);
      expect((await runCli(['audit', 'verify', '--team'], { GATEHOUSE_TEAM_URL: oldUrl })).stdout).toMatch(/Team decisions: 1 of 4 NOT signed by a registered operator\./);
    } finally {
      await client.end();
    }
  }, 240_000);

  it('a log behind the team database is recorded as a fork, and verify --team names it', async () => {
    const url = await cluster().createDatabase('redteam_behind');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await migrateTeam(client);
    const pool = await openTeamPool(url, () => {});
    try {
      const first = shipperOver(pool, 'twin', ['a', 'b', 'c']);
      first.shipper.start();
      expect((await first.until('up')).shippedSeq).toBe(3);
      await first.shipper.close();

      // The member's log replaced by a shorter one (an older copy restored, or a second host under the name).
      const second = shipperOver(pool, 'twin', ['x']);
      second.shipper.start();
      expect((await second.until('forked')).error).toMatch(/holds rows up to 3 for member twin, but this log ends at row 1/);
      await second.shipper.close();

      const verify = await runCli(['audit', 'verify', '--team'], { GATEHOUSE_TEAM_URL: url });
      expect(verify.stdout).toMatch(/^twin: fork at row 3: the team database holds [0-9a-f]{12}…, the member's log ends before it/m);
      expect(verify.stdout).toMatch(/Team trail NOT intact: twin\./);
      expect(verify.code).toBe(1);
      expect((await client.query("SELECT seq FROM team_forks WHERE member = 'twin'")).rows).toHaveLength(1);
      first.store.close();
      second.store.close();
    } finally {
      await pool.end();
      await client.end();
    }
  }, 120_000);
});
