// Replay judges a draft as the saved policy would have judged each recorded call (issue #25,
// finding 8): the built-ins as they matched then (plugin folders of that host included), the
// autonomy level, grants and operator decisions as recorded. A host records real Claude Code hook
// calls over HTTP; the log is then replayed through the console API and through
// `gatehouse audit replay` (the built CLI, a child process, reading the same database).
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import type { ResponseOf } from '../../../shared/contract.js';
import { repoRoot, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';
import { nextPending } from '../../support/inbox.js';

type Replay = ResponseOf<'audit.replay'>;

const open: { host: Host; net: Listening }[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) {
    await r.host.answerWaiting();
    await r.net.shell.close();
    await r.host.close('test done');
  }
});

interface Recorded {
  host: Host;
  home: string;
  project: string;
  /** Call ids by name. */
  ids: Record<string, string>;
  /** The answer of the call left waiting (settled when the host closes). */
  waiting: Promise<unknown>;
}

function hook(url: string, token: string, cwd: string, command: string): Promise<{ permissionDecision: string; permissionDecisionReason: string }> {
  const body = JSON.stringify({ session_id: 'replay-s', cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `tu-${command}` });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      // Allowed by autonomy, the hook defers to Claude Code's own permissions ({continue: true}).
      res.on('end', () => resolve((JSON.parse(text) as { hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput ?? { permissionDecision: 'defer', permissionDecisionReason: '' }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The id of the call whose hook carried `command` (its call.received event). */
function callId(host: Host, command: string): string {
  host.audit.flush();
  const e = host.audit.tail(5000).filter((ev) => ev.type === 'call.received' && (ev.payload as { arguments?: { command?: string } }).arguments?.command === command);
  expect(e).toHaveLength(1);
  return (e[0]!.payload as { call: string }).call;
}

/**
 * A supervised host with a plugin folder of its own (--plugins-dir, outside every `.gatehouse`),
 * the inbox answering hooks, and a log of: built-in denials (a write into that plugin folder, a
 * delete of the project's `.gatehouse`), an operator's denial and approval, a session grant and a call
 * it allowed, a call allowed under full autonomy (the level changed and back), and one call left
 * waiting in the inbox.
 */
async function recordLog(): Promise<Recorded> {
  const root = tempDir('gatehouse-replay-rec-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  const pluginDir = join(root, 'more-plugins');
  for (const d of [home, project, pluginDir, join(project, '.gatehouse', 'plugins')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(project, 'README.md'), 'read me\n');
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox', containment: [] }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: project, pluginDirs: [pluginDir], watch: false });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: join(repoRoot, 'out', 'renderer') });
  open.push({ host, net });
  const url = `${net.mcpUrl.replace(/\/mcp$/, '')}/hooks/claude/pre-tool-use`;
  const run = (command: string) => hook(url, net.agentToken, project, command);
  const ids: Record<string, string> = {};
  const named = async (name: string, command: string, expected: string) => {
    const got = await run(command);
    expect(got.permissionDecision, got.permissionDecisionReason).toBe(expected);
    ids[name] = callId(host, command);
  };

  await named('pluginWrite', `touch ${pluginDir}/evil.js`, 'deny');
  await named('pluginTree', `rm -rf ${project}/.gatehouse`, 'deny');
  // Asked (a Bash command also executes), then denied by an operator.
  const refused = run(`cat ${project}/README.md`);
  const first = await nextPending(host);
  host.approvals.deny(first.id, { operator: 'tester', reason: 'not now' });
  expect((await refused).permissionDecision).toBe('deny');
  ids.refused = callId(host, `cat ${project}/README.md`);
  // Asked, then approved once by an operator.
  const approved = run('rm -rf build');
  const one = await nextPending(host);
  host.approvals.approve(one.id, { operator: 'tester', argsHash: one.argsHash, scope: 'once' });
  expect((await approved).permissionDecision).toBe('allow');
  ids.approved = callId(host, 'rm -rf build');
  // Asked, approved for the session: the same call again is allowed by the grant.
  const granted = run('rm -rf dist');
  const two = await nextPending(host);
  host.approvals.approve(two.id, { operator: 'tester', argsHash: two.argsHash, scope: 'session', sessionExpiresInMs: 3_600_000 });
  expect((await granted).permissionDecision).toBe('allow');
  ids.granted = callId(host, 'rm -rf dist');
  expect((await run('rm -rf dist')).permissionDecisionReason).toMatch(/grant/);
  host.audit.flush();
  const dists = host.audit.tail(5000).filter((e) => e.type === 'call.received' && (e.payload as { arguments?: { command?: string } }).arguments?.command === 'rm -rf dist');
  ids.byGrant = dists.map((e) => (e.payload as { call: string }).call).find((id) => id !== ids.granted)!;
  // Full autonomy for one call, then supervised again.
  host.settings.update({ autonomy: 'full' }, 'operator:tester');
  await named('full', 'rm -rf out', 'defer');
  host.settings.update({ autonomy: 'supervised' }, 'operator:tester');
  // Left waiting: asked, nobody has answered yet.
  const waiting = run('rm -rf tmp').catch(() => undefined);
  await nextPending(host);
  ids.waiting = callId(host, 'rm -rf tmp');
  host.audit.flush();
  return { host, home, project, ids, waiting };
}

async function viaConsole(host: Host, params: Record<string, unknown>): Promise<Replay> {
  const r = await host.dispatcher.dispatch('audit.replay', params, { operator: 'tester', console: 'test' } as never);
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.result as Replay;
}

async function viaCli(home: string, args: string[]): Promise<{ code: number | null; json: Replay }> {
  const r = await runCli(['audit', 'replay', '--home', home, '--since', '1h', '--json', ...args]);
  expect(r.stderr).not.toMatch(/Error/);
  return { code: r.code, json: JSON.parse(r.stdout) as Replay };
}

const draftFor = (project: string) => `rules:\n  - name: no-deletes-in-project\n    actions: [delete]\n    block_paths: ["${project}/**"]\n    message: Nothing under the project is deleted.\n    decision: deny\n`;

describe('audit replay judges as the recorded pipeline did', () => {
  it('the unchanged policy changes nothing: built-in plugin-folder denials, grants, approvals and autonomy as recorded (console and CLI)', async () => {
    const { host, home, ids } = await recordLog();
    const viaApi = await viaConsole(host, { from: 0 });
    const cli = await viaCli(home, ['--all']);
    for (const r of [viaApi, cli.json]) {
      expect(r.calls.filter((c) => c.changed).map((c) => [c.command, c.recorded?.decision, c.replayed.decision])).toEqual([]);
      expect(r.changed).toBe(0);
      expect(r.calls.map((c) => c.call)).toEqual(expect.arrayContaining(Object.values(ids)));
      const byId = new Map(r.calls.map((c) => [c.call, c]));
      expect(byId.get(ids.pluginWrite!)).toMatchObject({ recorded: { decision: 'deny', decider: { kind: 'rule', rule: 'builtin.plugin-folders' } }, replayed: { decision: 'deny', decider: { kind: 'rule', rule: 'builtin.plugin-folders' } } });
      expect(byId.get(ids.pluginTree!)).toMatchObject({ replayed: { decision: 'deny', decider: { kind: 'rule', rule: 'builtin.plugin-folders' } } });
    }
    expect(cli.code).toBe(0);
  });

  it('a draft denying deletes under the project lists every recorded rm -rf as changed to deny, with command and time; the waiting call is marked', async () => {
    const { host, home, project, ids } = await recordLog();
    const draftFile = join(tempDir('gatehouse-replay-draft-'), 'draft.yaml');
    writeFileSync(draftFile, draftFor(project));
    const viaApi = await viaConsole(host, { from: 0, policyText: draftFor(project) });
    const cli = await viaCli(home, ['--policy', draftFile]);
    for (const r of [viaApi, cli.json]) {
      expect(r.policyProblems).toEqual([]);
      const changed = r.calls.filter((c) => c.changed);
      const rows = (id: string) => changed.find((c) => c.call === id);
      expect(changed.map((c) => c.call).sort()).toEqual([ids.approved, ids.granted, ids.byGrant, ids.full, ids.waiting].sort());
      expect(r.changed).toBe(5);
      for (const c of changed) {
        expect(c.replayed).toMatchObject({ decision: 'deny', decider: { kind: 'rule', rule: 'no-deletes-in-project' } });
        expect(c.command).toMatch(/^rm -rf (build|dist|out|tmp)$/);
        expect(c.tool).toBe('Bash');
        expect(c.agent).toBeTruthy();
        expect(c.ts).toBeGreaterThan(0);
      }
      expect(rows(ids.approved!)).toMatchObject({ command: 'rm -rf build', waiting: false, recorded: { decision: 'allow', decider: { kind: 'operator' } } });
      expect(rows(ids.byGrant!)).toMatchObject({ recorded: { decision: 'allow', decider: { kind: 'grant' } } });
      expect(rows(ids.full!)).toMatchObject({ recorded: { decision: 'allow', decider: { kind: 'autonomy', level: 'full' } } });
      expect(rows(ids.waiting!)).toMatchObject({ command: 'rm -rf tmp', waiting: true, recorded: { decision: 'ask' } });
      // The delete of the project's .gatehouse stays the built-in's denial: the same decision.
      expect(r.calls.find((c) => c.call === ids.pluginTree)).toMatchObject({ changed: false, replayed: { decision: 'deny' } });
      expect(r.calls.find((c) => c.call === ids.refused)).toMatchObject({ changed: false, recorded: { decision: 'deny', decider: { kind: 'operator' } } });
    }
    expect(cli.code).toBe(1);
    // The table names each call by its command and time.
    const table = await runCli(['audit', 'replay', '--home', home, '--since', '1h', '--policy', draftFile]);
    expect(table.stdout).toMatch(/rm -rf tmp/);
    expect(table.stdout).toMatch(/waiting/);
    expect(table.stdout).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(table.stdout).toMatch(/5 of \d+ decisions would change/);
  });
});
