// The built-in `shell` tool: an agent's command runs in a PTY the operators can watch live (and
// kill, or take over) in the Terminals view; the agent gets the output and exit code when it
// ends. Policy has judged the command before this runs (extraction reads `command`).
import type { PtyManager } from '../pty/pty-manager.js';
import type { ToolCall } from '../policy/types.js';
import type { ToolResult } from '../pipeline/call-pipeline.js';

export const BUILTIN_SHELL_TOOL = 'shell';

export interface ShellToolDeps {
  ptys: PtyManager;
  /** Longest a command may run before its session is killed (default 10 minutes). */
  timeoutMs?: number;
  /** Output chars returned to the agent (the end of it; default 100,000). */
  maxOutputChars?: number;
  /** The environment the command sees (default: the host's). */
  env?: Record<string, string>;
}

export async function runShellTool(deps: ShellToolDeps, call: ToolCall): Promise<ToolResult & { content: unknown[] }> {
  const args = call.arguments ?? {};
  const command = args.command;
  if (typeof command !== 'string' || command.trim() === '') throw new Error('the shell tool needs a `command` string');
  const cwd = typeof args.cwd === 'string' && args.cwd !== '' ? args.cwd : call.cwd;
  const started = performance.now();
  const info = deps.ptys.start({
    command: '/bin/sh',
    args: ['-c', command],
    cwd,
    ...(deps.env ? { env: deps.env } : {}),
    title: `${call.agent}: ${command.length > 60 ? command.slice(0, 57) + '…' : command}`,
    origin: { actor: `agent:${call.agent}`, tool: BUILTIN_SHELL_TOOL, callId: call.id },
  });
  const timeoutMs = deps.timeoutMs ?? 10 * 60_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void deps.ptys.kill(info.id, 'host:timeout').catch(() => {});
  }, timeoutMs);
  let exit;
  try {
    exit = await deps.ptys.exited(info.id);
  } finally {
    clearTimeout(timer);
  }
  // After the exit the session is no longer watched: attaching only reads its kept scrollback.
  const viewer = `gateway:${call.id}`;
  const { buffer, truncated } = deps.ptys.attach(info.id, viewer);
  deps.ptys.detach(info.id, viewer);
  const max = deps.maxOutputChars ?? 100_000;
  let text = buffer.replace(/\r\n/g, '\n');
  const cut = truncated || text.length > max;
  if (text.length > max) text = text.slice(text.length - max);
  const durationMs = performance.now() - started;
  const ok = !timedOut && exit.exitCode === 0;
  const status = timedOut ? `killed after ${Math.round(timeoutMs / 1000)} s` : exit.signal ? `ended by ${exit.signal}` : `exit code ${exit.exitCode}`;
  const body = `${cut ? '[… earlier output dropped]\n' : ''}${text}${text.endsWith('\n') || text === '' ? '' : '\n'}[${status}; terminal ${info.id}]`;
  return {
    ok,
    output: { exitCode: exit.exitCode, signal: exit.signal, terminal: info.id, output: text },
    error: ok ? null : `The command ${status}.`,
    failure: timedOut ? 'timeout' : null,
    stdout: text,
    stderr: '',
    exitCode: exit.exitCode,
    durationMs,
    sandboxed: false,
    content: [{ type: 'text', text: body }],
  };
}
