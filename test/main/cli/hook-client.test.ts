// The bash hook client (main/cli/hook-client.sh, built to out/main/gatehouse-hook.sh) that Claude
// Code's hooks run instead of `gatehouse hook` where bash and curl are: against a real host
// (`gatehouse serve`, the built CLI) it answers exactly as the Node command does, and every fault
// (no host, a host killed, a wrong token, a host that answers garbage or not at all, no curl)
// still ends in a deny or the fail-closed exit 2. Run as Claude Code runs it: /bin/sh -c COMMAND.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentLauncher, hookShClient } from '../../../main/gateway/agent-launcher.js';
import { HOOK_COMMAND_TIMEOUT_S } from '../../../main/gateway/hook-answer.js';
import { homePaths } from '../../../main/home.js';
import { readServeFile, writeServeFile } from '../../../main/shells/serve/serve-file.js';
import { claudeHooks, hookCommand, reportCommand, type HookLauncher } from '../../../shared/claude-config.js';
import { cliPath, repoRoot, runCli, runShell, startCli, type CliResult } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const client = join(repoRoot, 'out', 'main', 'gatehouse-hook.sh');
const runtime = { electron: undefined, execPath: process.execPath, path: process.env.PATH, platform: process.platform };
/** What "write it for me" writes here: the bash client. */
const written = (): HookLauncher => {
  const l = agentLauncher('hook', runtime, cliPath).launcher;
  if (!l?.shClient) throw new Error(`no bash client at ${client}: run node scripts/build.mjs`);
  return l;
};
/** The same installation's Node command, as written where bash or curl is missing. */
const nodeLauncher = (): HookLauncher => ({ node: process.execPath, entry: cliPath });

const hookInput = (tool: string, input: Record<string, unknown>, event = 'PreToolUse') =>
  JSON.stringify({ session_id: 'sess-1', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: event, tool_name: tool, tool_input: input, tool_use_id: 'tu-1', permission_mode: 'default', ...(event === 'PreToolUse' ? {} : { tool_response: { ok: true } }) });
