// What an approval allows, what actually runs, and where (issue #13, findings 5, 6, 7 and 11),
// against real parts: a real host with its approval queue, policy file and audit log, real
// plugin folders and child processes, real HTTP on loopback, and a real bubblewrap sandbox.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished, type TestContext } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { runShellTool } from '../../../main/gateway/shell-tool.js';
import { PtyManager } from '../../../main/pty/pty-manager.js';
import { shellPlan, shellProfile } from '../../../main/runner/sandbox-plan.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import { listenForConsolesAndAgents } from '../../../main/shells/serve/run-serve.js';
import type { Extraction, Operation, ToolCall } from '../../../main/policy/types.js';
import { http } from '../../support/net.js';
import { ToolRunner } from '../../../main/runner/tool-runner.js';
import { BreakerBoard } from '../../../main/runner/breaker-board.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { unsandboxedWrap } from '../../../main/runner/sandbox.js';
import { verifiedCopy } from '../../../main/registry/integrity-copy.js';
import { digestFolder } from '../../../main/registry/integrity.js';
import type { GatewayResult } from '../../../main/gateway/gateway.js';
import { tempDir } from '../../support/temp.js';

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
    // What an earlier "Always" wrote for `cat README.md`: paths only, any command.
    expect(await check('  - { name: approved.shell.0123456789ab, actions: [read, execute], block_paths: [/tmp/x/README.md], decision: allow }\n')).toMatch(/written by an earlier "Always" approval and allows any command/);
    expect(await check('  - { name: d, actions: [read, execute], block_paths: [/tmp/x], decision: allow, tools: [shell], commands: [cat /tmp/x], examples: { match: [{ tool: shell, arguments: { command: cat /tmp/x } }], not_match: [{ tool: shell, arguments: { command: "sh /tmp/x" } }] } }\n')).toBe('');
  });
});

const sandbox = detectSandbox();
function needsBwrap(ctx: TestContext): void {
  if (sandbox.kind === 'bwrap') return;
  console.warn(`skipped "${ctx.task.name}": bubblewrap is not usable here: ${sandbox.reason}`);
  ctx.skip();
}

