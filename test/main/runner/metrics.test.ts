// Per-plugin metrics: counters by outcome and latency percentiles over a sliding window.
import { describe, expect, it } from 'vitest';
import { PluginMetrics, RECENT_MAX, percentile } from '../../../main/runner/metrics.js';

describe('plugin metrics', () => {
  it('counts calls, successes, blocks and failures by kind', () => {
    const m = new PluginMetrics();
    m.record('p', 'success', 1);
    m.record('p', 'success', 2);
    m.record('p', 'blocked', 3);
    for (const o of ['timeout', 'crash', 'bad_output', 'bad_output', 'limit', 'spawn', 'error'] as const) m.record('p', o, 4);
    expect(m.snapshot('p')).toMatchObject({ calls: 10, successes: 2, blocks: 1, failures: { timeout: 1, crash: 1, bad_output: 2, limit: 1, spawn: 1, error: 1 } });
  });

  it('an unknown plugin has empty metrics', () => {
    expect(new PluginMetrics().snapshot('nobody')).toEqual({ calls: 0, successes: 0, failures: { timeout: 0, crash: 0, bad_output: 0, limit: 0, spawn: 0, error: 0 }, blocks: 0, p50: 0, p95: 0, p99: 0, recent: [] });
  });

  it('percentiles are nearest-rank over the window', () => {
    const m = new PluginMetrics();
    // 1..100 in a shuffled order.
    const values = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
    for (const v of values) m.record('p', 'success', v);
    expect(m.snapshot('p')).toMatchObject({ p50: 50, p95: 95, p99: 99 });
    expect(percentile([], 0.5)).toBe(0);
    expect(percentile([7], 0.99)).toBe(7);
  });

  it('the window slides: only the latest `window` latencies count', () => {
    const m = new PluginMetrics({ window: 10 });
    for (let i = 0; i < 10; i++) m.record('p', 'success', 1000);
    for (let i = 1; i <= 10; i++) m.record('p', 'success', i);
    const s = m.snapshot('p');
    expect(s.calls).toBe(20);
    expect(s).toMatchObject({ p50: 5, p95: 10, p99: 10 });
    expect(s.recent).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('with windowMs, old latencies leave the window (clock injected)', () => {
    let now = 0;
    const m = new PluginMetrics({ windowMs: 1000, now: () => now });
    m.record('p', 'success', 500);
    now = 600;
    m.record('p', 'success', 10);
    expect(m.snapshot('p').p99).toBe(500);
    now = 1200;
    expect(m.snapshot('p')).toMatchObject({ p50: 10, p99: 10, recent: [10], calls: 2 });
  });

  it('recent keeps the latest latencies for the sparkline, oldest first, at most 60', () => {
    const m = new PluginMetrics();
    for (let i = 0; i < 100; i++) m.record('p', 'success', i);
    const { recent } = m.snapshot('p');
    expect(recent).toHaveLength(RECENT_MAX);
    expect(recent[0]).toBe(40);
    expect(recent.at(-1)).toBe(99);
  });

  it('refusals and failed starts are counted but stay out of the percentiles', () => {
    const m = new PluginMetrics();
    m.record('p', 'success', 100);
    m.record('p', 'error', 0);
    m.record('p', 'spawn', 0);
    m.record('p', 'limit', Number.NaN);
    expect(m.snapshot('p')).toMatchObject({ calls: 4, p50: 100, recent: [100] });
  });

  it('all() lists every plugin by name', () => {
    const m = new PluginMetrics();
    m.record('b', 'success', 1);
    m.record('a', 'blocked', 2);
    expect(Object.keys(m.all())).toEqual(['a', 'b']);
    expect(m.all().a!.blocks).toBe(1);
    m.forget('a');
    expect(Object.keys(m.all())).toEqual(['b']);
  });

  it('refuses a window that is not a whole number ≥ 1', () => {
    expect(() => new PluginMetrics({ window: 0 })).toThrow('window must be a whole number');
  });
});
