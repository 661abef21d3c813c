// opencode's plugin and hook command (issue #30): what Gatehouse's plugin sends for opencode 1.18's
// tool.execute.before / tool.execute.after (tool, sessionID, callID, args) mapped onto the input
// the host judges; the answers mapped back; the built command with no host; and the plugin file
// "write it for me" writes, loaded as a module and run, blocking the call on every failure of the
// command (a deny, the command missing, output that is not an answer, no answer in time).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { silentHost } from '../../support/silent-host.js';
import { fromOpencodeInput, toOpencodeAnswer } from '../../../main/agents/opencode/hook-mapping.js';
import { opencodePluginSource } from '../../../main/agents/opencode/plugin-source.js';
import { hookAnswer, NO_DECISION } from '../../../main/gateway/hook-answer.js';
import { cliPath, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const base = { event: 'before', sessionID: 'ses_2253fe471001cWcV6uzmThwTqx', callID: 'call_1', directory: '/work/p' };

describe('opencode hook input', () => {
  it("maps opencode's own tools onto the tools the judge reads by field, keeping unknown fields", () => {
    const read = fromOpencodeInput(JSON.stringify({ ...base, tool: 'read', args: { filePath: '/home/u/.ssh/id_rsa', offset: 1 } }));
    expect('judge' in read && JSON.parse(read.judge)).toEqual({ session_id: base.sessionID, cwd: '/work/p', tool_use_id: 'call_1', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { filePath: '/home/u/.ssh/id_rsa', offset: 1, file_path: '/home/u/.ssh/id_rsa' } });
    // bash runs in its workdir: the judge resolves its paths there.
    const bash = fromOpencodeInput(JSON.stringify({ ...base, tool: 'bash', args: { command: 'cat id_rsa', description: 'x', workdir: '../../home/u/.ssh' } }));
    expect('judge' in bash && JSON.parse(bash.judge)).toMatchObject({ cwd: '/home/u/.ssh', tool_name: 'Bash', tool_input: { command: 'cat id_rsa' } });
    const edit = fromOpencodeInput(JSON.stringify({ ...base, tool: 'edit', args: { filePath: 'a.ts', oldString: 'x', newString: 'y' } }));
    expect('judge' in edit && JSON.parse(edit.judge)).toMatchObject({ tool_name: 'Edit', tool_input: { file_path: 'a.ts', old_string: 'x', new_string: 'y' } });
    // apply_patch names its files inside the patch: they reach the judge as paths.
    const patch = fromOpencodeInput(JSON.stringify({ ...base, tool: 'apply_patch', args: { patchText: '*** Begin Patch\n*** Update File: /home/u/.bashrc\n@@\n-a\n+b\n*** End Patch' } }));
    expect('judge' in patch && JSON.parse(patch.judge)).toMatchObject({ tool_name: 'apply_patch', tool_input: { paths: ['/home/u/.bashrc'] } });
    // As opencode reads the headers: no space needed after the colon, the rest trimmed (review rev4).
    const tight = fromOpencodeInput(JSON.stringify({ ...base, tool: 'apply_patch', args: { patchText: '*** Begin Patch\n*** Add File:.git/hooks/pre-commit\n+x\n*** Delete File:a\n*** Update File:b\n*** Move to:\tc \r\n*** End Patch' } }));
    expect('judge' in tight && JSON.parse(tight.judge)).toMatchObject({ tool_input: { paths: ['.git/hooks/pre-commit', 'a', 'b', 'c'] } });
    // Another MCP server's tool, by opencode's name for it.
    const other = fromOpencodeInput(JSON.stringify({ ...base, tool: 'db_query', args: { sql: 'x' } }));
    expect('judge' in other && JSON.parse(other.judge)).toMatchObject({ tool_name: 'db_query', tool_input: { sql: 'x' } });
  });

  it("names the Gatehouse tool a gatehouse_<tool> call would be, for the host to check, and reports what ran as PostToolUse by call id", () => {
    const own = fromOpencodeInput(JSON.stringify({ ...base, tool: 'gatehouse_shell', args: { command: 'ls' } }));
    expect('judge' in own && JSON.parse(own.judge)).toMatchObject({ tool_name: 'gatehouse_shell', gatehouse_tool: 'shell', hook_event_name: 'PreToolUse' });
    expect(fromOpencodeInput(JSON.stringify({ ...base, event: 'after', tool: 'gatehouse_shell', args: {}, output: {} }))).toHaveProperty('skip');
    const after = fromOpencodeInput(JSON.stringify({ ...base, event: 'after', tool: 'read', args: { filePath: '/p/a' }, output: { title: 'a', output: 'text' } }));
    expect('judge' in after && JSON.parse(after.judge)).toMatchObject({ hook_event_name: 'PostToolUse', tool_use_id: 'call_1', tool_name: 'Read', tool_response: { title: 'a', output: 'text' } });
  });

  it('refuses what is not the plugin\'s input, naming why', () => {
    expect(fromOpencodeInput('not json')).toMatchObject({ invalid: expect.stringContaining('not JSON') });
    expect(fromOpencodeInput(JSON.stringify({ ...base, event: 'PreToolUse', tool: 'read', args: {} }))).toMatchObject({ invalid: expect.stringContaining('"before" or "after"') });
    expect(fromOpencodeInput(JSON.stringify({ ...base, tool: 'read', args: 'x' }))).toMatchObject({ invalid: expect.stringContaining('not an object') });
    expect(fromOpencodeInput(JSON.stringify({ ...base, sessionID: '', tool: 'read', args: {} }))).toMatchObject({ invalid: expect.stringContaining('sessionID') });
    expect(fromOpencodeInput(JSON.stringify({ ...base, event: 'after', callID: '', tool: 'read', args: {} }))).toMatchObject({ invalid: expect.stringContaining('callID') });
  });
});

describe('opencode hook answer', () => {
  it('deny and ask are exit 2 with the reason; allow and no decision exit 0; a changed input only for bash', () => {
    expect(toOpencodeAnswer(hookAnswer('deny', 'no keys\nplease'), null)).toEqual({ code: 2, stdout: '{"decision":"deny","reason":"no keys please"}\n', stderr: 'no keys please\n' });
    expect(JSON.parse(toOpencodeAnswer(hookAnswer('ask', 'an operator decides'), null).stdout)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('hookAsk') });
    expect(toOpencodeAnswer(NO_DECISION, null)).toEqual({ code: 0, stdout: '{"decision":"none"}\n', stderr: '' });
    expect(JSON.parse(toOpencodeAnswer(hookAnswer('allow', 'granted'), null).stdout)).toEqual({ decision: 'allow', reason: 'granted' });
    const contained = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'boxed', updatedInput: { command: 'box -- ls' } } };
    expect(JSON.parse(toOpencodeAnswer(contained, { tool: 'bash', toolInput: { command: 'ls' } }).stdout)).toMatchObject({ decision: 'allow', args: { command: 'box -- ls' } });
    expect(toOpencodeAnswer(contained, { tool: 'read', toolInput: {} }).code).toBe(2);
  });
});

