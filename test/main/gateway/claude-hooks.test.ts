// Claude Code's hooks as Claude Code actually behaves (#21), against a real host on loopback:
// an allow switches Claude Code's own permission prompts off, so autonomy alone gives no decision;
// the hook command Gatehouse writes fails closed without a PATH; PostToolUse reports say what ran;
// and in the headless wait mode an asked call waits in the inbox no longer than the hook does.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEvent } from '../../../main/audit/event-schemas.js';
import { ClaudeConfigWriter, defaultHookLauncher } from '../../../main/agents/claude-code/config-writer.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import type { ApprovalItemView, Settings } from '../../../shared/contract.js';
import { cliPath, repoRoot, runCli } from '../../support/cli.js';
import { http } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';

const rendererDir = join(repoRoot, 'out', 'renderer');

interface Running {
  home: string;
  project: string;
  host: Host;
  net: Listening;
  port: number;
  op<T = unknown>(method: string, params?: unknown): Promise<{ ok: boolean; result: T; error?: { code: string; message: string } }>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.net.shell.close();
    await r.host.close('test done');
  }
});

async function start(settings: Partial<Settings>, policy?: string): Promise<Running> {
  const root = tempDir('gatehouse-claude-hooks-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify(settings));
  if (policy) writeFileSync(join(home, 'policy.yaml'), policy);
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: project });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
  const port = net.shell.port;
  const r: Running = {
    home,
    project,
    host,
    net,
    port,
    async op(method, params = {}) {
      const res = await http({ port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${net.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
      return JSON.parse(res.body);
    },
  };
  running.push(r);
  return r;
}

const input = (event: string, tool: string, toolInput: Record<string, unknown>, extra: Record<string, unknown> = {}, toolUseId = 'toolu_01') =>
  JSON.stringify({ session_id: 'sess-1', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: event, tool_name: tool, tool_input: toolInput, tool_use_id: toolUseId, permission_mode: 'default', ...extra });
const pre = (tool: string, toolInput: Record<string, unknown>, toolUseId?: string) => input('PreToolUse', tool, toolInput, {}, toolUseId);

function postHook(r: Running, body: string, headers: Record<string, string> = {}) {
  return http({ port: r.port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { Authorization: `Bearer ${r.net.agentToken}`, 'Content-Type': 'application/json', ...headers }, body }).then((res) => ({ status: res.status, json: JSON.parse(res.body) as Record<string, unknown> }));
}

const events = (r: Running, type: string) => {
  // tail() is newest first: oldest first here, so .at(-1) is the latest.
  return r.host.audit.tail(1000).filter((e) => e.type === type).reverse();
};

function nextPending(r: Running): Promise<ApprovalItemView> {
  return new Promise((resolve) => {
    const check = () => {
      const items = r.host.approvals.list({ state: 'pending' });
      if (items.length === 0) return;
      off();
      resolve(items[0] as ApprovalItemView);
    };
    const off = r.host.bus.subscribe((name) => {
      if (name === 'approvals.changed') check();
    });
    check();
  });
}

/** Runs a command line the way Claude Code runs a command hook: `sh -c`, the input on stdin. */
function sh(command: string, stdin: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A command that fails before reading its input closes the pipe: that is the case under test.
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  });
}

/** The hooks "write it for me" writes into a fresh ~/.claude/settings.json, as parsed JSON. */
function writtenHooks(r: Running, launcher?: ReturnType<typeof defaultHookLauncher>) {
  const userHome = tempDir('gatehouse-claude-home-');
  const writer = new ClaudeConfigWriter({ userHome, gatehouseHome: r.home, endpoints: () => ({ mcpUrl: r.net.mcpUrl, hookUrl: r.net.hookUrl, agentToken: r.net.agentToken }), ...(launcher !== undefined ? { launcher } : {}) });
  const [file] = writer.preview({ scope: 'user', mcp: 'none', hook: 'command' }).files;
  return (JSON.parse(file!.after) as { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> }).hooks;
}

