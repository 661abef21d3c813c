// Qwen Code's PreToolUse / PostToolUse hooks (issue #30): the payloads Qwen Code 0.24 sends (its
// bundle's firePreToolUseHook and HookEventHandler.createBaseInput, as measured: session_id,
// transcript_path, cwd, hook_event_name, timestamp, permission_mode, prompt_id, tool_name,
// tool_input, tool_use_id, tool_call_id; tool_response after) mapped onto the input the host
// judges, and the command "write it for me" writes, run by a real shell as Qwen Code runs it:
// every answer is Claude Code's JSON on stdout, every failure exit 2 with text on stderr.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromQwenInput, toQwenAnswer } from '../../../main/agents/qwen-code/hook-mapping.js';
import { hookAnswer, NO_DECISION } from '../../../main/gateway/hook-answer.js';
import { qwenHooks } from '../../../shared/claude-config.js';
import { cliPath, runShell } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const base = { session_id: 'e6a11d34-4a96-481d-90ef-4d4f65d9d9a0', transcript_path: '/home/u/.qwen/projects/p/chats/e6a1.jsonl', cwd: '/work/p', hook_event_name: 'PreToolUse', timestamp: '2026-11-29T06:01:26.843Z', permission_mode: 'yolo', prompt_id: 'e6a1########0', tool_use_id: 'toolu_1795932086842_7b70m90go', tool_call_id: 'call_1' };
const judged = (r: ReturnType<typeof fromQwenInput>) => ('judge' in r ? (JSON.parse(r.judge) as Record<string, unknown>) : r);

const sh = runShell;

