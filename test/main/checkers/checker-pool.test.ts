// The checker pool with real checker processes: verdict order, copies of the request,
// concurrency, several processes per checker, the bounded queue, optional checkers, breakers
// with a fake clock, restart and close.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckerPool, CheckerVerdict } from '../../../main/checkers/checker-pool.js';
import { CircuitBreaker, type BreakerSnapshot } from '../../../main/runner/circuit-breaker.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { evaluateParams, fixtureSpec, recordingPool } from '../../fixtures/checkers/pool-helpers.js';
import { tempDir } from '../../support/temp.js';

let pools: CheckerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  pools = [];
});

function pool(...args: Parameters<typeof recordingPool>) {
  const r = recordingPool(...args);
  pools.push(r.pool);
  return r;
}

const blockSpec = (name: string, delayMs: number, extra = {}) => fixtureSpec(name, 'delayed-block.mjs', { config: { rule: `${name}-rule`, delayMs }, ...extra });
const allowSpec = (name: string, delayMs = 0, extra = {}) => fixtureSpec(name, 'delayed-block.mjs', { config: { allow: true, delayMs }, ...extra });

function blockedBy(v: CheckerVerdict): string {
  if (v.decision !== 'block') throw new Error(`expected a block, got ${JSON.stringify(v)}`);
  return v.checker;
}

class FakeClock {
  t = 1_000_000;
  now() {
    return this.t;
  }
}

