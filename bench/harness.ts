// A small benchmark harness: every case runs for the same number of rounds, interleaved
// round by round so that a machine getting slower or faster mid-run affects a case and its
// baseline alike, and the ratio between them stays meaningful. To add a benchmark, append a
// BenchCase to the list in bench/run.ts.

export interface BenchCase {
  /** Shown in the table; a baseline is referred to by this name. */
  name: string;
  /** Unit of the value `run` returns, e.g. 'events/s' or 'ms'. */
  unit: string;
  /** Whether a larger value is better (a rate) or a smaller one (a latency). */
  better: 'higher' | 'lower';
  /** Runs one round and returns its value in `unit`. Setup outside the timed part is its own business. */
  run(): Promise<number> | number;
  /** Name of another case in the same run this one is compared with (ratio = median / baseline median). */
  baseline?: string;
  /** Thresholds the case must meet, in the direction of `better`. */
  target?: { median?: number; ratio?: number };
}

export interface BenchOptions {
  rounds: number;
  /** Rounds run first and thrown away (JIT warm-up, page cache). */
  warmup: number;
  /** Called between rounds; the runner passes global.gc when node runs with --expose-gc. */
  betweenRounds?: () => void;
  onProgress?: (msg: string) => void;
}

export interface BenchResult {
  name: string;
  unit: string;
  better: 'higher' | 'lower';
  samples: number[];
  median: number;
  /** The 95th-percentile round on the slow side: for a rate, the value 95% of rounds beat. */
  p95: number;
  baselineMedian: number | null;
  ratio: number | null;
  target: string;
  pass: boolean | null;
}

/** Linear-interpolated quantile of unsorted samples, q in [0, 1]. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new Error('no samples');
  const s = [...samples].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export function median(samples: readonly number[]): number {
  return quantile(samples, 0.5);
}

/** p95 toward the worse side: the 5th percentile of a rate, the 95th of a latency. */
/** The median time of `calls` sequential calls of `fn`, in ms: one round of a per-call case. */
export async function medianOfCalls(calls: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

export function p95(samples: readonly number[], better: 'higher' | 'lower'): number {
  return quantile(samples, better === 'higher' ? 0.05 : 0.95);
}

export async function runBench(cases: readonly BenchCase[], opts: BenchOptions): Promise<BenchResult[]> {
  const byName = new Map(cases.map((c) => [c.name, c]));
  for (const c of cases) {
    if (c.baseline !== undefined && !byName.has(c.baseline)) throw new Error(`case "${c.name}" names baseline "${c.baseline}", which is not in the run`);
  }
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < opts.warmup + opts.rounds; round++) {
    const warm = round < opts.warmup;
    for (const c of cases) {
      opts.betweenRounds?.();
      const value = await c.run();
      if (!Number.isFinite(value)) throw new Error(`case "${c.name}" returned ${value}`);
      if (!warm) samples.get(c.name)!.push(value);
      opts.onProgress?.(`${warm ? 'warm-up' : `round ${round - opts.warmup + 1}/${opts.rounds}`}: ${c.name} ${formatNumber(value)} ${c.unit}`);
    }
  }
  const medians = new Map(cases.map((c) => [c.name, median(samples.get(c.name)!)]));
  return cases.map((c) => {
    const s = samples.get(c.name)!;
    const m = medians.get(c.name)!;
    const baselineMedian = c.baseline !== undefined ? medians.get(c.baseline)! : null;
    const ratio = baselineMedian !== null && baselineMedian !== 0 ? m / baselineMedian : null;
    const { text, pass } = judge(c, m, ratio);
    return { name: c.name, unit: c.unit, better: c.better, samples: s, median: m, p95: p95(s, c.better), baselineMedian, ratio, target: text, pass };
  });
}

function judge(c: BenchCase, m: number, ratio: number | null): { text: string; pass: boolean | null } {
  if (!c.target) return { text: '', pass: null };
  const op = c.better === 'higher' ? '≥' : '≤';
  const meets = (value: number, goal: number) => (c.better === 'higher' ? value >= goal : value <= goal);
  const parts: string[] = [];
  let pass = true;
  if (c.target.median !== undefined) {
    parts.push(`${op}${formatNumber(c.target.median)}`);
    pass &&= meets(m, c.target.median);
  }
  if (c.target.ratio !== undefined) {
    parts.push(`ratio ${op}${c.target.ratio}`);
    pass &&= ratio !== null && meets(ratio, c.target.ratio);
  }
  return { text: parts.join(', '), pass };
}

export function formatNumber(n: number): string {
  if (Number.isInteger(n) || Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toPrecision(3);
}

export const COLUMNS = ['case', 'unit', 'median', 'p95', 'baseline median', 'ratio', 'target', 'pass'] as const;

export function formatTable(results: readonly BenchResult[]): string {
  const rows = results.map((r) => [
    r.name,
    r.unit,
    formatNumber(r.median),
    formatNumber(r.p95),
    r.baselineMedian === null ? '—' : formatNumber(r.baselineMedian),
    r.ratio === null ? '—' : r.ratio.toFixed(2),
    r.target || '—',
    r.pass === null ? '—' : r.pass ? 'yes' : 'NO',
  ]);
  const all = [[...COLUMNS], ...rows];
  const widths = COLUMNS.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  // Text columns left, numbers right.
  const right = new Set([2, 3, 4, 5]);
  const line = (row: string[]) => `| ${row.map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right.has(i) ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(all[0]!), rule, ...rows.map(line)].join('\n');
}
