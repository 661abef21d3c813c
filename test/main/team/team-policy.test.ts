// Issue #28, one policy for the team: a real `gatehouse serve --team URL` member (the built CLI)
// and a throwaway PostgreSQL cluster on loopback. A version published with `gatehouse team policy
// publish` (ana's operator key) is applied by the member and judges its agent's next call, which
// records the version; the member's database role cannot write a version; versions written with a
// console role's credentials that no operator signed (a replayed signature, an unknown operator)
// are refused, recorded and named by `audit verify --team`, and the version in force stays; the
// next signed version is applied past them; restarted with the team database unreachable, the
// member enforces the version it applied last, and with teamOutageAsks "deny" refuses asks at once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homePaths } from '../../../main/home.js';
import { readServeFile } from '../../../main/shells/serve/serve-file.js';
import { newOperatorKeys, signPolicy } from '../../../main/team/decision-signature.js';
import { sha256Hex } from '../../../main/team/team-policy.js';
import { runCli, startCli } from '../../support/cli.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { tempDir } from '../../support/temp.js';
import { alphaAndAna, hookCall, localRows, member, sql, teamDatabase, untilLocal, type LocalRow } from '../../support/team-hosts.js';

const SETTINGS = { mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' };
const SECRET = { name: 'Read', input: { file_path: '/srv/team-secret/keys.txt' } as Record<string, unknown> };
const DENY_SECRET = `version: 1
rules:
  - name: team-no-secrets
    actions: [read]
    block_paths: ["/srv/team-secret/**"]
    decision: deny
    message: The team keeps /srv/team-secret off limits.
`;
const DENY_SECRET_AND_VAULT = `${DENY_SECRET}  - name: team-no-vault
    actions: [read]
    block_paths: ["/srv/vault/**"]
    decision: deny
    message: The vault is off limits too.
`;

function answer(body: string): { decision: string; reason: string } {
  const o = (JSON.parse(body) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  // Let through with nothing to add: Gatehouse answers {"continue":true}.
  if (!o) return { decision: 'allow', reason: '' };
  return { decision: o.permissionDecision, reason: o.permissionDecisionReason };
}

/** The call.decided row of the call a hook made in `session`. */
function decidedIn(rows: LocalRow[], session: string): LocalRow {
  const received = rows.find((r) => r.type === 'call.received' && String(r.payload.session).endsWith(session))!;
  return rows.find((r) => r.type === 'call.decided' && r.payload.call === received.payload.call)!;
}

describe.runIf(pgMissing('team-policy') === null)('team policy: signed versions, applied by every member', () => {
  const cluster = useCluster();

  it('applies a signed version, refuses unsigned ones, records the version each decision used, and keeps it offline', async () => {
    const url = await teamDatabase(cluster(), 'policy');
    const { alphaUrl, consoles, anaHome: opHome, asAna } = await alphaAndAna(url);
    const alpha = await member(alphaUrl, 'alpha', SETTINGS);
    const work = tempDir('gatehouse-team-policy-');

    // Before any team policy, the read is allowed; its decision names no team version.
    expect(answer((await hookCall(alpha.info, 'before', 1, SECRET)).body).decision).toBe('allow');

    // A file with a problem is never published: every member would refuse it.
    writeFileSync(join(work, 'broken.yaml'), 'version: 1\nrules:\n  - name: x\n    decision: maybe\n');
    const broken = await runCli(['team', 'policy', 'publish', join(work, 'broken.yaml'), '--home', opHome], asAna);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.yaml was not published: members would refuse a policy with problems/);
    expect(await sql(url, 'SELECT version FROM team_policies')).toEqual([]);

    // 1. Ana publishes version 1; alpha applies it and the next call is judged by it.
    writeFileSync(join(work, 'team.yaml'), DENY_SECRET);
    const published = await runCli(['team', 'policy', 'publish', join(work, 'team.yaml'), '--home', opHome], asAna);
    expect(published.stderr).toBe('');
    expect(published.stdout).toMatch(/^Published team policy version 1 \(1 rule, sha256 [0-9a-f]{16}…\), signed by ana\./);
    const applied = (await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'team.policy-applied'))).find((x) => x.type === 'team.policy-applied')!;
    expect(applied.payload).toMatchObject({ version: 1, sha256: sha256Hex(DENY_SECRET), operator: 'ana', console: 'desk', rules: 1 });
    const denied = answer((await hookCall(alpha.info, 'after-v1', 2, SECRET)).body);
    expect(denied).toMatchObject({ decision: 'deny' });
    expect(denied.reason).toContain('The team keeps /srv/team-secret off limits.');
    const rows = localRows(alpha.home);
    expect(decidedIn(rows, 'before').payload.policy).toEqual({ local: '' });
    expect(decidedIn(rows, 'after-v1').payload.policy).toEqual({ team: 1, local: '' });
    const shown = await runCli(['team', 'policy', 'show', '--json'], asAna);
    expect(JSON.parse(shown.stdout)).toMatchObject({ version: 1, operator: 'ana', console: 'desk', text: DENY_SECRET });

    // 2. Alpha's own credentials (its agents can read them) cannot write a version.
    const [v1] = await sql<{ signature: string; published_at: string }>(url, 'SELECT signature, published_at FROM team_policies WHERE version = 1');
    const insert = (db: string, text: string, operator: string, signature: string) =>
      sql(db, 'INSERT INTO team_policies (version, text, sha256, operator, console, published_at, signature) VALUES (2, $1, $2, $3, $4, $5, $6)', [text, sha256Hex(text), operator, 'desk', Number(v1!.published_at), signature]);
    const open = 'version: 1\nrules: []\n';
    await expect(insert(alphaUrl, open, 'ana', v1!.signature)).rejects.toThrow(/permission denied for table team_policies/);
    // Nor plant what the owner's triggers would run or read in its place: a function in public,
    // or a temporary table shadowing the one row-level security reads its member from.
    await expect(sql(alphaUrl, 'CREATE FUNCTION public.json_build_object(text, text) RETURNS json LANGUAGE sql AS $$ SELECT NULL::json $$')).rejects.toThrow(/permission denied for schema public/);
    await expect(sql(alphaUrl, 'CREATE TEMP TABLE team_member_roles (role name, member text)')).rejects.toThrow(/permission denied to create temporary tables/);
    // A console role cannot take the last version number either: versions come one after another.
    await expect(sql(consoles, 'INSERT INTO team_policies (version, text, sha256, operator, console, published_at, signature) VALUES (2147483647, $1, $2, $3, $4, 0, $5)', [open, sha256Hex(open), 'ana', 'desk', v1!.signature])).rejects.toThrow(/team policy version 2147483647 is not the next one/);

    // 3. A console role's credentials write versions no operator signed: ana's version-1 signature
    // replayed onto an empty policy, then one by an operator nobody registered. Alpha refuses both.
    await insert(consoles, open, 'ana', v1!.signature);
    await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'team.policy-refused' && x.payload.operator === 'ana'));
    await sql(url, 'DELETE FROM team_policies WHERE version = 2');
    const mallory = newOperatorKeys();
    await insert(consoles, open, 'mallory', signPolicy({ version: 2, sha256: sha256Hex(open), operator: 'mallory', console: 'desk', publishedAt: Number(v1!.published_at) }, mallory.privatePem));
    const refusals = (await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'team.policy-refused' && x.payload.operator === 'mallory'))).filter((x) => x.type === 'team.policy-refused');
    expect(refusals.map((x) => x.payload)).toEqual([
      { version: 2, operator: 'ana', problem: `the signature is not operator "ana"'s over this version`, inForce: 1 },
      { version: 2, operator: 'mallory', problem: 'operator "mallory" is not registered in team_operators', inForce: 1 },
    ]);
    expect(answer((await hookCall(alpha.info, 'after-forgery', 3, SECRET)).body).decision).toBe('deny');
    expect(decidedIn(localRows(alpha.home), 'after-forgery').payload.policy).toEqual({ team: 1, local: '' });
    const verify = await runCli(['audit', 'verify', '--team'], { GATEHOUSE_TEAM_URL: consoles });
    expect(verify.stdout).toContain('team policy version 2 NOT signed by an operator: operator "mallory" is not registered in team_operators');
    expect(verify.stdout).toMatch(/Team trail NOT intact: the team policy\./);
    expect(verify.code).toBe(1);

    // 4. Ana's next version (3, past the forged 2) is applied; team status shows what alpha applies.
    writeFileSync(join(work, 'team.yaml'), DENY_SECRET_AND_VAULT);
    expect((await runCli(['team', 'policy', 'publish', join(work, 'team.yaml'), '--home', opHome], asAna)).stdout).toMatch(/^Published team policy version 3 \(2 rules/);
    await untilLocal(alpha.home, alpha.op, (r) => r.some((x) => x.type === 'team.policy-applied' && x.payload.version === 3));
    expect(answer((await hookCall(alpha.info, 'vault', 4, { name: 'Read', input: { file_path: '/srv/vault/root.key' } })).body).reason).toContain('The vault is off limits too.');
    const status = await runCli(['team', 'status', '--json'], { GATEHOUSE_TEAM_URL: consoles });
    expect(JSON.parse(status.stdout)).toMatchObject({ policyVersion: 3, members: [{ name: 'alpha', policyVersion: 3 }] });

    // 5. Restarted with the team database unreachable, alpha enforces version 3 from its first call;
    // with teamOutageAsks "deny", a call that needs an operator is denied at once instead of waiting.
    alpha.cli.child.kill('SIGTERM');
    await alpha.cli.exited;
    writeFileSync(join(alpha.home, 'settings.json'), JSON.stringify({ ...SETTINGS, teamOutageAsks: 'deny' }));
    const offline = startCli(['serve', '--home', alpha.home, '--port', '0', '--team', 'postgres://alpha_host@127.0.0.1:1/policy', '--team-member', 'alpha']);
    await offline.waitForLine(/^Agents: MCP at/);
    const info = readServeFile(homePaths(alpha.home).serveJson)!;
    expect(answer((await hookCall(info, 'offline', 5, { name: 'Read', input: { file_path: '/srv/vault/root.key' } })).body).decision).toBe('deny');
    expect(decidedIn(localRows(alpha.home), 'offline').payload.policy).toEqual({ team: 3, local: '' });
    const asked = answer((await hookCall(info, 'offline-ask', 6, { name: 'Bash', input: { command: 'make' } })).body);
    expect(asked.decision).toBe('deny');
    expect(asked.reason).toMatch(/The team database is unreachable.*teamOutageAsks setting is "deny"/);
    expect(localRows(alpha.home).some((r) => r.type === 'approval.requested')).toBe(false);
    offline.child.kill('SIGTERM');
    await offline.exited;
  }, 240_000);
});
