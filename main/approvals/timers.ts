// Time for the approvals service, injected so tests move it by hand instead of sleeping.
import type { Clock } from '../core/clock.js';

export { systemClock, type Clock } from '../core/clock.js';

/** setTimeout/clearTimeout as an object; the handle is whatever `setTimeout` returned. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    // A pending approval or a live grant must not keep a CLI process alive on its own.
    t.unref?.();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** Node clamps longer delays to 1 ms (and warns); a week-long grant is re-armed in steps instead. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Runs `fn` once, when `clock` reaches `at`. A timer that fires early (clamped delay, a clock
 * that disagrees with the timers) re-arms itself, so `fn` never runs before its time. Returns a
 * function that cancels it.
 */
export function runAt(clock: Clock, timers: Timers, at: number, fn: () => void): () => void {
  let handle: unknown;
  let cancelled = false;
  const arm = () => {
    const delay = Math.min(Math.max(0, at - clock.now()), MAX_DELAY_MS);
    handle = timers.setTimeout(() => {
      if (cancelled) return;
      if (clock.now() < at) arm();
      else fn();
    }, delay);
  };
  arm();
  return () => {
    cancelled = true;
    timers.clearTimeout(handle);
  };
}
