// What the Health view shows: per plugin, its breaker, its metrics and (for checkers) its
// processes; and the operator's two levers, reset and restart.
import type { ContainmentStatus } from './containment.js';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import type { BreakerBoard } from './breaker-board.js';
import type { PluginMetrics, MetricsSnapshot } from './metrics.js';
import type { BreakerSnapshot } from './circuit-breaker.js';
import type { PluginStatus } from '../registry/plugin-registry.js';
import type { Clock } from '../core/clock.js';
import type { HealthHistory, MinuteBucket } from './health-history.js';
import { kindInfo, type KindInfo } from '../registry/kinds/index.js';

export interface HealthRow {
  name: string;
  kind: string | null;
  kindInfo: KindInfo | null;
  status: PluginStatus;
  breaker: BreakerSnapshot;
  metrics: MetricsSnapshot;
  processes: { running: number; ready: number } | null;
  /** The last hour, a bucket a minute, oldest first. */
  history: MinuteBucket[];
}

export interface SandboxSummary {
  kind: 'bwrap' | 'none';
  detail: string;
  /** Plugins whose sandbox = "none" takes effect (an operator trusted them). */
  trusted: string[];
  /** Whether let-through Bash commands run in the box. */
  containment?: ContainmentStatus;
}

/** The part of the checker pool the Health view needs. */
export interface CheckerStatusSource {
  status(): { name: string; processes: number; ready: number }[];
  restart(name: string): Promise<void>;
}

export interface HealthDeps {
  registry: PluginRegistry;
  breakers: BreakerBoard;
  metrics: PluginMetrics;
  /** The last hour per plugin; without one, rows carry an empty history. */
  history?: HealthHistory;
  checkers: () => CheckerStatusSource | null;
  clock: Clock;
  /** The host's sandbox, and the plugins that run without it because an operator trusted them. */
  sandbox: () => SandboxSummary;
}

export class HealthService {
  constructor(private readonly deps: HealthDeps) {}

  list(): { plugins: HealthRow[]; now: number; sandbox: SandboxSummary } {
    const checkerStatus = new Map((this.deps.checkers()?.status() ?? []).map((s) => [s.name, s]));
    const plugins = this.deps.registry.list().map((e) => this.rowOf(e.name, checkerStatus));
    return { plugins, now: this.deps.clock.now(), sandbox: this.deps.sandbox() };
  }

  row(name: string): HealthRow {
    const checkerStatus = new Map((this.deps.checkers()?.status() ?? []).map((s) => [s.name, s]));
    return this.rowOf(name, checkerStatus);
  }

  reset(name: string): HealthRow {
    this.deps.registry.require(name);
    this.deps.breakers.get(name).reset();
    return this.row(name);
  }

  async restart(name: string): Promise<HealthRow> {
    const e = this.deps.registry.require(name);
    // Only kinds that keep processes have any to restart; the checker host runs those that judge calls.
    if (kindInfo(e.manifest?.kind)?.judgesCalls) await this.deps.checkers()?.restart(name);
    this.deps.breakers.get(name).reset();
    return this.row(name);
  }

  private rowOf(name: string, checkerStatus: Map<string, { processes: number; ready: number }>): HealthRow {
    const e = this.deps.registry.require(name);
    const kind = e.manifest?.kind ?? null;
    const info = kindInfo(kind);
    const cs = checkerStatus.get(name);
    const breaker = this.deps.breakers.snapshot(name);
    return {
      name,
      kind,
      kindInfo: info,
      status: e.status,
      breaker,
      metrics: this.deps.metrics.snapshot(name),
      processes: info?.judgesCalls ? { running: cs?.processes ?? 0, ready: cs?.ready ?? 0 } : null,
      history: this.deps.history?.hour(name, breaker.state) ?? [],
    };
  }
}
