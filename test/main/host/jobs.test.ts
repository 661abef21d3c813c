// Long work shows progress and can be cancelled: the Jobs service (throttling, cancel, list) with
// a fake clock, then each long operation of a real host (chain verification, export, shadow
// replay over a time range, a rescan of many plugins) on a real database and real plugin
// folders. A cancel is sent from the first progress event the work reports, which is as far
// into the work as an operator could click, and always before the work can finish.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { JobCancelled, Jobs } from '../../../main/host/jobs.js';
import type { Envelope, JobView, MethodName, RequestOf } from '../../../shared/contract.js';
import { FakeTime } from '../../support/fake-time.js';
import { tempDir } from '../../support/temp.js';

describe('Jobs', () => {
  function jobs(time = new FakeTime()) {
    const seen: JobView[] = [];
    return { time, seen, jobs: new Jobs({ now: time.now, elapsed: time.now, emit: (j) => seen.push(j), throttleMs: 100 }) };
  }

  it('announces the start, throttles progress, and always sends the end', async () => {
    const { time, seen, jobs: j } = jobs();
    const result = await j.run({ id: 'a', kind: 'audit.verify', title: 'Verifying the audit chain', unit: 'events', by: 'operator:alice' }, async (job) => {
      job.progress(0, 100);
      job.progress(10);
      job.progress(15);
      time.jump(50);
      job.progress(20);
      time.jump(60);
      job.progress(30);
      job.progress(40);
      return 'ok';
    });
    expect(result).toBe('ok');
    // The size and the first chunk at once, then at most one every 100 ms, and the end.
    expect(seen.map((v) => [v.state, v.done, v.total])).toEqual([
      ['running', 0, null],
      ['running', 0, 100],
      ['running', 10, 100],
      ['running', 30, 100],
      ['done', 40, 100],
    ]);
    expect(seen.at(-1)).toMatchObject({ id: 'a', kind: 'audit.verify', by: 'operator:alice', cancellable: true, endedAt: time.now(), message: null });
  });

  it('a cancel stops the work at its next checkpoint with a sentence saying how far it got', async () => {
    const { jobs: j } = jobs();
    let chunks = 0;
    const run = j.run({ id: 'b', kind: 'audit.export', title: 'Exporting audit events', unit: 'events', by: 'operator:alice' }, async (job) => {
      for (;;) {
        chunks++;
        job.progress(chunks * 1000, 10_000);
        if (chunks === 3) expect(j.cancel('b')).toMatchObject({ id: 'b', state: 'running' });
        await job.checkpoint();
      }
    });
    await expect(run).rejects.toThrow(JobCancelled);
    await expect(run).rejects.toThrow('Exporting audit events was cancelled after 3,000 of 10,000 events; nothing was changed.');
    expect(chunks).toBe(3);
    expect(j.list()[0]).toMatchObject({ id: 'b', state: 'cancelled', done: 3000 });
  });

  it('a failure ends the job as failed with its message; unknown ids cancel nothing; ids are unique while running', async () => {
    const { jobs: j } = jobs();
    await expect(j.run({ kind: 'plugins.scan', title: 'Scanning plugins', unit: 'plugins', by: 'host' }, () => Promise.reject(new Error('disk gone')))).rejects.toThrow('disk gone');
    expect(j.list()[0]).toMatchObject({ state: 'failed', message: 'disk gone' });
    expect(j.cancel('nope')).toBeNull();
    let release!: () => void;
    const first = j.run({ id: 'c', kind: 'audit.verify', title: 'Verifying', unit: 'events', by: 'host' }, () => new Promise<void>((r) => (release = r)));
    await expect(j.run({ id: 'c', kind: 'audit.verify', title: 'Verifying', unit: 'events', by: 'host' }, async () => {})).rejects.toThrow(/already running/);
    expect(j.list().map((v) => [v.id, v.state])).toEqual([
      ['c', 'running'],
      [expect.stringMatching(/^job-/), 'failed'],
    ]);
    release();
    await first;
  });

  it('work the host cannot do without is not cancelled', async () => {
    const { jobs: j } = jobs();
    const run = j.run({ id: 'd', kind: 'plugins.scan', title: 'Scanning plugins', unit: 'plugins', by: 'host', cancellable: false }, async (job) => {
      expect(j.cancel('d')).toMatchObject({ cancellable: false });
      await job.checkpoint();
      return 7;
    });
    await expect(run).resolves.toBe(7);
  });
});

// ---- a real host ------------------------------------------------------------------------------

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

/** The host's clock: the tests move it to give recorded calls their own times. */
let now = 1_800_000_000_000;
const clock = { now: () => now };

async function newHost(setup?: (home: string, work: string) => void): Promise<{ host: Host; home: string; work: string }> {
  const root = tempDir('gatehouse-jobs-');
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  setup?.(home, work);
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: work, watch: false, clock });
  hosts.push(host);
  await host.ready;
  return { host, home, work };
}

