// GitHub Copilot CLI's preToolUse hook (issue #30): the payloads Copilot CLI 1.0.102 sends
// (measured: sessionId, timestamp, cwd, toolName, toolArgs) mapped onto the input the host
// judges, and the command "write it for me" writes, run by a real shell as Copilot CLI runs it:
// every failure is one JSON deny on stdout and exit 2 (an exit 0 without a JSON deny lets the
// tool run).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromCopilotInput, toCopilotAnswer } from '../../../main/agents/copilot/hook-mapping.js';
import { hookAnswer, NO_DECISION } from '../../../main/gateway/hook-answer.js';
import { copilotHook, copilotReportHook } from '../../../shared/claude-config.js';
import { cliPath, runShell as sh } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const base = { sessionId: 'a280031d-127d-4e5e-b7f1-4b5c134471e5', timestamp: 1795921355024, cwd: '/work/p' };

const judged = (text: string) => {
  const r = fromCopilotInput(text);
  return 'judge' in r ? (JSON.parse(r.judge) as Record<string, unknown>) : r;
};

describe('Copilot CLI hook input', () => {
  it('maps its built-in tools onto the tools the judge reads by field, resolving relative paths in cwd', () => {
    expect(judged(JSON.stringify({ ...base, toolName: 'view', toolArgs: { path: '/home/u/.ssh/id_rsa' } }))).toMatchObject({ session_id: base.sessionId, cwd: '/work/p', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/home/u/.ssh/id_rsa' } });
    expect(judged(JSON.stringify({ ...base, toolName: 'create', toolArgs: { path: 'src/a.ts', file_text: 'x' } }))).toMatchObject({ tool_name: 'Write', tool_input: { file_path: '/work/p/src/a.ts', content: 'x' } });
    expect(judged(JSON.stringify({ ...base, toolName: 'edit', toolArgs: { path: '/work/p/a', old_str: 'a', new_str: 'b' } }))).toMatchObject({ tool_name: 'Edit', tool_input: { file_path: '/work/p/a', old_string: 'a', new_string: 'b' } });
    expect(judged(JSON.stringify({ ...base, toolName: 'bash', toolArgs: { command: 'cat ~/.ssh/id_rsa', description: 'read' } }))).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'cat ~/.ssh/id_rsa', description: 'read' } });
    // toolArgs as a JSON string (earlier versions), and a tool the mapping does not know: judged by its own name.
    expect(judged(JSON.stringify({ ...base, toolName: 'web_fetch', toolArgs: JSON.stringify({ url: 'https://example.com' }) }))).toMatchObject({ tool_name: 'web_fetch', tool_input: { url: 'https://example.com' } });
  });

  it("names the Gatehouse tool a gatehouse-<tool> call would be, for the host to check (not skipped here); another server's tool is judged by its name", () => {
    expect(judged(JSON.stringify({ ...base, toolName: 'gatehouse-hello', toolArgs: {} }))).toMatchObject({ tool_name: 'gatehouse-hello', gatehouse_tool: 'hello' });
    // Its report is not needed: Gatehouse ran the call itself.
    expect(fromCopilotInput(JSON.stringify({ ...base, toolName: 'gatehouse-hello', toolArgs: {}, toolResult: {} }), 'postToolUse')).toHaveProperty('skip');
    expect(judged(JSON.stringify({ ...base, toolName: 'db-query', toolArgs: { sql: 'x' } }))).toMatchObject({ tool_name: 'db-query' });
  });

  it('maps postToolUse / postToolUseFailure onto reports that share the preToolUse call id; an unreadable report is skipped, never denied', () => {
    const call = { ...base, toolName: 'bash', toolArgs: { command: 'ls', description: 'list' } };
    const pre = judged(JSON.stringify(call)) as { tool_use_id: string };
    expect(pre.tool_use_id).toMatch(/^copilot-[0-9a-f]{32}$/);
    expect(judged(JSON.stringify({ ...call, toolResult: { resultType: 'success', textResultForLlm: 'a' } }))).not.toHaveProperty('hook_event_name', 'PostToolUse');
    const ran = fromCopilotInput(JSON.stringify({ ...call, toolResult: { resultType: 'success', textResultForLlm: 'a' } }), 'postToolUse');
    expect('judge' in ran && JSON.parse(ran.judge)).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_use_id: pre.tool_use_id, tool_response: { resultType: 'success' } });
    const failed = fromCopilotInput(JSON.stringify({ ...call, error: 'Path does not exist' }), 'postToolUseFailure');
    expect('judge' in failed && JSON.parse(failed.judge)).toMatchObject({ hook_event_name: 'PostToolUseFailure', tool_use_id: pre.tool_use_id, error: 'Path does not exist' });
    // Other arguments, another call.
    expect((judged(JSON.stringify({ ...call, toolArgs: { command: 'ls -a', description: 'list' } })) as { tool_use_id: string }).tool_use_id).not.toBe(pre.tool_use_id);
    expect(fromCopilotInput('not json', 'postToolUse')).toMatchObject({ skip: expect.stringContaining('not JSON') });
    expect(fromCopilotInput(JSON.stringify(call), 'postToolUseFailure')).toMatchObject({ skip: expect.stringContaining('error is missing') });
  });

  it('refuses what is not a preToolUse input, naming why', () => {
    expect(fromCopilotInput('not json')).toMatchObject({ invalid: expect.stringContaining('not JSON') });
    expect(fromCopilotInput(JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {} }))).toMatchObject({ invalid: expect.stringContaining('"preToolUse"') });
    expect(fromCopilotInput(JSON.stringify({ ...base, toolArgs: {} }))).toMatchObject({ invalid: expect.stringContaining('toolName is missing') });
    expect(fromCopilotInput(JSON.stringify({ ...base, toolName: 'view', toolArgs: [1] }))).toMatchObject({ invalid: expect.stringContaining('not an object') });
  });
});

