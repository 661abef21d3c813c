// Long work on the command line shows progress on stderr and stops on Ctrl-C: the real CLI on a
// real database of 150,000 events (verify, export), recorded calls (replay) and plugin folders
// (rescan, here and through a running host). SIGINT is sent once the first progress line is out,
// which is before the first chunk of work is done.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { ensureHome } from '../../../main/home.js';
import { runCli, startCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const EVENTS = 150_000;
let bigHome = '';

beforeAll(() => {
  // Shared by the tests of this file (writing it takes a few seconds); removed after them.
  bigHome = mkdtempSync(join(tmpdir(), 'gatehouse-cli-progress-'));
  const store = new AuditStore({ path: ensureHome(bigHome).auditDb, log: () => {} });
  try {
    for (let i = 0; i < EVENTS; i++) store.append({ type: 'test.filler', actor: 'host', payload: { i } });
  } finally {
    store.close();
  }
}, 120_000);
afterAll(() => rmSync(bigHome, { recursive: true, force: true }));

const lines = (s: string) => s.split('\n').filter((l) => l !== '');

describe('gatehouse audit verify', () => {
  it('reports how far it is on stderr, a line per tenth, and its verdict on stdout', async () => {
    const r = await runCli(['audit', 'verify', '--home', bigHome]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Audit chain intact: ${EVENTS} events`));
    const progress = lines(r.stderr);
    expect(progress[0]).toBe(`Verifying the audit chain: 0 of ${EVENTS.toLocaleString('en-US')} events (0%) (Ctrl-C cancels)`);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    const percents = progress.map((l) => Number(/\((\d+)%\)/.exec(l)![1]));
    expect(percents).toEqual([...new Set(percents)].sort((a, b) => a - b));
  });

  it('Ctrl-C stops it: exit 130 and how far it got', async () => {
    const cli = startCli(['audit', 'verify', '--home', bigHome]);
    await cli.waitForLine(/^Verifying the audit chain: 0 of/, 'stderr');
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;
    expect(code).toBe(130);
    const { stdout, stderr } = cli.output();
    expect(stdout).toBe('');
    expect(lines(stderr).at(-1)).toMatch(/^gatehouse: Verifying the audit chain was cancelled after [\d,]+ of 150,000 events; nothing was changed\.$/);
  });
});

describe('gatehouse audit export', () => {
  it('streams every event to stdout with progress on stderr', async () => {
    const r = await runCli(['audit', 'export', '--type', 'test.filler', '--home', bigHome]);
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout);
    expect(out).toHaveLength(EVENTS);
    expect(JSON.parse(out.at(-1)!).payload).toEqual({ i: EVENTS - 1 });
    expect(lines(r.stderr)[0]).toBe(`Exporting audit events: 0 of ${EVENTS.toLocaleString('en-US')} events (0%) (Ctrl-C cancels)`);
  });

  it('Ctrl-C stops it between pages: what was written is whole lines, and the sentence says it is incomplete', async () => {
    const cli = startCli(['audit', 'export', '--type', 'test.filler', '--home', bigHome]);
    await cli.waitForLine(/^Exporting audit events: 0 of/, 'stderr');
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;
    expect(code).toBe(130);
    const { stdout, stderr } = cli.output();
    const out = lines(stdout);
    expect(out.length).toBeLessThan(EVENTS);
    for (const l of out) expect(() => JSON.parse(l)).not.toThrow();
    expect(lines(stderr).at(-1)).toMatch(/^gatehouse: Exporting audit events was cancelled after [\d,]+ of 150,000 events: the lines written are a true but incomplete export\.$/);
  });
});

describe('gatehouse audit replay', () => {
  function homeWithCalls(): string {
    const home = tempDir('gatehouse-cli-replay-');
    const store = new AuditStore({ path: ensureHome(home).auditDb, log: () => {} });
    try {
      for (let i = 0; i < 3; i++) {
        const call = `call-${i}`;
        const command = i === 1 ? 'rm /srv/data/old.log' : `cat /srv/data/f${i}.txt`;
        const op = i === 1 ? 'delete' : 'read';
        store.append({ type: 'call.received', actor: 'agent:claude', payload: { call, agent: 'claude', session: 's-9', tool: 'shell', source: 'api', cwd: '/srv', arguments: { command } } });
        store.append({ type: 'call.extracted', actor: 'host', payload: { call, operations: [op], paths: [command.split(' ')[1]], hosts: [], command, evasive: false, evasiveReasons: [] } });
        store.append({ type: 'call.decided', actor: 'autonomy:full', payload: { call, decision: 'allow', decider: { kind: 'autonomy', level: 'full' }, reason: 'full autonomy runs it' } });
      }
    } finally {
      store.close();
    }
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ autonomy: 'full' }));
    return home;
  }

  it("today's policy over recorded calls: nothing changes, exit 0", async () => {
    const home = homeWithCalls();
    const r = await runCli(['audit', 'replay', '--since', '1h', '--home', home]);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual(["Replayed with today's policy: 0 of 3 decisions would change."]);
    expect(lines(r.stderr)[0]).toBe('Replaying the policy over recorded calls: 0 of 3 calls (0%) (Ctrl-C cancels)');
  });

  it('a draft that denies deletes names the call it would change, exit 1', async () => {
    const home = homeWithCalls();
    const draft = join(home, 'draft.yaml');
    writeFileSync(draft, 'rules:\n  - name: no-deletes\n    description: Nothing is deleted under /srv.\n    actions: [delete]\n    block_paths: ["/srv/**"]\n    decision: deny\n    message: Deleting under /srv is not allowed.\n');
    const r = await runCli(['audit', 'replay', '--session', 's-9', '--policy', draft, '--home', home]);
    expect(r.code, r.stderr).toBe(1);
    const out = lines(r.stdout);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/^ +TIME +AGENT +SESSION +TOOL +COMMAND +RECORDED +REPLAYED +CALL$/);
    // The row names the call: time, agent, session, tool, command, then the decision then and now.
    expect(out[1]).toMatch(/^CHANGED +\d{4}-\d\d-\d\dT\S+Z +claude +s-9 +shell +rm \/srv\/data\/old\.log +allow \(.+\) +deny \(.*no-deletes.*\) +call-1$/);
    expect(out[2]).toBe(`Replayed with the draft ${draft}: 1 of 3 decisions would change.`);
  });
});

describe('gatehouse plugin rescan', () => {
  function pluginsDir(n: number): string {
    const dir = tempDir('gatehouse-cli-plugins-');
    for (let i = 0; i < n; i++) {
      const p = join(dir, `tool-${i}`);
      mkdirSync(p);
      writeFileSync(join(p, 'tool.toml'), `name = "tool-${i}"\ndescription = "Tool ${i}."\ncommand = "run.sh"\n`);
      writeFileSync(join(p, 'run.sh'), '#!/bin/sh\necho "{}"\n', { mode: 0o755 });
    }
    return dir;
  }

  it('without a running host, scans here and shows how far the scan is', async () => {
    const home = tempDir('gatehouse-cli-rescan-');
    const r = await runCli(['plugin', 'rescan', '--home', home, '--plugins-dir', pluginsDir(12)]);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual(['Scanned 12 plugins: 0 enabled, 12 disabled, 0 quarantined, 0 scan failed, 0 invalid.']);
    // The host's own start-up scan cannot be cancelled: it says so by not offering Ctrl-C.
    expect(lines(r.stderr)[0]).toBe('Scanning plugins: 0 of 12 plugins (0%)');
  });

  it('through a running host, rescans there and lists what it found', async () => {
    const home = tempDir('gatehouse-cli-rescan-');
    const plugins = pluginsDir(5);
    const serve = startCli(['serve', '--home', home, '--port', '0', '--plugins-dir', plugins]);
    await serve.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
    // The rescan reports a folder added after the host started, and what is wrong with it.
    const extra = join(plugins, 'tool-new');
    mkdirSync(extra);
    writeFileSync(join(extra, 'tool.toml'), 'name = "tool-new"\ndescription = "New."\ncommand = "missing.sh"\n');
    const r = await runCli(['plugin', 'rescan', '--home', home, '--plugins-dir', plugins]);
    expect(r.code, r.stderr).toBe(1);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/^tool-new: invalid \(\d+ errors, 0 findings\) in /);
    expect(out.at(-1)).toMatch(/^Scanned 9 plugins in \d+ ms: 0 enabled, 8 disabled, 0 quarantined, 0 scan failed, 1 invalid\.$/);
  });
});
