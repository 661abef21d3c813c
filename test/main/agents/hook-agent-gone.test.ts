// Agent gone, for the agents that start Gatehouse's hook through a shell (Gemini CLI, Qwen Code,
// Copilot CLI; issue #30): which processes the hook command watches, read from real process trees,
// and the built command answering deny and closing its connection (so the host withdraws the call)
// when the agent, or the launcher of a self-relaunching agent, is killed while the call waits.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentHost } from '../../support/silent-host.js';
import { agentChain } from '../../../main/cli/hook-command.js';
import { cliPath } from '../../support/cli.js';
import { tempDir, untilFile } from '../../support/temp.js';

const linux = process.platform === 'linux' && existsSync('/proc/self/stat') && existsSync('/bin/bash');
if (!linux) console.log('hook-agent-gone skipped: the agent-gone watch reads /proc (Linux) and needs /bin/bash');

const started: ChildProcess[] = [];
/** The hook shells' process groups: their own (detached), so killing the launcher's group left them (and their `sleep 600`) running. */
const shells: number[] = [];
afterEach(() => {
  for (const group of [...started.splice(0).map((c) => c.pid!), ...shells.splice(0)]) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

const q = (s: string) => JSON.stringify(s);

/**
 * `launcher` → agent (node) → `bash -c CMD` in a process group of its own, as Copilot CLI starts
 * its hook. The launcher is node and stays (as gemini.js and Qwen Code's cli.js do once they have
 * relaunched themselves), or bash that starts the agent in the background and exits (a wrapper).
 * Resolves once the agent has started the shell: the launcher, the agent's pid and the shell's.
 */
async function tree(dir: string, launcher: 'node' | 'bash', cmd: string): Promise<{ top: ChildProcess; agent: number; shell: number }> {
  const id = Math.random().toString(36).slice(2);
  const pids = join(dir, `pids-${id}`);
  const agentFile = join(dir, `agent-${id}.js`);
  writeFileSync(agentFile, `const c = require('node:child_process').spawn('/bin/bash', ['-c', ${q(cmd)}], { detached: true, stdio: 'ignore' }); const fs = require('node:fs'); fs.writeFileSync(${q(pids)} + '.tmp', process.pid + ' ' + c.pid); fs.renameSync(${q(pids)} + '.tmp', ${q(pids)}); setInterval(() => {}, 1000);`);
  const top =
    launcher === 'node'
      ? spawn(process.execPath, ['-e', `require('node:child_process').spawn(process.execPath, [${q(agentFile)}], { stdio: 'ignore' }); setInterval(() => {}, 1000);`], { stdio: 'ignore', detached: true })
      : spawn('/bin/bash', ['-c', `${q(process.execPath)} ${q(agentFile)} & exit 0`], { stdio: 'ignore', detached: true });
  started.push(top);
  const [agent, shell] = (await untilFile(pids)).split(' ').map(Number);
  shells.push(shell!);
  return { top, agent: agent!, shell: shell! };
}

describe.runIf(linux)('which processes the hook watches (real process trees)', () => {
  it('the shell and the agent; the launcher too when it runs the same program (a relaunch), not a wrapper that exits on purpose', async () => {
    const dir = tempDir('gatehouse-agent-chain-');
    // `sleep` stands where the hook command runs; the shell says its pid.
    const at = (name: string) => `sleep 600 & echo $! > ${q(join(dir, name))}.tmp; mv ${q(join(dir, name))}.tmp ${q(join(dir, name))}; wait`;
    const relaunched = await tree(dir, 'node', at('hook-1'));
    const hook1 = Number(await untilFile(join(dir, 'hook-1')));
    expect(agentChain(hook1, relaunched.shell)).toEqual([
      { child: hook1, parent: relaunched.shell },
      { child: relaunched.shell, parent: relaunched.agent },
      { child: relaunched.agent, parent: relaunched.top.pid },
    ]);

    const wrapped = await tree(dir, 'bash', at('hook-2'));
    const hook2 = Number(await untilFile(join(dir, 'hook-2')));
    await new Promise((resolve) => (wrapped.top.exitCode !== null ? resolve(null) : wrapped.top.once('exit', resolve)));
    // The wrapper has exited and the agent lives on: the shell and the agent are watched, nothing above.
    expect(agentChain(hook2, wrapped.shell)).toEqual([
      { child: hook2, parent: wrapped.shell },
      { child: wrapped.shell, parent: wrapped.agent },
    ]);
  });
});

describe.runIf(linux)('gatehouse hook --agent copilot, when the agent is gone', () => {
  /** The hook command (the built CLI) started as Copilot CLI starts it, asking a host that never answers; `kill` killed while it waits. */
  async function waitingHook(kill: 'agent' | 'launcher') {
    const dir = tempDir('gatehouse-agent-gone-');
    const home = join(dir, 'home');
    mkdirSync(home);
    const host = await silentHost(home);
    try {
      const input = join(dir, 'input.json');
      writeFileSync(input, JSON.stringify({ sessionId: 's-1', timestamp: 1, cwd: dir, toolName: 'bash', toolArgs: { command: 'touch x', description: 'x' } }));
      // The answer (and exit code) go to a file: the agent that would read them is killed.
      const answer = join(dir, 'answer');
      const hook = `${q(process.execPath)} ${q(cliPath)} hook --agent copilot --home ${q(home)} --timeout 120 < ${q(input)} > ${q(answer)}.out; echo $? > ${q(answer)}.code; mv ${q(answer)}.code ${q(answer)}`;
      const t = await tree(dir, 'node', hook);
      const req = await host.request;
      const closed = host.hungUp(req);
      process.kill(kill === 'agent' ? t.agent : t.top.pid!, 'SIGKILL');
      // Without the watch, the connection stays open for the whole --timeout (120 s) and this times out.
      await closed;
      const code = (await untilFile(answer)).trim();
      return { code, answer: JSON.parse(readFileSync(`${answer}.out`, 'utf8')) as { permissionDecision: string; permissionDecisionReason: string } };
    } finally {
      host.close();
    }
  }

  it('the agent killed: the hook answers deny (exit 2) and closes its connection', async () => {
    const r = await waitingHook('agent');
    expect(r.code).toBe('2');
    expect(r.answer).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/The agent that ran this hook \(pid \d+\) has exited; the call is withdrawn\./) });
  }, 30_000);

  it('only the launcher of a relaunched agent killed: the same deny, before the agent could run the tool', async () => {
    const r = await waitingHook('launcher');
    expect(r.code).toBe('2');
    expect(r.answer.permissionDecision).toBe('deny');
  }, 30_000);
});
