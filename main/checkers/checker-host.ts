// Keeps a checker pool running for exactly the enabled checker plugins. When the set of
// runnable checkers changes (enabled, disabled, quarantined, approved), the old pool is closed
// and a new one started; until it is ready, calls are judged by the pool that was running.
//
// Fail closed: a checker an operator enabled that cannot run now (quarantined because its files
// changed since it was enabled, or failing its pre-run check) blocks every call until an
// operator approves the change or disables it. Leaving it out of the pool would let calls pass
// unchecked exactly when its files were tampered with. Its `optional` flag is not honoured
// then: it comes from the changed files.
import { join } from 'node:path';
import type { PluginEntry, PluginRegistry } from '../registry/plugin-registry.js';
import type { PluginManifest } from '../registry/types.js';
import type { BreakerBoard } from '../runner/breaker-board.js';
import type { PluginMetrics } from '../runner/metrics.js';
import { scrubEnv } from '../runner/one-shot.js';
import type { SandboxPlan } from '../runner/sandbox-plan.js';
import { CheckerPool, type CheckerFailure, type CheckerSpec, type CheckerVerdict, type CheckerPoolEvent } from './checker-pool.js';
import type { EvaluateParams } from '../core/checker-protocol.js';
import { kindInfo } from '../registry/kinds/index.js';

export interface CheckerHostDeps {
  registry: PluginRegistry;
  breakers: BreakerBoard;
  metrics: PluginMetrics;
  sandboxFor(manifest: PluginManifest, dir: string): SandboxPlan;
  onEvent?: (e: CheckerPoolEvent) => void;
  log?: (msg: string, err?: unknown) => void;
  env?: NodeJS.ProcessEnv;
}

export class CheckerHost {
  private pool: CheckerPool | null = null;
  /** name@hash of each checker in the running pool, in order: what "changed" means. */
  private signature = '';
  private pending: Promise<void> = Promise.resolve();
  private closed = false;
  /** Enabled checkers that cannot run (see the top): each call is blocked by the first. */
  private held: CheckerFailure[] = [];
  /** Checkers that failed their pre-run check when the running pool was built. */
  private unverified: CheckerFailure[] = [];
  /** The checkers enabled in the registry at the last sync, and those the running pool was built for. */
  private enabledNames: string[] = [];
  private poolNames = new Set<string>();

  constructor(private readonly deps: CheckerHostDeps) {}

  /** Brings the pool in line with the registry (call after discovery and on every change). */
  sync(): Promise<void> {
    // Now, not after the new pool has started: a quarantine blocks the very next call.
    this.held = [...this.quarantined(), ...this.unverified.filter((f) => this.deps.registry.get(f.checker)?.status === 'enabled')];
    this.enabledNames = this.runnable().map((e) => e.name);
    this.pending = this.pending.then(() => this.syncNow()).catch((err) => this.deps.log?.('checker pool restart failed', err));
    return this.pending;
  }

  /** Whether any checker is enabled: with none, the pipeline skips its checkers step. */
  active(): boolean {
    return this.signature !== '' || this.held.length > 0 || this.enabledNames.length > 0;
  }

  async evaluate(params: EvaluateParams): Promise<CheckerVerdict> {
    // A checker enabled that its pool does not run yet (the pool is starting): wait for it. Judged
    // without it, the calls right after an operator enabled it passed unchecked (found by
    // test/main/policy/boundary-properties.test.ts: a block answered to the first calls was never read).
    if (this.enabledNames.some((n) => !this.poolNames.has(n))) await this.pending;
    const held = this.held[0];
    if (held) return Promise.resolve({ decision: 'block', checker: held.checker, failure: held, failures: [...this.held] });
    if (!this.pool) return Promise.resolve({ decision: 'allow', failures: [] });
    return this.pool.evaluate(params);
  }

  status(): { name: string; processes: number; ready: number }[] {
    return this.pool?.status() ?? [];
  }

  async restart(name: string): Promise<void> {
    await this.pool?.restart(name);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pending;
    await this.pool?.close();
    this.pool = null;
  }

  private async syncNow(): Promise<void> {
    if (this.closed) return;
    const runnable = this.runnable();
    const signature = runnable.map((e) => `${e.name}@${e.trust?.hash ?? e.digest?.hash}`).join(',');
    if (signature === this.signature) return;
    const specs: CheckerSpec[] = [];
    const unverified: CheckerFailure[] = [];
    for (const e of runnable) {
      try {
        // Verify what we are about to run against the operator's pin, as for tools.
        const { manifest, dir } = this.deps.registry.verifyForRun(e.name);
        const plan = this.deps.sandboxFor(manifest, dir);
        specs.push({
          name: manifest.name,
          command: join(dir, manifest.command),
          args: manifest.args,
          cwd: dir,
          env: scrubEnv(this.deps.env ?? process.env, manifest.permissions.env),
          config: manifest.config,
          optional: manifest.optional,
          // timeout_secs: how long one evaluate may take (5 s unless the manifest says otherwise).
          timeoutMs: manifest.timeoutSecs * 1000,
          wrap: plan.wrap,
        });
      } catch (err) {
        this.deps.log?.(`checker ${e.name} not started`, err);
        unverified.push({ checker: e.name, kind: 'not_ready', message: `${e.name} did not pass its check before starting (${(err as Error).message}). Fix or disable it in Plugins.`, optional: false });
      }
    }
    this.unverified = unverified;
    // A checker that its pre-run check just quarantined is named once, as quarantined.
    const quarantined = this.quarantined();
    this.held = [...quarantined, ...unverified.filter((f) => !quarantined.some((q) => q.checker === f.checker))];
    const next = new CheckerPool({
      checkers: specs,
      breakers: (name) => this.deps.breakers.get(name),
      metrics: this.deps.metrics,
      ...(this.deps.onEvent ? { onEvent: this.deps.onEvent } : {}),
      ...(this.deps.log ? { log: this.deps.log } : {}),
    });
    await next.start();
    const old = this.pool;
    this.pool = next;
    this.signature = signature;
    this.poolNames = new Set(runnable.map((e) => e.name));
    await old?.close();
  }

  private runnable() {
    return this.deps.registry.list().filter((e) => judgesCalls(e) && e.status === 'enabled');
  }

  /** Checkers an operator enabled whose files changed since: quarantined, not runnable. */
  private quarantined(): CheckerFailure[] {
    return this.deps.registry
      .list()
      .filter((e) => judgesCalls(e) && e.status === 'quarantined' && e.trust)
      .map((e) => ({
        checker: e.name,
        kind: 'not_ready' as const,
        message: `${e.name} is quarantined: its files changed since an operator enabled it. Review and approve the change, or disable it, in Plugins`,
        optional: false,
      }));
  }
}

/** The checker host runs every plugin whose kind judges agents' calls (the kind table says which). */
function judgesCalls(e: PluginEntry): boolean {
  return kindInfo(e.manifest?.kind)?.judgesCalls === true;
}
