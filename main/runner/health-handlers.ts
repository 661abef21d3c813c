// The health.* methods of the contract (breakers, processes, the sandbox, event-loop lag) and
// plugins.testRun, which goes through the real runner (breaker, limits, sandbox), attributed to
// the operator.
import type { GatehouseContract } from '../../shared/contract.js';
import type { Handlers } from '../core/handlers.js';
import type { HealthService } from './health-service.js';
import type { ToolRunner } from './tool-runner.js';

type HealthMethods = 'health.list' | 'health.reset' | 'health.restart' | 'plugins.testRun';
export type HealthHandlers = Pick<Handlers<GatehouseContract['methods']>, HealthMethods>;
type EventLoopSnapshot = Awaited<ReturnType<HealthHandlers['health.list']>>['eventLoop'];

export interface HealthHandlerDeps {
  health: HealthService;
  toolRunner: ToolRunner;
  /** The host's first plugin scan. */
  ready: Promise<void>;
  /** Containment has found out which box this machine has (the Health view shows it). */
  containmentReady?: () => Promise<unknown>;
  /** The host's event-loop lag, measured where the host runs. */
  eventLoop: () => EventLoopSnapshot;
  record: (type: string, actor: string, payload: Record<string, unknown>) => void;
  /** Why the audit log cannot take events now (CallTrails.failure), or null: a test run is not run then. */
  logFailure?: () => string | null;
}

export function healthHandlers(d: HealthHandlerDeps): HealthHandlers {
  return {
    'health.list': async () => {
      await d.ready;
      // A probe that failed leaves containment out of the answer (the console says it is unknown) rather than failing the Health view.
      await d.containmentReady?.().catch(() => undefined);
      return { ...d.health.list(), eventLoop: d.eventLoop() };
    },
    'health.reset': ({ name }, ctx) => {
      d.record('breaker.reset', `operator:${ctx.operator}`, { plugin: name });
      return d.health.reset(name);
    },
    'health.restart': async ({ name }, ctx) => {
      d.record('plugin.restart', `operator:${ctx.operator}`, { plugin: name });
      return d.health.restart(name);
    },
    // Checked when the run has its slot, as an agent's call is (Gateway.run): with the log lost, a
    // test run's plugin ran anyway and only the answer said it was not recorded.
    'plugins.testRun': ({ name, tool, input }, ctx) =>
      d.toolRunner.call(name, tool, input, {
        actor: `operator:${ctx.operator}`,
        testRun: true,
        gate: () => {
          const lost = d.logFailure?.() ?? null;
          if (lost !== null) throw new Error(`The test run was not started: ${lost}`);
        },
      }),
  };
}