describe('1. an allow only when someone said so: autonomy alone gives no decision', () => {
  it('HTTP form: autonomy-only allow answers with no decision; the setting turns it into allow; an explicit allow rule and an operator allow', async () => {
    const allowRule = `rules:\n  - name: notes-are-fine\n    actions: [read]\n    block_paths: ["/srv/notes/**"]\n    decision: allow\n`;
    const r = await start({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' }, allowRule);
    // Supervised lets a read through on autonomy alone: Claude Code's own rules must still apply.
    const read = await postHook(r, pre('Read', { file_path: '/tmp/notes.txt' }));
    expect(read).toEqual({ status: 200, json: { continue: true } });
    expect(events(r, 'call.decided').at(-1)!.payload).toMatchObject({ decision: 'allow', decider: { kind: 'autonomy' } });
    // An explicit allow rule is someone's say: allow.
    const ruled = await postHook(r, pre('Read', { file_path: '/srv/notes/a.md' }));
    expect(ruled.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow', permissionDecisionReason: expect.stringContaining('notes-are-fine') });
    // An operator's approval: allow.
    const asked = postHook(r, pre('Bash', { command: 'touch /tmp/gatehouse-claude-hooks-x' }, 'toolu_02'));
    const item = await nextPending(r);
    expect((await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash })).ok).toBe(true);
    expect((await asked).json.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
    // hookAutonomyAllow "allow": the old answer, for those who want Gatehouse alone in charge.
    expect((await r.op('settings.update', { hookAutonomyAllow: 'allow' })).ok).toBe(true);
    expect((await postHook(r, pre('Read', { file_path: '/tmp/notes.txt' }))).json.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow', permissionDecisionReason: expect.stringContaining('autonomy supervised') });
    // deny is as before.
    expect((await postHook(r, pre('Read', { file_path: '~/.ssh/id_rsa' }))).json.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  });

  it('command form: autonomy-only allow is exit 0 with nothing on stdout (no decision)', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised' });
    const none = await runCli(['hook', '--home', r.home], {}, pre('Read', { file_path: '/tmp/notes.txt' }));
    expect(none).toMatchObject({ code: 0, stdout: '' });
    const deny = await runCli(['hook', '--home', r.home], {}, pre('Read', { file_path: '~/.aws/credentials' }));
    expect(JSON.parse(deny.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });
});

describe("1b. a tool named like one of Gatehouse's own MCP tools (issue #30)", () => {
  it('is left to the MCP path only when the host serves that tool under that name; another server named gatehouse-… and a forged claim are judged', async () => {
    // Every tool named gatehouse-… is one to ask about, if it is judged here.
    const r = await start({ mode: 'live', autonomy: 'supervised', hookAsk: 'agent', alwaysAsk: ['gatehouse-*'] });
    const copilot = (toolName: string) => JSON.stringify({ sessionId: 'sess-own', timestamp: 1, cwd: r.project, toolName, toolArgs: { command: 'touch /tmp/x' } });
    const received = () => events(r, 'call.received').length;
    const before = received();
    // Gatehouse's own shell tool, as Copilot CLI names it: no decision here, nothing recorded (it is judged when it reaches the MCP path).
    const own = await runCli(['hook', '--agent', 'copilot', '--home', r.home], {}, copilot('gatehouse-shell'));
    expect([own.code, own.stdout]).toEqual([0, '']);
    expect(received()).toBe(before);
    // A tool of another server whose name starts "gatehouse-" (a repository's MCP file can add one): judged, so it is asked about.
    const foreign = await runCli(['hook', '--agent', 'copilot', '--home', r.home], {}, copilot('gatehouse-evil-run'));
    expect(JSON.parse(foreign.stdout)).toMatchObject({ permissionDecision: 'ask' });
    expect(events(r, 'call.received').at(-1)).toMatchObject({ payload: expect.objectContaining({ tool: 'gatehouse-evil-run', client: 'copilot' }) });
    // A claim that does not match the tool name (an agent's own Bash said to be Gatehouse's shell) is no claim: judged as Bash.
    const forged = await postHook(r, JSON.stringify({ session_id: 'sess-own', cwd: r.project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'cat ~/.ssh/id_rsa' }, gatehouse_tool: 'shell' }));
    expect(forged.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  });
});

describe('1c. every mapped agent: a named agent token files the calls under its agent, the agent itself as the client (issue #30)', () => {
  it('Gemini CLI, Qwen Code, opencode and Copilot CLI, each with --agent-token-file', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised' });
    const created = await r.op<{ token: string }>('agents.tokens.create', { name: 'ci-bot' });
    const tokenFile = join(r.home, 'ci-bot.token');
    writeFileSync(tokenFile, created.result.token, { mode: 0o600 });
    const read = '/tmp/gatehouse-named-notes.txt';
    const inputs: Record<string, Record<string, unknown>> = {
      'gemini-cli': { session_id: 'g-1', transcript_path: '/tmp/t.json', cwd: r.project, hook_event_name: 'BeforeTool', timestamp: '2026-11-29T00:00:00Z', tool_name: 'read_file', tool_input: { file_path: read } },
      'qwen-code': { session_id: 'q-1', transcript_path: '/tmp/t.jsonl', cwd: r.project, hook_event_name: 'PreToolUse', tool_name: 'read_file', tool_input: { file_path: read }, tool_use_id: 'q-call-1' },
      opencode: { event: 'before', tool: 'read', sessionID: 'ses_o1', callID: 'o-call-1', args: { filePath: read }, directory: r.project },
      copilot: { sessionId: 'c-1', timestamp: 1, cwd: r.project, toolName: 'view', toolArgs: { path: read } },
    };
    for (const [agent, input] of Object.entries(inputs)) {
      const res = await runCli(['hook', '--agent', agent, '--home', r.home, '--agent-token-file', tokenFile], {}, JSON.stringify(input));
      expect(res.code, `${agent}: ${res.stdout}${res.stderr}`).toBe(0);
      const received = events(r, 'call.received').at(-1)!.payload as { agent: string; client: string; session: string; tool: string };
      expect([received.agent, received.client, received.session.split('/')[0], received.tool], agent).toEqual(['ci-bot', agent, 'ci-bot', 'Read']);
    }
  });
});

describe('2. the hook command Gatehouse writes fails closed, whatever the PATH', () => {
  it('the written command works with an empty PATH, and exits 2 when its node or entry is missing', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised' });
    const hooks = writtenHooks(r);
    const command = hooks.PreToolUse![0]!.hooks[0]!.command;
    // Absolute paths: nothing is looked up on the PATH. Where bash and curl are, the bash client
    // beside the built hook (no Node start-up per call); elsewhere node and the entry.
    const client = defaultHookLauncher()?.shClient;
    expect(command.startsWith(client ? `/bin/bash ${client} ` : `${process.execPath} ${join(repoRoot, 'bin', 'gatehouse.js')} hook `)).toBe(true);
    expect(hooks.PreToolUse![0]!.hooks[0]!.timeout).toBe(600);
    const env = { PATH: '', HOME: process.env.HOME ?? '/root' };
    const denied = await sh(command, pre('Read', { file_path: '~/.ssh/id_rsa' }), env);
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('builtin.credentials.ssh') });
    const deferred = await sh(command, pre('Read', { file_path: '/tmp/notes.txt' }), env);
    expect(deferred).toMatchObject({ code: 0, stdout: '' });

    // A moved installation (the entry is gone) and a missing node: exit 2, which blocks the call.
    const gone = writtenHooks(r, { node: process.execPath, entry: join(tempDir('gatehouse-moved-'), 'bin', 'gatehouse.js') }).PreToolUse![0]!.hooks[0]!.command;
    const missingEntry = await sh(gone, pre('Read', { file_path: '/tmp/notes.txt' }), env);
    expect(missingEntry.code).toBe(2);
    expect(missingEntry.stderr).toContain('this call is blocked');
    const noNode = writtenHooks(r, { node: '/nonexistent/node', entry: cliPath }).PreToolUse![0]!.hooks[0]!.command;
    expect((await sh(noNode, pre('Read', { file_path: '/tmp/notes.txt' }), env)).code).toBe(2);
    // No launcher known (a packaged app): `gatehouse` from the PATH, still exit 2 when it is not there.
    const onPath = writtenHooks(r, null).PreToolUse![0]!.hooks[0]!.command;
    expect((await sh(onPath, pre('Read', { file_path: '/tmp/notes.txt' }), env)).code).toBe(2);
  });

  it('the written command fails closed when the host is stopped or the token file is wrong', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised' });
    const command = writtenHooks(r).PreToolUse![0]!.hooks[0]!.command;
    const env = { PATH: '', HOME: process.env.HOME ?? '/root' };
    const badToken = join(tempDir('gatehouse-token-'), 'token');
    writeFileSync(badToken, 'x'.repeat(32));
    const wrong = await sh(command.replace(' --home ', ` --agent-token-file ${badToken} --home `), pre('Read', { file_path: '/tmp/notes.txt' }), env);
    expect(JSON.parse(wrong.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('agent token') });
    await r.net.shell.close();
    const stopped = await sh(command, pre('Read', { file_path: '/tmp/notes.txt' }), env);
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  });
});

