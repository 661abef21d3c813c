// Supervising an agent in a terminal, in a real host: the fixture agent (a node program in a real
// PTY) asks permission with numbered options; its adapter classifies the screen; the question
// becomes an inbox item judged by policy; the operator's answer is typed back and recorded.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEvent } from '../../../main/audit/event-schemas.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

async function start(settings: Record<string, unknown> = { mode: 'live' }) {
  const root = tempDir('gatehouse-adapters-');
  const home = join(root, 'home');
  const plugins = join(root, 'adapters');
  mkdirSync(join(root, 'work'));
  mkdirSync(join(home, 'plugins'), { recursive: true });
  mkdirSync(plugins, { recursive: true });
  cpSync(join(repoRoot, 'test/fixtures/adapters/permission-agent'), join(plugins, 'permission-agent'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify(settings));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: root, pluginDirs: [plugins] });
  hosts.push(host);
  await host.ready;
  const call = async (method: string, params: unknown) => {
    const env = await host.dispatcher.dispatch(method, params, { operator: 'alice', console: 'serve' });
    if (!env.ok) throw new Error(`${method}: ${env.error.message}`);
    return env.result as Record<string, unknown>;
  };
  return { host, call, home, root, agent: join(plugins, 'permission-agent', 'agent.mjs') };
}

type Item = { id: string; argsHash: string; state: string; call: { agent: string; tool: string; arguments: Record<string, unknown> } };

