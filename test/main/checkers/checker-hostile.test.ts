// The checker cases of the hostile-plugin suite: real processes misbehaving on purpose. Each
// case ends with the documented failure, the breaker where expected (3 consecutive failures
// open it), the host still answering, and no process left in any group the pool started.
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckerPool, CheckerVerdict } from '../../../main/checkers/checker-pool.js';
import { MAX_LINE_BYTES } from '../../../main/checkers/line-splitter.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { evaluateParams, fixtureSpec, liveMembers, recordingPool } from '../../fixtures/checkers/pool-helpers.js';

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

/** A pool that is closed (and checked for leaks) at the end of the test, whatever happens. */
function hostilePool(...args: Parameters<typeof recordingPool>) {
  const r = recordingPool(...args);
  cleanup = () => r.pool.close();
  return r;
}

async function closeWithoutLeaks(r: ReturnType<typeof recordingPool>): Promise<void> {
  await r.pool.close();
  expect(r.groups.size).toBeGreaterThan(0);
  expect(r.leaked()).toEqual([]);
}

function failureOf(v: CheckerVerdict) {
  if (v.decision !== 'block' || !('failure' in v)) throw new Error(`expected a block by a checker failure, got ${JSON.stringify(v)}`);
  return v.failure;
}

function breakerState(pool: CheckerPool, name: string) {
  return pool.status().find((s) => s.name === name)!.breaker;
}

