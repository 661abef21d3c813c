// The circuit breaker baseline of docs/protocols.md §2, walked through with a fake clock: hours of
// cooldowns in microseconds.
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerSnapshot } from '../../../main/runner/circuit-breaker.js';

const MIN = 60_000;

function setup(opts: Partial<ConstructorParameters<typeof CircuitBreaker>[0]> = {}) {
  const clock = { t: 0, now() { return this.t; } };
  const changes: { next: BreakerSnapshot; prev: BreakerSnapshot }[] = [];
  const b = new CircuitBreaker({ clock, onChange: (next, prev) => changes.push({ next, prev }), ...opts });
  const fail = (n = 1) => {
    for (let i = 0; i < n; i++) {
      const t = b.acquire();
      if (!t.ok) throw new Error(`acquire refused: ${t.reason}`);
      b.failure(`failure at ${clock.t}`, t.probe);
    }
  };
  /** Lets the cooldown pass and sends the probe, which fails. */
  const failProbe = () => {
    clock.t = b.snapshot().nextProbeAt!;
    const t = b.acquire();
    expect(t).toEqual({ ok: true, probe: true });
    b.failure('probe failed', true);
  };
  return { clock, b, changes, fail, failProbe, states: () => changes.map((c) => c.next.state) };
}

describe('circuit breaker', () => {
  it('three consecutive failures open it; two do not', () => {
    const { b, fail, clock } = setup();
    clock.t = 1000;
    fail(2);
    expect(b.snapshot()).toEqual({ state: 'closed', consecutiveFailures: 2, cycle: 0, openedAt: null, nextProbeAt: null, lastFailure: 'failure at 1000' });
    expect(b.acquire()).toEqual({ ok: true, probe: false });
    fail(1);
    expect(b.snapshot()).toEqual({ state: 'open', consecutiveFailures: 3, cycle: 1, openedAt: 1000, nextProbeAt: 1000 + 5 * MIN, lastFailure: 'failure at 1000' });
    const refused = b.acquire();
    expect(refused).toMatchObject({ ok: false, retryAt: 1000 + 5 * MIN });
    expect((refused as { reason: string }).reason).toBe('open after 3 failures (last: failure at 1000); it closes at 00:05 UTC if a trial call then succeeds, or when an operator resets it (Health view)');
  });

  it('a success clears the count: failures must be consecutive', () => {
    const { b, fail } = setup();
    fail(2);
    b.success(false);
    fail(2);
    expect(b.snapshot()).toMatchObject({ state: 'closed', consecutiveFailures: 2 });
  });

  it('after the 5 min cooldown it is half-open (reported lazily, no timers), one probe at a time, and a probe success closes it', () => {
    const { b, fail, clock } = setup();
    fail(3);
    clock.t = 5 * MIN - 1;
    expect(b.snapshot().state).toBe('open');
    expect(b.acquire().ok).toBe(false);
    clock.t = 5 * MIN;
    expect(b.snapshot().state).toBe('half_open');
    expect(b.acquire()).toEqual({ ok: true, probe: true });
    const second = b.acquire();
    expect(second).toMatchObject({ ok: false, retryAt: null });
    expect((second as { reason: string }).reason).toContain('a probe call is deciding');
    b.success(true);
    expect(b.snapshot()).toMatchObject({ state: 'closed', consecutiveFailures: 0, openedAt: null, nextProbeAt: null });
    expect(b.acquire()).toEqual({ ok: true, probe: false });
  });

  it('the first call after the cooldown becomes the probe even if nobody looked at the state', () => {
    const { b, fail, clock } = setup();
    fail(3);
    clock.t = 6 * MIN;
    expect(b.acquire()).toEqual({ ok: true, probe: true });
    expect(b.acquire().ok).toBe(false);
  });

  it('a failed probe re-opens with 10 min, then 20, 40, capped at 1 h; after 5 cycles it stays open until reset', () => {
    const { b, fail, failProbe, clock } = setup();
    fail(3);
    const cooldowns: number[] = [b.snapshot().nextProbeAt! - b.snapshot().openedAt!];
    for (let cycle = 2; cycle <= 5; cycle++) {
      failProbe();
      const s = b.snapshot();
      expect(s).toMatchObject({ state: 'open', cycle });
      cooldowns.push(s.nextProbeAt! - s.openedAt!);
    }
    expect(cooldowns).toEqual([5 * MIN, 10 * MIN, 20 * MIN, 40 * MIN, 60 * MIN]);
    failProbe();
    expect(b.snapshot()).toMatchObject({ state: 'disabled', cycle: 5, nextProbeAt: null, lastFailure: 'probe failed' });
    clock.t += 24 * 60 * MIN;
    expect(b.snapshot().state).toBe('disabled');
    const refused = b.acquire();
    expect(refused).toMatchObject({ ok: false, retryAt: null });
    expect((refused as { reason: string }).reason).toMatch(/until an operator resets it/);
    b.reset();
    expect(b.snapshot()).toEqual({ state: 'closed', consecutiveFailures: 0, cycle: 0, openedAt: null, nextProbeAt: null, lastFailure: null });
    expect(b.acquire()).toEqual({ ok: true, probe: false });
  });

  it('the cap holds for long cycle counts', () => {
    const { b } = setup({ maxCycles: 50 });
    expect(b.cooldownFor(1)).toBe(5 * MIN);
    expect(b.cooldownFor(4)).toBe(40 * MIN);
    expect(b.cooldownFor(5)).toBe(60 * MIN);
    expect(b.cooldownFor(40)).toBe(60 * MIN);
  });

  it('calls admitted before it opened do not move it: only the probe decides', () => {
    const { b, fail, clock } = setup();
    const straggler = b.acquire();
    expect(straggler).toEqual({ ok: true, probe: false });
    fail(3);
    b.success(false); // the straggler answers after the breaker opened
    expect(b.snapshot().state).toBe('open');
    clock.t = 5 * MIN;
    const probe = b.acquire();
    b.failure('late straggler', false);
    expect(b.snapshot().state).toBe('half_open');
    b.success(false);
    expect(b.snapshot().state).toBe('half_open');
    b.success((probe as { probe: boolean }).probe);
    expect(b.snapshot().state).toBe('closed');
  });

  it('calls onChange on every transition, with the previous snapshot', () => {
    const { b, fail, failProbe, clock, changes, states } = setup();
    fail(3); // closed 1, closed 2, open
    clock.t = 5 * MIN;
    b.snapshot(); // half-open, noticed lazily
    b.acquire(); // the probe: no change
    b.failure('probe failed', true); // open again
    clock.t += 10 * MIN;
    const t = b.acquire(); // half-open
    b.success((t as { probe: boolean }).probe); // closed
    fail(3); // cycle 3 (the cycle survives the recovery)
    for (let i = 0; i < 3; i++) failProbe(); // half-open/open (cycles 4, 5), then half-open/disabled
    b.reset();
    expect(states()).toEqual(['closed', 'closed', 'open', 'half_open', 'open', 'half_open', 'closed', 'closed', 'closed', 'open', 'half_open', 'open', 'half_open', 'open', 'half_open', 'disabled', 'closed']);
    for (let i = 1; i < changes.length; i++) expect(changes[i]!.prev).toEqual(changes[i - 1]!.next);
    expect(changes[2]!.prev).toMatchObject({ state: 'closed', consecutiveFailures: 2 });
    // Nothing changed, nothing reported.
    const n = changes.length;
    b.success(false);
    b.reset();
    expect(changes.length).toBe(n);
  });

  it('keeps the cycle after recovering, so a relapse backs off longer, until it has been stable for the max cooldown', () => {
    const { b, fail, clock } = setup();
    fail(3);
    clock.t = 5 * MIN;
    b.success((b.acquire() as { probe: boolean }).probe);
    expect(b.snapshot()).toMatchObject({ state: 'closed', cycle: 1 });
    fail(3);
    expect(b.snapshot().nextProbeAt! - clock.t).toBe(10 * MIN);
    clock.t += 10 * MIN;
    b.success((b.acquire() as { probe: boolean }).probe);
    clock.t += 59 * MIN;
    b.success(false);
    expect(b.snapshot().cycle).toBe(2);
    clock.t += 1 * MIN;
    b.success(false);
    expect(b.snapshot().cycle).toBe(0);
    fail(3);
    expect(b.snapshot()).toMatchObject({ cycle: 1, nextProbeAt: clock.t + 5 * MIN });
  });

  it('takes other thresholds and cooldowns, and refuses nonsense', () => {
    const { b, fail } = setup({ threshold: 1, baseCooldownMs: 1000, maxCooldownMs: 3000, maxCycles: 2 });
    fail(1);
    expect(b.snapshot()).toMatchObject({ state: 'open', nextProbeAt: 1000 });
    expect(b.cooldownFor(3)).toBe(3000);
    expect(() => new CircuitBreaker({ clock: { now: () => 0 }, threshold: 0 })).toThrow('threshold must be a positive number');
  });
});
