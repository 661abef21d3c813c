// The plugin side of the host, wired together: trust and discovery (the registry), the runner
// with its breakers, metrics and sandbox plans, the PTYs it runs `pty = true` tools in, the
// checkers, and the Health view's service. Part of the composition root: it only builds and
// connects; each service's behaviour lives in its own folder. Built before the gateway, so it
// announces changes (`onChanged`) rather than calling the gateway side.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CheckerHost } from '../checkers/checker-host.js';
import type { PolicyStore } from '../policy/rules/store.js';
import { PtyManager } from '../pty/pty-manager.js';
import { PluginRegistry, runsTrusted, type PluginSource } from '../registry/plugin-registry.js';
import { BUILTIN_TOOLS } from '../registry/plugin-sources.js';
import { PluginService } from '../registry/plugin-service.js';
import { TrustStore } from '../registry/trust-store.js';
import { kindProvider } from '../registry/kinds/index.js';
import type { PluginManifest } from '../registry/types.js';
import { BreakerBoard } from '../runner/breaker-board.js';
import type { BreakerSnapshot } from '../runner/circuit-breaker.js';
import { BoxJournals, boxFolder } from '../runner/box-journal.js';
import { WarmStarts } from '../runner/warm-starts.js';
import { Containment } from '../runner/containment.js';
import { HealthService } from '../runner/health-service.js';
import { PluginMetrics } from '../runner/metrics.js';
import { HealthHistory } from '../runner/health-history.js';
import { sandboxPlan } from '../runner/sandbox-plan.js';
import { detectSandbox } from '../runner/sandbox.js';
import { ToolRunner } from '../runner/tool-runner.js';
import type { HostBase, HostOptions } from './host-types.js';
import { moduleDescriber } from './plugin-folder-check.js';
import { Signal } from './signal.js';

export interface PluginServicesDeps extends HostBase {
  opts: Pick<HostOptions, 'commandDenylist' | 'allowedPlugins' | 'requireSandbox'>;
  /** The plugin places, in order (pluginSources()). */
  sources: PluginSource[];
  /** The policy WebAssembly plugins' host functions are judged by. */
  policy: Pick<PolicyStore, 'evaluateAsync'>;
}

