// A grant made from the inbox also answers the calls already waiting that it covers (issue #26
// item 3): each is judged again as a new call would be (the rules on its recorded extraction, the
// level, then the live grants), and released by the grant, recorded as decided by it. A call the
// rules still ask about, or one outside the grant's scope, keeps waiting. The grant preview names
// waiting calls "waiting" and counts them. A real host, real judge, real audit database.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import type { ToolCall } from '../../../main/policy/types.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

async function startHost(): Promise<{ host: Host; work: string }> {
  const base = mkdtempSync(join(tmpdir(), 'gatehouse-grant-sweep-'));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const work = join(base, 'work');
  const home = join(base, 'gatehouse-home');
  mkdirSync(join(work, 'secret'), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ autonomy: 'supervised', mode: 'dry-run', hookAsk: 'inbox' }));
  // A rule that asks about writes under secret/: a folder grant over the project must not outrank it.
  writeFileSync(join(home, 'policy.yaml'), 'rules:\n  - name: ask-secret\n    actions: [write]\n    block_paths: ["**/secret/**"]\n    decision: ask\n    message: Secrets are written by a person.\n');
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: work, watch: false });
  hosts.push(host);
  await host.ready;
  return { host, work };
}

const op = (host: Host, method: string, params: unknown) => host.dispatcher.dispatch(method, params, { operator: 'alice', console: 'serve' });

/** The pending item of this call id, once the host says the inbox changed (no polling). */
function pending(host: Host, callId: string): Promise<{ id: string; argsHash: string }> {
  return new Promise((resolve) => {
    const take = () => {
      const p = host.approvals.list({ state: 'pending' }).find((i) => i.call.id === callId);
      if (p) resolve(p);
      return p !== undefined;
    };
    if (take()) return;
    const off = host.bus.subscribe((name) => {
      if (name === 'approvals.changed' && take()) off();
    });
  });
}

describe('a grant sweeps the waiting calls it covers', () => {
  it('a folder grant releases the waiting writes inside it (decided by the grant, in the audit), not one a rule asks about nor another session\'s', { timeout: 60_000 }, async () => {
    const { host, work } = await startHost();
    const send = (id: string, file: string, session = 's1') => {
      const call: Omit<ToolCall, 'receivedAt'> = { id, agent: 'claude', session, tool: 'Write', arguments: { file_path: join(work, file), content: 'x' }, cwd: work, source: 'hook' };
      return host.gateway.call(call, { execute: false });
    };
    const calls = { a: send('c-a', 'a.txt'), b: send('c-b', 'b.txt'), c: send('c-c', 'c.txt'), secret: send('c-secret', 'secret/k.txt'), other: send('c-other', 'd.txt', 's2') };
    const items = Object.fromEntries(await Promise.all(Object.entries(calls).map(async ([k]) => [k, await pending(host, `c-${k}`)] as const)));
    const answered: string[] = [];
    for (const [k, p] of Object.entries(calls)) void p.then((r) => answered.push(`${k}:${r.decision}:${r.decider.kind}`));

    // The preview counts the waiting calls it covers and calls them "waiting", not "unknown".
    const preview = await op(host, 'grants.preview', { id: items.a!.id, kind: 'path', value: work, scope: 'session' });
    expect(preview).toMatchObject({ ok: true, result: { coversCall: true, count: 3, waiting: 3 } });
    const decisions = (preview as { result: { examples: { decision: string }[] } }).result.examples.map((e) => e.decision);
    expect(decisions).toEqual(['waiting', 'waiting', 'waiting']);

    const granted = await op(host, 'approvals.grant', { id: items.a!.id, argsHash: items.a!.argsHash, kind: 'path', value: work, scope: 'session', minutes: 30 });
    expect(granted.ok, JSON.stringify(granted)).toBe(true);
    const grantId = (granted as { result: { grant: { id: string } } }).result.grant.id;
    expect(await calls.a).toMatchObject({ decision: 'allow', decider: { kind: 'operator' } });
    expect(await calls.b).toMatchObject({ decision: 'allow', decider: { kind: 'grant', grant: grantId } });
    expect(await calls.c).toMatchObject({ decision: 'allow', decider: { kind: 'grant', grant: grantId } });
    expect(host.approvals.get(items.b!.id)).toMatchObject({ state: 'approved', operator: null, outcome: { decider: { kind: 'grant', grant: grantId } } });
    // The rule still asks, and a session grant does not reach session s2: both wait.
    expect(host.approvals.get(items.secret!.id)?.state).toBe('pending');
    expect(host.approvals.get(items.other!.id)?.state).toBe('pending');
    expect(answered.sort()).toEqual(['a:allow:operator', 'b:allow:grant', 'c:allow:grant']);

    // Each released call is in the audit log on its own, decided by the grant.
    const audit = host.audit;
    audit.flush();
    const rows = audit.db.prepare("SELECT actor, payload FROM events WHERE type = 'approval.decided'").all() as { actor: string; payload: string }[];
    const byGrant = rows.filter((r) => r.actor === `grant:${grantId}`).map((r) => JSON.parse(r.payload) as { id: string; grant: string; state: string });
    expect(byGrant.map((p) => p.id).sort()).toEqual([items.b!.id, items.c!.id].sort());
    for (const p of byGrant) expect(p).toMatchObject({ grant: grantId, state: 'approved' });

    // A grant taken back releases nothing.
    await op(host, 'grants.revoke', { id: grantId });
    expect(() => host.approvals.releaseByGrant(items.other!.id, grantId)).toThrow(/has ended/);
    expect(host.approvals.get(items.other!.id)?.state).toBe('pending');
  });

  it('"for this session" releases the identical calls waiting in that session', { timeout: 60_000 }, async () => {
    const { host, work } = await startHost();
    const send = (id: string, session: string) => host.gateway.call({ id, agent: 'claude', session, tool: 'Bash', arguments: { command: 'git push --force' }, cwd: work, source: 'hook' }, { execute: false });
    const first = send('p1', 's1');
    const same = [send('p2', 's1'), send('p3', 's1')];
    const elsewhere = send('p4', 's2');
    const item = await pending(host, 'p1');
    for (const id of ['p2', 'p3', 'p4']) await pending(host, id);
    const r = await op(host, 'approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'session' });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect((await first).decider.kind).toBe('operator');
    for (const p of same) expect(await p).toMatchObject({ decision: 'allow', decider: { kind: 'grant' } });
    expect(host.approvals.list({ state: 'pending' }).map((i) => i.call.id)).toEqual(['p4']);
    void elsewhere;
  });
});
