// Time for the approvals service, injected so tests move it by hand instead of sleeping.
import type { Clock, Timers } from '../core/clock.js';

export { realTimers, systemClock, type Clock, type Timers } from '../core/clock.js';

/** Node clamps longer delays to 1 ms (and warns); a week-long grant is re-armed in steps instead. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Runs `fn` once, when `clock` reaches `at`, or once as much time has passed as `at` was away when
 * armed, whichever comes first: an approval's or a grant's time is a duration the operator chose,
 * and a wall clock set back an hour kept a fifteen-minute grant live for an hour and a quarter
 * (the timer re-armed itself to the moved deadline). A timer that fires early (clamped delay, a
 * clock that disagrees with the timers) re-arms itself, so `fn` never runs before its time.
 * Returns a function that cancels it.
 */
export function runAt(clock: Clock, timers: Timers, at: number, fn: () => void): () => void {
  let handle: unknown;
  let cancelled = false;
  const span = at - clock.now();
  const started = clock.monotonic?.();
  const left = () => {
    const byWall = at - clock.now();
    return started === undefined ? byWall : Math.min(byWall, span - (clock.monotonic!() - started));
  };
  const arm = () => {
    const delay = Math.min(Math.max(0, left()), MAX_DELAY_MS);
    handle = timers.setTimeout(() => {
      if (cancelled) return;
      if (left() > 0) arm();
      else fn();
    }, delay);
  };
  arm();
  return () => {
    cancelled = true;
    timers.clearTimeout(handle);
  };
}
