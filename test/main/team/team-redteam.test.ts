// Red-team findings on team mode, each against a real PostgreSQL (pg-cluster.ts) and, where an
// operator decides, real `gatehouse serve --team` hosts (the built CLI).
//
// 1. A member's own database role (its agents can read the credentials) may UPDATE its own team
//    asks. It rewrote the arguments an operator is shown while leaving the args hash the member
//    binds the decision to: the operator approved `make test` and the member ran `make release`.
// 2. A log behind the team database (restored from an older copy, or a second host under the
//    member's name with a shorter log) stopped shipping as "forked" without recording the fork:
//    `audit verify --team` then reported the member intact, exit 0.
// 3. FINDING (not fixed): the same role may relabel an ask's tool. The tool is in neither the args
//    hash nor the signed fields, so an operator shown `mcp__ci__dry_run {"command":"make release"}`
//    approved a Bash call. The fix is a signed field (decision-signature.ts) the member compares
//    with its item's tool, as it does the call id and the hash.
import pg from 'pg';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateTeam } from '../../../main/team/migrations/migrate.js';
import { openTeamPool } from '../../../main/team/team-db.js';
import { runCli } from '../../support/cli.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { tempDir } from '../../support/temp.js';
import { askOf, hookCall, member, shipperOver, sql, teamDatabase } from '../../support/team-hosts.js';

const SETTINGS = { mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' };

function permission(body: string): string {
  return (JSON.parse(body) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}

describe.runIf(pgMissing('team-redteam') === null)('team mode under attack', () => {
  const cluster = useCluster();

  it("an operator is never shown other arguments than the ones the member's call carries", async () => {
    const url = await teamDatabase(cluster(), 'redteam_args');
    for (const [role, as] of [['alpha_host', ['--member', 'alpha']], ['consoles', ['--console']]] as const) {
      expect((await runCli(['team', 'add-role', role, ...as], { GATEHOUSE_TEAM_URL: url })).stderr).toBe('');
    }
    const roleUrl = (role: string) => url.replace('//gatehouse@', `//${role}@`);
    const alphaUrl = roleUrl('alpha_host');
    const alpha = await member(alphaUrl, 'alpha', SETTINGS);
    const opHome = join(tempDir('gatehouse-team-op-'), 'home');
    expect((await runCli(['operator', 'create', 'ana', '--home', opHome], { GATEHOUSE_TEAM_URL: url, GATEHOUSE_TEAM_MEMBER: 'desk' })).code).toBe(0);
    const asAna = { GATEHOUSE_TEAM_URL: roleUrl('consoles'), GATEHOUSE_TEAM_MEMBER: 'desk', GATEHOUSE_HOME: opHome };

    const call = hookCall(alpha.info, 'swap', 1, { name: 'Bash', input: { command: 'make release' } });
    const ask = await askOf(url, 'swap');
    // Alpha's agent, with alpha's own credentials: the arguments operators see, not the hash.
    expect(await sql(alphaUrl, `UPDATE team_asks SET arguments = '{"command":"make test"}' WHERE approval_id = $1 RETURNING 1`, [ask.approval_id])).toHaveLength(1);
    const listed = await runCli(['approvals', 'list', '--team'], asAna);
    expect(listed.stdout).toContain('arguments: {"command":"make test"}');

    const approved = await runCli(['approvals', 'approve', ask.approval_id, '--team'], asAna);
    // What the operator was shown is not what the call carries: nothing may be signed or stored.
    expect(approved.code, approved.stdout).toBe(2);
    expect(approved.stderr).toMatch(/the arguments shown do not match the hash/);
    expect(await sql(url, 'SELECT 1 FROM team_decisions WHERE approval_id = $1', [ask.approval_id])).toEqual([]);
    // The call still waits; decided at alpha itself it is denied.
    expect((await runCli(['approvals', 'deny', ask.approval_id, '--reason', 'swapped arguments', '--home', alpha.home])).code).toBe(0);
    expect(permission((await call).body)).toBe('deny');
  }, 180_000);

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
