// The composition root: builds every service of the host from its dependencies. Both shells
// call this and only add a transport around `dispatcher` and `bus`.
import { userInfo } from 'node:os';
import { contract, type GatehouseContract, type ChainState } from '../../shared/contract.js';
import { AuditStore, systemClock, type Clock } from '../audit/audit-store.js';
import { ChainVerifier } from '../audit/chain.js';
import { ensureHome, type HomePaths } from '../home.js';
import { createDispatcher, type CallContext, type Dispatcher, type Handlers } from './dispatcher.js';
import { EventBus } from './event-bus.js';
import { version } from '../version.js';
import { PluginRegistry, type PluginSource } from '../registry/plugin-registry.js';
import { PluginService, summary } from '../registry/plugin-service.js';
import { PluginWatcher } from '../registry/plugin-watcher.js';
import { TrustStore } from '../registry/trust-store.js';
import { join } from 'node:path';
import { BreakerBoard } from '../runner/breaker-board.js';
import type { BreakerSnapshot } from '../runner/circuit-breaker.js';
import { PluginMetrics } from '../runner/metrics.js';
import { ToolRunner } from '../runner/tool-runner.js';
import { HealthService } from '../runner/health-service.js';
import { CheckerHost } from '../checkers/checker-host.js';
import { detectSandbox } from '../runner/sandbox.js';
import { sandboxPlan } from '../runner/sandbox-plan.js';
import type { PluginManifest } from '../registry/types.js';
import { acquireHostLock } from './host-lock.js';
import { PtyManager } from '../pty/pty-manager.js';
import { ConsoleKeys, terminalHandlers } from '../pty/terminal-handlers.js';

export interface HostOptions {
  home: string;
  shell: 'electron' | 'serve' | 'cli';
  clock?: Clock;
  nativeBinding?: string;
  log?: (msg: string, err?: unknown) => void;
  /** The project whose `.gatehouse/plugins` is searched (default: the working directory). */
  projectDir?: string;
  /** Extra plugin places (--plugins-dir), searched after the home and the project. */
  pluginDirs?: string[];
  /** Plugins enabled for this run only, without pinning (--allowed-plugins). */
  allowedPlugins?: string[];
  /** Operator additions to the command denylist. */
  commandDenylist?: string[];
  /** Watch plugin folders for changes (off for one-shot CLI commands). */
  watch?: boolean;
  /** Refuse to run any plugin unsandboxed (policy setting). */
  requireSandbox?: boolean;
}

/** Tool names Gatehouse itself provides; no plugin may take them. */
export const BUILTIN_TOOLS = ['shell'] as const;

export function pluginSources(home: string, projectDir: string, extra: string[] = []): PluginSource[] {
  return [
    { dir: join(home, 'plugins'), origin: 'home' },
    { dir: join(projectDir, '.gatehouse', 'plugins'), origin: 'project' },
    ...extra.map((dir) => ({ dir, origin: 'cli' as const })),
  ];
}

export interface Host {
  readonly paths: HomePaths;
  readonly audit: AuditStore;
  readonly bus: EventBus<GatehouseContract['events']>;
  readonly dispatcher: Dispatcher;
  readonly startedAt: number;
  readonly registry: PluginRegistry;
  readonly plugins: PluginService;
  /** Resolves once the first plugin discovery has finished. */
  readonly ready: Promise<void>;
  readonly watcher: PluginWatcher | null;
  readonly toolRunner: ToolRunner;
  readonly health: HealthService;
  /** PTY sessions: the runner starts `pty = true` tools and the shell tool here. */
  readonly ptys: PtyManager;
  /** Records that an operator console connected (and, via the returned function, left). */
  operatorConnected(ctx: CallContext, details: Record<string, unknown>): () => void;
  chainState(): ChainState;
  close(reason?: string): Promise<void>;
}

export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