describe('Copilot CLI hook answer', () => {
  it('deny is one JSON deny and exit 2; ask is Copilot CLI’s ask; allow and no decision exit 0', () => {
    expect(toCopilotAnswer(hookAnswer('deny', 'no keys\nplease'), null)).toEqual({ code: 2, stdout: '{"permissionDecision":"deny","permissionDecisionReason":"no keys please"}\n', stderr: '' });
    expect(toCopilotAnswer(hookAnswer('ask', 'an operator decides'), null)).toEqual({ code: 0, stdout: '{"permissionDecision":"ask","permissionDecisionReason":"an operator decides"}\n', stderr: '' });
    expect(toCopilotAnswer(NO_DECISION, null)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(JSON.parse(toCopilotAnswer(hookAnswer('allow', 'granted'), null).stdout)).toEqual({ permissionDecision: 'allow', permissionDecisionReason: 'granted' });
  });

  it('a contained shell command is allowed with the boxed command as modifiedArgs; a changed input another tool cannot take is denied', () => {
    const boxed = toCopilotAnswer(hookAnswer('allow', 'contained', { command: 'bwrap … sh -c ls' }), { tool: 'bash', toolInput: { command: 'ls', description: 'list' } });
    expect(JSON.parse(boxed.stdout)).toMatchObject({ permissionDecision: 'allow', modifiedArgs: { command: 'bwrap … sh -c ls', description: 'list' } });
    expect(toCopilotAnswer(hookAnswer('allow', 'x', { file_path: '/y' }), { tool: 'view', toolInput: {} })).toMatchObject({ code: 2, stdout: expect.stringContaining('"deny"') });
  });
});

describe('the hook command as Copilot CLI runs it (a shell)', () => {
  const input = JSON.stringify({ ...base, toolName: 'view', toolArgs: { path: '/work/p/a.txt' } });
  const deny = (stdout: string) => JSON.parse(stdout) as { permissionDecision: string; permissionDecisionReason: string };

  it('with no Gatehouse running: one JSON deny naming why, and exit 2', async () => {
    const command = copilotHook(tempDir('gatehouse-copilot-nohost-'), { launcher: { node: process.execPath, entry: cliPath } }).bash as string;
    const r = await sh(command, input);
    expect(r.code).toBe(2);
    expect(deny(r.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('Gatehouse is not running') });
  });

  it('when node or gatehouse cannot start: one JSON deny with a sentence and exit 2, never another code', async () => {
    const missing = join(tempDir('gatehouse-copilot-missing-'), 'node');
    const r = await sh(copilotHook('/nowhere', { launcher: { node: missing, entry: cliPath } }).bash as string, input);
    expect(r.code).toBe(2);
    expect(deny(r.stdout).permissionDecisionReason).toContain('the hook command could not run (exit 127');
    const crash = await sh(copilotHook('/nowhere', { launcher: { node: process.execPath, entry: join(tempDir('gatehouse-copilot-crash-'), 'absent.js') } }).bash as string, input);
    expect(crash.code).toBe(2);
    expect(deny(crash.stdout).permissionDecisionReason).toContain('the hook command could not run (exit 1');
  });

  it('a report with no Gatehouse running: exit 0 and nothing (the tool has already run)', async () => {
    const command = copilotReportHook(tempDir('gatehouse-copilot-report-'), 'postToolUse', { launcher: { node: process.execPath, entry: cliPath } }).bash as string;
    const r = await sh(command, JSON.stringify({ ...base, toolName: 'view', toolArgs: { path: '/work/p/a.txt' }, toolResult: { resultType: 'success', textResultForLlm: 'x' } }));
    expect(r).toMatchObject({ code: 0, stdout: '' });
  });

  it('malformed input: a JSON deny naming what is wrong, exit 2', async () => {
    const command = copilotHook(tempDir('gatehouse-copilot-bad-'), { launcher: { node: process.execPath, entry: cliPath } }).bash as string;
    const r = await sh(command, '{"cwd": "/work/p"}');
    expect(r.code).toBe(2);
    expect(deny(r.stdout).permissionDecisionReason).toContain('toolName is missing');
  });
});
