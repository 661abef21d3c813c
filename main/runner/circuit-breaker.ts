// A circuit breaker per plugin (checkers and tools), after the baseline in docs/protocols.md §2:
// `threshold` consecutive failures open it; it stays open for a cooldown that doubles each cycle
// (5 min, 10, 20, 40, then capped at 1 h); after the cooldown one probe call decides — success
// closes it, failure re-opens it with the next cooldown; a failed probe after `maxCycles` cycles
// disables it until an operator resets it.
//
// No timers: open → half-open happens lazily, when acquire() or snapshot() is called at or after
// nextProbeAt. The clock is injected so that tests walk through hours in microseconds.
//
// Improvements on the baseline, and why:
// - A probe success closes the breaker but keeps `cycle`, so a plugin that fails again soon backs
//   off longer instead of restarting at 5 min; `cycle` returns to 0 after the breaker has stayed
//   closed for maxCooldownMs with a success at the end (the plugin has proven stable).
// - Results of calls admitted before the breaker opened (stragglers) do not move an open or
//   half-open breaker: only the probe decides.

export type BreakerState = 'closed' | 'open' | 'half_open' | 'disabled';

export interface BreakerSnapshot {
  state: BreakerState;
  consecutiveFailures: number;
  /** How many times the breaker has opened since it was last reset (or proven stable). */
  cycle: number;
  /** When it last opened (clock ms), null while closed. */
  openedAt: number | null;
  /** When the next probe may go through (clock ms); null unless open or half-open. */
  nextProbeAt: number | null;
  lastFailure: string | null;
}

import type { Clock } from '../core/clock.js';

export { systemClock } from '../core/clock.js';

export interface CircuitBreakerOptions {
  clock: Clock;
  /** Consecutive failures that open a closed breaker. Default 3. */
  threshold?: number;
  /** Cooldown of the first cycle. Default 5 min. */
  baseCooldownMs?: number;
  /** Cap of the doubling cooldown. Default 1 h. */
  maxCooldownMs?: number;
  /** A probe failing in this cycle disables the breaker. Default 5. */
  maxCycles?: number;
  /**
   * Called on every change of the snapshot's state, consecutiveFailures or cycle, after the
   * change (so calling snapshot() inside sees `next`). The host audits state changes
   * (`next.state !== prev.state`) and pushes every change to the renderer.
   */
  onChange?: (next: BreakerSnapshot, prev: BreakerSnapshot) => void;
}

export type BreakerTicket = { ok: true; probe: boolean } | { ok: false; reason: string; retryAt: number | null };

// acquire() runs on every call of every plugin: the common answers are preallocated.
const PASS: BreakerTicket = Object.freeze({ ok: true, probe: false });
const PROBE: BreakerTicket = Object.freeze({ ok: true, probe: true });

export const BREAKER_DEFAULTS = Object.freeze({ threshold: 3, baseCooldownMs: 5 * 60_000, maxCooldownMs: 60 * 60_000, maxCycles: 5 });

export class CircuitBreaker {
  private readonly clock: Clock;
  private readonly threshold: number;
  private readonly baseCooldownMs: number;
  private readonly maxCooldownMs: number;
  private readonly maxCycles: number;
  private readonly onChange: ((next: BreakerSnapshot, prev: BreakerSnapshot) => void) | undefined;

  private state: BreakerState = 'closed';
  private consecutiveFailures = 0;
  private cycle = 0;
  private openedAt: number | null = null;
  private nextProbeAt: number | null = null;
  private lastFailure: string | null = null;
  private closedAt: number;
  private probeInFlight = false;

  constructor(opts: CircuitBreakerOptions) {
    this.clock = opts.clock;
    this.threshold = positive('threshold', opts.threshold ?? BREAKER_DEFAULTS.threshold);
    this.baseCooldownMs = positive('baseCooldownMs', opts.baseCooldownMs ?? BREAKER_DEFAULTS.baseCooldownMs);
    this.maxCooldownMs = positive('maxCooldownMs', opts.maxCooldownMs ?? BREAKER_DEFAULTS.maxCooldownMs);
    this.maxCycles = positive('maxCycles', opts.maxCycles ?? BREAKER_DEFAULTS.maxCycles);
    this.onChange = opts.onChange;
    this.closedAt = this.clock.now();
  }

  /** The cooldown of a cycle (1-based): base · 2^(cycle−1), capped. */
  cooldownFor(cycle: number): number {
    return Math.min(this.baseCooldownMs * 2 ** Math.max(0, cycle - 1), this.maxCooldownMs);
  }

  /** May a call go through now? Half-open admits exactly one probe at a time. */
  acquire(): BreakerTicket {
    switch (this.state) {
      case 'closed':
        return PASS;
      case 'disabled':
        return { ok: false, reason: this.disabledReason(), retryAt: null };
      case 'open':
        if (!this.elapsed()) return { ok: false, reason: this.openReason(), retryAt: this.nextProbeAt };
        // The cooldown is over: this call may be the probe.
        this.halfOpen();
        return this.takeProbe();
      case 'half_open':
        return this.takeProbe();
    }
  }

