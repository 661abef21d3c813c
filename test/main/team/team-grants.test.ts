// Issue #28, grants scoped to the team: a real `gatehouse serve --team URL` member (the built CLI)
// and a throwaway PostgreSQL cluster on loopback. `gatehouse team grant add --command make`
// (ana's operator key) is held by the member, which then lets `make` through without asking; a
// grant for another member is not held; the member's role cannot write a grant; one written with
// a console role's credentials and a copied signature is refused and recorded; a revoked grant is
// dropped at once and `make` asks again; once the owner revokes ana's key, alpha drops her grants
// and refuses what she signs, while what she signed before still verifies.
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { tempDir } from '../../support/temp.js';
import { alphaAndAna, hookCall, localRows, member, sql, teamDatabase, untilLocal } from '../../support/team-hosts.js';

/** Supervised: `make` asks, and the hook answers "ask" at once (Claude Code would ask its user). */
const SETTINGS = { mode: 'live', autonomy: 'supervised', hookAsk: 'agent' };
const bash = (command: string) => ({ name: 'Bash', input: { command } as Record<string, unknown> });

function decision(body: string): string {
  const o = (JSON.parse(body) as { hookSpecificOutput?: { permissionDecision: string } }).hookSpecificOutput;
  return o?.permissionDecision ?? 'none';
}