describe('checker pool verdicts', () => {
  it('allows when every checker allows; no checkers at all allows too', async () => {
    const { pool: p } = pool([allowSpec('a'), allowSpec('b')]);
    await p.start();
    expect(await p.evaluate(evaluateParams())).toEqual({ decision: 'allow', failures: [] });
    const { pool: empty } = pool([]);
    await empty.start();
    expect(await empty.evaluate(evaluateParams())).toEqual({ decision: 'allow', failures: [] });
  });

  it('two checkers both block: the lower registration order wins, even when it answers last', async () => {
    const { pool: p } = pool([blockSpec('first', 250), blockSpec('second', 0)]);
    await p.start();
    const v = await p.evaluate(evaluateParams());
    expect(blockedBy(v)).toBe('first');
    expect(v).toMatchObject({ result: { rule_name: 'first-rule', severity: 'critical', action: 'block' } });
  });

  it('a block from the first checker returns without waiting for later ones', async () => {
    const metrics = new PluginMetrics();
    const { pool: p } = pool([blockSpec('fast', 0), fixtureSpec('hung', 'hang.mjs', { timeoutMs: 3000 })], { metrics });
    await p.start();
    const started = performance.now();
    expect(blockedBy(await p.evaluate(evaluateParams()))).toBe('fast');
    expect(performance.now() - started).toBeLessThan(2500);
    // The later checker has not answered yet: the verdict did not wait for it.
    expect(metrics.snapshot('hung').calls).toBe(0);
  });

  it('an allow from a lower order waits for the later block', async () => {
    const { pool: p } = pool([allowSpec('quiet'), blockSpec('late', 150)]);
    await p.start();
    expect(blockedBy(await p.evaluate(evaluateParams()))).toBe('late');
  });

  it('all checkers see the call at once', async () => {
    const { pool: p } = pool([allowSpec('a', 600), allowSpec('b', 600), allowSpec('c', 600)]);
    await p.start();
    const started = performance.now();
    expect(await p.evaluate(evaluateParams())).toEqual({ decision: 'allow', failures: [] });
    // One after the other would take 1800 ms.
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('each checker gets its own copy: a checker changing its request is not seen by another, nor by the caller', async () => {
    const { pool: p } = pool([fixtureSpec('mutator', 'mutate.mjs'), fixtureSpec('echo', 'echo-request.mjs')]);
    await p.start();
    const params = evaluateParams({ paths: ['/srv/a', '/srv/b'], arguments: { path: '/srv/a' }, rules: [] });
    const original = structuredClone(params);
    const pending = p.evaluate(params);
    // The caller changing its object after the call does not reach the checkers either.
    params.paths.push('/changed-by-caller');
    const v = await pending;
    expect(blockedBy(v)).toBe('echo');
    const seen = JSON.parse((v as { result: { message: string } }).result.message) as { method: string; params: unknown };
    expect(seen).toEqual({ method: 'evaluate', params: original });
    // The echo checker changed its own copy on the first call; the next call arrives intact.
    params.paths.pop();
    const again = JSON.parse(((await p.evaluate(params)) as { result: { message: string } }).result.message) as { params: unknown };
    expect(again.params).toEqual(original);
    expect(params).toEqual(original);
  });
});

describe('failures and optional checkers', () => {
  it('fails closed: a failing checker blocks; an optional one lets the call go on and is reported', async () => {
    const { pool: p } = pool([fixtureSpec('soft', 'error-answer.mjs', { optional: true }), allowSpec('ok')]);
    await p.start();
    expect(await p.evaluate(evaluateParams())).toEqual({
      decision: 'allow',
      failures: [{ checker: 'soft', kind: 'error', message: 'soft answered with an error: cannot evaluate: rules database missing', optional: true }],
    });
    const { pool: hard } = pool([allowSpec('ok'), fixtureSpec('hard', 'error-answer.mjs')]);
    await hard.start();
    const v = await hard.evaluate(evaluateParams());
    expect(v).toMatchObject({ decision: 'block', checker: 'hard', failure: { kind: 'error', optional: false } });
  });

  it('a block from a checker after an optional failure still wins', async () => {
    const { pool: p } = pool([fixtureSpec('soft', 'garbage.mjs', { optional: true }), blockSpec('guard', 0)]);
    await p.start();
    const v = await p.evaluate(evaluateParams());
    expect(blockedBy(v)).toBe('guard');
    expect(v.failures.map((f) => [f.checker, f.kind])).toEqual([['soft', 'garbage']]);
  });
});

describe('processes, queue and pool_full', () => {
  it('N processes answer in parallel; more calls than processes wait their turn', async () => {
    const { pool: p } = pool([blockSpec('duo', 300, { processes: 2 })]);
    await p.start();
    expect(p.status()).toEqual([expect.objectContaining({ name: 'duo', processes: 2, ready: 2 })]);
    const started = performance.now();
    const verdicts = await Promise.all([p.evaluate(evaluateParams()), p.evaluate(evaluateParams()), p.evaluate(evaluateParams())]);
    const elapsed = performance.now() - started;
    const pids = new Set(verdicts.map((v) => /\(pid (\d+)\)/.exec((v as { result: { message: string } }).result.message)![1]));
    expect(pids.size).toBe(2);
    // Both processes served (two pids); the third call waited for one of them: at least 2 × 300 ms.
    expect(elapsed).toBeGreaterThanOrEqual(590);
  });

  it('a full pool is a pool_full failure that does not count towards the breaker', async () => {
    const metrics = new PluginMetrics();
    const { pool: p } = pool([fixtureSpec('busy', 'hang.mjs', { timeoutMs: 600, maxQueue: 1 })], { metrics });
    await p.start();
    const inFlight = p.evaluate(evaluateParams());
    const queued = p.evaluate(evaluateParams());
    const full = await p.evaluate(evaluateParams());
    expect(full).toMatchObject({ decision: 'block', checker: 'busy', failure: { kind: 'pool_full', message: 'busy has 1 calls waiting for its 1 process; the call was not sent' } });
    expect(p.status()[0]!.breaker.consecutiveFailures).toBe(0);
    expect(metrics.snapshot('busy').failures.limit).toBe(1);
    // The call in flight times out (counts); the queued one waited its whole timeout behind it (does not).
    expect(await inFlight).toMatchObject({ failure: { kind: 'timeout' } });
    expect(await queued).toMatchObject({ failure: { kind: 'timeout', message: 'busy did not take the call within 600 ms: all its processes were busy' } });
    expect(p.status()[0]!.breaker.consecutiveFailures).toBe(1);
  });
});

describe('pipelining (opt-in)', () => {
  it('answers come back to the calls that asked, in order', async () => {
    const { pool: p } = pool([fixtureSpec('echo', 'echo-request.mjs', { processes: 2, pipeline: 8 })]);
    await p.start();
    const verdicts = await Promise.all(Array.from({ length: 40 }, (_, i) => p.evaluate(evaluateParams({ tool_name: `tool-${i}` }))));
    verdicts.forEach((v, i) => {
      const wire = JSON.parse((v as { result: { message: string } }).result.message) as { params: { tool_name: string } };
      expect(wire.params.tool_name).toBe(`tool-${i}`);
    });
  });

  it('a crash is blamed on the call the checker was on; calls written behind it go to the restarted process', async () => {
    const r = pool([fixtureSpec('crashy', 'crash-second.mjs', { pipeline: 4, config: { p: 1 } })]);
    await r.pool.start();
    const [first, second, third] = await Promise.all([r.pool.evaluate(evaluateParams()), r.pool.evaluate(evaluateParams()), r.pool.evaluate(evaluateParams())]);
    const firstPid = /pid=(\d+)/.exec((first as { result: { message: string } }).result.message)![1];
    expect(second).toMatchObject({ decision: 'block', failure: { kind: 'crash' } });
    const thirdMessage = (third as { result: { message: string } }).result.message;
    expect(thirdMessage).toContain('config={"p":1}');
    expect(thirdMessage).toContain('call=1');
    expect(/pid=(\d+)/.exec(thirdMessage)![1]).not.toBe(firstPid);
    expect(r.pool.status()[0]!.breaker).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('a hang is blamed once: the calls behind it had their time and expire without counting', async () => {
    const { pool: p } = pool([fixtureSpec('hang', 'hang.mjs', { pipeline: 3, timeoutMs: 400 })]);
    await p.start();
    const verdicts = await Promise.all([p.evaluate(evaluateParams()), p.evaluate(evaluateParams()), p.evaluate(evaluateParams())]);
    expect(verdicts.map((v) => (v as { failure: { kind: string } }).failure.kind)).toEqual(['timeout', 'timeout', 'timeout']);
    expect((verdicts[0] as { failure: { message: string } }).failure.message).toMatch(/^hang did not answer within \d+ ms/);
    expect((verdicts[2] as { failure: { message: string } }).failure.message).toBe('hang did not take the call within 400 ms: all its processes were busy');
    expect(p.status()[0]!.breaker.consecutiveFailures).toBe(1);
  });
});

describe('breakers in the pool', () => {
  it('opens after three failures, skips the checker while open, lets one probe through after the cooldown, and closes on its success', async () => {
    const clock = new FakeClock();
    const changes: [string, BreakerSnapshot, BreakerSnapshot][] = [];
    const failFile = join(tempDir(), 'fail');
    writeFileSync(failFile, '');
    const metrics = new PluginMetrics();
    const { pool: p } = pool([fixtureSpec('flaky', 'file-switch.mjs', { config: { failFile } })], {
      metrics,
      breakers: (name) => new CircuitBreaker({ clock, onChange: (next, prev) => changes.push([name, next, prev]) }),
    });
    await p.start();
    for (let i = 0; i < 3; i++) expect(await p.evaluate(evaluateParams())).toMatchObject({ failure: { kind: 'error' } });
    expect(p.status()[0]!.breaker).toMatchObject({ state: 'open', cycle: 1, nextProbeAt: clock.t + 5 * 60_000 });

    rmSync(failFile);
    const skipped = await p.evaluate(evaluateParams());
    expect(skipped).toMatchObject({ failure: { kind: 'breaker_open' } });
    expect((skipped as { failure: { message: string } }).failure.message).toMatch(/^flaky was skipped: its circuit breaker is open after 3 failures \(last: flaky answered with an error: switched off\); it closes at \d\d:\d\d UTC if a trial call then succeeds, or when an operator resets it/);
    expect(metrics.snapshot('flaky')).toMatchObject({ calls: 4, failures: { error: 4 } });

    clock.t += 5 * 60_000;
    expect(p.status()[0]!.breaker.state).toBe('half_open');
    // One probe at a time: the second call while the probe is out is skipped.
    const [probe, second] = await Promise.all([p.evaluate(evaluateParams()), p.evaluate(evaluateParams())]);
    expect(probe).toEqual({ decision: 'allow', failures: [] });
    expect(second).toMatchObject({ failure: { kind: 'breaker_open', message: expect.stringContaining('a probe call is deciding') } });
    expect(p.status()[0]!.breaker).toMatchObject({ state: 'closed', consecutiveFailures: 0, cycle: 1 });
    expect(changes.map(([, next]) => `${next.state}/${next.consecutiveFailures}`)).toEqual(['closed/1', 'closed/2', 'open/3', 'half_open/3', 'closed/0']);
  });

  it('a probe that fails re-opens with the next cooldown', async () => {
    const clock = new FakeClock();
    const failFile = join(tempDir(), 'fail');
    writeFileSync(failFile, '');
    const { pool: p } = pool([fixtureSpec('flaky', 'file-switch.mjs', { config: { failFile } })], { breakers: () => new CircuitBreaker({ clock }) });
    await p.start();
    for (let i = 0; i < 3; i++) await p.evaluate(evaluateParams());
    clock.t += 5 * 60_000;
    expect(await p.evaluate(evaluateParams())).toMatchObject({ failure: { kind: 'error' } });
    expect(p.status()[0]!.breaker).toMatchObject({ state: 'open', cycle: 2, nextProbeAt: clock.t + 10 * 60_000 });
  });

  it('without a breaker factory, breaker changes arrive as pool events', async () => {
    const r = pool([fixtureSpec('bad', 'no-rule-name.mjs')]);
    await r.pool.start();
    for (let i = 0; i < 3; i++) await r.pool.evaluate(evaluateParams());
    expect(await r.waitFor((e) => e.type === 'checker.breaker' && e.state === 'open')).toMatchObject({ checker: 'bad', prev: 'closed' });
  });
});

describe('lifecycle', () => {
  it('restart replaces the processes and replays init; the breaker is left to the operator', async () => {
    const r = pool([fixtureSpec('crashy', 'crash-second.mjs', { config: { v: 1 } })]);
    await r.pool.start();
    const before = r.pool.pids('crashy');
    await r.pool.restart('crashy');
    const after = r.pool.pids('crashy');
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);
    const v = (await r.pool.evaluate(evaluateParams())) as { result: { message: string } };
    expect(v.result.message).toContain(`pid=${after[0]} call=1`);
    expect(v.result.message).toContain('config={"v":1}');
    expect(r.events.find((e) => e.type === 'checker.exited' && e.pid === before[0])).toBeDefined();
    await expect(r.pool.restart('nope')).rejects.toThrow('no checker named nope; registered: crashy');
  });

  it('close answers the call in flight, refuses later calls, and is idempotent', async () => {
    const r = pool([blockSpec('slow', 200)]);
    await r.pool.start();
    const inFlight = r.pool.evaluate(evaluateParams());
    const closing = r.pool.close();
    expect(blockedBy(await inFlight)).toBe('slow');
    await Promise.all([closing, r.pool.close()]);
    expect(await r.pool.evaluate(evaluateParams())).toMatchObject({ decision: 'block', failure: { kind: 'not_ready', message: 'slow is not running: the checker pool is closed (the host is shutting down; start it again with gatehouse serve)' } });
    expect(r.pool.status()[0]!.ready).toBe(0);
    expect(r.leaked()).toEqual([]);
  });

  it('runs the command through wrap (the sandbox), with exactly the environment given', async () => {
    const spec = fixtureSpec('wrapped', 'env-echo.mjs', {
      wrap: (command, args) => ({ command: '/usr/bin/env', args: ['GATEHOUSE_WRAPPED=yes', command, ...args] }),
    });
    const { pool: p } = pool([spec]);
    await p.start();
    expect(await p.evaluate(evaluateParams())).toMatchObject({ decision: 'block', result: { message: 'wrapped=yes home=unset' } });
  });

  it('refuses two checkers with one name', () => {
    expect(() => recordingPool([allowSpec('twin'), allowSpec('twin')])).toThrow('checker twin is registered twice');
  });
});