const READ = hookInput('Read', { file_path: '/tmp/notes.txt' });
const answerOf = (r: CliResult) => (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;

/** A real host: `gatehouse serve` in a home of its own. */
async function serve(settings: Record<string, unknown> = { mode: 'live', hookAutonomyAllow: 'allow' }) {
  const home = join(tempDir('gatehouse-hook-client-'), 'home');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(join(home, 'settings.json'), JSON.stringify(settings));
  const cli = startCli(['serve', '--home', home, '--port', '0']);
  await cli.waitForLine(/^Agents: MCP at/);
  return { home, cli, info: readServeFile(homePaths(home).serveJson)! };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** A stand-in host that answers as `handler` says, named in a serve.json with a live pid (this process). */
async function fakeHost(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const home = tempDir('gatehouse-hook-fake-');
  writeServeFile(homePaths(home).serveJson, { url: `http://127.0.0.1:${port}/`, host: '127.0.0.1', port, pid: process.pid, token: 'op', agentToken: 'agent-token-0123456789', mcpUrl: `http://127.0.0.1:${port}/mcp`, hookUrl: `http://127.0.0.1:${port}/hooks/claude/pre-tool-use`, startedAt: 0 });
  return home;
}

/** Runs `command` by /bin/sh -c inside bwrap with `hidden` replaced by an empty, unrunnable file. */
const withoutFile = (hidden: string, command: string, input: string) => runShell(command, input, ['bwrap', '--dev-bind', '/', '/', '--ro-bind', '/dev/null', hidden]);

describe('the bash hook client', () => {
  it('is what the writer names where bash and curl are, with the Node command kept elsewhere', () => {
    const l = written();
    expect(l.shClient).toBe(client);
    const hooks = claudeHooks('command', { home: '/h', launcher: l });
    expect(hooks.PreToolUse.command).toMatch(/^\/bin\/bash \S+gatehouse-hook\.sh --home \/h --timeout 590 \|\| \{ .*exit 2; \}$/);
    expect(hooks.PostToolUse.command).toMatch(/^\/bin\/bash \S+gatehouse-hook\.sh --report --home \/h$/);
    // Windows, a build without the client, another use than Claude Code's hook: `gatehouse hook` with Node.
    expect(agentLauncher('hook', { ...runtime, platform: 'win32' }, cliPath).launcher?.shClient).toBeUndefined();
    expect(hookShClient(runtime, tempDir('gatehouse-no-client-'))).toBeNull();
    expect(agentLauncher('cli', runtime, cliPath).launcher?.shClient).toBeUndefined();
    expect(hookCommand('/h', { launcher: nodeLauncher(), timeoutS: 590 })).toContain(`${cliPath} hook --home /h --timeout 590 ||`);
    // The default --timeout is the Node command's.
    expect(HOOK_COMMAND_TIMEOUT_S).toBe(590);
  });

  it('answers allow, deny, ask and "no decision" exactly as the Node command does, for the default and a named agent token', async () => {
    const { home } = await serve();
    const created = await runCli(['agent', 'token', 'create', 'ci-bot', '--json', '--home', home]);
    expect(created.code).toBe(0);
    const tokenDir = mkdtempSync(join(tmpdir(), 'gatehouse-token-'));
    chmodSync(tokenDir, 0o700);
    const tokenFile = join(tokenDir, 'token');
    writeFileSync(tokenFile, (JSON.parse(created.stdout) as { token: string }).token + '\n', { mode: 0o600 });
    const inputs = [
      READ,
      hookInput('Read', { file_path: '~/.aws/credentials' }),
      hookInput('Edit', { file_path: '/tmp/x', old_string: 'a', new_string: 'b' }),
      // A big input goes by curl (it could not be written to a stalled host without waiting).
      hookInput('Write', { file_path: '/tmp/big.txt', content: 'x'.repeat(40_000) }),
    ];
    const bash = claudeHooks('command', { home, launcher: written() });
    const node = claudeHooks('command', { home, launcher: nodeLauncher() });
    const decisions: string[] = [];
    for (const input of inputs) {
      for (const named of [false, true]) {
        const extra = named ? ` --agent-token-file ${tokenFile}` : '';
        const withToken = (c: string) => c.replace(' --timeout', `${extra} --timeout`);
        const fast = await runShell(withToken(bash.PreToolUse.command as string), input);
        const slow = await runShell(withToken(node.PreToolUse.command as string), input);
        expect(fast).toEqual(slow);
        expect(fast.code).toBe(0);
        decisions.push(answerOf(fast).permissionDecision);
      }
    }
    expect(decisions).toEqual(['allow', 'allow', 'deny', 'deny', 'ask', 'ask', 'ask', 'ask']);
    // Autonomy's allow left to Claude Code ("no decision"): nothing on stdout, exit 0, from both.
    const deferring = await serve({ mode: 'live' });
    const deferred = await runShell(claudeHooks('command', { home: deferring.home, launcher: written() }).PreToolUse.command as string, READ);
    expect(deferred).toEqual(await runShell(claudeHooks('command', { home: deferring.home, launcher: nodeLauncher() }).PreToolUse.command as string, READ));
    expect(deferred).toMatchObject({ code: 0, stdout: '' });
    // The reports: recorded, nothing printed, exit 0.
    const report = hookInput('Read', { file_path: '/tmp/notes.txt' }, 'PostToolUse');
    expect(await runShell(reportCommand(home, { launcher: written() }), report)).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // Two hosts and eight Node commands on a busy machine.
  }, 120_000);

  it('fails closed: no host, a host killed, a wrong or unreadable token', async () => {
    const command = (home: string, extra = '') => hookCommand(home, { launcher: written(), timeoutS: 590 }).replace(' --timeout', `${extra} --timeout`);
    // No serve.json: the unreachable answer, deny unless the operator chose ask.
    const none = tempDir('gatehouse-hook-none-');
    const noHost = await runShell(command(none), READ);
    expect(noHost.code).toBe(0);
    expect(answerOf(noHost)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining(`Gatehouse is not running (no ${none}/serve.json)`) });
    writeFileSync(join(none, 'settings.json'), JSON.stringify({ hookUnreachable: 'ask' }, null, 2));
    expect(answerOf(await runShell(command(none), READ)).permissionDecision).toBe('ask');
    expect(answerOf(await runShell(command(none, ' --unreachable deny'), READ)).permissionDecision).toBe('deny');

    const { home, cli } = await serve();
    // A token the host does not know: refused by the host, denied.
    const tokenFile = join(tempDir('gatehouse-token-'), 'token');
    writeFileSync(tokenFile, 'not-a-token-this-host-knows\n', { mode: 0o600 });
    const wrong = answerOf(await runShell(command(home, ` --agent-token-file ${tokenFile}`), READ));
    expect(wrong).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('agent token') });
    // A file that holds no token, or none: denied before anything is sent, whatever --unreachable says.
    writeFileSync(tokenFile, 'short\n');
    expect(answerOf(await runShell(command(home, ` --agent-token-file ${tokenFile} --unreachable ask`), READ))).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('does not hold an agent token') });
    expect(answerOf(await runShell(command(home, ` --agent-token-file ${tokenFile}.gone`), READ))).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('could not be read') });

    // The host killed (its serve.json left behind): the unreachable answer, deny.
    cli.child.kill('SIGKILL');
    await cli.exited;
    expect(existsSync(homePaths(home).serveJson)).toBe(true);
    expect(answerOf(await runShell(command(home), READ))).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/Gatehouse is not running \(the host recorded in .*serve\.json \(pid \d+\) has exited\)/) });
  }, 60_000);

  it('fails closed on a host that answers garbage, a cut answer, an error status, or nothing in time', async () => {
    const command = (home: string, timeoutS = 590) => hookCommand(home, { launcher: written(), timeoutS });
    const denied = async (home: string, input = READ, timeoutS = 590) => {
      const r = await runShell(command(home, timeoutS), input);
      expect(r.code).toBe(0);
      expect(answerOf(r).permissionDecision).toBe('deny');
      return answerOf(r).permissionDecisionReason;
    };
    const reply = (status: number, body: string, length = Buffer.byteLength(body)) =>
      fakeHost((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': length });
          // A length above the body's: the connection ends before the answer does.
          if (length > Buffer.byteLength(body)) res.write(body, () => res.destroy());
          else res.end(body);
        });
      });
    expect(await denied(await reply(200, 'not json'))).toContain('HTTP 200 and no decision');
    expect(await denied(await reply(500, '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"x"}}'))).toContain('HTTP 500');
    expect(await denied(await reply(200, ''))).toContain('no decision');
    const cut = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"x"}}';
    expect(await denied(await reply(200, cut.slice(0, 60)))).toContain('no decision');
    expect(await denied(await reply(200, cut.slice(0, 60), cut.length))).toMatch(/cut short|did not answer/);
    // The same garbage through curl (a big input) is denied too.
    expect(await denied(await reply(200, 'not json'), hookInput('Write', { file_path: '/tmp/big', content: 'x'.repeat(40_000) }))).toContain('no decision');

    // Accepts and never answers: denied at --timeout, with what it sent being the input and the token.
    const seen: string[] = [];
    const stalled = await fakeHost((req) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => seen.push(`${req.headers.authorization} ${req.headers['x-gatehouse-hook-deadline-ms']} ${req.headers['x-gatehouse-hook-client']} ${body}`));
    });
    expect(await denied(stalled, READ, 1)).toBe('Gatehouse did not answer within 1 s, so the call is denied.');
    expect(seen).toEqual([`Bearer agent-token-0123456789 1000 claude-code ${READ}`]);

    // --timeout counts from when the client started, not from when it began to wait for the host:
    // time spent before the request (here the call's input arriving 3.5 s late; in life, a connect
    // to a stalled host, up to ~127 s) is taken off every wait after it. With all of it spent, the
    // client answers at once, never asking: before, it waited a whole --timeout more, past Claude
    // Code's own timeout, which runs the tool.
    const late = await runShell(`{ sleep 3.5; cat; } | ${command(stalled, 3)}`, READ);
    expect(late.code).toBe(0);
    expect(answerOf(late)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: 'Gatehouse did not answer within 3 s, so the call is denied.' });
    expect(seen).toHaveLength(1);
  });

  it('fails closed without curl (for what goes by curl) and without the client itself', async () => {
    const home = await fakeHost((_req, res) => res.end('{"continue":true}'));
    const big = hookInput('Write', { file_path: '/tmp/big', content: 'x'.repeat(40_000) });
    const noCurl = await withoutFile('/usr/bin/curl', hookCommand(home, { launcher: written(), timeoutS: 590 }), big);
    expect(noCurl.code).toBe(0);
    expect(answerOf(noCurl)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('could not run curl') });
    // The client's file gone: the tail Gatehouse writes after it exits 2, which blocks the call.
    const gone = await runShell(hookCommand(home, { launcher: { ...written(), shClient: join(tempDir('gatehouse-gone-'), 'gatehouse-hook.sh') }, timeoutS: 590 }), READ);
    expect(gone).toMatchObject({ code: 2, stdout: '' });
    expect(gone.stderr).toContain('Gatehouse: the hook client could not run');
  });
});