/** Runs `gatehouse hook --agent opencode …` (the built command) with `input` on stdin. */
function hookCli(args: string[], input: string) {
  return runCli(['hook', '--agent', 'opencode', ...args], {}, input);
}

describe('gatehouse hook --agent opencode (the built command)', () => {
  it('with no host: a deny the plugin throws, naming why; bad input is a deny too', async () => {
    const home = tempDir('gatehouse-opencode-nohost-');
    const r = await hookCli(['--home', home], JSON.stringify({ ...base, tool: 'read', args: { filePath: '/etc/hostname' } }));
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('Gatehouse is not running') });
    const bad = await hookCli(['--home', home], '{"tool":');
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('not JSON') });
    // A tool named like Gatehouse's own is checked by the host too: with no host, a deny (Gatehouse's own tools cannot run without it either).
    const own = await hookCli(['--home', home], JSON.stringify({ ...base, tool: 'gatehouse_shell', args: {} }));
    expect(own.code).toBe(2);
    expect(JSON.parse(own.stdout)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('Gatehouse is not running') });
  });
});

describe('gatehouse hook --agent opencode, when opencode is gone', () => {
  it('exits once its parent (opencode) is gone, closing its connection, so the host withdraws the waiting call', async () => {
    const home = tempDir('gatehouse-opencode-gone-');
    // A host that never answers: the hook's request stays open until the hook closes it.
    const host = await silentHost(home);
    try {
      // opencode, as far as the hook can tell: the process that started it, staying until killed.
      const input = JSON.stringify({ ...base, tool: 'bash', args: { command: 'touch x' } });
      const script = `const c = require('node:child_process').spawn(process.execPath, ${JSON.stringify([cliPath, 'hook', '--agent', 'opencode', '--home', home, '--timeout', '120'])}, { stdio: ['pipe', 'ignore', 'ignore'] }); c.stdin.end(${JSON.stringify(input)}); setInterval(() => {}, 1000);`;
      const agent = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
      const req = await host.request;
      const closed = host.hungUp(req);
      agent.kill('SIGKILL');
      // Without the watch, the connection stays open for the whole --timeout (120 s) and this times out.
      await closed;
    } finally {
      host.close();
    }
  }, 20_000);
});

