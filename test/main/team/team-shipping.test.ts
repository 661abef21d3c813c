// Issue #28, one audit trail: real `gatehouse serve --team URL` hosts (the built CLI) with separate
// homes ship their chained events to one throwaway PostgreSQL cluster on loopback. One host's
// events are found by `gatehouse audit search --team` run as another machine would, `audit verify
// --team` passes and then names a row tampered in PostgreSQL; PostgreSQL is stopped while an agent
// keeps calling and started again: every call was answered, nothing is missing after the resume,
// the chains verify, and the outage is in the host's own log.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SHIPPED_CHANNEL } from '../../../main/team/team-shipper.js';
import { runCli } from '../../support/cli.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { hookCall, localRows, member, sql, teamDatabase, untilLocal } from '../../support/team-hosts.js';

/** Resolves once the team database holds `member`'s rows up to `seq`: checked now, then at each batch's NOTIFY. */
async function untilShipped(url: string, name: string, seq: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const notified = new Promise<void>((resolve) => {
      client.on('notification', (n) => {
        const p = JSON.parse(n.payload ?? '{}') as { member?: string; seq?: number };
        if (p.member === name && (p.seq ?? 0) >= seq) resolve();
      });
    });
    await client.query(`LISTEN ${SHIPPED_CHANNEL}`);
    const now = await client.query<{ s: string }>('SELECT shipped_seq AS s FROM team_members WHERE name = $1', [name]);
    if (Number(now.rows[0]?.s ?? 0) >= seq) return;
    await notified;
  } finally {
    await client.end();
  }
}

async function teamRows(url: string, name: string): Promise<{ seq: number; hash: string }[]> {
  return (await sql<{ seq: string; hash: string }>(url, 'SELECT seq, hash FROM team_events WHERE member = $1 ORDER BY seq', [name])).map((r) => ({ seq: Number(r.seq), hash: r.hash }));
}

