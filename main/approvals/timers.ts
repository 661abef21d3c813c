// Time for the approvals service, injected so tests move it by hand instead of sleeping.
import type { Clock, Timers } from '../core/clock.js';

export { realTimers, systemClock, type Clock, type Timers } from '../core/clock.js';

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
