// A call allowed in live mode that then waits for a free slot of its plugin (four of one plugin
// run at once), or for its decision to reach the audit log, is checked again right before anything
// starts: switched to dry-run meanwhile, or with the audit log found deleted meanwhile (every call
// is then denied), it is not run. Reviews ran all three: the mode and the log were checked only
// before the wait, and the shell tool was not checked after it.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

async function start(fifth?: AbortSignal) {
  const root = tempDir('gatehouse-queued-');
  const home = join(root, 'home');
  const out = join(root, 'out');
  mkdirSync(out);
  const dir = join(home, 'plugins', 'slow');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), `name = "slow"\ndescription = "A test tool."\ncommand = "run.sh"\ntimeout_secs = 30\n\n[permissions]\nwrite = [${JSON.stringify(out)}]\n`);
  // Reads {"n": N}, says it started (out/started-N), holds its slot until the test lets it go (out/go), then leaves out/ran-N.
  writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\nn=$(sed -n 's/.*"n":\\([0-9]*\\).*/\\1/p')\ntouch ${out}/started-$n\nwhile [ ! -e ${out}/go ]; do sleep 0.02; done\ntouch ${out}/ran-$n\necho '{"n":'$n'}'\n`);
  chmodSync(join(dir, 'run.sh'), 0o755);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: root, watch: false });
  hosts.push(host);
  await host.ready;
  await host.registry.enable('slow', 'tester');
  const call = (n: number) => host.gateway.call({ agent: 'a', session: `s${n}`, tool: 'slow', arguments: { n }, source: 'api' }, n === 5 && fifth ? { signal: fifth } : {});
  const calls = [1, 2, 3, 4, 5].map(call);
  // Four run; the fifth waits for a slot.
  await expect.poll(() => [1, 2, 3, 4].every((n) => existsSync(join(out, `started-${n}`))), { timeout: 15_000 }).toBe(true);
  expect(readdirSync(out)).not.toContain('started-5');
  return { host, home, out, calls, call };
}

it('a call waiting for a slot when the operator switches to dry-run is not run: denied, saying why', async () => {
  const { host, out, calls } = await start();
  const sw = await host.dispatcher.dispatch('settings.update', { mode: 'dry-run' }, { operator: 'alice', console: 'serve' });
  expect(sw.ok).toBe(true);
  writeFileSync(join(out, 'go'), '');
  const results = await Promise.all(calls);
  expect(results.slice(0, 4).map((r) => r.executed)).toEqual([true, true, true, true]);
  expect(results[4]).toMatchObject({ decision: 'deny', executed: false });
  expect(results[4]!.reason).toMatch(/switched to dry-run while this call waited \(for its decision to reach the audit log, or for a free slot of its plugin\)/);
  expect(readdirSync(out)).not.toContain('started-5');
  // On record: no execution for it, and its trail ends with the deny.
  const trail = host.audit.tail(500).filter((e) => (e.payload as { call?: string }).call === results[4]!.call.id).map((e) => e.type);
  expect(trail).not.toContain('execution.started');
});

it('a call waiting for a slot whose agent cancels it or drops its connection is not started: denied, saying why', async () => {
  // The signal every ingress passes (the MCP request's cancel joined with its connection's close,
  // the agent API's closed response). It withdrew a call waiting for an operator; one waiting for
  // its plugin's slot ran anyway, with its answer thrown away.
  const gone = new AbortController();
  const { host, out, calls } = await start(gone.signal);
  gone.abort("the MCP client's connection closed");
  writeFileSync(join(out, 'go'), '');
  const results = await Promise.all(calls);
  expect(results.slice(0, 4).map((r) => r.executed)).toEqual([true, true, true, true]);
  expect(results[4]).toMatchObject({ decision: 'deny', executed: false });
  expect(results[4]!.reason).toMatch(/the agent cancelled the call or its connection ended while it waited \(the MCP client's connection closed\)/);
  expect(readdirSync(out)).not.toContain('started-5');
  // One decision on record (the allow it was judged to), and its result says why it did not run.
  const events = host.audit.tail(500).filter((e) => (e.payload as { call?: string }).call === results[4]!.call.id);
  expect(events.filter((e) => e.type === 'call.decided').map((e) => (e.payload as { decision: string }).decision)).toEqual(['allow']);
  expect(events.map((e) => e.type)).not.toContain('execution.started');
  expect(events.find((e) => e.type === 'call.result')?.payload).toMatchObject({ decision: 'deny', executed: false, error: expect.stringMatching(/connection ended while it waited/) });
});

it('a call waiting for a slot when the audit log is found deleted is not run: denied with the log\'s sentence', async () => {
  const { host, home, out, calls, call } = await start();
  rmSync(join(home, 'audit.db'));
  // The next call notices: denied, and so is every call until a restart.
  const probe = await call(9);
  expect(probe.decision).toBe('deny');
  writeFileSync(join(out, 'go'), '');
  const results = await Promise.all(calls);
  expect(results[4]).toMatchObject({ decision: 'deny', executed: false });
  expect(results[4]!.reason).toMatch(/audit log/);
  expect(results[4]!.content).toBeUndefined();
  expect(readdirSync(out)).not.toContain('started-5');
  expect(host.audit.writeError()).not.toBeNull();
});

it("an operator's test run after the audit log was found deleted is not started: the answer says why", async () => {
  const { host, home, out, calls } = await start();
  writeFileSync(join(out, 'go'), '');
  await Promise.all(calls);
  rmSync(join(home, 'audit.db'));
  const r = await host.dispatcher.dispatch('plugins.testRun', { name: 'slow', input: { n: 7 } }, { operator: 'alice', console: 'serve' });
  expect(r.ok).toBe(false);
  expect(JSON.stringify(r)).toMatch(/The test run was not started: the audit log \S+ was deleted while Gatehouse ran/);
  expect(readdirSync(out)).not.toContain('started-7');
});

/** Another process holding the audit database's write lock until released (shorter than the busy timeout). */
async function holdWriteLock(db: string): Promise<() => Promise<void>> {
  const script = "const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.exec('BEGIN IMMEDIATE'); console.log('locked'); process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });";
  const child = spawn(process.execPath, ['-e', script, db], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  expect(line).toBe('locked');
  return async () => {
    child.stdin.end('go\n');
    await exited;
  };
}

it('a shell tool call allowed while the log is held, then switched to dry-run before its decision is on disk, is not run', async () => {
  const root = tempDir('gatehouse-shell-gate-');
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: root, watch: false });
  hosts.push(host);
  await host.ready;
  const first = await host.gateway.call({ agent: 'a', session: 's0', tool: 'shell', arguments: { command: 'true', cwd: root }, source: 'api' });
  expect(first.executed, first.reason).toBe(true);
  const release = await holdWriteLock(join(home, 'audit.db'));
  // The decision is made and queued for the disk; the runner waits for it there. Seen by a spy
  // on the log's append (it calls through): nothing else says a decision is queued.
  const append = host.audit.append.bind(host.audit);
  let markDecided: () => void = () => {};
  const decided = new Promise<void>((resolve) => (markDecided = resolve));
  host.audit.append = (e) => {
    const appended = append(e);
    if (e.type === 'call.decided' && (e.payload as { decision?: string }).decision === 'allow') markDecided();
    return appended;
  };
  const call = host.gateway.call({ agent: 'a', session: 's1', tool: 'shell', arguments: { command: `touch ${join(root, 'ran')}`, cwd: root }, source: 'api' });
  await decided;
  // The switch takes effect at once; its own record waits for the log like everything else.
  const sw = host.dispatcher.dispatch('settings.update', { mode: 'dry-run' }, { operator: 'alice', console: 'serve' });
  await expect.poll(() => host.settings.current.mode).toBe('dry-run');
  await release();
  expect((await sw).ok).toBe(true);
  const r = await call;
  expect(r).toMatchObject({ decision: 'deny', executed: false });
  expect(r.reason).toMatch(/switched to dry-run while this call waited \(for its decision to reach the audit log/);
  expect(existsSync(join(root, 'ran'))).toBe(false);
});
