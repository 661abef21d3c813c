// The benchmark harness: statistics, baseline ratios, targets and the printed table.
import { describe, expect, it } from 'vitest';
import { COLUMNS, formatTable, median, p95, quantile, runBench, type BenchCase } from '../../bench/harness.js';

describe('bench harness', () => {
  it('computes median and the slow-side p95', () => {
    const s = [5, 1, 4, 2, 3];
    expect(median(s)).toBe(3);
    expect(quantile(s, 0)).toBe(1);
    expect(quantile(s, 1)).toBe(5);
    expect(quantile([1, 2], 0.5)).toBe(1.5);
    // For a rate the bad side is low; for a latency it is high.
    expect(p95(s, 'higher')).toBeCloseTo(1.2);
    expect(p95(s, 'lower')).toBeCloseTo(4.8);
  });

  it('interleaves rounds, compares with the baseline and judges targets', async () => {
    const order: string[] = [];
    const values: Record<string, number[]> = { fast: [200, 220, 210], slow: [100, 100, 100], lat: [3, 1, 2] };
    const mk = (name: string, extra: Partial<BenchCase> = {}): BenchCase => ({
      name,
      unit: name === 'lat' ? 'ms' : 'ops/s',
      better: name === 'lat' ? 'lower' : 'higher',
      run: () => {
        order.push(name);
        return values[name]!.shift()!;
      },
      ...extra,
    });
    const results = await runBench([mk('slow', { baseline: 'fast', target: { median: 50, ratio: 0.6 } }), mk('fast'), mk('lat', { target: { median: 2.5 } })], { rounds: 2, warmup: 1 });
    expect(order).toEqual(['slow', 'fast', 'lat', 'slow', 'fast', 'lat', 'slow', 'fast', 'lat']);
    const [slow, fast, lat] = results;
    expect(slow).toMatchObject({ median: 100, baselineMedian: 215, pass: false, target: '≥50, ratio ≥0.6' });
    expect(slow!.ratio).toBeCloseTo(100 / 215);
    expect(fast).toMatchObject({ samples: [220, 210], baselineMedian: null, ratio: null, pass: null });
    expect(lat).toMatchObject({ samples: [1, 2], median: 1.5, pass: true, target: '≤2.50' });

    const table = formatTable(results).split('\n');
    expect(table[0]!.split('|').map((c) => c.trim()).filter(Boolean)).toEqual([...COLUMNS]);
    expect(table).toHaveLength(2 + results.length);
    expect(table[2]).toMatch(/^\| slow .*\| NO +\|$/);
  });

  it('refuses a baseline that is not in the run', async () => {
    await expect(runBench([{ name: 'a', unit: 'x', better: 'higher', run: () => 1, baseline: 'missing' }], { rounds: 1, warmup: 0 })).rejects.toThrow(/baseline "missing"/);
  });
});