describe('finding 7: the shell tool runs in the folder policy judged', () => {
  // Sandboxed or not, the command runs in the judged folder (without bwrap it runs with limits only).
  it('the agent API refuses a relative cwd, and a relative arguments.cwd runs under the call\'s cwd', async () => {
    const { host, work } = await startHost({ autonomy: 'full', mode: 'live' });
    const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: join(work, 'no-console') });
    try {
      const post = (body: unknown) =>
        http({ port: net.shell.port, path: '/agent/v1/calls', method: 'POST', headers: { Authorization: `Bearer ${net.agentToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => ({
          status: r.status,
          json: JSON.parse(r.body) as Record<string, unknown>,
        }));
      const relative = await post({ agent: 'ci', tool: 'shell', arguments: { command: 'pwd' }, cwd: 'work' });
      expect(relative.status).toBe(400);
      expect(relative.json.error).toMatch(/field `cwd`: cwd must be an absolute path/);

      mkdirSync(join(work, 'sub'));
      const r = await post({ agent: 'ci', tool: 'shell', arguments: { command: 'pwd > where.txt', cwd: 'sub' }, cwd: work });
      expect(r.status).toBe(200);
      expect(r.json, JSON.stringify(r.json)).toMatchObject({ decision: 'allow', executed: true, result: { ok: true } });
      expect(readFileSync(join(work, 'sub', 'where.txt'), 'utf8').trim()).toBe(join(work, 'sub'));
    } finally {
      await net.shell.close();
    }
  });
});

describe('finding 11: the shell sandbox binds exactly what policy judged', () => {
  /** A fake home with a .bashrc and a project; the shell tool run on a real PTY in bubblewrap. */
  async function runIn(cwd: string, command: string, home: string, judged?: Pick<Extraction, 'operations' | 'paths' | 'hosts' | 'evasive'>) {
    const ptys = new PtyManager({ log: () => {}, record: () => {}, events: { output: () => {}, changed: () => {} } });
    try {
      await initExtractor();
      const call: ToolCall = { id: 'c1', agent: 'claude', session: 's1', tool: 'shell', arguments: { command }, cwd, source: 'api', receivedAt: 0 };
      const x = judged ?? extract(call, { home });
      const r = await runShellTool({ ptys, home, plan: (scope, timeoutMs) => shellPlan(sandbox, scope, { timeoutMs, home }) }, call, x);
      return { r, x };
    } finally {
      await ptys.close();
    }
  }
  // Not under /tmp: the sandbox has a private /tmp of its own, where a file would seem to be made.
  function fakeHome(): { home: string; project: string; bashrc: string } {
    const base = mkdtempSync(join('/var/tmp', 'gatehouse-fakehome-'));
    onTestFinished(() => rmSync(base, { recursive: true, force: true }));
    const home = join(base, 'u');
    const project = join(home, 'proj');
    mkdirSync(project, { recursive: true });
    const bashrc = join(home, '.bashrc');
    writeFileSync(bashrc, 'original\n');
    return { home, project, bashrc };
  }

  it('naming a new file in the home does not open the home: `tee -a ~/new ~/.b?shrc` changes nothing there', async (ctx) => {
    needsBwrap(ctx);
    const { home, project, bashrc } = fakeHome();
    // What extraction judged when the finding was reported: a new file and a literal glob in the
    // home, written. The sandbox must hold to exactly that, whatever the shell expands at run time.
    const judged = { operations: ['write', 'execute'] as Operation[], paths: [join(home, 'new-notes.txt'), join(home, '.b?shrc')], hosts: [], evasive: false };
    const { r } = await runIn(project, `printf 'evil\\n' | tee -a ${home}/new-notes.txt ${home}/.b?shrc`, home, judged);
    expect(r.ok).toBe(false);
    expect(readFileSync(bashrc, 'utf8')).toBe('original\n');
    expect(existsSync(join(home, 'new-notes.txt'))).toBe(false);
    // The binds say why: neither the home nor a folder holding it is writable.
    const profile = shellProfile({ cwd: project, ...judged }, home);
    expect(profile.write.filter((w) => home.startsWith(w))).toEqual([]);
    expect(profile.readOnlyRoot).toBe(true);
  });

  it('a home reached through a symlink is not opened either (extraction names it by its real path)', async (ctx) => {
    needsBwrap(ctx);
    const { home: realHome, project, bashrc } = fakeHome();
    const linked = join(mkdtempSync(join('/var/tmp', 'gatehouse-homelink-')), 'home');
    onTestFinished(() => rmSync(dirname(linked), { recursive: true, force: true }));
    symlinkSync(dirname(realHome), linked);
    const home = join(linked, 'u');
    const command = `printf 'evil\\n' | tee -a ${home}/new-notes.txt ${home}/.b?shrc`;
    const judged = { operations: ['write', 'execute'] as Operation[], paths: [join(realHome, 'new-notes.txt'), join(realHome, '.b?shrc')], hosts: [], evasive: false };
    expect(shellProfile({ cwd: project, ...judged }, home).write.filter((w) => realHome.startsWith(w))).toEqual([]);
    const { r } = await runIn(project, command, home, judged);
    expect(r.ok).toBe(false);
    expect(readFileSync(bashrc, 'utf8')).toBe('original\n');
  });

  it('browser profiles under a bound folder are hidden like the other secrets', async (ctx) => {
    needsBwrap(ctx);
    const { home } = fakeHome();
    mkdirSync(join(home, '.config', 'chromium', 'Default'), { recursive: true });
    writeFileSync(join(home, '.config', 'chromium', 'Default', 'History'), 'http://127.0.0.1:7411/#token=secret\n');
    const { r } = await runIn(home, 'cat .config/chromium/Default/History; ls -A .config/chromium | wc -l', home, { operations: ['read', 'execute'], paths: [], hosts: [], evasive: false });
    expect(r.stdout).not.toContain('token=secret');
    expect(r.stdout).toMatch(/^\s*0\s*$/m);
  });

  it('the home as the working folder is never bound read-write', async (ctx) => {
    needsBwrap(ctx);
    const { home, bashrc } = fakeHome();
    const { r } = await runIn(home, `echo fresh > ${home}/fresh.txt; echo evil >> ${home}/.b?shrc`, home);
    expect(r.ok).toBe(false);
    expect(existsSync(join(home, 'fresh.txt'))).toBe(false);
    expect(readFileSync(bashrc, 'utf8')).toBe('original\n');
  });

  it('"/" or /proc as the working folder binds nothing of the host over the sandbox\'s own', async (ctx) => {
    needsBwrap(ctx);
    const { home } = fakeHome();
    // In its own PID namespace the sandbox's process 1 is bwrap; the host's /proc would show the host's.
    for (const cwd of ['/proc', '/']) {
      const { r } = await runIn(cwd, 'cat /proc/1/comm', home);
      expect(r.ok, r.stdout).toBe(true);
      expect(r.stdout.split('\n')[0]!.trim(), cwd).toBe('bwrap');
    }
  });

  // Two layers hold this: the plan does not bind a path that resolves elsewhere than judged, and
  // bwrap itself refuses a link as a mount point. The test checks the property end to end.
  it('a judged file that becomes a link before the command runs is not bound: the link\'s target stays untouched', async (ctx) => {
    needsBwrap(ctx);
    const { home, project, bashrc } = fakeHome();
    const notes = join(project, 'notes.txt');
    writeFileSync(notes, 'notes\n');
    await initExtractor();
    // Judged in the home (bound read-only) while notes.txt is a plain file…
    const command = `echo appended >> ${notes}`;
    const judged = extract({ id: 'c1', agent: 'claude', session: 's1', tool: 'shell', arguments: { command }, cwd: home, source: 'api', receivedAt: 0 }, { home });
    expect(judged.paths).toContain(notes);
    // …then, while the call waited for an operator, swapped for a link to the home's .bashrc.
    rmSync(notes);
    symlinkSync(bashrc, notes);
    const { r } = await runIn(home, command, home, judged);
    expect(r.ok).toBe(false);
    expect(readFileSync(bashrc, 'utf8')).toBe('original\n');
  });

  it('a command that only reads gets read-only binds; one that writes gets its folder read-write', async (ctx) => {
    needsBwrap(ctx);
    const { home } = fakeHome();
    const work = tempDir('gatehouse-ro-');
    writeFileSync(join(work, 'notes.txt'), 'notes\n');
    /** The options of the topmost mount at `path`, from the sandbox's own mount table. */
    const mountOptions = (out: string, path: string) =>
      out
        .split('\n')
        .map((l) => l.split(' '))
        .filter((f) => f[4] === path)
        .map((f) => f[5] ?? '')
        .at(-1);

    const read = await runIn(work, 'cat notes.txt /proc/self/mountinfo', home);
    expect(read.x.operations).not.toContain('write');
    expect(read.r.ok, read.r.stdout).toBe(true);
    expect(mountOptions(read.r.stdout, work)).toMatch(/^ro\b/);

    const write = await runIn(work, 'echo more >> notes.txt; cat /proc/self/mountinfo', home);
    expect(write.r.ok, write.r.stdout).toBe(true);
    expect(mountOptions(write.r.stdout, work)).toMatch(/^rw\b/);
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('notes\nmore\n');
  });
});

describe('finding 6: what runs is what was verified', () => {
  /** A host whose home holds one tool plugin, enabled (pinned) by an operator. */
  async function hostWithPlugin(name: string, script: string): Promise<{ host: Host; home: string; dir: string }> {
    const root = tempDir('gatehouse-verify-');
    const home = join(root, 'home');
    const dir = join(home, 'plugins', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'tool.toml'), `name = "${name}"\ndescription = "Test tool."\ncommand = "run.sh"\ntimeout_secs = 20\n`);
    writeFileSync(join(dir, 'run.sh'), script);
    chmodSync(join(dir, 'run.sh'), 0o755);
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: root, watch: false });
    hosts.push(host);
    await host.ready;
    await host.registry.enable(name, 'alice');
    return { host, home, dir };
  }
  const auditEvents = (host: Host, type: string) => {
    host.audit.flush();
    return (host.audit.db.prepare('SELECT payload FROM events WHERE type = ? ORDER BY seq').all(type) as { payload: string }[]).map((r) => JSON.parse(r.payload) as Record<string, unknown>);
  };

  it('run.sh swapped while a call waits for a slot: the swapped code does not run, the plugin is quarantined and the audit log says so', async () => {
    // The first call holds the plugin's only slot until the test writes to its FIFO.
    const gate = `#!/bin/sh
input=$(cat)
fifo=\${input#*\\"fifo\\":\\"}
fifo=\${fifo%%\\"*}
if [ -p "$fifo" ]; then cat "$fifo" > /dev/null; fi
printf '{"ran": "approved"}\\n'
`;
    const { host, home, dir } = await hostWithPlugin('gate', gate);
    const fifo = join(tempDir('gatehouse-fifo-'), 'release');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const marker = join(home, 'swapped-code-ran');

    let started!: () => void;
    const firstStarted = new Promise<void>((r) => (started = r));
    const runner = new ToolRunner({
      registry: host.registry,
      breakers: new BreakerBoard({ clock: { now: () => Date.now() } }),
      metrics: new PluginMetrics(),
      maxConcurrent: 1,
      runCache: join(home, 'run-cache'),
      sandboxFor: () => ({ wrap: unsandboxedWrap(), sandboxed: false, warning: 'the sandbox is not under test here' }),
      record: (type, actor, payload) => {
        host.audit.append({ type, actor, payload });
        if (type === 'execution.started') started();
      },
    });

    const first = runner.call('gate', undefined, { fifo }, { actor: 'agent:claude' });
    await firstStarted;
    const queued = runner.call('gate', undefined, { fifo: '' }, { actor: 'agent:claude' });
    // The swap, while the second call waits for the slot: a new file renamed over run.sh.
    writeFileSync(join(dir, '.run.sh.new'), `#!/bin/sh\ncat > /dev/null\ntouch ${marker}\nprintf '{"ran": "swapped"}\\n'\n`, { mode: 0o755 });
    renameSync(join(dir, '.run.sh.new'), join(dir, 'run.sh'));
    await writeFile(fifo, 'go\n');

    const r1 = await first;
    expect(r1, r1.error ?? '').toMatchObject({ ok: true, output: { ran: 'approved' } });
    await expect(queued).rejects.toThrow(/gate was not run: its files changed .*run\.sh modified.*quarantined/);
    expect(existsSync(marker)).toBe(false);
    expect(host.registry.get('gate')?.status).toBe('quarantined');
    expect(auditEvents(host, 'plugin.quarantined')).toEqual([expect.objectContaining({ name: 'gate', changes: [{ path: 'run.sh', change: 'modified' }] })]);
    expect(auditEvents(host, 'execution.started')).toHaveLength(1);
  });

  it('a plugin runs from a private copy of its verified files; a damaged copy is rebuilt, not run', async () => {
    const { host, home } = await hostWithPlugin('where', '#!/bin/sh\ncat > /dev/null\nprintf \'{"self": "%s"}\\n\' "$0"\n');
    const cache = join(home, 'run-cache');
    const r = await host.toolRunner.call('where', undefined, {}, { actor: 'agent:claude' });
    expect(r.ok, r.error ?? '').toBe(true);
    const self = String((r.output as { self: string }).self);
    expect(self.startsWith(cache + '/')).toBe(true);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(self).mode & 0o222).toBe(0);

    // Someone edits the copy: the next call sees it no longer hashes to the pin and runs a fresh copy of the original.
    chmodSync(self, 0o700);
    writeFileSync(self, '#!/bin/sh\ncat > /dev/null\nprintf \'{"self": "tampered"}\\n\'\n');
    const again = await host.toolRunner.call('where', undefined, {}, { actor: 'agent:claude' });
    expect(again.output).toEqual({ self });
    expect(host.registry.get('where')?.status).toBe('enabled');

    // A change the operator approves gets a copy of its own; the old version's copy goes.
    const dir = host.registry.get('where')!.dir;
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\ncat > /dev/null\nprintf \'{"self": "%s", "v": 2}\\n\' "$0"\n', { mode: 0o755 });
    await expect(host.toolRunner.call('where', undefined, {}, { actor: 'agent:claude' })).rejects.toThrow(/quarantined/);
    await host.registry.approveChange('where', 'alice');
    const v2 = await host.toolRunner.call('where', undefined, {}, { actor: 'agent:claude' });
    expect(v2.output).toMatchObject({ v: 2 });
    expect(existsSync(self)).toBe(false);
    expect(readdirSync(cache).filter((n) => !n.startsWith('.'))).toEqual([host.registry.get('where')!.trust?.hash ?? host.registry.get('where')!.digest!.hash]);
  });

  it('a link that leaves the plugin folder is refused for the copy, since it would point elsewhere from there', () => {
    const root = tempDir('gatehouse-links-');
    const src = join(root, 'plugin');
    mkdirSync(join(src, 'lib'), { recursive: true });
    writeFileSync(join(src, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync('../run.sh', join(src, 'lib', 'inside'));
    const cache = join(root, 'cache');
    expect(verifiedCopy(src, digestFolder(src).hash, cache)).toMatchObject({ ok: true });
    symlinkSync('../../outside', join(src, 'lib', 'escape'));
    expect(() => verifiedCopy(src, digestFolder(src).hash, cache)).toThrow(/lib\/escape links to \.\.\/\.\.\/outside, outside the plugin's folder/);
  });
});