  /**
   * Why acquire() would refuse a call now (open before its cooldown ends, or disabled), without
   * taking a probe; null when it would let one through. Callers holding queued work shed it with
   * this sentence the moment the breaker opens, instead of feeding it to a plugin in a crash loop.
   */
  refusal(): string | null {
    if (this.state === 'disabled') return this.disabledReason();
    if (this.state === 'open' && !this.elapsed()) return this.openReason();
    return null;
  }

  // The count and the time, not "repeated failures": the caller (an agent, the inbox) is told how
  // long this lasts and that an operator can end it sooner.
  private openReason(): string {
    return `open after ${this.consecutiveFailures} failure${this.consecutiveFailures === 1 ? '' : 's'} (last: ${this.lastFailure ?? 'unknown'}); it closes at ${clockTime(this.nextProbeAt!)} if a trial call then succeeds, or when an operator resets it (Health view)`;
  }

  private disabledReason(): string {
    return `disabled after ${this.cycle} failed recovery attempts (last failure: ${this.lastFailure ?? 'unknown'}); it stays open until an operator resets it (Health view)`;
  }

  private takeProbe(): BreakerTicket {
    if (this.probeInFlight) return { ok: false, reason: 'half-open: a probe call is deciding whether the plugin has recovered', retryAt: null };
    this.probeInFlight = true;
    return PROBE;
  }

  success(probe: boolean): void {
    if (this.state === 'closed') {
      if (this.consecutiveFailures === 0 && (this.cycle === 0 || this.clock.now() - this.closedAt < this.maxCooldownMs)) return;
      const prev = this.raw();
      this.consecutiveFailures = 0;
      if (this.cycle > 0 && this.clock.now() - this.closedAt >= this.maxCooldownMs) this.cycle = 0;
      this.emit(prev);
      return;
    }
    if (!probe || !this.probeInFlight) return;
    const prev = this.raw();
    this.probeInFlight = false;
    this.state = 'closed';
    this.consecutiveFailures = 0;
    this.openedAt = null;
    this.nextProbeAt = null;
    this.closedAt = this.clock.now();
    this.emit(prev);
  }

  failure(reason: string, probe: boolean): void {
    const prev = this.raw();
    this.lastFailure = reason;
    if (this.state === 'closed') {
      this.consecutiveFailures++;
      if (this.consecutiveFailures >= this.threshold) this.open();
      this.emit(prev);
      return;
    }
    // Open, disabled, or a straggler in half-open: only the probe decides.
    if (!probe || !this.probeInFlight) return;
    this.probeInFlight = false;
    this.consecutiveFailures++;
    this.open();
    this.emit(prev);
  }

  /** An operator reset: closed, counters cleared, cycle 0. */
  reset(): void {
    const prev = this.raw();
    this.state = 'closed';
    this.consecutiveFailures = 0;
    this.cycle = 0;
    this.openedAt = null;
    this.nextProbeAt = null;
    this.lastFailure = null;
    this.probeInFlight = false;
    this.closedAt = this.clock.now();
    this.emit(prev);
  }

  snapshot(): BreakerSnapshot {
    if (this.state === 'open' && this.elapsed()) this.halfOpen();
    return this.raw();
  }

  private elapsed(): boolean {
    return this.clock.now() >= this.nextProbeAt!;
  }

  private open(): void {
    if (this.cycle >= this.maxCycles) {
      this.state = 'disabled';
      this.openedAt = this.clock.now();
      this.nextProbeAt = null;
      return;
    }
    this.cycle++;
    this.state = 'open';
    this.openedAt = this.clock.now();
    this.nextProbeAt = this.openedAt + this.cooldownFor(this.cycle);
  }

  private halfOpen(): void {
    const prev = this.raw();
    this.state = 'half_open';
    this.probeInFlight = false;
    this.emit(prev);
  }

  private raw(): BreakerSnapshot {
    return { state: this.state, consecutiveFailures: this.consecutiveFailures, cycle: this.cycle, openedAt: this.openedAt, nextProbeAt: this.nextProbeAt, lastFailure: this.lastFailure };
  }

  private emit(prev: BreakerSnapshot): void {
    if (!this.onChange) return;
    const next = this.raw();
    if (next.state === prev.state && next.consecutiveFailures === prev.consecutiveFailures && next.cycle === prev.cycle) return;
    this.onChange(next, prev);
  }
}

/** HH:MM UTC: the host's clock and the operator's may be in different zones; UTC reads the same in both. */
function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

function positive(name: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`CircuitBreaker: ${name} must be a positive number, not ${v}`);
  return v;
}