type Hooks = { 'tool.execute.before': (input: Record<string, unknown>, output: { args: Record<string, unknown> }) => Promise<void> };

/** The plugin as "write it for me" writes it, starting `entry` under this node, loaded as opencode loads it (a module whose one export is called). */
async function plugin(dir: string, entry: string, pluginTimeoutMs = 30_000): Promise<Hooks> {
  const file = join(dir, `gatehouse-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, opencodePluginSource({ launcher: { node: process.execPath, entry }, home: join(dir, 'home'), commandTimeoutS: 20, pluginTimeoutMs, reportTimeoutMs: 5_000 }));
  const mod = (await import(pathToFileURL(file).href)) as Record<string, (ctx: unknown) => Promise<Hooks>>;
  expect(Object.keys(mod)).toEqual(['GatehousePlugin']);
  return mod.GatehousePlugin!({ directory: dir });
}

describe("Gatehouse's opencode plugin", () => {
  const call = { tool: 'read', sessionID: base.sessionID, callID: 'call_9' };

  it('blocks the call with the reason when the command denies (no host here)', async () => {
    const dir = tempDir('gatehouse-opencode-plugin-');
    const hooks = await plugin(dir, cliPath);
    await expect(hooks['tool.execute.before'](call, { args: { filePath: '/etc/hostname' } })).rejects.toThrow(/Gatehouse is not running/);
  });

  it('blocks the call when the command cannot start, answers something that is not an answer, exits 0 without one, or does not answer in time', async () => {
    const dir = tempDir('gatehouse-opencode-plugin-fail-');
    const missing = await plugin(dir, join(dir, 'no-such-gatehouse.js'));
    await expect(missing['tool.execute.before'](call, { args: {} })).rejects.toThrow(/the hook command failed \(exit 1: [\s\S]*Cannot find module/);
    writeFileSync(join(dir, 'garbage.mjs'), 'process.stdout.write("allow\\n");\n');
    const garbage = await plugin(dir, join(dir, 'garbage.mjs'));
    await expect(garbage['tool.execute.before'](call, { args: {} })).rejects.toThrow(/the hook command failed \(exit 0: allow\); this call is blocked/);
    writeFileSync(join(dir, 'crash.mjs'), 'process.stdout.write(JSON.stringify({ decision: "allow" }) + "\\n"); process.exit(3);\n');
    const crash = await plugin(dir, join(dir, 'crash.mjs'));
    await expect(crash['tool.execute.before'](call, { args: {} })).rejects.toThrow(/exit 3/);
    writeFileSync(join(dir, 'hang.mjs'), 'setInterval(() => {}, 1000);\n');
    const hang = await plugin(dir, join(dir, 'hang.mjs'), 1_000);
    await expect(hang['tool.execute.before'](call, { args: {} })).rejects.toThrow(/did not answer within 1 s; this call is blocked/);
  });

  it('lets the call through on "allow" or "none", with the contained command in place of the model\'s', async () => {
    const dir = tempDir('gatehouse-opencode-plugin-allow-');
    writeFileSync(join(dir, 'allow.mjs'), 'process.stdout.write(JSON.stringify({ decision: "allow", reason: "ok", args: { command: "box -- ls" } }) + "\\n");\n');
    const allow = await plugin(dir, join(dir, 'allow.mjs'));
    const output = { args: { command: 'ls', description: 'list' } as Record<string, unknown> };
    await allow['tool.execute.before']({ ...call, tool: 'bash' }, output);
    expect(output.args).toEqual({ command: 'box -- ls', description: 'list' });
    writeFileSync(join(dir, 'none.mjs'), 'process.stdout.write(JSON.stringify({ decision: "none" }) + "\\n");\n');
    const none = await plugin(dir, join(dir, 'none.mjs'));
    await expect(none['tool.execute.before'](call, { args: {} })).resolves.toBeUndefined();
  });
});
