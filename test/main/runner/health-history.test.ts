// The Health view's last hour: per plugin, a bucket a minute of calls, failures, latency and the
// worst breaker state, fed by the same record() as the metrics and by breaker transitions.
import { describe, expect, it } from 'vitest';
import { HealthHistory, MINUTE_MS } from '../../../main/runner/health-history.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';

/** A clock the test moves by hand, starting on a minute boundary. */
function clock(start = 1_000 * MINUTE_MS) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('health history', () => {
  it('counts calls, failures and latency into the current minute, with empty minutes in between', () => {
    const c = clock();
    const h = new HealthHistory({ now: c.now, minutes: 5 });
    const m = new PluginMetrics({ history: h });
    m.record('p', 'success', 10);
    m.record('p', 'success', 30);
    m.record('p', 'blocked', 5);
    m.record('p', 'timeout', 50);
    c.advance(2 * MINUTE_MS);
    m.record('p', 'error', 0);
    const hour = h.hour('p');
    expect(hour).toHaveLength(5);
    expect(hour.map((b) => b.calls)).toEqual([0, 0, 4, 0, 1]);
    expect(hour.map((b) => b.errors)).toEqual([0, 0, 1, 0, 1]);
    expect(hour[2]).toMatchObject({ meanMs: (10 + 30 + 5 + 50) / 4, maxMs: 50, breaker: 'closed' });
    // A refusal by the breaker is a failure without a latency of the plugin's own.
    expect(hour[4]).toMatchObject({ meanMs: null, maxMs: null });
    expect(hour[4]!.at - hour[0]!.at).toBe(4 * MINUTE_MS);
  });

  it('minutes older than the window leave it, and a reused slot starts from zero', () => {
    const c = clock();
    const h = new HealthHistory({ now: c.now, minutes: 3 });
    h.record('p', 'success', 1);
    c.advance(3 * MINUTE_MS);
    h.record('p', 'success', 2);
    expect(h.hour('p').map((b) => b.calls)).toEqual([0, 0, 1]);
    expect(h.hour('p')[2]).toMatchObject({ meanMs: 2, maxMs: 2 });
  });

  it('shows the worst breaker state of each minute, and carries a state across quiet minutes', () => {
    const c = clock();
    const h = new HealthHistory({ now: c.now, minutes: 6 });
    c.advance(MINUTE_MS + 1_000);
    h.breaker('p', 'open');
    c.advance(2 * MINUTE_MS);
    h.breaker('p', 'half_open');
    c.advance(1_000);
    h.breaker('p', 'closed');
    c.advance(2 * MINUTE_MS);
    // minute 0: before; 1: opened; 2: open all minute; 3: half-open then closed, but was open at its start; 4, 5: closed
    expect(h.hour('p').map((b) => b.breaker)).toEqual(['closed', 'open', 'open', 'open', 'closed', 'closed']);
    // A breaker opened long before the window is still open in every minute of it.
    h.breaker('q', 'open');
    c.advance(20 * MINUTE_MS);
    expect(h.hour('q').map((b) => b.breaker)).toEqual(['open', 'open', 'open', 'open', 'open', 'open']);
    // The state now is at least as bad as the last minute says.
    expect(h.hour('r', 'disabled').at(-1)!.breaker).toBe('disabled');
  });

  it('forgets a plugin removed from the registry with its metrics', () => {
    const c = clock();
    const h = new HealthHistory({ now: c.now, minutes: 2 });
    const m = new PluginMetrics({ history: h });
    m.record('p', 'success', 1);
    m.forget('p');
    expect(h.hour('p').map((b) => b.calls)).toEqual([0, 0]);
  });
});