describe('4. what ran: PostToolUse and PostToolUseFailure are recorded against their PreToolUse call', () => {
  it('HTTP form: an outcome event with a bounded, redacted summary, matched by tool_use_id; the result says the agent runs it', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised' });
    await postHook(r, pre('Read', { file_path: '/tmp/notes.txt' }, 'toolu_ran'));
    const callId = (events(r, 'call.received').at(-1)!.payload as { call: string }).call;
    // Not "did not run": the agent runs it itself.
    expect(events(r, 'call.result').at(-1)!.payload).toMatchObject({ call: callId, executed: false, ranBy: 'agent' });
    const secret = 'sk-ant-api03-' + 'a'.repeat(40);
    const big = { type: 'text', file: { filePath: '/tmp/notes.txt', content: `key ${secret}\n` + 'x'.repeat(10_000) } };
    const reported = await postHook(r, input('PostToolUse', 'Read', { file_path: '/tmp/notes.txt' }, { tool_response: big, duration_ms: 12 }, 'toolu_ran'));
    expect(reported).toEqual({ status: 200, json: { continue: true } });
    const outcome = events(r, 'call.outcome').at(-1)!;
    expect(checkEvent(outcome)).toBeNull();
    expect(outcome.actor).toBe('agent:default');
    expect(outcome.payload).toMatchObject({ call: callId, session: 'default/sess-1', tool: 'Read', toolUseId: 'toolu_ran', outcome: 'executed', decision: 'allow', truncated: true, durationMs: 12, interrupted: false });
    const p = outcome.payload as { summary: string; bytes: number };
    expect(p.summary.length).toBeLessThanOrEqual(2048);
    expect(p.bytes).toBeGreaterThan(10_000);
    expect(p.summary).not.toContain(secret);
    expect(p.summary).toContain('[REDACTED]');

    // A failure, and a report of a call Gatehouse denied (it ran anyway: the record says so).
    await postHook(r, pre('Read', { file_path: '~/.ssh/id_rsa' }, 'toolu_denied'));
    expect(await postHook(r, input('PostToolUseFailure', 'Read', { file_path: '~/.ssh/id_rsa' }, { error: 'EACCES: permission denied', is_interrupt: false }, 'toolu_denied'))).toEqual({ status: 200, json: { continue: true } });
    expect(events(r, 'call.outcome').at(-1)!.payload).toMatchObject({ outcome: 'failed', decision: 'deny', summary: 'EACCES: permission denied' });
    // No PreToolUse of that id: recorded, naming no call.
    await postHook(r, input('PostToolUse', 'Bash', { command: 'ls' }, { tool_response: { stdout: 'a' } }, 'toolu_unknown'));
    expect(events(r, 'call.outcome').at(-1)!.payload).toMatchObject({ call: null, toolUseId: 'toolu_unknown' });
    // A report names its session: another token's session_id is another session, never this one's call.
    expect(events(r, 'call.outcome')).toHaveLength(3);
    // A response nested a million levels deep (a hostile MCP server's structured output) is
    // recorded, saying it could not be written out; writing it overflowed the stack, twice, and
    // nothing was recorded.
    const deep = input('PostToolUse', 'mcp__x__y', {}, { tool_response: 'DEEP' }, 'toolu_deep').replace('"DEEP"', '['.repeat(1_000_000) + ']'.repeat(1_000_000));
    expect(await postHook(r, deep)).toEqual({ status: 200, json: { continue: true } });
    expect(events(r, 'call.outcome').at(-1)!.payload).toMatchObject({ toolUseId: 'toolu_deep', summary: expect.stringContaining('a response Gatehouse could not write out') });
  });

  it('command form: a report is exit 0 with no output, recorded; with no host it is still exit 0 and silent', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised' });
    const hooks = writtenHooks(r);
    const report = hooks.PostToolUse![0]!.hooks[0]!.command;
    expect(hooks.PostToolUseFailure![0]!.hooks[0]!.command).toBe(report);
    const env = { PATH: '', HOME: process.env.HOME ?? '/root' };
    await sh(hooks.PreToolUse![0]!.hooks[0]!.command, pre('Bash', { command: 'ls /tmp' }, 'toolu_cmd'), env);
    const sent = await sh(report, input('PostToolUse', 'Bash', { command: 'ls /tmp' }, { tool_response: { stdout: 'notes.txt\n', stderr: '', interrupted: false } }, 'toolu_cmd'), env);
    expect(sent).toMatchObject({ code: 0, stdout: '' });
    expect(events(r, 'call.outcome').at(-1)!.payload).toMatchObject({ tool: 'Bash', toolUseId: 'toolu_cmd', outcome: 'executed', summary: expect.stringContaining('notes.txt') });
    await r.net.shell.close();
    expect(await sh(report, input('PostToolUse', 'Bash', { command: 'ls' }, { tool_response: {} }, 'toolu_late'), env)).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('4b. deadlines and reports (issue #25): a request read after its hook gave up is not judged; a tool that ran without an allow is its own event', () => {
  it('a request whose sent-at + deadline has passed is answered without judgement, recorded as hook.expired, and the report of the tool running anyway is linked to it as a bypass', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised' });
    // As `gatehouse hook` sends it, but read 10 minutes late (the host was stopped past the deadline).
    const late = await postHook(r, pre('Bash', { command: 'rm -rf build' }, 'toolu_late'), { 'x-gatehouse-hook-deadline-ms': '590000', 'x-gatehouse-hook-sent-at': String(Date.now() - 600_000) });
    expect(late.json).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/^Gatehouse did not judge this call: its hook's deadline passed \d+ s before Gatehouse read it/) } });
    expect(events(r, 'call.received')).toHaveLength(0);
    expect(events(r, 'call.decided')).toHaveLength(0);
    expect(events(r, 'hook.expired').at(-1)!.payload).toMatchObject({ session: 'default/sess-1', tool: 'Bash', toolUseId: 'toolu_late' });
    // Claude Code ran it after its hook timed out: the report is linked, and the bypass is an event of its own.
    await postHook(r, input('PostToolUse', 'Bash', { command: 'rm -rf build' }, { tool_response: { stdout: '' } }, 'toolu_late'));
    expect(events(r, 'call.outcome').at(-1)!.payload).toMatchObject({ toolUseId: 'toolu_late', decision: 'expired' });
    expect(events(r, 'call.bypassed').at(-1)!.payload).toMatchObject({ call: null, toolUseId: 'toolu_late', decision: 'expired', outcome: 'executed' });
    // A request on time is judged as before.
    const onTime = await postHook(r, pre('Read', { file_path: '/tmp/notes.txt' }, 'toolu_ok'), { 'x-gatehouse-hook-deadline-ms': '590000', 'x-gatehouse-hook-sent-at': String(Date.now()) });
    expect(onTime.json).toEqual({ continue: true });
    for (const e of [...events(r, 'hook.expired'), ...events(r, 'call.bypassed')]) expect(checkEvent(e)).toBeNull();
  });

  it('a denied call that ran anyway is a call.bypassed event; a report that comes before its PreToolUse decision is linked once the call is decided', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised' });
    await postHook(r, pre('Read', { file_path: '~/.ssh/id_rsa' }, 'toolu_denied'));
    await postHook(r, input('PostToolUse', 'Read', { file_path: '~/.ssh/id_rsa' }, { tool_response: { content: 'x' } }, 'toolu_denied'));
    const denied = (events(r, 'call.decided').at(-1)!.payload as { call: string }).call;
    expect(events(r, 'call.bypassed').at(-1)!.payload).toMatchObject({ call: denied, decision: 'deny', outcome: 'executed', tool: 'Read' });
    // The report first (two connections answered in either order), the decision after.
    await postHook(r, input('PostToolUse', 'Read', { file_path: '/tmp/a.txt' }, { tool_response: {} }, 'toolu_early'));
    expect(events(r, 'call.outcome').at(-1)!.payload).toMatchObject({ call: null, toolUseId: 'toolu_early' });
    await postHook(r, pre('Read', { file_path: '/tmp/a.txt' }, 'toolu_early'));
    const early = (events(r, 'call.decided').at(-1)!.payload as { call: string }).call;
    expect(events(r, 'call.outcome-linked').at(-1)!.payload).toMatchObject({ call: early, toolUseId: 'toolu_early', outcome: 'executed', decision: 'allow' });
    // Allowed: no bypass for it.
    expect(events(r, 'call.bypassed').filter((e) => (e.payload as { toolUseId: string }).toolUseId === 'toolu_early')).toEqual([]);
  });
});

