// One circuit breaker per plugin (tools and checkers alike), created on first use. Every state
// change is recorded in the audit log and pushed to the consoles' Health view.
import type { Clock } from '../core/clock.js';
import { CircuitBreaker, type BreakerSnapshot } from './circuit-breaker.js';

export interface BreakerBoardDeps {
  clock: Clock;
  /** A state change: audit it and tell the consoles. */
  changed?: (plugin: string, next: BreakerSnapshot, prev: BreakerSnapshot) => void;
  /** Overrides of the baseline in docs/protocols.md §2 (tests use short cooldowns). */
  threshold?: number;
  baseCooldownMs?: number;
  maxCooldownMs?: number;
  maxCycles?: number;
}

export class BreakerBoard {
  private readonly breakers = new Map<string, CircuitBreaker>();
  constructor(private readonly deps: BreakerBoardDeps) {}

  get(plugin: string): CircuitBreaker {
    let b = this.breakers.get(plugin);
    if (!b) {
      const { clock, threshold, baseCooldownMs, maxCooldownMs, maxCycles } = this.deps;
      b = new CircuitBreaker({
        clock,
        ...(threshold !== undefined ? { threshold } : {}),
        ...(baseCooldownMs !== undefined ? { baseCooldownMs } : {}),
        ...(maxCooldownMs !== undefined ? { maxCooldownMs } : {}),
        ...(maxCycles !== undefined ? { maxCycles } : {}),
        onChange: (next, prev) => this.deps.changed?.(plugin, next, prev),
      });
      this.breakers.set(plugin, b);
    }
    return b;
  }

  snapshot(plugin: string): BreakerSnapshot {
    return this.get(plugin).snapshot();
  }
}
