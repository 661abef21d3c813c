// The last hour of every plugin, a minute at a time: calls, failed calls, latency and the worst
// breaker state of each minute, for the Health view's history charts. In memory only (a restart
// starts a new hour): record() runs on every call, so it bumps one bucket of a fixed ring, and
// the hour is laid out only when a console asks (health.list).
import type { BreakerSnapshot } from './circuit-breaker.js';
import type { Outcome } from './metrics.js';

export type BreakerState = BreakerSnapshot['state'];

export interface MinuteBucket {
  /** Start of the minute, host clock (ms since the epoch). */
  at: number;
  calls: number;
  /** Calls that failed, refusals by an open breaker included (a checker's block is not a failure). */
  errors: number;
  /** Mean and slowest latency of the minute's timed calls; null when none was timed. */
  meanMs: number | null;
  maxMs: number | null;
  /** The worst state the breaker was in at any moment of the minute. */
  breaker: BreakerState;
}

export interface HealthHistoryOptions {
  /** Wall clock in ms (the host's Clock), so buckets line up with the times the console shows. */
  now: () => number;
  /** How many minutes are kept. Default 60. */
  minutes?: number;
}

export const MINUTE_MS = 60_000;
export const HISTORY_MINUTES = 60;

/** Worse breaker states rank higher: a minute that was open for a second shows as open. */
const RANK: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2, disabled: 3 };

/** Outcomes that are the plugin doing its job. */
const OK: ReadonlySet<Outcome> = new Set<Outcome>(['success', 'blocked']);
/** Outcomes without a latency of the plugin's own (it never ran), as in PluginMetrics. */
const UNTIMED: ReadonlySet<Outcome> = new Set<Outcome>(['spawn', 'error']);

interface Slot {
  minute: number;
  calls: number;
  errors: number;
  timed: number;
  totalMs: number;
  maxMs: number;
}

interface Series {
  slots: (Slot | undefined)[];
  /** Breaker transitions, oldest first: the last one before the window and every one inside it. */
  transitions: { at: number; state: BreakerState }[];
}

export class HealthHistory {
  private readonly now: () => number;
  private readonly minutes: number;
  private readonly series = new Map<string, Series>();

  constructor(opts: HealthHistoryOptions) {
    this.now = opts.now;
    this.minutes = opts.minutes ?? HISTORY_MINUTES;
    if (!Number.isInteger(this.minutes) || this.minutes < 1) throw new RangeError(`HealthHistory: minutes must be a whole number ≥ 1, not ${this.minutes}`);
  }

  /** Counts one call of `plugin` in the current minute. */
  record(plugin: string, outcome: Outcome, latencyMs: number): void {
    const minute = Math.floor(this.now() / MINUTE_MS);
    const s = this.of(plugin);
    const i = minute % this.minutes;
    let slot = s.slots[i];
    if (slot === undefined || slot.minute !== minute) {
      slot = { minute, calls: 0, errors: 0, timed: 0, totalMs: 0, maxMs: 0 };
      s.slots[i] = slot;
    }
    slot.calls++;
    if (!OK.has(outcome)) slot.errors++;
    if (UNTIMED.has(outcome) || !(latencyMs >= 0)) return;
    slot.timed++;
    slot.totalMs += latencyMs;
    slot.maxMs = Math.max(slot.maxMs, latencyMs);
  }

  /** The breaker of `plugin` changed state now. */
  breaker(plugin: string, state: BreakerState): void {
    const s = this.of(plugin);
    const at = this.now();
    s.transitions.push({ at, state });
    // Keep the last transition before the window: it is the state the window starts in.
    const start = this.windowStart(Math.floor(at / MINUTE_MS));
    while (s.transitions.length > 1 && s.transitions[1]!.at < start) s.transitions.shift();
  }

  /**
   * The last `minutes` minutes of `plugin`, oldest first, the current minute last; minutes
   * without calls are there with zeros, so a chart's x axis is time. `current` is the breaker's
   * state now (the last minute is at least that bad even if no transition was seen).
   */
  hour(plugin: string, current?: BreakerState): MinuteBucket[] {
    const nowMinute = Math.floor(this.now() / MINUTE_MS);
    const s = this.series.get(plugin);
    const out: MinuteBucket[] = [];
    let t = 0;
    let state: BreakerState = 'closed';
    const transitions = s?.transitions ?? [];
    for (let minute = nowMinute - this.minutes + 1; minute <= nowMinute; minute++) {
      const start = minute * MINUTE_MS;
      const end = start + MINUTE_MS;
      // The state the minute starts in, then every state it passes through.
      while (t < transitions.length && transitions[t]!.at < start) state = transitions[t++]!.state;
      let worst = state;
      while (t < transitions.length && transitions[t]!.at < end) {
        state = transitions[t++]!.state;
        if (RANK[state] > RANK[worst]) worst = state;
      }
      if (minute === nowMinute && current !== undefined && RANK[current] > RANK[worst]) worst = current;
      const slot = s?.slots[((minute % this.minutes) + this.minutes) % this.minutes];
      const live = slot !== undefined && slot.minute === minute ? slot : null;
      out.push({
        at: start,
        calls: live?.calls ?? 0,
        errors: live?.errors ?? 0,
        meanMs: live && live.timed > 0 ? live.totalMs / live.timed : null,
        maxMs: live && live.timed > 0 ? live.maxMs : null,
        breaker: worst,
      });
    }
    return out;
  }

  /** Forget a plugin (removed from the registry). */
  forget(plugin: string): void {
    this.series.delete(plugin);
  }

  private windowStart(nowMinute: number): number {
    return (nowMinute - this.minutes + 1) * MINUTE_MS;
  }

  private of(plugin: string): Series {
    let s = this.series.get(plugin);
    if (s === undefined) {
      s = { slots: new Array<Slot | undefined>(this.minutes), transitions: [] };
      this.series.set(plugin, s);
    }
    return s;
  }
}
