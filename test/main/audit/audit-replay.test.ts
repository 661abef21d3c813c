// Shadow replay (`audit.replay`) against a real host: a session of calls recorded through the
// gateway (dry-run, full autonomy), replayed with today's policy (nothing changes) and with a
// draft that denies one of them (exactly that call changes, decided by the draft rule).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import type { ResponseOf } from '../../../shared/contract.js';
import { tempDir } from '../../support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

async function hostWithSession(): Promise<{ host: Host; dir: string; ids: Record<string, string> }> {
  const root = tempDir('gatehouse-replay-');
  const home = join(root, 'home');
  const dir = join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ autonomy: 'full' }));
  const host = createHost({ home, shell: 'cli', log: () => {}, projectDir: dir, watch: false });
  hosts.push(host);
  await host.ready;
  const ids: Record<string, string> = {};
  const call = async (name: string, session: string, command: string) => {
    const r = await host.gateway.call({ agent: 'claude', session, tool: 'shell', arguments: { command }, source: 'api' });
    ids[name] = r.call.id;
    return r;
  };
  expect((await call('read', 's1', `cat ${dir}/a.txt`)).decision).toBe('allow');
  expect((await call('list', 's1', `ls ${dir}`)).decision).toBe('allow');
  expect((await call('delete', 's1', `rm ${dir}/b.txt`)).decision).toBe('allow');
  expect((await call('other', 's2', `rm ${dir}/c.txt`)).decision).toBe('allow');
  return { host, dir, ids };
}

async function replay(host: Host, params: Record<string, unknown>): Promise<ResponseOf<'audit.replay'>> {
  const r = await host.dispatcher.dispatch('audit.replay', params, { operator: 'tester', console: 'cli' });
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.result as ResponseOf<'audit.replay'>;
}

describe('audit.replay (shadow mode)', () => {
  it("today's policy over a recorded session changes nothing", async () => {
    const { host, ids } = await hostWithSession();
    const r = await replay(host, { session: 's1' });
    expect(r.calls.map((c) => c.call)).toEqual([ids.read, ids.list, ids.delete]);
    expect(r.changed).toBe(0);
    expect(r.policyProblems).toEqual([]);
    for (const c of r.calls) {
      expect(c).toMatchObject({ session: 's1', agent: 'claude', tool: 'shell', changed: false, recorded: { decision: 'allow', decider: { kind: 'autonomy', level: 'full' } }, replayed: { decision: 'allow' } });
    }
  });

  it('a draft that denies one call shows exactly that call changed, with the draft rule as decider; the policy file is untouched', async () => {
    const { host, dir, ids } = await hostWithSession();
    const versionBefore = host.policy.state.version;
    const headBefore = host.audit.headSeq;
    const draft = `rules:\n  - name: no-deletes-here\n    actions: [delete]\n    block_paths: ["${dir}/**"]\n    message: Nothing is deleted in the work folder.\n    decision: deny\n`;
    const r = await replay(host, { session: 's1', policyText: draft });
    expect(r.policyProblems).toEqual([]);
    expect(r.changed).toBe(1);
    const changed = r.calls.filter((c) => c.changed);
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({
      call: ids.delete,
      recorded: { decision: 'allow', decider: { kind: 'autonomy', level: 'full' } },
      replayed: { decision: 'deny', decider: { kind: 'rule', rule: 'no-deletes-here' } },
    });
    expect(changed[0]!.replayed.reason).toContain('Nothing is deleted in the work folder.');
    // The other session's delete is outside the replay; a time range covering everything finds it too.
    const all = await replay(host, { from: 0, policyText: draft });
    expect(all.calls.filter((c) => c.changed).map((c) => c.call)).toEqual([ids.delete, ids.other]);
    expect(host.policy.state.version).toBe(versionBefore);
    // Replay decides nothing for real: not one event was written.
    expect(host.audit.headSeq).toBe(headBefore);
  });

  it('a draft with a rejected rule replays without it and names the problem; an unreadable draft judges nothing', async () => {
    const { host } = await hostWithSession();
    const rejected = await replay(host, { session: 's1', policyText: 'rules:\n  - name: x\n    actions: [fly]\n' });
    expect(rejected.calls).toHaveLength(3);
    expect(rejected.changed).toBe(0);
    expect(rejected.policyProblems[0]).toMatchObject({ line: expect.any(Number), message: expect.stringContaining('actions[0]') });
    const broken = await replay(host, { session: 's1', policyText: 'rules: [\n' });
    expect(broken.calls).toEqual([]);
    expect(broken.policyProblems.length).toBeGreaterThan(0);
  });

  it("a call an operator approved keeps the operator's decision when the policy answers as it did", async () => {
    const { host, dir } = await hostWithSession();
    host.settings.update({ autonomy: 'supervised' }, 'operator:tester');
    const pending = host.gateway.call({ agent: 'claude', session: 's3', tool: 'shell', arguments: { command: `touch ${dir}/d.txt` }, source: 'api' });
    const item = await new Promise<{ id: string; argsHash: string }>((resolve) => {
      const check = () => {
        const items = host.approvals.list({ state: 'pending' });
        if (items.length > 0) {
          off();
          resolve(items[0] as never);
        }
      };
      const off = host.bus.subscribe((name) => {
        if (name === 'approvals.changed') check();
      });
      check();
    });
    host.approvals.approve(item.id, { operator: 'tester', argsHash: item.argsHash, scope: 'once' });
    expect((await pending).decision).toBe('allow');
    const r = await replay(host, { session: 's3' });
    expect(r.calls).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ changed: false, waiting: false, recorded: { decision: 'allow', decider: { kind: 'operator', operator: 'tester' } }, replayed: { decision: 'allow', decider: { kind: 'operator', operator: 'tester' } } });
  });
});
