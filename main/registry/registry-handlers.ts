// The plugins.* methods of the contract that the registry answers: listing, scanning, the
// editor's files, scaffolding, and the operator's trust decisions (enable, disable, approve a
// change, roll back, trust). Methods that need the discovered plugins wait for the first scan,
// so just after start a plugin not yet discovered is not reported "unknown".
import type { GatehouseContract } from '../../shared/contract.js';
import type { Handlers } from '../core/handlers.js';
import type { JobRunner } from '../core/job-runner.js';
import type { PluginRegistry, PluginSource } from './plugin-registry.js';
import { summary, type PluginService } from './plugin-service.js';

type RegistryMethods =
  | 'plugins.list'
  | 'plugins.rescan'
  | 'plugins.get'
  | 'plugins.readFile'
  | 'plugins.writeFile'
  | 'plugins.check'
  | 'plugins.create'
  | 'plugins.enable'
  | 'plugins.disable'
  | 'plugins.approveChange'
  | 'plugins.rollBack'
  | 'plugins.setTrusted';
export type RegistryHandlers = Pick<Handlers<GatehouseContract['methods']>, RegistryMethods>;

export interface RegistryHandlerDeps {
  registry: PluginRegistry;
  plugins: PluginService;
  sources: readonly PluginSource[];
  /** The host's first plugin scan. */
  ready: Promise<void>;
  jobs: JobRunner;
  record: (type: string, actor: string, payload: Record<string, unknown>) => void;
}

export function registryHandlers(d: RegistryHandlerDeps): RegistryHandlers {
  const { registry, plugins, ready, jobs } = d;
  return {
    'plugins.list': async () => {
      await ready;
      return { plugins: plugins.list(), sources: [...d.sources] };
    },
    'plugins.rescan': async ({ job }, ctx) => {
      await ready;
      const t0 = performance.now();
      await jobs.run({ id: job, kind: 'plugins.scan', title: 'Scanning plugins', unit: 'plugins', by: `operator:${ctx.operator}` }, (j) => registry.refreshAll(j));
      return { plugins: registry.list().length, tookMs: Math.round(performance.now() - t0) };
    },
    'plugins.get': async ({ name }) => {
      await ready;
      return plugins.detail(name);
    },
    'plugins.readFile': ({ name, path }) => plugins.readFile(name, path),
    'plugins.writeFile': ({ name, path, content }, ctx) => {
      const r = plugins.writeFile(name, path, content);
      d.record('plugin.file-saved', `operator:${ctx.operator}`, { name, path, bytes: r.bytes, console: ctx.console });
      return r;
    },
    'plugins.check': ({ name, path, content }) => plugins.check(name, path, content),
    'plugins.create': async ({ name, lang }, ctx) => {
      const r = plugins.create(name, lang);
      d.record('plugin.created', `operator:${ctx.operator}`, { name, lang, dir: r.dir });
      // Pick it up now rather than waiting for the watcher, so the caller can open it at once.
      await registry.refreshFolder(r.dir);
      return r;
    },
    'plugins.enable': async ({ name, overrideReason }, ctx) => {
      await ready;
      return summary(await registry.enable(name, ctx.operator, overrideReason));
    },
    'plugins.disable': async ({ name }, ctx) => {
      await ready;
      return summary(await registry.disable(name, ctx.operator));
    },
    'plugins.approveChange': async ({ name, overrideReason }, ctx) => {
      await ready;
      return summary(await registry.approveChange(name, ctx.operator, overrideReason));
    },
    'plugins.rollBack': async ({ name }, ctx) => {
      await ready;
      return summary(await registry.rollBack(name, ctx.operator));
    },
    'plugins.setTrusted': async ({ name, trusted, reason }, ctx) => {
      await ready;
      return summary(registry.setTrusted(name, ctx.operator, trusted, reason));
    },
  };
}