describe('hostile checkers', () => {
  it('a checker that hangs: timeout, call blocked, breaker open after three, the host answers at once after', async () => {
    const metrics = new PluginMetrics();
    const r = hostilePool([fixtureSpec('hang', 'hang.mjs', { timeoutMs: 400 })], { metrics });
    await r.pool.start();
    for (let i = 1; i <= 3; i++) {
      const f = failureOf(await r.pool.evaluate(evaluateParams()));
      expect(f).toMatchObject({ checker: 'hang', kind: 'timeout', optional: false });
      expect(f.message).toMatch(/^hang did not answer within \d+ ms/);
      expect(breakerState(r.pool, 'hang')).toMatchObject({ state: i < 3 ? 'closed' : 'open', consecutiveFailures: i });
    }
    // The next call is answered at once: the checker is skipped, no process is asked.
    const spawned = r.events.filter((e) => e.type === 'checker.spawned').length;
    const skipped = failureOf(await r.pool.evaluate(evaluateParams()));
    expect(skipped.kind).toBe('breaker_open');
    expect(r.events.filter((e) => e.type === 'checker.spawned').length).toBe(spawned);
    expect(metrics.snapshot('hang')).toMatchObject({ calls: 4, failures: { timeout: 3, error: 1 } });
    // Each timed-out process had its group killed: nothing of the three is left.
    expect(r.events.filter((e) => e.type === 'checker.failed' && e.kind === 'timeout')).toHaveLength(3);
    await closeWithoutLeaks(r);
  });

  it('a checker that crashes on its second call: crash failure, restart with init replayed', async () => {
    const config = { marker: 'replayed-config', n: 42 };
    const r = hostilePool([fixtureSpec('crashy', 'crash-second.mjs', { config })]);
    await r.pool.start();
    const first = await r.pool.evaluate(evaluateParams());
    expect(first).toMatchObject({ decision: 'block', checker: 'crashy', result: { rule_name: 'echo-init', severity: 'info', action: 'block' } });
    const firstMessage = (first as { result: { message: string } }).result.message;
    expect(firstMessage).toContain(`config=${JSON.stringify(config)}`);

    const second = failureOf(await r.pool.evaluate(evaluateParams()));
    expect(second.kind).toBe('crash');
    expect(second.message).toMatch(/crashy exited with code 3/);
    expect(second.message).toContain('crashing on purpose'); // the stderr tail

    const third = await r.pool.evaluate(evaluateParams());
    const thirdMessage = (third as { result: { message: string } }).result.message;
    // A new process (another pid) that knows the config: it can only have it from a replayed init.
    expect(thirdMessage).toContain(`config=${JSON.stringify(config)}`);
    expect(thirdMessage).toContain('call=1');
    expect(/pid=(\d+)/.exec(thirdMessage)![1]).not.toBe(/pid=(\d+)/.exec(firstMessage)![1]);
    expect(r.events.filter((e) => e.type === 'checker.spawned').map((e) => e.reason)).toEqual(['start', 'restart after crash']);
    // The success after the crash reset the count.
    expect(breakerState(r.pool, 'crashy')).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
    await closeWithoutLeaks(r);
  });

  it('a checker that prints garbage lines: garbage failure, restarted, breaker open after three', async () => {
    const metrics = new PluginMetrics();
    const r = hostilePool([fixtureSpec('garbage', 'garbage.mjs')], { metrics });
    await r.pool.start();
    for (let i = 1; i <= 3; i++) {
      const f = failureOf(await r.pool.evaluate(evaluateParams()));
      expect(f.kind).toBe('garbage');
      expect(f.message).toContain('garbage wrote a line that is not JSON ("this is not json, it is garbage")');
    }
    expect(breakerState(r.pool, 'garbage')).toMatchObject({ state: 'open', consecutiveFailures: 3, cycle: 1 });
    expect(failureOf(await r.pool.evaluate(evaluateParams())).kind).toBe('breaker_open');
    expect(metrics.snapshot('garbage').failures.bad_output).toBe(3);
    await closeWithoutLeaks(r);
  });

  it.each([
    { severity: 'catastrophic', action: 'quarantine' },
    { severity: 42, action: '' },
    { severity: null },
  ])('a checker that answers an unknown severity and action (%j): a block with high and block', async (config) => {
    const r = hostilePool([fixtureSpec('odd', 'unknown-severity.mjs', { config })]);
    await r.pool.start();
    const v = await r.pool.evaluate(evaluateParams());
    expect(v).toEqual({ decision: 'block', checker: 'odd', result: { rule_name: 'odd-values', severity: 'high', action: 'block', message: 'blocked with odd severity and action' }, failures: [] });
    // The checker did its job: a block is not a failure.
    expect(breakerState(r.pool, 'odd')).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
    await closeWithoutLeaks(r);
  });

  it('a checker that blocks without rule_name: malformed failure, breaker open after three', async () => {
    const r = hostilePool([fixtureSpec('nameless', 'no-rule-name.mjs')]);
    await r.pool.start();
    for (let i = 1; i <= 3; i++) {
      const f = failureOf(await r.pool.evaluate(evaluateParams()));
      expect(f.kind).toBe('malformed');
      expect(f.message).toBe('nameless answered with a block without a "rule_name"; a block must name the rule that decided');
    }
    expect(breakerState(r.pool, 'nameless').state).toBe('open');
    // A malformed answer is still an answer: the process was not restarted.
    expect(r.events.filter((e) => e.type === 'checker.spawned')).toHaveLength(1);
    await closeWithoutLeaks(r);
  });

  it('a checker that never answers init: start() returns, calls fail as not ready, breaker open after three', async () => {
    const r = hostilePool([fixtureSpec('mute', 'never-init.sh', { initTimeoutMs: 300 })]);
    const started = performance.now();
    await r.pool.start();
    expect(performance.now() - started).toBeLessThan(3000);
    expect(await r.waitFor((e) => e.type === 'checker.failed')).toMatchObject({ kind: 'timeout', duringInit: true, message: 'mute did not answer init within 300 ms' });
    expect(r.pool.status()).toEqual([expect.objectContaining({ name: 'mute', processes: 1, ready: 0 })]);
    expect(breakerState(r.pool, 'mute').consecutiveFailures).toBe(1);

    const f = failureOf(await r.pool.evaluate(evaluateParams()));
    expect(f).toMatchObject({ kind: 'not_ready', message: 'mute is not ready: did not answer init within 300 ms' });
    await r.pool.evaluate(evaluateParams());
    expect(breakerState(r.pool, 'mute')).toMatchObject({ state: 'open', consecutiveFailures: 3 });
    expect(failureOf(await r.pool.evaluate(evaluateParams())).kind).toBe('breaker_open');
    await closeWithoutLeaks(r);
  });

  it('a checker whose answer line exceeds 1 MiB: failure, restart; a line of exactly 1 MiB is fine', async () => {
    const metrics = new PluginMetrics();
    const r = hostilePool(
      [
        fixtureSpec('huge', 'huge-line.mjs', { config: { bytes: MAX_LINE_BYTES + 1 }, optional: true }),
        fixtureSpec('at-cap', 'huge-line.mjs', { config: { bytes: MAX_LINE_BYTES } }),
      ],
      { metrics },
    );
    await r.pool.start();
    const v = await r.pool.evaluate(evaluateParams());
    // The optional checker's failure lets the verdict come from the next one: a block of exactly 1 MiB.
    expect(v).toMatchObject({ decision: 'block', checker: 'at-cap', result: { rule_name: 'huge', severity: 'high' } });
    const line = JSON.stringify({ result: { rule_name: 'huge', severity: 'high', action: 'block', message: (v as { result: { message: string } }).result.message } });
    expect(Buffer.byteLength(line)).toBe(MAX_LINE_BYTES);
    expect(v.failures).toEqual([{ checker: 'huge', kind: 'garbage', message: expect.stringMatching(/^huge wrote a line over the 1 MiB line cap/), optional: true }]);
    expect(metrics.snapshot('huge').failures.limit).toBe(1);
    await r.waitFor((e) => e.type === 'checker.spawned' && e.checker === 'huge' && e.reason === 'restart after garbage');
    await closeWithoutLeaks(r);
  });

  it('a checker that answers with an error: error failure, the process stays', async () => {
    const r = hostilePool([fixtureSpec('erring', 'error-answer.mjs')]);
    await r.pool.start();
    const f = failureOf(await r.pool.evaluate(evaluateParams()));
    expect(f).toEqual({ checker: 'erring', kind: 'error', message: 'erring answered with an error: cannot evaluate: rules database missing', optional: false });
    expect(r.events.filter((e) => e.type === 'checker.spawned')).toHaveLength(1);
    await closeWithoutLeaks(r);
  });

  it('a command that does not exist: not ready, with the reason', async () => {
    const r = hostilePool([fixtureSpec('missing', 'no-such-checker.sh')]);
    await r.pool.start();
    const f = failureOf(await r.pool.evaluate(evaluateParams()));
    expect(f.kind).toBe('not_ready');
    expect(f.message).toMatch(/^missing is not ready: could not be started: spawn .*no-such-checker\.sh ENOENT/);
    await r.pool.close();
  });

  it('close leaves nothing running: a backgrounded child, and a checker that ignores close and TERM', async () => {
    const r = hostilePool([fixtureSpec('bg', 'background-child.sh'), fixtureSpec('stubborn', 'ignore-close.mjs')], { closeGraceMs: 200 });
    await r.pool.start();
    expect(await r.pool.evaluate(evaluateParams())).toEqual({ decision: 'allow', failures: [] });
    expect(r.groups.size).toBe(2);
    // The background sleep lives in the checker's group, next to the shell.
    const [bgGroup] = r.pool.pids('bg');
    expect(liveMembers(bgGroup!).length).toBeGreaterThanOrEqual(2);
    await closeWithoutLeaks(r);
    const exits = r.events.filter((e) => e.type === 'checker.exited').map((e) => e.checker);
    // Reverse registration order.
    expect(exits).toEqual(['stubborn', 'bg']);
  });
});