describe('supervising a terminal agent through its adapter', () => {
  it('the question reaches the inbox with the terminal as agent, an approval and a denial are typed back, and the fixture continues', async () => {
    const { call, root, agent } = await start();
    // The agent works in a project folder of its own (its default target would run in the adapter's folder).
    const s = (await call('adapter.start', { plugin: 'permission-agent', supervise: true, command: process.execPath, args: [agent], cwd: join(root, 'work') })) as { session: string; terminal: string };
    const pending = async () => ((await call('approvals.list', { state: 'pending' })).items as Item[]);
    await expect.poll(async () => (await pending()).length, { timeout: 15_000 }).toBe(1);
    const [first] = await pending();
    expect(first!.call.agent).toBe(`terminal:${s.terminal}`);
    expect(first!.call.tool).toBe('Bash');
    expect(first!.call.arguments).toMatchObject({ command: 'rm -rf build', question: 'Agent wants to run the command: rm -rf build', options: [{ key: '1', label: 'Yes, allow' }, { key: '2', label: 'No, deny' }] });
    expect(((await call('adapter.live', {})).sessions as { classification: { state: string } }[])[0]!.classification.state).toBe('waiting_for_permission');
    await call('approvals.approve', { id: first!.id, argsHash: first!.argsHash });
    const transcript = async () => ((await call('adapter.transcript', { session: s.session })).text as string);
    await expect.poll(transcript, { timeout: 15_000 }).toContain('got 1: allowed, continuing (removed build/)');

    await expect.poll(async () => (await pending()).length, { timeout: 15_000 }).toBe(1);
    const [second] = await pending();
    expect(second!.call.arguments).toMatchObject({ command: 'git push --force origin main' });
    await call('approvals.deny', { id: second!.id, reason: 'not on main' });
    await expect.poll(transcript, { timeout: 15_000 }).toContain('got 2: told no, skipping');
    await expect.poll(async () => ((await call('adapter.state', { session: s.session })) as { state: string }).state, { timeout: 15_000 }).toBe('done');

    const answered = (await call('audit.search', { query: '', types: ['adapter.answered'] })) as { events: { payload: Record<string, unknown> }[] };
    expect(answered.events.map((e) => [e.payload['decision'], e.payload['key'], e.payload['typed']]).sort()).toEqual([['allow', '1', true], ['deny', '2', true]]);
    const all = (await call('audit.search', { query: '', types: ['adapter.started', 'adapter.answered', 'adapter.denied', 'adapter.closed'] })) as { events: { seq: number; type: string; actor: string; payload: unknown }[] };
    expect(all.events.map((e) => checkEvent(e)).filter(Boolean)).toEqual([]);
  });

  // A review found both: an item whose question had left the screen stayed approvable, and its
  // key was then typed into the program's next question, which nobody approved.
  // Also when every question reads the same (Claude Code's "Do you want to proceed?" before each command): the command tells them apart.
  it.each([['its own words', []], ['the same words for every command', ['generic']]])('a question answered at the terminal is withdrawn from the inbox, the next question gets its own item, and approving the old one types nothing (questions in %s)', async (_layout, extra) => {
    const { call, root, agent } = await start();
    const s = (await call('adapter.start', { plugin: 'permission-agent', supervise: true, command: process.execPath, args: [agent, ...extra], cwd: join(root, 'work') })) as { session: string; terminal: string };
    const list = async (state: string) => ((await call('approvals.list', { state })).items as Item[]);
    const transcript = async () => ((await call('adapter.transcript', { session: s.session })).text as string);
    await expect.poll(async () => (await list('pending')).length, { timeout: 15_000 }).toBe(1);
    const [first] = await list('pending');
    expect(first!.call.arguments).toMatchObject({ command: 'rm -rf build' });
    // Whoever is at the terminal answers the first question there: no.
    await call('adapter.send', { session: s.session, prompt: '2' });
    await expect.poll(transcript, { timeout: 15_000 }).toContain('got 2: told no, skipping');
    // The first item leaves the inbox as gone; the second question is an item of its own.
    await expect.poll(async () => (await list('pending')).map((i) => i.call.arguments['command']), { timeout: 15_000 }).toEqual(['git push --force origin main']);
    expect((await list('gone')).map((i) => i.id)).toContain(first!.id);
    const late = await call('approvals.approve', { id: first!.id, argsHash: first!.argsHash }).catch((err: Error) => err);
    expect(late).toBeInstanceOf(Error);
    const answered = async () => ((await call('audit.search', { query: '', types: ['adapter.answered'] })) as { events: { payload: Record<string, unknown> }[] }).events.map((e) => e.payload);
    await expect.poll(answered, { timeout: 15_000 }).toEqual([expect.objectContaining({ question: extra.length ? 'Do you want to proceed?' : 'Agent wants to run the command: rm -rf build', decision: 'none', key: null, typed: false, reason: expect.stringMatching(/^Nothing was typed: .*no longer on the terminal's screen/) })]);
    // The second question is still the program's: nothing was typed into it.
    expect(await transcript()).not.toMatch(/got 1/);
    const withdrawn = (await call('audit.search', { query: '', types: ['approval.withdrawn'] })) as { events: unknown[] };
    expect(withdrawn.events).toHaveLength(1);
  });

  it("a question waiting when the terminal's adapter session is closed is withdrawn: gone, not approvable", async () => {
    const { call, root, agent } = await start();
    const s = (await call('adapter.start', { plugin: 'permission-agent', supervise: true, command: process.execPath, args: [agent], cwd: join(root, 'work') })) as { session: string; terminal: string };
    const list = async (state: string) => ((await call('approvals.list', { state })).items as Item[]);
    await expect.poll(async () => (await list('pending')).length, { timeout: 15_000 }).toBe(1);
    const [first] = await list('pending');
    await call('adapter.close', { session: s.session });
    await expect.poll(async () => (await list('gone')).map((i) => i.id), { timeout: 15_000 }).toContain(first!.id);
    expect(await list('pending')).toEqual([]);
    await expect(call('approvals.approve', { id: first!.id, argsHash: first!.argsHash })).rejects.toThrow();
  });

  it('dry-run: a question the operator approves is not answered; nothing is typed, the fixture still waits, and the log says so (issue #25)', async () => {
    const { call, root, agent } = await start({ mode: 'dry-run' });
    const s = (await call('adapter.start', { plugin: 'permission-agent', supervise: true, command: process.execPath, args: [agent], cwd: join(root, 'work') })) as { session: string; terminal: string };
    const pending = async () => ((await call('approvals.list', { state: 'pending' })).items as Item[]);
    await expect.poll(async () => (await pending()).length, { timeout: 15_000 }).toBe(1);
    const [first] = await pending();
    await call('approvals.approve', { id: first!.id, argsHash: first!.argsHash });
    const answered = async () => ((await call('audit.search', { query: '', types: ['adapter.answered'] })) as { events: { payload: Record<string, unknown> }[] }).events;
    await expect.poll(async () => (await answered()).length, { timeout: 15_000 }).toBe(1);
    expect((await answered())[0]!.payload).toMatchObject({ decision: 'none', outcome: 'dry-run', would: 'allow', key: null, typed: false, reason: expect.stringMatching(/^Dry run: .*nothing was typed/) });
    // The program is still at its question: nothing answered it.
    const transcript = ((await call('adapter.transcript', { session: s.session })).text as string);
    expect(transcript).not.toMatch(/got 1/);
    expect(((await call('adapter.state', { session: s.session })) as { state: string }).state).toBe('waiting_for_permission');
    const results = (await call('audit.search', { query: '', types: ['call.result'] })) as { events: { payload: Record<string, unknown> }[] };
    expect(results.events.at(-1)!.payload).toMatchObject({ decision: 'allow', executed: false, mode: 'dry-run' });
  });

  it('policy decides a question on its own the way it decides hook calls: a delete inside a plugin folder is denied without an inbox item, and the no is typed', async () => {
    // The default target runs in the adapter's own folder, where agents may not write.
    const { call } = await start();
    const s = (await call('adapter.start', { plugin: 'permission-agent', supervise: true })) as { session: string };
    const transcript = async () => ((await call('adapter.transcript', { session: s.session })).text as string);
    await expect.poll(transcript, { timeout: 15_000 }).toContain('got 2: told no, skipping');
    const answered = (await call('audit.search', { query: '', types: ['adapter.answered'] })) as { events: { payload: Record<string, unknown> }[] };
    expect(answered.events.at(-1)!.payload).toMatchObject({ decision: 'deny', key: '2', typed: true, decider: { kind: 'rule', rule: 'builtin.plugin-folders' } });
    expect(((await call('approvals.list', {})).items as unknown[]).length).toBe(0);
  });

  it('a command containment would box is allowed uncontained, and the answer and the log say so: the program runs it, not Gatehouse', async () => {
    const { call, root, agent } = await start({ mode: 'live', autonomy: 'full', containment: ['full', 'grants'] });
    const s = (await call('adapter.start', { plugin: 'permission-agent', supervise: true, command: process.execPath, args: [agent], cwd: join(root, 'work') })) as { session: string };
    const transcript = async () => ((await call('adapter.transcript', { session: s.session })).text as string);
    await expect.poll(transcript, { timeout: 15_000 }).toContain('got 1: allowed, continuing');
    const events = async (type: string) => ((await call('audit.search', { query: '', types: [type] })) as { events: { payload: Record<string, unknown> }[] }).events.map((e) => e.payload);
    const [answered] = await events('adapter.answered');
    expect(answered).toMatchObject({ decision: 'allow', key: '1', typed: true, decider: { kind: 'autonomy', level: 'full' }, reason: expect.stringMatching(/It runs uncontained: the program in the terminal runs the command itself/) });
    const [contained] = await events('call.contained');
    expect(contained).toMatchObject({ contained: false, box: null, reason: expect.stringMatching(/cannot put the command in the box/) });
  });
});
