// Issue #28, the console side of team mode: what a running host tells its consoles over the one
// contract, against real `gatehouse serve --team` hosts (the built CLI) and a throwaway PostgreSQL
// cluster. The link is pushed as `team.link` (up with its lag, down with the reason, up again);
// `team.members` lists the team as `gatehouse team status` does, every member with an owner's or
// console's URL and only its own with a member's role (and says so); outside team mode it is null.
// `audit.search` with scope 'team' searches every member's events, secrets masked. The inbox's other
// machines: `team.asks` lists another member's ask (pushed as `team.asksChanged`), and `team.decide`
// signs a decision with this home's operator key as `approvals approve --team` does: refused without
// a key (naming `gatehouse operator create`) or on other arguments, applied by the member, first one wins.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { askOf, hookCall, localRows, member, soloHost, teamDatabase, untilLocal, type TeamHost } from '../../support/team-hosts.js';
import type { ResponseOf, TeamLinkView } from '../../../shared/contract.js';

type TeamView = NonNullable<ResponseOf<'team.members'>['team']>;

async function call<T>(host: TeamHost, method: string, params: unknown = {}): Promise<T> {
  const frame = await host.op.call(method, params);
  if (frame.ok !== true) throw new Error(`${method} failed: ${JSON.stringify(frame.error)}`);
  return frame.result as T;
}

/** The first `team.link` push (since the WebSocket opened) that `ok` accepts. */
async function linkPush(host: TeamHost, ok: (s: TeamLinkView) => boolean): Promise<TeamLinkView> {
  return (await host.op.waitForEvent((e) => e.event === 'team.link' && ok(e.payload as TeamLinkView))).payload as TeamLinkView;
}

