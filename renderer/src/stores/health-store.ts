// Plugin health: every plugin's circuit breaker, counters and recent latencies as the host last
// reported them, the sandbox the host runs plugins in, and the operator's reset / restart calls.
import { create } from 'zustand';
import type { BreakerSnapshotView, HealthRowView, ResponseOf } from '../../../shared/contract.ts';

export type BreakerState = BreakerSnapshotView['state'];
export type SandboxStatus = ResponseOf<'health.list'>['sandbox'];
export type HealthAction = 'reset' | 'restart';
export type FailureKind = keyof HealthRowView['metrics']['failures'];

export const breakerLabel: Record<BreakerState, string> = {
  closed: 'Closed',
  open: 'Open',
  half_open: 'Half-open',
  disabled: 'Disabled',
};

export const breakerHelp: Record<BreakerState, string> = {
  closed: 'Calls go through.',
  open: 'Calls are refused until the cooldown ends; then one probe call decides.',
  half_open: 'One probe call is allowed: success closes the breaker, failure re-opens it with a longer cooldown.',
  disabled: 'Opened too many times in a row: calls are refused until an operator resets it.',
};

export const failureLabel: Record<FailureKind, string> = {
  timeout: 'timeout',
  crash: 'crash',
  bad_output: 'bad output',
  limit: 'limit',
  spawn: 'spawn',
  error: 'error',
};

export interface HealthStore {
  rows: HealthRowView[];
  sandbox: SandboxStatus | null;
  loaded: boolean;
  listError: string | null;
  /**
   * Local clock minus host clock, measured at the last health.list: a host time `t` happened at
   * local time `t + clockOffset`. Countdowns use it so a skewed console clock does not lie.
   */
  clockOffset: number;
  /** A reset / restart in flight. */
  busy: { name: string; action: HealthAction } | null;
  /** The last reset / restart that failed, shown under its row. */
  actionError: { name: string; action: HealthAction; message: string } | null;
}

export const initialHealthState: HealthStore = {
  rows: [],
  sandbox: null,
  loaded: false,
  listError: null,
  clockOffset: 0,
  busy: null,
  actionError: null,
};

export const useHealthStore = create<HealthStore>()(() => ({
  ...initialHealthState,
}));

/**
 * The operator can reset a breaker that is not closed, or a closed one with a history: failures
 * counting towards opening it, or past cycles that would lengthen its next cooldown.
 */
export function canReset(row: HealthRowView): boolean {
  const b = row.breaker;
  return b.state !== 'closed' || b.consecutiveFailures > 0 || b.cycle > 0;
}

/** Restart means restarting processes: only kinds that judge calls (checkers) keep any the host restarts. */
export function canRestart(row: HealthRowView): boolean {
  return row.kindInfo?.judgesCalls === true;
}

export function totalFailures(row: HealthRowView): number {
  const f = row.metrics.failures;
  return f.timeout + f.crash + f.bad_output + f.limit + f.spawn + f.error;
}

/** Milliseconds until the breaker's next probe, by the local clock; null when none is scheduled. */
export function msToProbe(breaker: BreakerSnapshotView, clockOffset: number, localNow: number): number | null {
  if (breaker.state !== 'open' || breaker.nextProbeAt === null) return null;
  return breaker.nextProbeAt + clockOffset - localNow;
}

/** 4:59, or 1:00:00 past an hour. Rounds up, so "0:00" never shows while time remains. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** "12 ms", "1.4 s", "—". */
export function formatLatency(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  if (ms < 10) return ms.toFixed(1);
  if (ms < 10_000) return ms.toFixed(0);
  return `${(ms / 1000).toFixed(1)} s`;
}
