// A tool that runs its program in a terminal (the shell tool, a `pty = true` plugin) answers with
// what the program printed. The host keeps only the last `maxFinished` finished sessions, and a
// tool's sandbox clean-up runs between the program's exit and its answer: under load (the soak,
// ~25 terminals ending a second) other terminals finished during that clean-up, the session was
// forgotten, and a command that ran was answered "There is no terminal …". Here the clean-up
// itself lets two other terminals finish, with one finished session kept: real PTYs, real programs.
import { describe, expect, it } from 'vitest';
import { runShellTool } from '../../../main/gateway/shell-tool.js';
import { PtyManager } from '../../../main/pty/pty-manager.js';
import type { ContainmentReport, WrappedCommand } from '../../../main/runner/one-shot.js';
import { runPtyTool } from '../../../main/runner/pty-tool.js';
import type { ToolCall } from '../../../main/policy/types.js';

const origin = { actor: 'agent:test', tool: 'shell' };
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', TERM: 'xterm-256color' };

function manager(): PtyManager {
  return new PtyManager({ record: () => {}, events: { output: () => {}, changed: () => {} }, log: () => {}, limits: { maxFinished: 1 } });
}

/** A wrap that runs the command as it is, whose clean-up waits until two other terminals have finished. */
function slowCleanUp(mgr: PtyManager): (command: string, args: string[]) => WrappedCommand {
  return (command, args) => ({
    command,
    args,
    async finish(): Promise<ContainmentReport> {
      for (let i = 0; i < 2; i++) {
        const other = await mgr.start({ command: '/bin/true', cwd: '/', env, origin });
        await mgr.exited(other.id);
      }
      return { processLimitHit: false };
    },
  });
}

describe.runIf(process.platform !== 'win32')('a terminal tool whose clean-up outlasts the finished sessions the host keeps', () => {
  it('the shell tool answers with what its command printed', async () => {
    const mgr = manager();
    try {
      const call: ToolCall = { id: 'c1', agent: 'test', session: 's1', tool: 'shell', arguments: { command: 'echo kept-output', cwd: '/' }, cwd: '/', source: 'api', receivedAt: Date.now() };
      const r = await runShellTool({ ptys: mgr, env, plan: () => ({ wrap: slowCleanUp(mgr), sandboxed: false, warning: null }) }, call);
      expect(r.ok, r.error ?? '').toBe(true);
      expect(r.stdout).toContain('kept-output');
      // The premise: the session was forgotten by the time the tool answered.
      expect(() => mgr.get((r.output as { terminal: string }).terminal)).toThrow(/There is no terminal/);
    } finally {
      await mgr.close();
    }
  });

  it('a pty = true plugin answers with its output', async () => {
    // It reads the input typed into its terminal first, as a plugin does, so that echo comes before what it prints.
    const mgr = manager();
    try {
      const r = await runPtyTool({ plugin: 'probe', command: '/bin/sh', args: ['-c', 'input=$(cat); echo \'{"kept": true}\''], cwd: '/', input: {}, timeoutMs: 10_000, env, wrap: slowCleanUp(mgr), ptys: mgr, title: 'probe', origin });
      expect(r.ok, r.ok ? '' : r.message).toBe(true);
      expect(r.ok && r.output).toEqual({ kept: true });
      expect(() => mgr.get(r.terminal!)).toThrow(/There is no terminal/);
    } finally {
      await mgr.close();
    }
  });
});
