// Honest results (#14 item 3), on real hosts: real plugin processes, real HTTP on loopback, the
// real MCP SDK client, the built CLI as a child process, and the audit log on disk. Each case is
// what an operator or an agent is told, and what the log keeps.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { writeServeFile } from '../../../main/shells/serve/serve-file.js';
import { homePaths } from '../../../main/home.js';
import { buildProgram } from '../../../main/cli/program.js';
import type { Command } from 'commander';
import { repoRoot, runCli, startCli } from '../../support/cli.js';
import { http } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';
import { hookRefusalRecorder } from '../../../main/gateway/hook-refusals.js';

interface Running {
  home: string;
  host: Host;
  net: Listening;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

function plugin(parent: string, name: string, script: string): void {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tool.toml'), `name = "${name}"\ndescription = "A test tool."\ncommand = "run.sh"\ntimeout_secs = 5\n`);
  writeFileSync(join(dir, 'run.sh'), script);
  chmodSync(join(dir, 'run.sh'), 0o755);
}

async function start(opts: { plugins?: Record<string, string>; enable?: string[]; allowedPlugins?: string[] } = {}): Promise<Running> {
  const home = join(tempDir('gatehouse-honest-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  for (const [name, script] of Object.entries(opts.plugins ?? {})) plugin(join(home, 'plugins'), name, script);
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false, ...(opts.allowedPlugins ? { allowedPlugins: opts.allowedPlugins } : {}) });
  await host.ready;
  for (const name of opts.enable ?? []) await host.registry.enable(name, 'tester');
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: join(repoRoot, 'out', 'renderer') });
  const r: Running = {
    home,
    host,
    net,
    async close() {
      await net.shell.close();
      await host.close('test done');
    },
  };
  running.push(r);
  return r;
}