export function startPluginServices(d: PluginServicesDeps) {
  const { opts, paths, clock, log, audit, bus, settings, services, sources } = d;
  // The registry is the first thing built here and tells what is built on it (the runner, the
  // checkers, then the gateway side) through these, subscribed once each exists.
  const pluginEnabled = new Signal<[name: string]>();
  /** After the registry settled a change (the checkers are told first): the tools agents see may have changed. */
  const changed = new Signal();
  let trust: TrustStore;
  try {
    trust = new TrustStore(paths.root);
  } catch (err) {
    // The unreadable file was moved aside: start with nothing enabled (fail closed) and say so.
    log((err as Error).message);
    trust = new TrustStore(paths.root);
  }
  const registry: PluginRegistry = new PluginRegistry({
    sources,
    trust,
    builtins: BUILTIN_TOOLS,
    ...(opts.commandDenylist ? { denylist: opts.commandDenylist } : {}),
    ...(opts.allowedPlugins ? { allowedPlugins: opts.allowedPlugins } : {}),
    // A folder with a mod.ts and no manifest is a module plugin, its exports read in a sandboxed child.
    describeModule: moduleDescriber(paths.root),
    clock,
    record: (event, actor) => {
      const { type, ...payload } = event;
      audit.append({ type, actor, payload });
      // A plugin whose kind prepares it (a wasm module is metered, off the main thread) is prepared when enabled, not at its first call.
      if ((type === 'plugin.enabled' || type === 'plugin.change-approved') && hasPrepare(registry.get(event.name)?.manifest)) pluginEnabled.emit(event.name);
    },
    changed: (names) => {
      bus.emit('plugins.changed', { names });
      changed.emit();
    },
  });
  const plugins = new PluginService(registry, trust, { homePluginsDir: paths.plugins });
  // Health pushes are throttled per plugin: a flood of calls must not flood the consoles.
  const healthTimers = new Map<string, NodeJS.Timeout>();
  services.add(() => healthTimers.forEach((t) => clearTimeout(t)));
  const healthChanged = (name: string, breaker: BreakerSnapshot | null) => {
    if (breaker) {
      bus.emit('health.changed', { name, breaker });
      return;
    }
    if (healthTimers.has(name)) return;
    healthTimers.set(name, setTimeout(() => {
      healthTimers.delete(name);
      bus.emit('health.changed', { name, breaker: null });
    }, 250));
  };
  // The Health view's last hour: every call (through metrics) and every breaker transition.
  const history = new HealthHistory({ now: () => clock.now() });
  const breakers = new BreakerBoard({
    clock,
    changed: (plugin, next, prev) => {
      if (next.state !== prev.state) history.breaker(plugin, next.state);
      // The breaker also reports counter changes (for the live view); only transitions are audited.
      if (next.state !== prev.state) {
        audit.append({ type: 'breaker.changed', actor: 'host', payload: { plugin, from: prev.state, to: next.state, consecutiveFailures: next.consecutiveFailures, cycle: next.cycle, nextProbeAt: next.nextProbeAt, lastFailure: next.lastFailure } });
      }
      healthChanged(plugin, next);
    },
  });
  const metrics = new PluginMetrics({ history });
  const sandbox = detectSandbox();
  // `sandbox = "none"` is honoured only for a plugin an operator trusts, for the files it pinned.
  const runCache = join(paths.root, 'run-cache');
  const trustedNow = (manifest: PluginManifest, dir: string) => {
    const e = registry.get(manifest.name);
    // Its own folder, or the verified copy of exactly the files it was trusted with.
    const pinned = e?.trust?.hash ?? e?.digest?.hash;
    return (e?.dir === dir || (pinned !== undefined && dir === join(runCache, pinned))) && e !== undefined && runsTrusted(e);
  };
  const requireSandbox = () => (opts.requireSandbox ?? false) || settings.current.requireSandbox;
  const planFor = (manifest: PluginManifest, dir: string, reviewedDir?: string) => sandboxPlan(sandbox, manifest, dir, { requireSandbox: requireSandbox(), trusted: trustedNow(manifest, dir), gatehouseHome: paths.root, ...(reviewedDir ? { reviewedDir } : {}) });
  const utf8 = new TextEncoder();
  const ptys = new PtyManager({
    clock,
    log,
    record: (e) => audit.append(e),
    events: {
      // Consoles get the batch as UTF-8 (the contract's terminals.output): encoded once here, for
      // every console, and xterm.js decodes it faster than it takes a string. TextEncoder, not
      // Buffer.from: a small Buffer is a view into Node's shared 8 KB pool, and Electron's IPC
      // clones a view's whole ArrayBuffer, so a window would be sent whatever else sits in the pool.
      output: (e) => bus.emit('terminals.output', { id: e.id, seq: e.seq, chars: e.data.length, data: utf8.encode(e.data) }),
      changed: (e) => bus.emit('terminals.changed', e),
    },
  });
  services.add(() => ptys.close());
  const toolRunner: ToolRunner = new ToolRunner({
    registry,
    ptys,
    breakers,
    metrics,
    // Verified copies plugins run from: under GATEHOUSE_HOME, which agents may not touch.
    runCache,
    sandboxFor: planFor,
    // An agent calling a tool again finds its sandboxed process already started.
    warmStarts: new WarmStarts(),
    // WebAssembly plugins' host functions are judged by the same rules as agents' calls.
    policy: d.policy,
    // WebAssembly plugins run in a child process inside the same sandbox as process plugins.
    wasmIsolation: { detection: sandbox },
    // Module plugins (mod.ts): a warm child each, in the same sandbox; loopback or private hosts only as the operator's setting lists them.
    modules: { cacheDir: join(paths.root, 'module-cache'), detection: sandbox, allowPrivateHosts: () => settings.current.modulePrivateHosts ?? [] },
    record: (type, actor, payload) => {
      audit.append({ type, actor, payload });
      if (type === 'execution.ended' && typeof payload.plugin === 'string') healthChanged(payload.plugin, null);
    },
  });
  services.add(() => toolRunner.close());
  services.add(pluginEnabled.subscribe((name) => {
    void Promise.resolve()
      .then(() => toolRunner.prepare(name))
      .catch((err: unknown) => log(`preparing the plugin ${name} failed (its first call will try again)`, err));
  }));
  const checkers = new CheckerHost({
    registry,
    breakers,
    metrics,
    sandboxFor: planFor,
    onEvent: (e) => {
      if (e.type !== 'checker.breaker') audit.append({ type: e.type.startsWith('checker.') ? e.type : `checker.${e.type}`, actor: 'host', payload: { ...e } });
    },
    log,
  });
  services.add(() => checkers.close());
  services.add(changed.subscribe(() => void checkers.sync()));
  // Bash commands let through without an operator reading them run in the box (the hook answers
  // with the boxed command); what it hides comes from the same locked rules the judge applies.
  const containment = new Containment({ home: homedir(), gatehouseHome: paths.root, pluginDirs: () => sources.map((s) => s.dir), when: () => settings.current.containment, detect: () => sandbox });
  // A contained command's Git check cut off by a SIGKILL is finished here, not left for the next one.
  const journals = new BoxJournals({
    dir: boxFolder(paths.root),
    checkFile: () => containment.checkFile(),
    record: (said, exitCode) => audit.append({ type: 'containment.check-finished', actor: 'host', payload: { said, exitCode } }),
    log,
  });
  journals.start();
  services.add(() => journals.close());
  const health = new HealthService({
    registry,
    breakers,
    metrics,
    history,
    checkers: () => checkers,
    clock,
    sandbox: () => ({
      ...(sandbox.kind === 'bwrap' ? { kind: 'bwrap' as const, detail: `bubblewrap ${sandbox.version}` } : { kind: 'none' as const, detail: sandbox.reason }),
      trusted: registry.list().filter((e) => runsTrusted(e)).map((e) => e.name),
      containment: containment.status(),
    }),
  });
  return { sources, registry, plugins, breakers, metrics, sandbox, planFor, requireSandbox, ptys, toolRunner, checkers, health, containment, onChanged: (listener: () => void) => changed.subscribe(listener) };
}

/** Whether the plugin's kind has something to do when it is enabled (the kind table says). */
function hasPrepare(m: PluginManifest | null | undefined): boolean {
  return !!m && !!kindProvider(m.kind)?.prepare;
}
