// Gemini CLI's BeforeTool and AfterTool hooks (issue #30): the payloads Gemini CLI 0.61 sends (its
// bundle's HookEventHandler.fireBeforeToolEvent / fireAfterToolEvent: session_id, transcript_path,
// cwd, hook_event_name, timestamp, tool_name, tool_input, mcp_context; tool_response after) mapped
// onto the input the host judges and the report it records, and the
// command "write it for me" writes, run by a real shell as Gemini CLI runs it: every failure is
// exit 2 with text on stderr, the one answer Gemini CLI treats as "blocked".
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromGeminiInput, toGeminiAnswer } from '../../../main/agents/gemini/hook-mapping.js';
import { hookAnswer, NO_DECISION } from '../../../main/gateway/hook-answer.js';
import { geminiHook } from '../../../shared/claude-config.js';
import { cliPath, runShell } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const base = { session_id: '6a1f0c2e-9d4b-4e0f-8a51-0d3c2b1e7f90', transcript_path: '', cwd: '/work/p', hook_event_name: 'BeforeTool', timestamp: '2026-11-29T02:00:00.000Z' };

const sh = runShell;

describe('Gemini CLI hook input', () => {
  it('maps its built-in tools onto the tools the judge reads by field, keeping unknown fields', () => {
    const read = fromGeminiInput(JSON.stringify({ ...base, tool_name: 'read_file', tool_input: { file_path: '/home/u/.ssh/id_rsa' } }));
    expect('judge' in read && JSON.parse(read.judge)).toMatchObject({ session_id: base.session_id, cwd: '/work/p', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/home/u/.ssh/id_rsa' } });
    // A shell command runs in its dir_path: the judge resolves its paths there.
    const shell = fromGeminiInput(JSON.stringify({ ...base, tool_name: 'run_shell_command', tool_input: { command: 'cat id_rsa', dir_path: '../../home/u/.ssh' } }));
    expect('judge' in shell && JSON.parse(shell.judge)).toMatchObject({ cwd: '/home/u/.ssh', tool_name: 'Bash', tool_input: { command: 'cat id_rsa' } });
    const other = fromGeminiInput(JSON.stringify({ ...base, tool_name: 'web_fetch', tool_input: { prompt: 'https://example.com' } }));
    expect('judge' in other && JSON.parse(other.judge)).toMatchObject({ tool_name: 'web_fetch', tool_input: { prompt: 'https://example.com' } });
  });

  it('hands read_many_files to the judge as a search: literal patterns as paths, a wildcard one as its start and file-name filter; grep_search include_pattern as glob', () => {
    const many = fromGeminiInput(JSON.stringify({ ...base, tool_name: 'read_many_files', tool_input: { include: ['.env', 'src/**/*.ts', '/etc/*.conf', '**/.npmrc'] } }));
    expect('judge' in many && JSON.parse(many.judge)).toMatchObject({ tool_name: 'read_many_files', tool_input: { paths: ['.env', 'src', '/etc', '.', './.npmrc'], glob: '{*.ts,*.conf}' } });
    const climb = fromGeminiInput(JSON.stringify({ ...base, tool_name: 'read_many_files', tool_input: { include: ['*/../../.ssh/id_rsa'] } }));
    expect('judge' in climb && JSON.parse(climb.judge)).toMatchObject({ tool_input: { paths: ['/'] } });
    const grep = fromGeminiInput(JSON.stringify({ ...base, tool_name: 'grep_search', tool_input: { pattern: '.', include_pattern: '.env' } }));
    expect('judge' in grep && JSON.parse(grep.judge)).toMatchObject({ tool_name: 'Grep', tool_input: { pattern: '.', glob: '.env' } });
  });

  it("leaves Gatehouse's own MCP tools to the MCP path, and names another server's tools as MCP tools", () => {
    // The host is asked, told the Gatehouse tool the call claims to be: it leaves only a tool it serves to the MCP path.
    const own = fromGeminiInput(JSON.stringify({ ...base, tool_name: 'hello', tool_input: {}, mcp_context: { server_name: 'gatehouse', tool_name: 'hello' } }));
    expect('judge' in own && JSON.parse(own.judge)).toMatchObject({ tool_name: 'mcp__gatehouse__hello', gatehouse_tool: 'hello' });
    expect(fromGeminiInput(JSON.stringify({ ...base, hook_event_name: 'AfterTool', tool_name: 'hello', tool_input: {}, tool_response: {}, mcp_context: { server_name: 'gatehouse', tool_name: 'hello' } }))).toHaveProperty('skip');
    const theirs = fromGeminiInput(JSON.stringify({ ...base, tool_name: 'query', tool_input: { sql: 'x' }, mcp_context: { server_name: 'db', tool_name: 'query' } }));
    expect('judge' in theirs && JSON.parse(theirs.judge)).toMatchObject({ tool_name: 'mcp__db__query' });
  });

  it('an AfterTool input is the PostToolUse report of the call its BeforeTool judged (the same derived id), or its failure', () => {
    const call = { tool_name: 'run_shell_command', tool_input: { command: 'touch x', description: 'make x' } };
    const before = fromGeminiInput(JSON.stringify({ ...base, ...call }));
    const after = fromGeminiInput(JSON.stringify({ ...base, ...call, hook_event_name: 'AfterTool', tool_response: { llmContent: 'done', returnDisplay: 'done' } }));
    const failed = fromGeminiInput(JSON.stringify({ ...base, ...call, hook_event_name: 'AfterTool', tool_response: { llmContent: '', error: { message: 'exit 1' } } }));
    const id = 'judge' in before && (JSON.parse(before.judge) as { tool_use_id: string }).tool_use_id;
    expect(id).toMatch(/^gemini-[0-9a-f]{32}$/);
    expect('judge' in after && JSON.parse(after.judge)).toMatchObject({ hook_event_name: 'PostToolUse', tool_use_id: id, tool_name: 'Bash', tool_response: { llmContent: 'done' } });
    expect('judge' in failed && JSON.parse(failed.judge)).toMatchObject({ hook_event_name: 'PostToolUseFailure', tool_use_id: id, error: { message: 'exit 1' } });
    // Another session, or another input, is another call.
    const other = fromGeminiInput(JSON.stringify({ ...base, ...call, session_id: 'another-session' }));
    expect('judge' in other && (JSON.parse(other.judge) as { tool_use_id: string }).tool_use_id).not.toBe(id);
  });

  it('refuses what is not a BeforeTool or AfterTool input, naming why', () => {
    expect(fromGeminiInput('not json')).toMatchObject({ invalid: expect.stringContaining('not JSON') });
    expect(fromGeminiInput(JSON.stringify({ ...base, hook_event_name: 'BeforeModel', tool_name: 'x', tool_input: {} }))).toMatchObject({ invalid: expect.stringContaining('BeforeTool and AfterTool events only') });
    expect(fromGeminiInput(JSON.stringify({ ...base, tool_name: 'read_file', tool_input: 'x' }))).toMatchObject({ invalid: expect.stringContaining('not an object') });
  });
});

describe('Gemini CLI hook answer', () => {
  it('deny and ask are exit 2 with the reason on stderr; allow and no decision exit 0', () => {
    expect(toGeminiAnswer(hookAnswer('deny', 'no keys\nplease'), null)).toEqual({ code: 2, stdout: '', stderr: 'no keys please\n' });
    expect(toGeminiAnswer(hookAnswer('ask', 'an operator decides'), null)).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('hookAsk') });
    expect(toGeminiAnswer(NO_DECISION, null)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(JSON.parse(toGeminiAnswer(hookAnswer('allow', 'granted'), null).stdout)).toEqual({ decision: 'allow', reason: 'granted' });
  });

  it('a contained shell command is allowed with the boxed command as its input; a changed input Gemini cannot take is blocked', () => {
    const boxed = toGeminiAnswer(hookAnswer('allow', 'contained', { command: 'bwrap … sh -c ls' }), { tool: 'run_shell_command', toolInput: { command: 'ls', description: 'list' } });
    expect(JSON.parse(boxed.stdout)).toMatchObject({ decision: 'allow', hookSpecificOutput: { tool_input: { command: 'bwrap … sh -c ls', description: 'list' } } });
    expect(toGeminiAnswer(hookAnswer('allow', 'x', { file_path: '/y' }), { tool: 'read_file', toolInput: {} }).code).toBe(2);
  });
});

describe('the hook command as Gemini CLI runs it (a shell)', () => {
  const input = JSON.stringify({ ...base, tool_name: 'read_file', tool_input: { file_path: '/work/p/a.txt' } });

  it('with no Gatehouse running: exit 2, and the reason on stderr', async () => {
    const command = geminiHook(tempDir('gatehouse-gemini-nohost-'), { launcher: { node: process.execPath, entry: cliPath } }).command as string;
    const r = await sh(command, input);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Gatehouse is not running');
    // Only the hook's own sentence: the fallback did not add "could not run".
    expect(r.stderr).not.toContain('could not run');
  });

  it('when node or gatehouse cannot start: exit 2 with a sentence, never another code', async () => {
    const missing = join(tempDir('gatehouse-gemini-missing-'), 'node');
    const r = await sh(geminiHook('/nowhere', { launcher: { node: missing, entry: cliPath } }).command as string, input);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the hook command could not run (exit 127');
    const crash = await sh(geminiHook('/nowhere', { launcher: { node: process.execPath, entry: join(tempDir('gatehouse-gemini-crash-'), 'absent.js') } }).command as string, input);
    expect(crash.code).toBe(2);
    expect(crash.stderr).toContain('the hook command could not run (exit 1');
  });

  it('malformed input: exit 2 naming what is wrong', async () => {
    const command = geminiHook(tempDir('gatehouse-gemini-bad-'), { launcher: { node: process.execPath, entry: cliPath } }).command as string;
    const r = await sh(command, '{"hook_event_name": "BeforeTool"}');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('tool_name is missing');
  });
});