export function createHost(opts: HostOptions): Host {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? ((m: string, e?: unknown) => console.error(`gatehouse: ${m}`, e ?? ''));
  const paths = ensureHome(opts.home);
  const lock = acquireHostLock(paths.root);
  const bus = new EventBus(contract.events, log);
  let audit: AuditStore;
  try {
    audit = new AuditStore({
      path: paths.auditDb,
      clock,
      log,
      ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}),
      onCommit: (lastSeq, count) => {
        bus.emit('audit.appended', { lastSeq, count });
        follow();
      },
    });
  } catch (err) {
    lock.release();
    throw err;
  }
  const startedAt = clock.now();
  let chain: ChainState = { state: 'checking', checked: 0, head: { seq: 0, hash: '' }, firstBad: null, verifiedAt: null };

  // The verifier of the last full check, continued over each committed batch (throttled), so
  // the console's "verified (N events)" keeps up with the log without re-reading all of it.
  let live: ChainVerifier | null = null;
  let followTimer: NodeJS.Timeout | null = null;
  const publish = (v: ChainVerifier, firstBad: ChainState['firstBad']) => {
    chain = { state: firstBad ? 'broken' : 'verified', checked: v.checked, head: v.head, firstBad, verifiedAt: Math.trunc(clock.now()) };
    bus.emit('audit.chain', chain);
    return chain;
  };
  const verify = (): ChainState => {
    const v = new ChainVerifier();
    const r = audit.verify(v);
    live = r.ok ? v : null;
    return publish(v, r.firstBad);
  };
  const follow = () => {
    if (followTimer || !live) return;
    followTimer = setTimeout(() => {
      followTimer = null;
      if (!live || closed) return;
      audit.verifyMore(live);
      if (live.failure) {
        const v = live;
        live = null;
        publish(v, v.failure);
      } else if (live.head.seq !== chain.head.seq) publish(live, null);
    }, 250);
  };
  // Verify before the first append, so a broken chain found at start is reported as found.
  verify();
  audit.append({ type: 'host.started', actor: 'host', payload: { shell: opts.shell, pid: process.pid, version, operator: operatorName() } });

  let checkers: CheckerHost | null = null;
  let trust: TrustStore;
  try {
    trust = new TrustStore(paths.root);
  } catch (err) {
    // The unreadable file was moved aside: start with nothing enabled (fail closed) and say so.
    log((err as Error).message);
    trust = new TrustStore(paths.root);
  }
  const sources = pluginSources(paths.root, opts.projectDir ?? process.cwd(), opts.pluginDirs ?? []);
  const registry = new PluginRegistry({
    sources,
    trust,
    builtins: BUILTIN_TOOLS,
    ...(opts.commandDenylist ? { denylist: opts.commandDenylist } : {}),
    ...(opts.allowedPlugins ? { allowedPlugins: opts.allowedPlugins } : {}),
    clock,
    record: (event, actor) => {
      const { type, ...payload } = event;
      audit.append({ type, actor, payload });
    },
    changed: (names) => {
      bus.emit('plugins.changed', { names });
      // Runs after the registry settles: `checkers` is assigned below, before any change fires.
      void checkers?.sync();
    },
  });
  const plugins = new PluginService(registry, trust, { homePluginsDir: paths.plugins });
  // Health pushes are throttled per plugin: a flood of calls must not flood the consoles.
  const healthTimers = new Map<string, NodeJS.Timeout>();
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
  const breakers = new BreakerBoard({
    clock,
    changed: (plugin, next, prev) => {
      // The breaker also reports counter changes (for the live view); only transitions are audited.
      if (next.state !== prev.state) {
        audit.append({ type: 'breaker.changed', actor: 'host', payload: { plugin, from: prev.state, to: next.state, consecutiveFailures: next.consecutiveFailures, cycle: next.cycle, nextProbeAt: next.nextProbeAt, lastFailure: next.lastFailure } });
      }
      healthChanged(plugin, next);
    },
  });
  const metrics = new PluginMetrics();
  const sandbox = detectSandbox();
  const planFor = (manifest: PluginManifest, dir: string) => sandboxPlan(sandbox, manifest, dir, { requireSandbox: opts.requireSandbox ?? false });
  const toolRunner = new ToolRunner({
    registry,
    breakers,
    metrics,
    sandboxFor: planFor,
    record: (type, actor, payload) => {
      audit.append({ type, actor, payload });
      if (type === 'execution.ended' && typeof payload.plugin === 'string') healthChanged(payload.plugin, null);
    },
  });
  checkers = new CheckerHost({
    registry,
    breakers,
    metrics,
    sandboxFor: planFor,
    onEvent: (e) => {
      if (e.type !== 'checker.breaker') audit.append({ type: e.type.startsWith('checker.') ? e.type : `checker.${e.type}`, actor: 'host', payload: { ...e } });
    },
    log,
  });
  const health = new HealthService({
    registry,
    breakers,
    metrics,
    checkers: () => checkers,
    clock,
    sandbox: () => (sandbox.kind === 'bwrap' ? { kind: 'bwrap', detail: `bubblewrap ${sandbox.version}` } : { kind: 'none', detail: sandbox.reason }),
  });
  const watcher = opts.watch === false ? null : new PluginWatcher({ sources, onFolder: (dir) => registry.refreshFolder(dir), log });
  const ready = registry.refreshAll().then(async () => {
    await checkers?.sync();
    watcher?.start();
    await watcher?.ready();
  });
  ready.catch((err) => log('plugin discovery failed', err));

  const ptys = new PtyManager({
    clock,
    log,
    record: (e) => audit.append(e),
    events: { output: (e) => bus.emit('terminals.output', e), changed: (e) => bus.emit('terminals.changed', e) },
  });
  const consoles = new ConsoleKeys();

  const handlers: Handlers<GatehouseContract['methods']> = {
    'host.info': () => ({ version, shell: opts.shell, home: paths.root, pid: process.pid, startedAt, operator: operatorName() }),
    'audit.verify': () => verify(),
    'audit.chainState': () => chain,
    'audit.tail': ({ limit }) => ({ events: audit.tail(limit) }),
    'plugins.list': async () => {
      await ready;
      return { plugins: plugins.list(), sources: [...sources] };
    },
    'plugins.get': async ({ name }) => {
      await ready;
      return plugins.detail(name);
    },
    'plugins.readFile': ({ name, path }) => plugins.readFile(name, path),
    'plugins.writeFile': ({ name, path, content }, ctx) => {
      const r = plugins.writeFile(name, path, content);
      audit.append({ type: 'plugin.file-saved', actor: `operator:${ctx.operator}`, payload: { name, path, bytes: r.bytes, console: ctx.console } });
      return r;
    },
    'plugins.check': ({ name, path, content }) => plugins.check(name, path, content),
    'plugins.create': async ({ name, lang }, ctx) => {
      const r = plugins.create(name, lang);
      audit.append({ type: 'plugin.created', actor: `operator:${ctx.operator}`, payload: { name, lang, dir: r.dir } });
      // Pick it up now rather than waiting for the watcher, so the caller can open it at once.
      await registry.refreshFolder(r.dir);
      return r;
    },
    'plugins.enable': async ({ name, overrideReason }, ctx) => summary(await registry.enable(name, ctx.operator, overrideReason)),
    'plugins.disable': async ({ name }, ctx) => summary(await registry.disable(name, ctx.operator)),
    'plugins.approveChange': async ({ name, overrideReason }, ctx) => summary(await registry.approveChange(name, ctx.operator, overrideReason)),
    // A test run goes through the real runner (breaker, limits, sandbox), attributed to the operator.
    'plugins.testRun': ({ name, tool, input }, ctx) => toolRunner.call(name, tool, input, { actor: `operator:${ctx.operator}`, testRun: true }),
    'health.list': async () => {
      await ready;
      return health.list();
    },
    'health.reset': ({ name }, ctx) => {
      audit.append({ type: 'breaker.reset', actor: `operator:${ctx.operator}`, payload: { plugin: name } });
      return health.reset(name);
    },
    'health.restart': async ({ name }, ctx) => {
      audit.append({ type: 'plugin.restart', actor: `operator:${ctx.operator}`, payload: { plugin: name } });
      return health.restart(name);
    },
    ...terminalHandlers(ptys, consoles),
  };
  const dispatcher = createDispatcher(contract.methods, handlers, log);

  let closed = false;
  return {
    paths,
    audit,
    bus,
    dispatcher,
    startedAt,
    registry,
    plugins,
    ready,
    watcher,
    toolRunner,
    health,
    ptys,
    chainState: () => chain,
    operatorConnected(ctx, details) {
      audit.append({ type: 'operator.connected', actor: `operator:${ctx.operator}`, payload: { console: ctx.console, ...details } });
      consoles.of(ctx);
      return () => {
        // Its terminals stop waiting for its acknowledgments, and it can no longer type.
        const key = consoles.left(ctx);
        if (key) ptys.consoleLeft(key);
        if (!closed) audit.append({ type: 'operator.disconnected', actor: `operator:${ctx.operator}`, payload: { console: ctx.console, ...details } });
      };
    },
    async close(reason = 'shutdown') {
      if (closed) return;
      closed = true;
      if (followTimer) clearTimeout(followTimer);
      for (const t of healthTimers.values()) clearTimeout(t);
      bus.emit('host.stopping', { reason });
      await watcher?.close();
      await checkers?.close();
      await ptys.close();
      const last = audit.append({ type: 'host.stopped', actor: 'host', payload: { reason } });
      audit.flush();
      await last.durable;
      audit.close();
      lock.release();
    },
  };
}
