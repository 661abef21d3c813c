// How late the host's event loop runs: every agent call, hook answer and console reply waits on
// it, so a blocked loop is latency for everyone. Measured with perf_hooks' monitorEventLoopDelay
// (a libuv timer sampling how late it fires), reported by health.list so an operator, `npm run
// soak` and a monitoring script read the same numbers without attaching a profiler.
//
// Why the resolution is taken off: the histogram holds the time between two runs of its timer,
// which is the timer's period plus how late it ran (an idle loop reads 10.3 ms at a 10 ms
// resolution). What the numbers promise is the lateness, so an idle loop reads 0, as
// fastify's under-pressure reports it too.
import { monitorEventLoopDelay, type IntervalHistogram, type RecordableHistogram } from 'node:perf_hooks';

/** The sampling timer's period: fine enough to see a stall an agent would notice, cheap enough to leave on. */
export const LOOP_RESOLUTION_MS = 10;

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

/** A histogram of the timer's periods, in ns (a RecordableHistogram in the tests, which record known periods). */
export type LoopHistogram = IntervalHistogram | RecordableHistogram;

/**
 * The lateness of a period of `ns`, in ms rounded to 0.01: the period less the resolution, and 0
 * for a timer that ran a little early. A percentile of the periods less a constant is the same
 * percentile of the lateness, so the histogram's own percentiles serve.
 */
const lateMs = (ns: number) => Math.round(Math.max(0, ns - LOOP_RESOLUTION_MS * 1e6) / 1e4) / 100;

export function loopDelayStats(h: LoopHistogram): LoopDelayStats {
  // An empty histogram reports NaN mean and a huge min: an idle loop is 0 late, not NaN.
  if (h.count === 0) return { p50Ms: 0, p99Ms: 0, maxMs: 0, meanMs: 0 };
  return { p50Ms: lateMs(h.percentile(50)), p99Ms: lateMs(h.percentile(99)), maxMs: lateMs(h.max), meanMs: lateMs(h.mean) };
}

export class EventLoopMonitor {
  private readonly lifetime: LoopHistogram;
  private readonly window: LoopHistogram;
  private last: (LoopDelayStats & { endedAt: number }) | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
    histogram: () => LoopHistogram = () => {
      const h = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
      h.enable();
      return h;
    },
  ) {
    this.lifetime = histogram();
    this.window = histogram();
    this.timer = setInterval(() => {
      this.last = { ...loopDelayStats(this.window), endedAt: this.now() };
      this.window.reset();
    }, windowMs);
    // Measuring must never keep a stopping host alive.
    this.timer.unref();
  }

  snapshot(): EventLoopSnapshot {
    return { sinceStart: loopDelayStats(this.lifetime), lastWindow: this.last, windowMs: this.windowMs };
  }

  close(): void {
    clearInterval(this.timer);
    for (const h of [this.lifetime, this.window]) if ('disable' in h) h.disable();
  }
}
