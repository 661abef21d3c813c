// The one clock type and the one timers type: services take them as dependencies so tests move
// time by hand instead of sleeping. Milliseconds since the epoch, like Date.now().
export interface Clock {
  now(): number;
  /**
   * Milliseconds on a clock that only moves forward at the rate time passes (performance.now()):
   * what a duration is measured on. The wall clock can be set back (NTP, an operator, a resumed
   * VM), and a deadline read on it alone then moves away. Optional: a clock without it measures
   * durations on now().
   */
  monotonic?(): number;
}

export const systemClock: Clock = { now: () => Date.now(), monotonic: () => performance.now() };

/** setTimeout/clearTimeout as an object; the handle is whatever `setTimeout` returned. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    // A pending approval, a live grant or a scheduled refresh must not keep a CLI process alive on its own.
    t.unref?.();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};
