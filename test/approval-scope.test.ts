// What an approval allows, what actually runs, and where (issue #13, findings 5, 6, 7 and 11),
// against real parts: a real host with its approval queue, policy file and audit log, real
// plugin folders and child processes, real HTTP on loopback, and a real bubblewrap sandbox.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { createHost, type Host } from '../main/host/create-host.js';
import { initExtractor } from '../main/policy/extract/index.js';
import type { GatewayResult } from '../main/gateway/gateway.js';
import { tempDir } from './support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

/** A host on a fresh home; the agent works in `work`. */
async function startHost(settings: Record<string, unknown>): Promise<{ host: Host; work: string; home: string }> {
  const root = tempDir('gatehouse-scope-');
  const work = join(root, 'work');
  const home = join(root, 'gatehouse-home');
  mkdirSync(work, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify(settings));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: work, watch: false });
  hosts.push(host);
  await host.ready;
  await initExtractor();
  return { host, work, home };
}

const op = (host: Host, method: string, params: unknown) => host.dispatcher.dispatch(method, params, { operator: 'alice', console: 'serve' });

/** The next pending inbox item, taken when the host says the inbox changed (no polling). */
function nextPending(host: Host): Promise<{ id: string; argsHash: string }> {
  return new Promise((resolve) => {
    const take = () => {
      const p = host.approvals.list({ state: 'pending' })[0];
      if (!p) return false;
      resolve(p);
      return true;
    };
    if (take()) return;
    const off = host.bus.subscribe((name) => {
      if (name === 'approvals.changed' && take()) off();
    });
  });
}

/**
 * Sends a call and reports whether Gatehouse asked about it: when it does, the item is denied
 * (so nothing runs) and `asked` is true. A call decided without asking resolves as it is.
 */
async function judge(host: Host, call: Parameters<Host['gateway']['call']>[0], execute = true): Promise<{ asked: boolean; result: GatewayResult }> {
  let asked = false;
  const pending = host.gateway.call(call, { execute });
  const settled = pending.then(() => 'done' as const);
  const first = await Promise.race([settled, nextPending(host).then((item) => item)]);
  if (first !== 'done') {
    asked = true;
    host.approvals.deny(first.id, { operator: 'alice', reason: 'probe: not approved' });
  }
  return { asked, result: await pending };
}

describe('finding 5: "Always" allows what was approved, not everything near it', () => {
  it('the rule from `cat README.md` is bound to the shell tool and that exact command', async () => {
    const { host, work, home } = await startHost({ autonomy: 'supervised', mode: 'dry-run' });
    writeFileSync(join(work, 'README.md'), '# readme\n');
    const call = (command: string, agent = 'claude') => ({ agent, session: 's1', tool: 'shell', arguments: { command }, cwd: work, source: 'api' as const });

    const first = host.gateway.call(call('cat README.md'));
    const item = await nextPending(host);
    const approved = await op(host, 'approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'always' });
    expect(approved.ok, JSON.stringify(approved)).toBe(true);
    expect((await first).decision).toBe('allow');
    const yaml = readFileSync(join(home, 'policy.yaml'), 'utf8');
    expect(yaml).toContain('commands:');
    expect(yaml).toContain('- cat README.md');
    expect(yaml).toMatch(/tools:\s*\n\s*- shell/);

    // The same command again: the rule decides, nobody is asked.
    const again = await judge(host, call('cat README.md'));
    expect(again.asked).toBe(false);
    expect(again.result).toMatchObject({ decision: 'allow', decider: { kind: 'rule', rule: expect.stringMatching(/^approved\.shell\./) } });

    // Rules are global by design (policy.yaml has no agents); the binding is to tool + command,
    // so another agent sending exactly this command is allowed by it too.
    const other = await judge(host, call('cat README.md', 'other-agent'));
    expect(other.result).toMatchObject({ decision: 'allow', decider: { kind: 'rule' } });

    // What reads the same file but does anything else is asked about, whoever sends it.
    for (const command of [`awk 'BEGIN{system("touch pwned")}' README.md`, 'sh README.md', `python3 -c 'open("README.md").read()'`, 'cat  README.md', 'cat README.md; id']) {
      const probe = await judge(host, call(command));
      expect(probe.result.decider, command).not.toMatchObject({ kind: 'rule', rule: expect.stringMatching(/^approved\./) });
      expect(probe.result.decision === 'allow' && !probe.asked, command).toBe(false);
    }
    // The same command from another tool is not what was approved either.
    const viaBash = await judge(host, { agent: 'claude', session: 's1', tool: 'Bash', arguments: { command: 'cat README.md' }, cwd: work, source: 'hook' }, false);
    expect(viaBash.result.decider).not.toMatchObject({ kind: 'rule', rule: expect.stringMatching(/^approved\./) });
  });

  it('the rule from a file tool is bound to that tool and the same path argument', async () => {
    const { host, work } = await startHost({ autonomy: 'supervised', mode: 'dry-run' });
    const write = (args: Record<string, unknown>, tool = 'Write') => ({ agent: 'claude', session: 's1', tool, arguments: args, cwd: work, source: 'hook' as const });
    const notes = join(work, 'notes.md');

    const first = host.gateway.call(write({ file_path: notes, content: 'v1\n' }), { execute: false });
    const item = await nextPending(host);
    const approved = await op(host, 'approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'always' });
    expect(approved.ok, JSON.stringify(approved)).toBe(true);
    const yaml = (approved as { result: { rule: { yaml: string } } }).result.rule.yaml;
    expect(yaml).toMatch(/arguments:\s*\n\s*file_path:/);
    expect(yaml).not.toContain('content');
    await first;

    // Writing the same file again (other text) is what "always" approved.
    const sameFile = await judge(host, write({ file_path: notes, content: 'v2\n' }), false);
    expect(sameFile.result).toMatchObject({ decision: 'allow', decider: { kind: 'rule', rule: expect.stringMatching(/^approved\.Write\./) } });
    // Another file in the same folder, or the same file through another tool, is asked about.
    expect((await judge(host, write({ file_path: join(work, 'other.md'), content: 'x' }), false)).asked).toBe(true);
    const otherTool = await judge(host, write({ file_path: notes, old_string: 'v1', new_string: 'v2' }, 'Edit'), false);
    expect(otherTool.asked).toBe(true);
  });

  it('policy.yaml: tools, commands and arguments are for allow rules, and commands need tools', async () => {
    const { host } = await startHost({ autonomy: 'supervised', mode: 'dry-run' });
    const check = async (rule: string) => {
      const r = await op(host, 'policy.check', { text: `version: 1\nrules:\n${rule}` });
      expect(r.ok).toBe(true);
      return (r as { result: { problems: { message: string }[] } }).result.problems.map((p) => p.message).join('\n');
    };
    expect(await check('  - { name: a, actions: [read], block_paths: [/tmp/x], decision: deny, tools: [shell], commands: [cat x] }\n')).toMatch(/tools is for allow rules only/);
    expect(await check('  - { name: b, actions: [read], block_paths: [/tmp/x], decision: allow, commands: [cat x] }\n')).toMatch(/commands needs tools/);
    expect(await check('  - { name: c, actions: [read], block_paths: [/tmp/x], decision: allow, tools: [] }\n')).toMatch(/at least one tool/);
    expect(await check('  - { name: d, actions: [read, execute], block_paths: [/tmp/x], decision: allow, tools: [shell], commands: [cat /tmp/x], examples: { match: [{ tool: shell, arguments: { command: cat /tmp/x } }], not_match: [{ tool: shell, arguments: { command: "sh /tmp/x" } }] } }\n')).toBe('');
  });
});
