// The built-in `shell` tool: an agent's command runs in a PTY the operators can watch live (and
// kill, or take over) in the Terminals view; the agent gets the output and exit code when it
// ends. Policy has judged the command before this runs (extraction reads `command`), and the
// command is confined to what policy judged (runner/sandbox-plan.ts shellPlan): its working
// directory and the paths and hosts extracted from it, with limits and a scrubbed environment.
import { homedir } from 'node:os';
import type { PtyManager } from '../pty/pty-manager.js';
import { callCwd } from '../policy/extract/paths.js';
import type { Extraction, ToolCall } from '../policy/types.js';
import type { ToolResult } from '../pipeline/call-pipeline.js';
import { scrubEnv } from '../runner/one-shot.js';
import { SandboxRequiredError, type SandboxPlan, type ShellCallScope } from '../runner/sandbox-plan.js';
import { unsandboxedWrap } from '../runner/sandbox.js';

export const BUILTIN_SHELL_TOOL = 'shell';

/** Beyond the runner's allow-list, what a shell session expects to find; API keys and tokens in the host's environment stay out. */
const SHELL_ENV = ['HOME', 'USER', 'LOGNAME', 'SHELL'];

export interface ShellToolDeps {
  ptys: PtyManager;
  /** Longest a command may run before its session is killed (default 10 minutes). */
  timeoutMs?: number;
  /** Output chars returned to the agent (the end of it; default 100,000). */
  maxOutputChars?: number;
  /** The environment the command sees (default: the host's, scrubbed to the allow-list and SHELL_ENV). */
  env?: Record<string, string>;
  /** How a command is confined (the host passes shellPlan with its sandbox); default: limits only. */
  plan?: (scope: ShellCallScope, timeoutMs: number) => SandboxPlan;
  /** The user's home, for `~` in `arguments.cwd` (the same one extraction expands against; default os.homedir()). */
  home?: string;
}

export async function runShellTool(deps: ShellToolDeps, call: ToolCall, x?: Pick<Extraction, 'paths' | 'hosts' | 'evasive'> & Partial<Pick<Extraction, 'operations'>>): Promise<ToolResult & { content: unknown[] }> {
  const args = call.arguments ?? {};
  const command = args.command;
  if (typeof command !== 'string' || command.trim() === '') throw new Error('the shell tool needs a `command` string');
  // Exactly the folder policy judged: a relative `cwd` is relative to the call's, never to the host's.
  const cwd = callCwd(call, deps.home ?? homedir());
  const started = performance.now();
  const timeoutMs = deps.timeoutMs ?? 10 * 60_000;
  // Without an extraction nothing is known about the command: its folder only.
  const plan = deps.plan?.({ cwd, paths: x?.paths ?? [], hosts: x?.hosts ?? [], evasive: x?.evasive ?? true, operations: x?.operations ?? [] }, timeoutMs) ?? { wrap: unsandboxedWrap({ timeoutMs }), sandboxed: false, warning: null };
  let wrapped;
  try {
    wrapped = plan.wrap('/bin/sh', ['-c', command]);
  } catch (err) {
    // The policy requires a sandbox and there is none: not run, and the agent is told why.
    if (!(err instanceof SandboxRequiredError)) throw err;
    return { ok: false, output: null, error: err.message, failure: 'spawn', stdout: '', stderr: '', exitCode: null, durationMs: performance.now() - started, sandboxed: false, content: [{ type: 'text', text: err.message }] };
  }
  let info;
  try {
    info = await deps.ptys.start({
      command: wrapped.command,
      args: wrapped.args,
      cwd,
      env: deps.env ?? { ...scrubEnv(process.env, SHELL_ENV) },
      title: `${call.agent}: ${command.length > 60 ? command.slice(0, 57) + '…' : command}`,
      origin: { actor: `agent:${call.agent}`, tool: BUILTIN_SHELL_TOOL, callId: call.id },
    });
  } catch (err) {
    await wrapped.finish?.();
    throw err;
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void deps.ptys.kill(info.id, 'host:timeout').catch(() => {});
  }, timeoutMs);
  let finished;
  try {
    // Its output is read as it exits: by the end of the clean-up below it may be forgotten (PtyManager.exitWithOutput).
    finished = await deps.ptys.exitWithOutput(info.id);
  } finally {
    clearTimeout(timer);
    // Whatever the command left behind in its cgroup goes with it.
    wrapped.kill?.();
  }
  const report = (await wrapped.finish?.()) ?? { processLimitHit: false };
  const { exit, output: buffer, truncated } = finished;
  const max = deps.maxOutputChars ?? 100_000;
  let text = buffer.replace(/\r\n/g, '\n');
  const cut = truncated || text.length > max;
  if (text.length > max) text = text.slice(text.length - max);
  const durationMs = performance.now() - started;
  const ok = !timedOut && !report.processLimitHit && exit.exitCode === 0;
  const status = timedOut ? `killed after ${Math.round(timeoutMs / 1000)} s` : report.processLimitHit ? 'stopped at its process limit (a fork was refused)' : exit.signal ? `ended by ${exit.signal}` : `exit code ${exit.exitCode}`;
  const body = `${cut ? '[… earlier output dropped]\n' : ''}${text}${text.endsWith('\n') || text === '' ? '' : '\n'}[${status}; terminal ${info.id}]`;
  return {
    ok,
    output: { exitCode: exit.exitCode, signal: exit.signal, terminal: info.id, output: text },
    error: ok ? null : `The command ${status}.`,
    failure: timedOut ? 'timeout' : report.processLimitHit ? 'limit' : null,
    stdout: text,
    stderr: '',
    exitCode: exit.exitCode,
    durationMs,
    sandboxed: plan.sandboxed,
    content: [{ type: 'text', text: body }],
  };
}