describe.runIf(pgMissing('team-grants') === null)('team grants: signed, held by the members they cover, revoked everywhere', () => {
  const cluster = useCluster();

  it('holds a signed team grant, refuses a forged one, ignores another member\'s, and drops a revoked one', async () => {
    const url = await teamDatabase(cluster(), 'grants');
    const { alphaUrl, consoles, anaHome: opHome, asAna } = await alphaAndAna(url);
    const alpha = await member(alphaUrl, 'alpha', SETTINGS);
    let n = 0;
    const call = async (command: string) => decision((await hookCall(alpha.info, `grants-${++n}`, n, bash(command))).body);

    expect(await call('make')).toBe('ask');
    // A prefix that would run anything is refused before anything is stored.
    const wide = await runCli(['team', 'grant', 'add', '--command', 'bash -c', '--home', opHome], asAna);
    expect(wide.code).toBe(2);
    expect(wide.stderr).toMatch(/--command bash runs whatever its arguments say/);

    // 1. For beta only: alpha's role cannot even read it. For every member: alpha holds it.
    expect((await runCli(['team', 'grant', 'add', '--command', 'cargo build', '--member', 'beta', '--home', opHome], asAna)).code).toBe(0);
    const added = await runCli(['team', 'grant', 'add', '--command', 'make', '--minutes', '120', '--home', opHome], asAna);
    expect(added.stderr).toBe('');
    const id = /^Team grant ([0-9a-f-]{36}) stored, signed by ana: command make on every member until /m.exec(added.stdout)?.[1];
    expect(id).toBeDefined();
    await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'grant.created' && x.payload.id === `team-grant-${id}`));
    expect(await call('make')).toBe('allow');
    expect(await call('cargo build')).toBe('ask');
    expect(localRows(alpha.home).filter((x) => x.type === 'grant.created').map((x) => x.payload.value)).toEqual(['make']);

    // 2. Alpha's own credentials cannot write a grant; a console role's can, but a signature copied
    // from the make grant onto another command is refused, recorded, and lets nothing through.
    const [real] = await sql<{ signature: string; created_at: string; expires_at: string }>(url, 'SELECT signature, created_at, expires_at FROM team_grants WHERE id = $1', [id]);
    const forge = (db: string) => sql(db, "INSERT INTO team_grants (id, kind, value, member, operator, console, created_at, expires_at, signature) VALUES ('forged-1', 'command', 'cargo build', NULL, 'ana', 'desk', $1, $2, $3)", [Number(real!.created_at), Number(real!.expires_at), real!.signature]);
    await expect(forge(alphaUrl)).rejects.toThrow(/permission denied for table team_grants/);
    await forge(consoles);
    const refused = (await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'team.grant-refused'))).find((x) => x.type === 'team.grant-refused')!;
    expect(refused.payload).toMatchObject({ id: 'forged-1', operator: 'ana', value: 'cargo build', problem: `the signature is not operator "ana"'s over this grant` });
    expect(await call('cargo build')).toBe('ask');

    // A folder that leads elsewhere on alpha (the agent made it a symlink to /etc before the grant
    // arrived) is not held: the operator signed the folder as written.
    const trap = tempDir('gatehouse-team-grants-trap-');
    symlinkSync('/etc', join(trap, 'out'));
    expect((await runCli(['team', 'grant', 'add', '--path', join(trap, 'out'), '--home', opHome], asAna)).code).toBe(0);
    const widened = (await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'team.grant-refused' && x.payload.kind === 'path'))).find((x) => x.type === 'team.grant-refused' && x.payload.kind === 'path')!;
    expect(widened.payload.problem).toBe(`${join(trap, 'out')} leads through a symlink to /etc on this machine`);

    // 3. Revoked (by the start of its id): alpha drops it, and make asks again; a revocation is final.
    await expect(sql(consoles, 'UPDATE team_grants SET revoked_at = 1 WHERE id = $1', [`forged-1`])).resolves.toEqual([]);
    await expect(sql(consoles, 'UPDATE team_grants SET revoked_at = NULL WHERE id = $1', ['forged-1'])).rejects.toThrow(/revoked already; a revocation is final/);
    const listed = await runCli(['team', 'grant', 'list'], asAna);
    expect(listed.stdout).toContain(`${id!.slice(0, 8)}  command make  on every member  by ana`);
    const revoked = await runCli(['team', 'grant', 'revoke', id!.slice(0, 8)], asAna);
    expect(revoked.stdout).toMatch(/^Revoked team grant .*: command make\./);
    await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'grant.revoked' && x.payload.id === `team-grant-${id}`));
    expect(await call('make')).toBe('ask');

    // 4. Ana's key revoked (a lost laptop) by the owner: alpha drops the grant she made since, refuses
    // what she signs from now on, and what she signed before still verifies in the team trail.
    const policy = join(tempDir('gatehouse-team-grants-'), 'team.yaml');
    writeFileSync(policy, 'version: 1\nrules: []\n');
    expect((await runCli(['team', 'policy', 'publish', policy, '--home', opHome], asAna)).code).toBe(0);
    const again = /^Team grant ([0-9a-f-]{36}) stored/m.exec((await runCli(['team', 'grant', 'add', '--command', 'make', '--home', opHome], asAna)).stdout)?.[1];
    await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'grant.created' && x.payload.id === `team-grant-${again}`));
    expect(await call('make')).toBe('allow');
    const byConsole = await runCli(['operator', 'revoke', 'ana'], { GATEHOUSE_TEAM_URL: consoles });
    expect(byConsole.code).toBe(1);
    expect(byConsole.stderr).toMatch(/permission denied for table team_operators/);
    const revokedAna = await runCli(['operator', 'revoke', 'ana'], { GATEHOUSE_TEAM_URL: url });
    expect(revokedAna.stdout).toMatch(/^Operator ana's key is revoked \(.*\): members refuse what it signs from now on, and drop the team grants it made\./);
    await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'grant.revoked' && x.payload.id === `team-grant-${again}`));
    expect(await call('make')).toBe('ask');
    expect((await runCli(['operator', 'list'], { GATEHOUSE_TEAM_URL: consoles })).stdout).toMatch(/^ana {2}registered from desk at .* {2}REVOKED at /m);
    writeFileSync(policy, 'version: 1\nrules: []\n# after the revocation\n');
    expect((await runCli(['team', 'policy', 'publish', policy, '--home', opHome], asAna)).code).toBe(0);
    const refusedPolicy = (await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'team.policy-refused'))).find((x) => x.type === 'team.policy-refused')!;
    expect(refusedPolicy.payload).toMatchObject({ version: 2, operator: 'ana', inForce: 1 });
    expect(String(refusedPolicy.payload.problem)).toMatch(/^operator "ana"'s key was revoked at /);
    const verify = await runCli(['audit', 'verify', '--team'], { GATEHOUSE_TEAM_URL: consoles });
    expect(verify.stdout).toMatch(/^team policy version 2 NOT signed by an operator: operator "ana"'s key was revoked at /m);
    expect(verify.stdout).toMatch(/^Team policy: 1 of 2 versions NOT signed by a registered operator\./m);
  }, 180_000);
});
