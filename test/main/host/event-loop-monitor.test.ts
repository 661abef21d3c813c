import { createHistogram } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { EventLoopMonitor, LOOP_RESOLUTION_MS, loopDelayStats } from '../../../main/host/event-loop-monitor.js';

const ns = (ms: number) => Math.round(ms * 1e6);

describe('EventLoopMonitor', () => {
  it('reports how late the timer ran, not its period: an on-time loop is 0 late', () => {
    const h = createHistogram();
    // 98 periods on time (one a little early), one 2 ms late, one blocked for 50 ms.
    for (let i = 0; i < 97; i++) h.record(ns(LOOP_RESOLUTION_MS + 0.2));
    h.record(ns(LOOP_RESOLUTION_MS - 0.5));
    h.record(ns(LOOP_RESOLUTION_MS + 2));
    h.record(ns(LOOP_RESOLUTION_MS + 50));
    const s = loopDelayStats(h);
    expect(s.p50Ms).toBeCloseTo(0.2, 1);
    expect(s.p99Ms).toBeCloseTo(2, 1);
    expect(s.maxMs).toBeCloseTo(50, 0);
    expect(s.meanMs).toBeGreaterThan(0.2);
    expect(s.meanMs).toBeLessThan(1);
  });

  it('reads 0, not NaN, before the timer has run', () => {
    expect(loopDelayStats(createHistogram())).toEqual({ p50Ms: 0, p99Ms: 0, maxMs: 0, meanMs: 0 });
  });

  it('reads its lifetime histogram the same way (no window has ended yet)', () => {
    const made: ReturnType<typeof createHistogram>[] = [];
    const monitor = new EventLoopMonitor(60_000, () => 1234, () => {
      const h = createHistogram();
      made.push(h);
      return h;
    });
    try {
      for (const h of made) h.record(ns(LOOP_RESOLUTION_MS + 30));
      const snap = monitor.snapshot();
      expect(snap.sinceStart.maxMs).toBeCloseTo(30, 0);
      expect(snap.lastWindow).toBeNull();
    } finally {
      monitor.close();
    }
  });
});