const ctx = { operator: 'alice', console: 'serve' as const };

/** Calls a method as a console would, following its job's progress events. */
async function callJob<M extends MethodName>(host: Host, method: M, params: RequestOf<M>, onProgress?: (j: JobView) => void): Promise<{ env: Envelope<unknown>; progress: JobView[] }> {
  const id = (params as { job?: string }).job!;
  const progress: JobView[] = [];
  const off = host.bus.subscribe((name, payload) => {
    if (name !== 'jobs.progress' || (payload as JobView).id !== id) return;
    progress.push(payload as JobView);
    onProgress?.(payload as JobView);
  });
  try {
    return { env: await host.dispatcher.dispatch(method, params, ctx), progress };
  } finally {
    off();
  }
}

/** Cancels through the contract, as the console's Cancel button does, once the work has made progress. */
function cancelOnFirstProgress(host: Host): (j: JobView) => void {
  let sent = false;
  return (j) => {
    if (sent || j.state !== 'running' || j.done === 0) return;
    sent = true;
    void host.dispatcher.dispatch('jobs.cancel', { id: j.id }, ctx).then((r) => expect(r).toMatchObject({ ok: true, result: { cancelled: true } }));
  };
}

function appendMany(host: Host, n: number): void {
  for (let i = 0; i < n; i++) host.audit.append({ type: 'test.filler', actor: 'host', payload: { i, word: i % 1000 === 0 ? 'needle' : 'hay' } });
  host.audit.flush();
}

/** Calls as the gateway records them (received, extracted, decided), one millisecond apart from `ts0`, without running each through policy. */
function recordCalls(host: Host, n: number, session: string, ts0: number): void {
  for (let i = 0; i < n; i++) {
    const call = `call-${session}-${i}`;
    now = ts0 + i;
    host.audit.append({ type: 'call.received', actor: 'agent:claude', payload: { call, agent: 'claude', session, tool: 'shell', source: 'api', cwd: '/tmp', arguments: { command: `rm /tmp/f${i}` } } });
    host.audit.append({ type: 'call.extracted', actor: 'host', payload: { call, operations: ['delete'], paths: [`/tmp/f${i}`], hosts: [], command: `rm /tmp/f${i}`, evasive: false, evasiveReasons: [] } });
    host.audit.append({ type: 'call.decided', actor: 'autonomy:full', payload: { call, decision: 'allow', decider: { kind: 'autonomy', level: 'full' }, reason: 'full autonomy' } });
  }
  host.audit.flush();
  now = ts0 + n;
}