describe('5. headless (claude -p): "ask" waits in the inbox, within the hook deadline', () => {
  it('the inbox item expires before the hook gives up (its deadline header, less the margin) and an approval answers allow', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox', approvalExpiryMinutes: 10 });
    const answer = postHook(r, pre('Bash', { command: 'touch /tmp/gatehouse-claude-hooks-wait' }), { 'X-Gatehouse-Hook-Deadline-Ms': '60000' });
    const item = await nextPending(r);
    // 60 s hook, 5 s margin: 55 s, not the 10-minute setting.
    expect(item.expiresAt - item.requestedAt).toBe(55_000);
    await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash });
    expect((await answer).json.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
  });

  it('without a header the window is Claude Code\'s default 600 s less the margin; the command form sends its --timeout', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox', approvalExpiryMinutes: 60 });
    const answer = postHook(r, pre('Bash', { command: 'touch /tmp/gatehouse-claude-hooks-a' }));
    const item = await nextPending(r);
    expect(item.expiresAt - item.requestedAt).toBe(595_000);
    await r.op('approvals.deny', { id: item.id, reason: 'not now' });
    expect((await answer).json.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });

    const viaCommand = runCli(['hook', '--home', r.home, '--timeout', '30'], {}, pre('Bash', { command: 'touch /tmp/gatehouse-claude-hooks-b' }, 'toolu_b'));
    const second = await nextPending(r);
    expect(second.expiresAt - second.requestedAt).toBe(25_000);
    await r.op('approvals.approve', { id: second.id, argsHash: second.argsHash });
    expect(JSON.parse((await viaCommand).stdout).hookSpecificOutput.permissionDecision).toBe('allow');
  });

  it('a hook that gives up (its connection closes) takes its item out of the inbox: it can no longer be approved', async () => {
    const r = await start({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' });
    const child = spawn(process.execPath, [cliPath, 'hook', '--home', r.home, '--timeout', '300'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end(pre('Bash', { command: 'touch /tmp/gatehouse-claude-hooks-c' }));
    const item = await nextPending(r);
    const closed = new Promise((resolve) => child.on('close', resolve));
    child.kill('SIGKILL');
    await closed;
    await new Promise<void>((resolve) => {
      const check = () => {
        if (r.host.approvals.list({ state: 'pending' }).length > 0) return;
        off();
        resolve();
      };
      const off = r.host.bus.subscribe((name) => {
        if (name === 'approvals.changed') check();
      });
      check();
    });
    const approve = await r.op('approvals.approve', { id: item.id, argsHash: item.argsHash });
    expect(approve.ok).toBe(false);
  });
});

describe('6. wrong-typed or missing tool_input fields of Claude Code\'s tools are refused, naming the field', () => {
  // The judge reads fields by name: before, `Read {"file_path": 5}` was a read of nothing, allowed.
  const raw = (tool: string, toolInput: unknown) => JSON.stringify({ session_id: 'sess-1', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: toolInput, tool_use_id: 'toolu_t', permission_mode: 'default' });
  const cases: [string, unknown, RegExp][] = [
    ['Read', { file_path: 5 }, /field "tool_input\.file_path" must be a string \(got a number\)/],
    ['Read', { file_path: { path: '~/.ssh/id_rsa' } }, /field "tool_input\.file_path" must be a string \(got an object\)/],
    ['Read', {}, /missing required field "tool_input\.file_path"/],
    ['Read', null, /"tool_input" must be an object of named arguments, got null/],
    ['read', { file_path: ['~/.ssh/id_rsa'] }, /field "tool_input\.file_path" must be a string \(got an array\)/],
    ['Bash', { command: ['cat', '/home/x/.ssh/id_rsa'] }, /field "tool_input\.command" must be a string \(got an array\)/],
    ['Grep', { pattern: 'BEGIN', path: { dir: '~/.ssh' } }, /field "tool_input\.path" must be a string \(got an object\)/],
    ['Edit', { file_path: '/tmp/a.txt', old_string: 'a' }, /missing required field "tool_input\.new_string"/],
    ['WebFetch', { url: 42, prompt: 'x' }, /field "tool_input\.url" must be a string \(got a number\)/],
  ];

  it('HTTP form, at full autonomy: each is denied with the field and the expected type; a well-typed input with extra fields and MCP tools are judged as before', async () => {
    const r = await start({ mode: 'live', autonomy: 'full' });
    for (const [tool, toolInput, why] of cases) {
      const a = await postHook(r, raw(tool, toolInput));
      expect(a.status).toBe(200);
      const out = a.json.hookSpecificOutput as { permissionDecision: string; permissionDecisionReason: string };
      expect(out.permissionDecision, `${tool} ${JSON.stringify(toolInput)}`).toBe('deny');
      expect(out.permissionDecisionReason).toMatch(why);
      expect(out.permissionDecisionReason).toContain(`Claude Code's ${tool} tool takes`);
    }
    const decided = events(r, 'call.decided').map((e) => e.payload as { decision: string; decider: { kind: string; message?: string } });
    expect(decided).toHaveLength(cases.length);
    for (const d of decided) expect(d).toMatchObject({ decision: 'deny', decider: { kind: 'error', message: 'malformed tool input' } });
    expect(r.host.audit.tail(200).map((e) => checkEvent(e)).filter(Boolean)).toEqual([]);

    // Fields Gatehouse does not list are Claude Code's business; MCP tools keep their own checks.
    expect(await postHook(r, raw('Read', { file_path: '/tmp/notes.txt', pages: '1-2', some_new_field: { x: 1 } }))).toEqual({ status: 200, json: { continue: true } });
    await postHook(r, raw('mcp__fs__read_file', { path: 5 }));
    expect((events(r, 'call.decided').at(-1)!.payload as { decider: { message?: string } }).decider.message).not.toBe('malformed tool input');
  });

  it('command form (gatehouse hook): the same deny, with the field named', async () => {
    const r = await start({ mode: 'live', autonomy: 'full' });
    const res = await runCli(['hook', '--home', r.home], {}, raw('Read', { file_path: 5 }));
    expect(res.code).toBe(0);
    const out = (JSON.parse(res.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
    expect(out).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/field "tool_input\.file_path" must be a string \(got a number\)/) });
  });
});