async function mcpClient(r: Running): Promise<Client> {
  const client = new Client({ name: 'honest-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(r.net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${r.net.agentToken}` } } }));
  return client;
}

const text = (res: CallToolResult) => (res.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
const meta = (res: CallToolResult) => (res._meta as { gatehouse: { decision: string; executed: boolean } }).gatehouse;
const events = (r: Running, type: string) =>
  r.host.audit
    .tail(5000)
    .filter((e) => e.type === type)
    .reverse();
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

const CRASH = '#!/bin/sh\necho "disk quota exceeded on /srv/marker-7f3" >&2\nexit 3\n';

describe('a tool that crashes, then its open breaker', () => {
  it('the crash message carries the stderr tail once; an open breaker says so, until when, and executed is false', async () => {
    const r = await start({ plugins: { crashy: CRASH }, enable: ['crashy'] });
    const client = await mcpClient(r);

    const first = (await client.callTool({ name: 'crashy', arguments: {} })) as CallToolResult;
    expect(first.isError).toBe(true);
    expect(meta(first)).toMatchObject({ decision: 'allow', executed: true });
    expect(text(first)).toContain('crashy exited with code 3');
    // Before: the message ended with the tail and "stderr (end): <tail>" repeated it.
    expect(occurrences(text(first), 'marker-7f3')).toBe(1);

    for (let i = 0; i < 2; i++) await client.callTool({ name: 'crashy', arguments: {} });
    const refused = (await client.callTool({ name: 'crashy', arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    // Nothing ran: the breaker refused before the plugin was started.
    expect(meta(refused)).toMatchObject({ decision: 'allow', executed: false });
    expect(text(refused)).toMatch(/^Gatehouse did not execute this call: crashy was not run: its circuit breaker is open after 3 failures \(last: crashy exited with code 3: .*\); it closes at \d\d:\d\d UTC if a trial call then succeeds, or when an operator resets it \(Health view\)$/);

    // The audit log agrees: four calls, three executions, the fourth not executed.
    const results = events(r, 'call.result').map((e) => e.payload as { executed: boolean; failure?: string });
    expect(results.map((p) => p.executed)).toEqual([true, true, true, false]);
    expect(results[3]).toMatchObject({ failure: 'breaker_open' });
    expect(events(r, 'execution.started')).toHaveLength(3);
    await client.close();
  });

  it('gatehouse doctor lists tool breakers as well as checker breakers', async () => {
    const r = await start({ plugins: { crashy: CRASH, fine: '#!/bin/sh\necho "{}"\n' }, enable: ['crashy', 'fine'] });
    // A serve.json naming this host (this process), as `gatehouse serve` writes it.
    writeServeFile(homePaths(r.home).serveJson, { url: r.net.shell.url, host: '127.0.0.1', port: r.net.shell.port, pid: process.pid, token: r.net.token, agentToken: r.net.agentToken, mcpUrl: r.net.mcpUrl, hookUrl: r.net.hookUrl, startedAt: r.host.startedAt });

    const healthy = await runCli(['doctor', '--home', r.home, '--json']);
    const toolsOk = (JSON.parse(healthy.stdout) as { checks: { id: string; status: string; summary: string }[] }).checks.find((c) => c.id === 'tools');
    expect(toolsOk).toMatchObject({ status: 'ok', summary: '2 tools, every breaker closed: crashy, fine.' });

    for (let i = 0; i < 3; i++) await r.host.toolRunner.call('crashy', undefined, {}, { actor: 'agent:test' });
    const doctor = await runCli(['doctor', '--home', r.home]);
    const line = doctor.stdout.split('\n').find((l) => /^FAIL {2}tools /.test(l));
    expect(line).toMatch(/^FAIL {2}tools +tool refused by an open circuit breaker: crashy \(breaker open after 3 failures, closes at \d\d:\d\d UTC if a trial call succeeds, last failure: crashy exited with code 3: .*\); agents' calls of it are not run\. To do: open the Health view .*reset its breaker there/);
    expect(doctor.code).toBe(1);
  });
});

describe('--allowed-plugins', () => {
  it('names each plugin it could not enable and why, and records it in the audit log', async () => {
    const home = join(tempDir('gatehouse-allowed-'), 'home');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    plugin(join(home, 'plugins'), 'good', '#!/bin/sh\necho "{}"\n');
    // A manifest with an error: invalid.
    mkdirSync(join(home, 'plugins', 'broken'));
    writeFileSync(join(home, 'plugins', 'broken', 'tool.toml'), 'name = "broken"\ncommand = "run.sh"\ntimeout_secs = "soon"\n');
    const serve = startCli(['serve', '--port', '0', '--home', home, '--allowed-plugins', 'good,broken,typo']);
    const typo = await serve.waitForLine(/--allowed-plugins: typo was not enabled: (.*)$/, 'stderr');
    expect(typo[1]).toMatch(/^no plugin named "typo" was found \(found: .*broken.*good.*\); check the spelling \(gatehouse plugin list\), or add its folder with --plugins-dir DIR\s*$/);
    const broken = await serve.waitForLine(/--allowed-plugins: broken was not enabled: (.*)$/, 'stderr');
    expect(broken[1]).toMatch(/^it is invalid \(\d+ errors?, first: .*\); see them with gatehouse plugin validate .*broken\s*$/);
    expect(serve.output().stderr).not.toContain('good was not enabled');
    serve.child.kill('SIGTERM');
    await serve.exited;

    // The log of that run holds the same, once each.
    const db = new Database(homePaths(home).auditDb, { readonly: true });
    const found = db.prepare("SELECT payload FROM events WHERE type = 'plugin.allow-refused' ORDER BY seq").all() as { payload: string }[];
    db.close();
    expect(found.map((e) => (JSON.parse(e.payload) as { name: string }).name).sort()).toEqual(['broken', 'typo']);
  });
});

describe('hook inputs the host refuses are audited', () => {
  it('malformed, empty, wrong event, too large and bad token: each answered deny, each a hook.refused event with its reason, never the token', async () => {
    const r = await start();
    const post = (body: string, token = r.net.agentToken) =>
      http({ port: r.net.shell.port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body }).then((res) => ({ status: res.status, json: JSON.parse(res.body) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } } }));
    const wrongToken = 'not-the-agent-token-5d1e';
    const answers = [
      await post('{"session_id": "s", "tool_name": '),
      await post(''),
      await post(JSON.stringify({ session_id: 's', transcript_path: '/tmp/t', cwd: '/tmp', hook_event_name: 'UserPromptSubmit', prompt: 'hi' })),
      await post(`{"pad": "${'x'.repeat(5 << 20)}"}`),
      await post(JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: {} }), wrongToken),
    ];
    for (const a of answers) expect(a).toMatchObject({ status: 200, json: { hookSpecificOutput: { permissionDecision: 'deny' } } });

    const refused = events(r, 'hook.refused').map((e) => ({ actor: e.actor, ...(e.payload as { kind: string; reason: string }) }));
    expect(refused.map((e) => e.kind)).toEqual(['malformed', 'empty', 'wrong-event', 'too-large', 'bad-token']);
    for (const e of refused) expect(e.actor).toBe('host');
    expect(refused[2]!.reason).toContain('hook_event_name');
    expect(refused[3]!.reason).toBe('the hook input is over 4 MiB');
    expect(refused[4]!.reason).toMatch(/^missing or wrong agent token/);
    // Neither token reaches the log.
    const all = JSON.stringify(r.host.audit.tail(5000));
    expect(all).not.toContain(wrongToken);
    expect(all).not.toContain(r.net.agentToken);

    // A flood (anything on the machine can send one) is counted, not written row by row.
    for (let i = 0; i < 40; i++) expect((await post('{}', `${wrongToken}-${i}`)).json.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(events(r, 'hook.refused').filter((e) => (e.payload as { kind: string }).kind === 'bad-token')).toHaveLength(20);
  });

  it('after a flood, the next refusal recorded says how many were left out', () => {
    let now = 0;
    const recorded: { kind: string; suppressed?: number }[] = [];
    const sink = hookRefusalRecorder({ now: () => now, record: (p) => recorded.push(p), perMinute: 3 });
    for (let i = 0; i < 10; i++) sink('bad-token', 'missing or wrong agent token');
    sink('malformed', 'not JSON');
    expect(recorded).toEqual([{ kind: 'bad-token', reason: 'missing or wrong agent token' }, { kind: 'bad-token', reason: 'missing or wrong agent token' }, { kind: 'bad-token', reason: 'missing or wrong agent token' }, { kind: 'malformed', reason: 'not JSON' }]);
    now += 60_000;
    sink('bad-token', 'missing or wrong agent token');
    expect(recorded.at(-1)).toEqual({ kind: 'bad-token', reason: 'missing or wrong agent token', suppressed: 7 });
  });
});

describe('"not running" messages', () => {
  /** Every command path of the real CLI: "serve", "audit verify", … */
  function commandPaths(cmd: Command, prefix: string[] = []): Set<string> {
    const out = new Set<string>();
    for (const c of cmd.commands) {
      const path = [...prefix, c.name()];
      out.add(path.join(' '));
      for (const p of commandPaths(c, path)) out.add(p);
    }
    return out;
  }

  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
    });
  }

  it('every sentence saying Gatehouse is not running names a command that exists', () => {
    const commands = commandPaths(buildProgram());
    const named: string[] = [];
    for (const file of sources(join(repoRoot, 'main'))) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!/not running|No Gatehouse is running|no host running/i.test(line) || /^\s*(\/\/|\*)/.test(line)) continue;
        const cmds = [...line.matchAll(/`gatehouse(?: ([a-z][a-z-]*(?: [a-z][a-z-]*)?))?`|\bgatehouse (serve|url|doctor|plugin [a-z]+|audit [a-z]+)\b/g)].map((m) => m[1] ?? m[2] ?? '');
        // Each such sentence that tells the operator what to do names at least one real command.
        for (const c of cmds) {
          named.push(c);
          const ok = c === '' || commands.has(c) || commands.has(c.split(' ')[0]!);
          expect(ok, `${file}: "gatehouse ${c}" is not a command (${line.trim()})`).toBe(true);
        }
      }
    }
    expect(named.length).toBeGreaterThan(3);
  });

  it('the hook with no host running names `gatehouse serve`, a command that exists', async () => {
    const home = tempDir('gatehouse-nohost-');
    const input = JSON.stringify({ session_id: 's', transcript_path: '/tmp/t', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/tmp/x' }, tool_use_id: 'tu', permission_mode: 'default' });
    const res = await runCli(["hook", "--home", home], {}, input);
    expect(res.stdout, res.stderr).not.toBe("");
    const reason = (JSON.parse(res.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
    expect(reason.permissionDecision).toBe('deny');
    expect(reason.permissionDecisionReason).toMatch(/Gatehouse is not running .*Start it with `gatehouse serve` \(or `gatehouse`, which opens the console\)\./);
    expect(reason.permissionDecisionReason).not.toContain('gatehouse start');
  });
});
