// Per-plugin counters and latency percentiles for the Health view. record() runs on every call
// of every plugin, so it only bumps counters and writes into a fixed ring; the sorting happens in
// snapshot(), which the view asks for a few times a second at most.

import type { HealthHistory } from './health-history.js';

export type Outcome = 'success' | 'timeout' | 'crash' | 'bad_output' | 'limit' | 'spawn' | 'blocked' | 'error';

export interface MetricsSnapshot {
  calls: number;
  successes: number;
  failures: { timeout: number; crash: number; bad_output: number; limit: number; spawn: number; error: number };
  /** Calls a checker blocked (not failures: the checker did its job). */
  blocks: number;
  /** Latency percentiles (ms) over the sliding window; 0 when the window is empty. */
  p50: number;
  p95: number;
  p99: number;
  /** The latest latencies (ms), oldest first, at most RECENT_MAX: the sparkline. */
  recent: number[];
  /** wasm plugins: fuel of the latest call, its limit, and the mean over every call counted. */
  fuel?: { last: number; limit: number; mean: number };
}

export interface PluginMetricsOptions {
  /** How many latencies the window keeps per plugin. Default 512. */
  window?: number;
  /** Latencies older than this (ms) leave the window as well. Default: no age limit. */
  windowMs?: number;
  /** Clock for windowMs (ms). Default performance.now. */
  now?: () => number;
  /** Also counts every call here, a minute at a time (the Health view's last hour). */
  history?: Pick<HealthHistory, 'record' | 'forget'>;
}

export const RECENT_MAX = 60;
export const DEFAULT_WINDOW = 512;

/**
 * Outcomes whose latency is not a time the plugin took to answer: a start that failed, and
 * 'error', which also stands for calls refused without running (breaker open). They are counted,
 * but kept out of the percentiles so that zeros do not drag p50 down.
 */
const UNTIMED: ReadonlySet<Outcome> = new Set<Outcome>(['spawn', 'error']);

class Series {
  calls = 0;
  successes = 0;
  blocks = 0;
  readonly failures = { timeout: 0, crash: 0, bad_output: 0, limit: 0, spawn: 0, error: 0 };
  readonly latencies: Float64Array;
  readonly times: Float64Array;
  /** Next write position in the ring, and how many slots hold a sample. */
  head = 0;
  size = 0;
  fuel: { last: number; limit: number; total: number; count: number } | null = null;

  constructor(window: number) {
    this.latencies = new Float64Array(window);
    this.times = new Float64Array(window);
  }
}

export class PluginMetrics {
  private readonly window: number;
  private readonly windowMs: number | null;
  private readonly now: () => number;
  private readonly series = new Map<string, Series>();
  private readonly history: PluginMetricsOptions['history'] | null;

  constructor(opts: PluginMetricsOptions = {}) {
    this.history = opts.history ?? null;
    this.window = opts.window ?? DEFAULT_WINDOW;
    if (!Number.isInteger(this.window) || this.window < 1) throw new RangeError(`PluginMetrics: window must be a whole number ≥ 1, not ${this.window}`);
    this.windowMs = opts.windowMs ?? null;
    this.now = opts.now ?? (() => performance.now());
  }

  /** Counts a call; a latency that is not a number ≥ 0 (NaN: the plugin never got the call) stays out of the window. */
  record(plugin: string, outcome: Outcome, latencyMs: number): void {
    let s = this.series.get(plugin);
    if (s === undefined) {
      s = new Series(this.window);
      this.series.set(plugin, s);
    }
    this.history?.record(plugin, outcome, latencyMs);
    s.calls++;
    if (outcome === 'success') s.successes++;
    else if (outcome === 'blocked') s.blocks++;
    else s.failures[outcome]++;
    if (UNTIMED.has(outcome) || !(latencyMs >= 0)) return;
    s.latencies[s.head] = latencyMs;
    s.times[s.head] = this.windowMs === null ? 0 : this.now();
    s.head = (s.head + 1) % this.window;
    if (s.size < this.window) s.size++;
  }

  snapshot(plugin: string): MetricsSnapshot {
    const s = this.series.get(plugin);
    if (!s) return { calls: 0, successes: 0, failures: { timeout: 0, crash: 0, bad_output: 0, limit: 0, spawn: 0, error: 0 }, blocks: 0, p50: 0, p95: 0, p99: 0, recent: [] };
    // The window in chronological order, without samples that aged out.
    const cutoff = this.windowMs === null ? -Infinity : this.now() - this.windowMs;
    const inOrder: number[] = [];
    for (let i = 0; i < s.size; i++) {
      const at = (s.head - s.size + i + this.window) % this.window;
      if (this.windowMs !== null && s.times[at]! < cutoff) continue;
      inOrder.push(s.latencies[at]!);
    }
    const sorted = Float64Array.from(inOrder).sort();
    return {
      calls: s.calls,
      successes: s.successes,
      failures: { ...s.failures },
      blocks: s.blocks,
      p50: percentile(sorted, 0.5),
      p95: percentile(sorted, 0.95),
      p99: percentile(sorted, 0.99),
      recent: inOrder.slice(-RECENT_MAX),
      ...(s.fuel ? { fuel: { last: s.fuel.last, limit: s.fuel.limit, mean: s.fuel.total / s.fuel.count } } : {}),
    };
  }

  all(): Record<string, MetricsSnapshot> {
    const out: Record<string, MetricsSnapshot> = {};
    for (const name of [...this.series.keys()].sort()) out[name] = this.snapshot(name);
    return out;
  }

  /** The fuel a wasm plugin's call burnt (after record()). */
  recordFuel(plugin: string, used: number, limit: number): void {
    const s = this.series.get(plugin);
    if (!s) return;
    s.fuel = { last: used, limit, total: (s.fuel?.total ?? 0) + used, count: (s.fuel?.count ?? 0) + 1 };
  }

  /** Forget a plugin (removed from the registry). */
  forget(plugin: string): void {
    this.series.delete(plugin);
    this.history?.forget(plugin);
  }
}

/** Nearest-rank percentile of sorted samples: the smallest sample with at least q of them at or below it. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}
