// A clock and timers that move only when told, for tests of expiry without sleeping:
// due timers fire in order, each at its own time.
import type { Timers } from '../../main/core/clock.js';

export class FakeTime implements Timers {
  private t = 1_700_000_000_000;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  /** How far the wall clock was set away from the time that passed (setWall). */
  private wallOffset = 0;
  now = () => this.t + this.wallOffset;
  /** The time that passed: timers run on it, whatever the wall clock says. */
  monotonic = () => this.t;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  get armed(): number {
    return this.pending.size;
  }
  advance(ms: number): void {
    const target = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.pending) if (e[1].at <= target && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.pending.delete(next[0]);
      // A timer that is overdue (after jump) runs late, at the present time: time never goes back.
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
    }
    this.t = target;
  }
  /** Sets the wall clock forward (or back, with a negative ms) without time passing: NTP, an operator. */
  setWall(ms: number): void {
    this.wallOffset += ms;
  }
  /** Moves the clock without firing timers: a late timer, a busy event loop. */
  jump(ms: number): void {
    this.t += ms;
  }
}