describe('Qwen Code hook input', () => {
  it("maps its built-in tools onto the tools the judge reads by field, keeping Qwen Code's tool_use_id and unknown fields", () => {
    expect(judged(fromQwenInput(JSON.stringify({ ...base, tool_name: 'read_file', tool_input: { file_path: '/home/u/.ssh/id_rsa', limit: 5 } })))).toMatchObject({ session_id: base.session_id, cwd: '/work/p', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/home/u/.ssh/id_rsa', limit: 5 }, tool_use_id: base.tool_use_id });
    expect(judged(fromQwenInput(JSON.stringify({ ...base, tool_name: 'edit', tool_input: { file_path: '/work/p/a', old_string: 'a', new_string: 'b' } })))).toMatchObject({ tool_name: 'Edit' });
    expect(judged(fromQwenInput(JSON.stringify({ ...base, tool_name: 'web_fetch', tool_input: { url: 'https://example.com', prompt: 'sum' } })))).toMatchObject({ tool_name: 'WebFetch', tool_input: { url: 'https://example.com' } });
    // A shell command runs in its directory: the judge resolves its paths there.
    expect(judged(fromQwenInput(JSON.stringify({ ...base, tool_name: 'run_shell_command', tool_input: { command: 'cat id_rsa', directory: '../../home/u/.ssh' } })))).toMatchObject({ cwd: '/home/u/.ssh', tool_name: 'Bash', tool_input: { command: 'cat id_rsa' } });
    // tool_call runs a deferred tool by name: the tool it names is judged.
    expect(judged(fromQwenInput(JSON.stringify({ ...base, tool_name: 'tool_call', tool_input: { name: 'list_directory', arguments: { path: '/home/u/.ssh' } } })))).toMatchObject({ tool_name: 'LS', tool_input: { path: '/home/u/.ssh' } });
  });

  it("names the Gatehouse tool an mcp__gatehouse__<tool> call would be, for the host to check; another server's tools keep their mcp__ names", () => {
    expect(judged(fromQwenInput(JSON.stringify({ ...base, tool_name: 'mcp__gatehouse__hello', tool_input: {} })))).toMatchObject({ tool_name: 'mcp__gatehouse__hello', gatehouse_tool: 'hello' });
    expect(fromQwenInput(JSON.stringify({ ...base, hook_event_name: 'PostToolUse', tool_name: 'mcp__gatehouse__hello', tool_input: {}, tool_response: {} }))).toHaveProperty('skip');
    expect(judged(fromQwenInput(JSON.stringify({ ...base, tool_name: 'mcp__db__query', tool_input: { sql: 'x' } })))).toMatchObject({ tool_name: 'mcp__db__query' });
  });

  it('a PostToolUse or PostToolUseFailure input is the report of the call with the same tool_use_id', () => {
    const after = fromQwenInput(JSON.stringify({ ...base, hook_event_name: 'PostToolUse', tool_name: 'run_shell_command', tool_input: { command: 'touch x' }, tool_response: { llmContent: 'done', returnDisplay: '' }, duration_ms: 12 }));
    expect(judged(after)).toMatchObject({ hook_event_name: 'PostToolUse', tool_use_id: base.tool_use_id, tool_name: 'Bash', tool_response: { llmContent: 'done' } });
    const failed = fromQwenInput(JSON.stringify({ ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'read_file', tool_input: { file_path: '/x' }, error: 'ENOENT' }));
    expect(judged(failed)).toMatchObject({ hook_event_name: 'PostToolUseFailure', tool_name: 'Read', error: 'ENOENT' });
  });

  it('refuses what is not a tool event, naming why', () => {
    expect(fromQwenInput('not json')).toMatchObject({ invalid: expect.stringContaining('not JSON') });
    expect(fromQwenInput('[]')).toMatchObject({ invalid: expect.stringContaining('not a JSON object') });
    expect(fromQwenInput(JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', tool_name: 'x', tool_input: {} }))).toMatchObject({ invalid: expect.stringContaining('PreToolUse, PostToolUse and PostToolUseFailure only') });
    expect(fromQwenInput(JSON.stringify({ ...base, tool_name: 'read_file', tool_input: 'x' }))).toMatchObject({ invalid: expect.stringContaining('not an object') });
    expect(fromQwenInput(JSON.stringify({ ...base, tool_input: {} }))).toMatchObject({ invalid: expect.stringContaining('tool_name is missing') });
  });
});

describe('Qwen Code hook answer', () => {
  const decision = (r: { stdout: string }) => (JSON.parse(r.stdout) as { hookSpecificOutput: Record<string, unknown> }).hookSpecificOutput;

  it("allow, deny and ask are Claude Code's JSON on stdout with exit 0; no decision is nothing", () => {
    const deny = toQwenAnswer(hookAnswer('deny', 'no keys\nplease'), null);
    expect(deny.code).toBe(0);
    expect(decision(deny)).toEqual({ hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no keys please' });
    expect(decision(toQwenAnswer(hookAnswer('ask', 'an operator decides'), null))).toMatchObject({ permissionDecision: 'ask' });
    expect(decision(toQwenAnswer(hookAnswer('allow', 'granted'), null))).toMatchObject({ permissionDecision: 'allow', permissionDecisionReason: 'granted' });
    expect(toQwenAnswer(NO_DECISION, null)).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('an allow with a changed input (a contained command) is a deny: Qwen Code would run the original', () => {
    const boxed = toQwenAnswer(hookAnswer('allow', 'contained', { command: 'bwrap … sh -c ls' }), { tool: 'run_shell_command', toolInput: { command: 'ls' } });
    expect(decision(boxed)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('changed input') });
  });
});

describe('the hook command as Qwen Code runs it (a shell)', () => {
  const input = JSON.stringify({ ...base, tool_name: 'read_file', tool_input: { file_path: '/work/p/a.txt' } });
  const launcher = { node: process.execPath, entry: cliPath };

  it('is written with a timeout in seconds and fails closed; the reports do not', () => {
    const { decide, report } = qwenHooks('/gh', { launcher });
    expect(decide).toMatchObject({ name: 'gatehouse', type: 'command', timeout: 600, command: expect.stringMatching(/hook --agent qwen-code --home \/gh --timeout 590 \|\| \{/) });
    expect(report).toMatchObject({ timeout: 30, command: expect.stringMatching(/hook --agent qwen-code --home \/gh --timeout 20$/) });
  });

  it('with no Gatehouse running: a deny with the reason, exit 0', async () => {
    const r = await sh(qwenHooks(tempDir('gatehouse-qwen-nohost-'), { launcher }).decide.command as string, input);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('Gatehouse is not running') } });
  });

  it('when node or gatehouse cannot start: exit 2 with a sentence, never another code', async () => {
    const missing = join(tempDir('gatehouse-qwen-missing-'), 'node');
    const r = await sh(qwenHooks('/nowhere', { launcher: { node: missing, entry: cliPath } }).decide.command as string, input);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the hook command could not run (exit 127');
  });

  it('malformed input: a deny naming what is wrong', async () => {
    const r = await sh(qwenHooks(tempDir('gatehouse-qwen-bad-'), { launcher }).decide.command as string, '{"hook_event_name": "PreToolUse"}');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('tool_name is missing') } });
  });
});