describe.runIf(pgMissing('team-shipping') === null)('team mode: hosts ship their audit events to one PostgreSQL', () => {
  const cluster = useCluster();

  it("finds A's events with audit search --team run elsewhere; verify --team passes, then names a row tampered in PostgreSQL", async () => {
    const url = await teamDatabase(cluster(), 'two_hosts');
    const [a, b] = await Promise.all([member(url, 'alpha'), member(url, 'beta')]);
    for (let n = 0; n < 3; n++) expect((await hookCall(a.info, 'quartzfalcon-review', n)).status).toBe(200);
    expect((await hookCall(b.info, 'otter-build', 0)).status).toBe(200);
    const rowsA = await untilLocal(a.home, a.op, (rows) => rows.filter((r) => r.type === 'call.received').length === 3);
    const rowsB = await untilLocal(b.home, b.op, (rows) => rows.some((r) => r.type === 'call.received'));
    await Promise.all([untilShipped(url, 'alpha', rowsA.at(-1)!.seq), untilShipped(url, 'beta', rowsB.at(-1)!.seq)]);

    // From another machine's CLI (its own home; only the team URL in common).
    const found = await runCli(['audit', 'search', '--team', 'quartzfalcon', '--json', '--home', b.home], { GATEHOUSE_TEAM_URL: url });
    expect(found.stderr).toBe('');
    const r = JSON.parse(found.stdout) as { events: { member: string; seq: number; type: string; payload: { session?: string } }[]; total: number; nextBefore: null };
    expect(r.events.length).toBeGreaterThanOrEqual(3);
    expect(new Set(r.events.map((e) => e.member))).toEqual(new Set(['alpha']));
    const received = r.events.filter((e) => e.type === 'call.received');
    expect(received.map((e) => e.seq).sort((x, y) => x - y)).toEqual(rowsA.filter((x) => x.type === 'call.received').map((x) => x.seq));
    expect(received.every((e) => e.payload.session?.endsWith('quartzfalcon-review'))).toBe(true);
    const text = await runCli(['audit', 'search', '--team', 'quartzfalcon', '--type', 'call.received'], { GATEHOUSE_TEAM_URL: url });
    expect(text.stdout).toMatch(/^alpha\s+\d+\s+\S+\s+call\.received/m);
    expect(text.stdout).toMatch(/3 matching events across the team, 3 shown/);

    const intact = await runCli(['audit', 'verify', '--team'], { GATEHOUSE_TEAM_URL: url });
    expect(intact.stdout).toMatch(/^alpha: chain intact: \d+ events/m);
    expect(intact.stdout).toMatch(/^beta: chain intact: \d+ events/m);
    expect(intact.stdout).toMatch(/Team trail intact: 2 members/);
    expect(intact.code).toBe(0);

    const target = received[1]!.seq;
    await sql(url, "UPDATE team_events SET payload = replace(payload, 'quartzfalcon', 'quartzfa1con') WHERE member = 'alpha' AND seq = $1", [target]);
    const tampered = await runCli(['audit', 'verify', '--team'], { GATEHOUSE_TEAM_URL: url });
    expect(tampered.stdout).toMatch(new RegExp(`^alpha: chain broken: row ${target} was altered: its contents no longer match its hash`, 'm'));
    expect(tampered.stdout).toMatch(/^beta: chain intact/m);
    expect(tampered.stdout).toMatch(/Team trail NOT intact: alpha\./);
    expect(tampered.code).toBe(1);

    const status = await runCli(['team', 'status', '--json'], { GATEHOUSE_TEAM_URL: url });
    const members = (JSON.parse(status.stdout) as { members: { name: string; shippedSeq: number; stopped: boolean }[] }).members;
    expect(members.map((m) => m.name)).toEqual(['alpha', 'beta']);
    expect(members.every((m) => !m.stopped && m.shippedSeq > 0)).toBe(true);
  }, 180_000);

  it('keeps answering calls while PostgreSQL is down, and after it is back ships everything, in order, with the outage in the log', async () => {
    const url = await teamDatabase(cluster(), 'outage');
    const a = await member(url, 'gamma');
    for (let n = 0; n < 3; n++) expect((await hookCall(a.info, 'before-outage', n)).status).toBe(200);
    const before = await untilLocal(a.home, a.op, (rows) => rows.filter((r) => r.type === 'call.received').length === 3);
    await untilShipped(url, 'gamma', before.at(-1)!.seq);

    await cluster().stop();
    const answers = [];
    for (let n = 0; n < 20; n++) answers.push(await hookCall(a.info, 'during-outage', n));
    expect(answers.map((x) => x.status)).toEqual(Array(20).fill(200));
    expect(answers.every((x) => /permissionDecision/.test(x.body))).toBe(true);
    await untilLocal(a.home, a.op, (rows) => rows.some((r) => r.type === 'team.link' && r.payload.state === 'down'));
    // doctor, asking the running host, names the outage and where the events wait.
    const outage = await runCli(['doctor', '--home', a.home]);
    expect(outage.stdout).toMatch(/team.*ships as member gamma: the team database cannot be reached \(.*\); \d+ events? not shipped yet.*kept in the local log until it is back/);

    await cluster().start();

    // The shipper retries on its own (backoff), resumes from what PostgreSQL holds, and records the link coming back.
    const after = await untilLocal(a.home, a.op, (rows) => {
      const down = rows.findIndex((r) => r.type === 'team.link' && r.payload.state === 'down');
      return down >= 0 && rows.slice(down).some((r) => r.type === 'team.link' && r.payload.state === 'up');
    });
    await untilShipped(url, 'gamma', after.at(-1)!.seq);
    const shipped = await teamRows(url, 'gamma');
    const local = localRows(a.home);
    expect(shipped).toEqual(local.slice(0, shipped.length).map((r) => ({ seq: r.seq, hash: r.hash })));
    expect(shipped.length).toBeGreaterThanOrEqual(after.length);
    expect(local.filter((r) => r.type === 'call.received' && String(r.payload.session).endsWith('during-outage')).length).toBe(20);
    const down = local.find((r) => r.type === 'team.link' && r.payload.state === 'down')!;
    // Whichever PostgreSQL says as it stops (a shipment can land in its shutdown, 57P03) or after.
    expect(down.payload.error).toMatch(/refused|terminat|connect|shutting down/i);

    const verify = await runCli(['audit', 'verify', '--team'], { GATEHOUSE_TEAM_URL: url });
    expect(verify.stdout).toMatch(/^gamma: chain intact/m);
    expect(verify.code).toBe(0);
    expect((await runCli(['doctor', '--home', a.home])).stdout).toMatch(/team.*ships as member gamma: link up, \d+ events? not shipped yet/);
  }, 180_000);
});