describe.runIf(pgMissing('team-console') === null)('team console: the link and the members, as a host tells its consoles', () => {
  const cluster = useCluster();

  it('pushes the link (up, down with the reason, up again), lists the members by role and searches the team trail; null outside team mode', async () => {
    const url = await teamDatabase(cluster(), 'console');
    expect((await runCli(['team', 'add-role', 'alpha_host', '--member', 'alpha'], { GATEHOUSE_TEAM_URL: url })).stderr).toBe('');
    // alpha ships under a member's role; beta with the owner's URL, which reads the whole team.
    const [alpha, beta, solo] = await Promise.all([member(url.replace('//gatehouse@', '//alpha_host@'), 'alpha'), member(url, 'beta'), soloHost()]);

    expect(await call(solo, 'team.members')).toEqual({ team: null });
    expect(await call(solo, 'team.status')).toBeNull();
    expect(await call(solo, 'team.asks')).toMatchObject({ asks: null, error: null });

    // A call on alpha: its push reaches a lag of 0 at the new head.
    await Promise.all([linkPush(alpha, (s) => s.link === 'up'), linkPush(beta, (s) => s.link === 'up')]);
    expect((await hookCall(alpha.info, 'console-one', 1)).status).toBe(200);
    const head = (await call<TeamLinkView>(alpha, 'team.status')).localHead;
    await linkPush(alpha, (s) => s.link === 'up' && s.shippedSeq !== null && s.shippedSeq >= head && s.lag === 0);

    const seen = await call<{ team: TeamView }>(beta, 'team.members');
    expect(seen.team).toMatchObject({ member: 'beta', url, ownMemberOnly: false, error: null, link: { member: 'beta', link: 'up' } });
    expect(seen.team.members!.map((m) => m.name)).toEqual(['alpha', 'beta']);
    const a = seen.team.members!.find((m) => m.name === 'alpha')!;
    expect(a.shippedSeq).toBeGreaterThanOrEqual(head);
    expect(a.version).toMatch(/^\d+\.\d+\.\d+/);
    // Row-level security: alpha's own role reads its own member only, and the answer says so.
    const own = await call<{ team: TeamView }>(alpha, 'team.members');
    expect(own.team).toMatchObject({ member: 'alpha', ownMemberOnly: true, error: null });
    expect(own.team.members!.map((m) => m.name)).toEqual(['alpha']);

    // The Audit view's team scope (audit.search, scope 'team'): beta finds alpha's call, with its
    // member, the key in its arguments masked; facets the team search has not are refused.
    const key = `ghp_${'a1b2c3d4e5'.repeat(4)}`;
    expect((await hookCall(alpha.info, 'console-search', 3, { name: 'Read', input: { file_path: `/tmp/quartzteam-${key}.txt` } })).status).toBe(200);
    const searched = (await call<TeamLinkView>(alpha, 'team.status')).localHead;
    await linkPush(alpha, (s) => s.shippedSeq !== null && s.shippedSeq >= searched);
    const found = await call<ResponseOf<'audit.search'>>(beta, 'audit.search', { query: 'quartzteam', scope: 'team', types: ['call.received'] });
    expect(found.events.map((e) => [e.member, e.type])).toEqual([['alpha', 'call.received']]);
    expect(JSON.stringify(found.events[0]!.payload)).not.toContain(key);
    expect(JSON.stringify(found.events[0]!.payload)).toContain('ghp_[REDACTED]');
    expect((await call<ResponseOf<'audit.search'>>(beta, 'audit.search', { query: 'quartzteam', scope: 'team', member: 'beta' })).events).toEqual([]);
    expect((await call<ResponseOf<'audit.search'>>(beta, 'audit.search', { query: 'quartzteam' })).events).toEqual([]);
    const refused = async (host: TeamHost, params: unknown) => ((await host.op.call('audit.search', params)).error as { code: string; message: string });
    expect(await refused(beta, { query: 'quartzteam', member: 'alpha' })).toMatchObject({ code: 'rejected', message: expect.stringMatching(/member facet applies to the team scope/) });
    expect(await refused(beta, { query: 'quartzteam', scope: 'team', severity: 'high' })).toMatchObject({ code: 'rejected', message: expect.stringMatching(/severity facet is not available in the team scope/) });
    expect(await refused(solo, { query: 'quartzteam', scope: 'team' })).toMatchObject({ code: 'rejected', message: expect.stringMatching(/not in team mode.*gatehouse serve --team URL/) });

    // The outage is pushed with its reason, the Team view reads why, and the link comes back.
    alpha.op.events.length = 0;
    await cluster().stop();
    expect((await hookCall(alpha.info, 'console-two', 2)).status).toBe(200);
    const down = await linkPush(alpha, (s) => s.link === 'down');
    expect(down.lastError).toMatch(/refused|terminat|shut ?down|connection/i);
    expect(down.lag).toBeGreaterThan(0);
    const unreachable = await call<{ team: TeamView }>(alpha, 'team.members');
    expect(unreachable.team).toMatchObject({ members: null, link: { link: 'down' } });
    expect(unreachable.team.error).toMatch(/refused|terminat|shut ?down|connect/i);
    await cluster().start();
    await linkPush(alpha, (s) => s.link === 'up' && s.lag === 0);
    expect((await call<{ team: TeamView }>(alpha, 'team.members')).team.members!.map((m) => m.name)).toEqual(['alpha']);
    for (const h of [alpha, beta, solo]) await h.op.close();
    // Three hosts and an outage: as the other team tests, minutes on a loaded two-core machine.
  }, 180_000);

  it("lists another member's asks and decides one with this home's operator key; the member applies it", async () => {
    const url = await teamDatabase(cluster(), 'console_inbox');
    expect((await runCli(['team', 'add-role', 'beta_host', '--member', 'beta'], { GATEHOUSE_TEAM_URL: url })).stderr).toBe('');
    const asking = { mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' };
    // alpha decides with the owner's URL (it reads every member's asks); beta asks, under its member role.
    const [alpha, beta] = await Promise.all([member(url, 'alpha'), member(url.replace('//gatehouse@', '//beta_host@'), 'beta', asking)]);
    type Asks = ResponseOf<'team.asks'>;
    expect(await call<Asks>(alpha, 'team.asks')).toMatchObject({ asks: [], error: null });

    const answer = hookCall(beta.info, 'console-ask', 1, { name: 'Bash', input: { command: 'make' } });
    const ask = await askOf(url, 'console-ask');
    await alpha.op.waitForEvent((e) => e.event === 'team.asksChanged');
    const listed = await call<Asks>(alpha, 'team.asks');
    expect(listed.asks!.map((a) => [a.member, a.approvalId, a.tool, a.arguments, a.argsHash])).toEqual([['beta', ask.approval_id, 'Bash', '{"command":"make"}', ask.args_hash]]);
    // beta's own ask is in its local inbox, not listed again among the other machines'.
    expect((await call<Asks>(beta, 'team.asks')).asks).toEqual([]);

    const decide = (host: TeamHost, params: Record<string, unknown>) => host.op.call('team.decide', { member: 'beta', approvalId: ask.approval_id, argsHash: ask.args_hash, decision: 'approved', ...params });
    const noKey = await decide(alpha, {});
    expect(noKey.error).toMatchObject({ code: 'rejected', message: expect.stringMatching(/No operator key in .*operators: a team decision must be signed by a named operator\. Create yours with gatehouse operator create NAME\./) });
    expect((await runCli(['operator', 'create', 'ana', '--home', alpha.home], { GATEHOUSE_TEAM_URL: url })).code).toBe(0);
    const otherArgs = await decide(alpha, { argsHash: 'f'.repeat(64) });
    expect(otherArgs.error).toMatchObject({ code: 'rejected', message: expect.stringMatching(/not the ffffffffffff… you reviewed/) });

    const approved = await decide(alpha, {});
    expect(approved).toMatchObject({ ok: true, result: { outcome: 'stored', operator: 'ana', message: expect.stringMatching(/^Approved .* on beta as ana: Bash; beta applies it once it has checked the signature\.$/) } });
    expect(JSON.parse((await answer).body).hookSpecificOutput.permissionDecision).toBe('allow');
    const applied = (await untilLocal(beta.home, beta.op, (r) => r.some((x) => x.type === 'approval.decided'))).find((x) => x.type === 'approval.decided')!;
    expect(applied.payload).toMatchObject({ id: ask.approval_id, state: 'approved', operator: 'ana', console: 'alpha' });
    // The operator's action is in alpha's own chain too.
    expect(localRows(alpha.home).find((r) => r.type === 'team.decision-sent')?.payload).toMatchObject({ member: 'beta', id: ask.approval_id, decision: 'approved', operator: 'ana', outcome: 'stored' });

    // Decided already: a second decision is not stored, and says who came first.
    const again = await decide(alpha, { decision: 'denied', reason: 'too late' });
    expect(again).toMatchObject({ ok: true, result: { outcome: 'taken', message: expect.stringMatching(/was already approved by ana from alpha; your decision was not stored/) } });
    await alpha.op.waitForEvent((e) => e.event === 'team.asksChanged');
    expect((await call<Asks>(alpha, 'team.asks')).asks).toEqual([]);
    for (const h of [alpha, beta]) await h.op.close();
  }, 180_000);
});