describe('long work on a real host', () => {
  it('verifying a long chain reports events checked as it goes; a cancel leaves the chain state as it was', async () => {
    const { host } = await newHost();
    appendMany(host, 60_000);
    const before = host.chainState();

    const full = await callJob(host, 'audit.verify', { job: 'verify-1' });
    expect(full.env).toMatchObject({ ok: true, result: { state: 'verified' } });
    const checked = (full.env as { result: { checked: number } }).result.checked;
    expect(checked).toBeGreaterThan(60_000);
    const running = full.progress.filter((p) => p.state === 'running');
    expect(running.length).toBeGreaterThan(0);
    expect(running[0]).toMatchObject({ kind: 'audit.verify', title: 'Verifying the audit chain', unit: 'events', by: 'operator:alice' });
    expect(full.progress.at(-1)).toMatchObject({ state: 'done', done: checked, total: checked });

    appendMany(host, 1);
    const verifiedAt = host.chainState().verifiedAt;
    const cut = await callJob(host, 'audit.verify', { job: 'verify-2' }, cancelOnFirstProgress(host));
    expect(cut.env).toMatchObject({ ok: false, error: { code: 'rejected', details: { reason: 'cancelled' } } });
    expect((cut.env as { error: { message: string } }).error.message).toMatch(/^Verifying the audit chain was cancelled after [\d,]+ of [\d,]+ events; nothing was changed\.$/);
    expect(cut.progress.at(-1)).toMatchObject({ state: 'cancelled' });
    expect(cut.progress.at(-1)!.done).toBeLessThan(cut.progress.at(-1)!.total!);
    expect(host.chainState()).toMatchObject({ state: 'verified', verifiedAt });
    expect(before.state).toBe('verified');
  });

  it('an export reports lines written against the matching total; cancelled, it returns no file', async () => {
    const { host } = await newHost();
    appendMany(host, 12_000);
    const full = await callJob(host, 'audit.export', { job: 'export-1', types: ['test.filler'] });
    expect(full.env).toMatchObject({ ok: true, result: { count: 12_000, truncated: false } });
    const jsonl = (full.env as { result: { jsonl: string } }).result.jsonl.trimEnd().split('\n');
    expect(jsonl).toHaveLength(12_000);
    expect(JSON.parse(jsonl[0]!).payload).toEqual({ i: 0, word: 'needle' });
    expect(JSON.parse(jsonl.at(-1)!).payload).toEqual({ i: 11_999, word: 'hay' });
    expect(full.progress.at(-1)).toMatchObject({ state: 'done', done: 12_000, total: 12_000 });

    const cut = await callJob(host, 'audit.export', { job: 'export-2', types: ['test.filler'] }, cancelOnFirstProgress(host));
    expect(cut.env).toMatchObject({ ok: false, error: { details: { reason: 'cancelled' } } });
    expect((cut.env as { error: { message: string } }).error.message).toMatch(/^Exporting audit events was cancelled after 5,000 of 12,000 events/);
  });

  it('a replay over a time range reports calls replayed; cancelled, it changes nothing', async () => {
    const { host } = await newHost();
    const t0 = now + 60_000;
    recordCalls(host, 2_500, 's-range', t0);
    const full = await callJob(host, 'audit.replay', { job: 'replay-1', from: t0, to: t0 + 2_499 });
    expect(full.env).toMatchObject({ ok: true });
    const result = (full.env as { result: { calls: { call: string; changed: boolean }[] } }).result;
    expect(result.calls).toHaveLength(2_500);
    expect(result.calls.map((c) => c.call).slice(0, 2)).toEqual(['call-s-range-0', 'call-s-range-1']);
    expect(full.progress.at(-1)).toMatchObject({ kind: 'audit.replay', state: 'done', done: 2_500, total: 2_500, unit: 'calls' });
    // The middle of the range only: the same pages, bounded by time.
    const part = await callJob(host, 'audit.replay', { job: 'replay-2', from: t0 + 1_000, to: t0 + 1_009 });
    expect((part.env as { result: { calls: { call: string }[] } }).result.calls.map((c) => c.call)).toEqual(Array.from({ length: 10 }, (_, i) => `call-s-range-${1_000 + i}`));

    const version = host.policy.state.version;
    const cut = await callJob(host, 'audit.replay', { job: 'replay-3', from: t0, policyText: 'rules: []\n' }, cancelOnFirstProgress(host));
    expect(cut.env).toMatchObject({ ok: false, error: { details: { reason: 'cancelled' } } });
    expect((cut.env as { error: { message: string } }).error.message).toMatch(/^Replaying the policy over recorded calls was cancelled after 1,000 of 2,500 calls/);
    expect(host.policy.state.version).toBe(version);
  });

  it('a rescan of many plugins reports each one; a cancelled rescan keeps the list it had', async () => {
    const { host, work } = await newHost((_home, work) => {
      for (let i = 0; i < 30; i++) {
        const dir = join(work, '.gatehouse', 'plugins', `tool-${String(i).padStart(2, '0')}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'tool.toml'), `name = "tool-${String(i).padStart(2, '0')}"\ndescription = "Tool ${i}."\ncommand = "run.sh"\n`);
        writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho "{}"\n', { mode: 0o755 });
      }
    });
    const names = () => host.registry.list().map((e) => e.name);
    expect(names()).toHaveLength(30);
    // Startup's own scan was a job too, by the host, which no console may cancel.
    const startup = await host.dispatcher.dispatch('jobs.list', {}, ctx);
    expect(startup).toMatchObject({ ok: true, result: { jobs: [{ kind: 'plugins.scan', by: 'host', state: 'done', done: 30, total: 30, cancellable: false }] } });

    const full = await callJob(host, 'plugins.rescan', { job: 'scan-1' });
    expect(full.env).toMatchObject({ ok: true, result: { plugins: 30 } });
    const done = full.progress.map((p) => p.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(full.progress.at(-1)).toMatchObject({ state: 'done', done: 30, total: 30, unit: 'plugins' });

    // A new plugin folder is not picked up by a rescan cancelled before its end.
    const extra = join(work, '.gatehouse', 'plugins', 'zz-new');
    mkdirSync(extra);
    writeFileSync(join(extra, 'tool.toml'), 'name = "zz-new"\ndescription = "New."\ncommand = "run.sh"\n');
    writeFileSync(join(extra, 'run.sh'), '#!/bin/sh\necho "{}"\n', { mode: 0o755 });
    const cut = await callJob(host, 'plugins.rescan', { job: 'scan-2' }, cancelOnFirstProgress(host));
    expect(cut.env).toMatchObject({ ok: false, error: { details: { reason: 'cancelled' } } });
    expect(names()).not.toContain('zz-new');
    expect(names()).toHaveLength(30);
    await callJob(host, 'plugins.rescan', { job: 'scan-3' });
    expect(names()).toContain('zz-new');
  });

  it('cancelling a job that is not running says so', async () => {
    const { host } = await newHost();
    expect(await host.dispatcher.dispatch('jobs.cancel', { id: 'no-such-job' }, ctx)).toEqual({ ok: true, result: { cancelled: false, job: null } });
    expect(await host.dispatcher.dispatch('audit.verify', { job: 'bad id!' }, ctx)).toMatchObject({ ok: false, error: { code: 'bad_request' } });
  });
});
