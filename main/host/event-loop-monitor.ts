// How late the host's event loop runs: every agent call, hook answer and console reply waits on
// it, so a blocked loop is latency for everyone. Measured with perf_hooks' monitorEventLoopDelay
// (a libuv timer sampling how late it fires), reported by health.list so an operator, `npm run
// soak` and a monitoring script read the same numbers without attaching a profiler.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LoopDelayStats {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

export interface EventLoopSnapshot {
  /** Since the host started. */
  sinceStart: LoopDelayStats;
  /** The last full window (windowMs long) that ended; null until one has. */
  lastWindow: (LoopDelayStats & { endedAt: number }) | null;
  windowMs: number;
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

function stats(h: IntervalHistogram): LoopDelayStats {
  // An empty histogram reports NaN mean and a huge min: an idle loop is 0 late, not NaN.
  if (h.count === 0) return { p50Ms: 0, p99Ms: 0, maxMs: 0, meanMs: 0 };
  return { p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max), meanMs: ms(h.mean) };
}

export class EventLoopMonitor {
  private readonly lifetime: IntervalHistogram;
  private readonly window: IntervalHistogram;
  private last: (LoopDelayStats & { endedAt: number }) | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    // 10 ms resolution: fine enough to see a stall an agent would notice, cheap enough to leave on.
    this.lifetime = monitorEventLoopDelay({ resolution: 10 });
    this.window = monitorEventLoopDelay({ resolution: 10 });
    this.lifetime.enable();
    this.window.enable();
    this.timer = setInterval(() => {
      this.last = { ...stats(this.window), endedAt: this.now() };
      this.window.reset();
    }, windowMs);
    // Measuring must never keep a stopping host alive.
    this.timer.unref();
  }

  snapshot(): EventLoopSnapshot {
    return { sinceStart: stats(this.lifetime), lastWindow: this.last, windowMs: this.windowMs };
  }

  close(): void {
    clearInterval(this.timer);
    this.lifetime.disable();
    this.window.disable();
  }
}
