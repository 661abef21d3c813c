// The composition root: builds every service of the host from its dependencies, connects their
// events to the audit log and the consoles, and spreads each domain's handlers (its
// `*-handlers.ts`, beside the service) into the contract's table. Wiring only: what a service does
// lives in its own folder. Everything started is registered in one Disposables, so close() stops
// it in reverse order. Both shells call this and only add a transport around `dispatcher` and `bus`.
import { guardSpawns } from '../core/sealed-fds.js';
import { operatorName } from '../core/operator.js';
import { contract, type GatehouseContract } from '../../shared/contract.js';
import { systemClock, type AuditStore } from '../audit/audit-store.js';
import { ChainMonitor } from '../audit/chain-monitor.js';
import { CallTrails } from '../audit/call-trails.js';
import { closingEvent, openTrailsOfLastRun } from '../audit/open-trails.js';
import { defaultHome, ensureHome } from '../home.js';
import { exampleToolNote } from '../onboarding/example-tool-note.js';
import { createDispatcher, type Handlers } from './dispatcher.js';
import { EventBus } from './event-bus.js';
import type { AgentEndpoints, Host, HostOptions } from './host-types.js';
import { inCallContext, recordedBy, withConsole } from './operator-context.js';
import { version } from '../version.js';
import { PluginWatcher } from '../registry/plugin-watcher.js';
import { openCheckedAuditStore } from '../audit/audit-recover.js';
import { headFileFor } from '../audit/audit-head.js';
import { EventLoopMonitor } from './event-loop-monitor.js';
import { acquireHostLock } from './host-lock.js';
import { ConsoleKeys, terminalHandlers } from '../pty/terminal-handlers.js';
import { homedir } from 'node:os';
import { grantHandlers } from '../approvals/grant-handlers.js';
import { agentTokenHandlers } from '../gateway/agent-tokens.js';
import { catalogHandlers } from '../catalog/catalog-handlers.js';
import { SettingsStore } from '../gateway/settings-store.js';
import { AuditQuery } from '../audit/audit-query.js';
import { FirstRunFile, offerExamples } from '../onboarding/first-run-state.js';
import { GettingStarted } from '../onboarding/getting-started.js';
import { Jobs } from './jobs.js';
import { firstScan } from './first-scan.js';
import { answerWaitingOnStop } from '../approvals/answer-waiting.js';
import { startPluginServices } from './plugin-services.js';
import { startGatewayServices } from './gateway-services.js';
import { Disposables } from '../core/disposables.js';
import { hostHandlers } from './host-handlers.js';
import { auditHandlers } from '../audit/audit-handlers.js';
import { registryHandlers } from '../registry/registry-handlers.js';
import { healthHandlers } from '../runner/health-handlers.js';
import { approvalHandlers } from '../approvals/approvals-handlers.js';
import { settingsHandlers } from '../gateway/settings-handlers.js';
import { agentConfigHandlers } from '../agents/handlers.js';
import { policyHandlers } from '../policy/policy-handlers.js';
import { onboardingHandlers } from '../onboarding/onboarding-handlers.js';
import { AdapterService } from '../adapters/adapter-service.js';
import { adapterHandlers } from '../adapters/adapter-handlers.js';
import { adapterFolderChanged, adapterPluginHandlers } from '../adapters/adapter-plugin-handlers.js';
import { pluginSources } from '../registry/plugin-sources.js';
import { startPolicyServices } from './policy-services.js';
import { LateBinding } from './late-binding.js';
import { Signal } from './signal.js';
import { startTeamLink, teamOutageRefusal } from '../team/team-link.js';
import { auditDbSource } from '../team/chain-source.js';
import { startTeamInbox, type TeamInbox } from '../team/team-inbox.js';
import { TeamPolicyFollower } from '../team/team-policy.js';
import { TeamGrantFollower } from '../team/team-grants.js';
import { startTeamConsole } from '../team/team-console.js';
import { OperationError } from '../core/operation-error.js';

/**
 * Why a terminal adapter's allowed command is not boxed: its answer is a key typed into a program
 * that then runs the command itself. A grant or an autonomy level that promises the box still lets
 * it through, as when the machine has no box, and the answer and the log say so (call.contained).
 */
const ADAPTER_CANNOT_BOX = 'the program in the terminal runs the command itself, and Gatehouse only answers its question, so it cannot put the command in the box';

export type { AgentEndpoints, Host, HostOptions } from './host-types.js';

export function createHost(opts: HostOptions): Host {
  // Built in dependency order: each part after what it uses, so no closure reads a binding declared
  // below it (eslint's no-use-before-define holds main/host/ to it). A part built early tells parts
  // built later through a subscription (Signal, onChanged), never through a forward reference.
  // What the host holds open (what it was started with, what the desktop app's Chromium opens) is
  // no plugin's to reach: covered in every spawn (core/sealed-fds.ts).
  guardSpawns();
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? ((m: string, e?: unknown) => console.error(`gatehouse: ${m}`, e ?? ''));
  const paths = ensureHome(opts.home);
  // Everything started below is closed through this, in reverse: a service stops before what it uses.
  const services = new Disposables();
  const lock = acquireHostLock(paths.root);
  services.add(() => lock.release());
  const bus = new EventBus(contract.events, log);

  // ---- the audit log, its call trails and the chain monitor ---------------------------------------
  // The one true cycle: the store reports commits and write failures to the chain monitor and the
  // call trails, which are both built on the store. Bound once, below, before this run's first append;
  // a report before that (a recovery's chain.restarted) has nobody to tell: the chain is verified from disk.
  const auditObserver = new LateBinding<{ committed(): void; writeState(failure: string | null): void }>('the audit store observer');
  // Committed batches, for the team shipper (team mode), which is built after the store.
  const auditCommitted = new Signal();
  let audit: AuditStore;
  try {
    audit = openCheckedAuditStore(
      {
        path: paths.auditDb,
        headFile: headFileFor(paths.auditDb),
        clock,
        log,
        ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}),
        decorate: (e) => withConsole(e),
        onCommit: (lastSeq, count) => {
          bus.emit('audit.appended', { lastSeq, count });
          auditObserver.current?.committed();
          auditCommitted.emit();
        },
        // A full disk (or any write failure) shows where the chain's state shows, on every console.
        onWriteState: (failure) => auditObserver.current?.writeState(failure),
      },
      paths.root,
    );
  } catch (err) {
    lock.release();
    throw err;
  }
  services.add(() => audit.close());
  // From here on every append goes through the trails: no call's trail is written in part.
  const callTrails = new CallTrails(audit);
  // The log's last words, once every service that might still record something has closed.
  let stopReason = 'shutdown';
  services.add(async () => {
    // Every service that could still finish a call has stopped: the calls still in flight are
    // closed now, before the log's last words (a clean stop is not read again at the next start).
    callTrails.closeUnfinished();
    const last = audit.append({ type: 'host.stopped', actor: 'host', payload: { reason: stopReason } });
    // Sent now, not waited for here: the durable promise below is.
    audit.flush(0);
    // A log that cannot be written (deleted, disk full) has said so already; stopping still stops.
    await last.durable.catch((err: unknown) => log(`host.stopped could not be recorded: ${err instanceof Error ? err.message : String(err)}`));
  });
  const startedAt = clock.now();
  // Long work (verify, export, replay, plugin scans): progress to every console, cancellable.
  const jobs = new Jobs({ now: () => clock.now(), emit: (job) => bus.emit('jobs.progress', job) });
  const record = (type: string, actor: string, payload: Record<string, unknown>) => {
    audit.append({ type, actor, payload });
  };
  // Read from the file, nothing recorded: built before the chain monitor, whose retention reads it.
  const settingsChanged = new Signal();
  const settings = new SettingsStore({
    file: paths.settings,
    ...(opts.settingsOverrides ? { overrides: opts.settingsOverrides } : {}),
    record,
    changed: (view) => {
      bus.emit('settings.changed', view);
      settingsChanged.emit();
    },
  });
  if (settings.view().error) log(settings.view().error!);
  const chain = new ChainMonitor({
    audit,
    clock,
    log,
    changed: (state) => bus.emit('audit.chain', state),
    retention: () => ({
      maxAgeDays: opts.auditRetention?.maxAgeDays ?? settings.current.auditRetentionDays,
      maxEvents: opts.auditRetention?.maxEvents ?? settings.current.auditMaxEvents,
    }),
  });
  services.add(() => chain.close());
  auditObserver.bind({ committed: () => chain.committed(), writeState: (failure) => { chain.writeState(failure); if (failure === null) callTrails.resumed(); } });
  services.add(settingsChanged.subscribe(() => chain.retain()));
  // Verify before the first append, so a broken chain found at start is reported as found.
  chain.verify();
  // Read before this run's host.started: the last run's open trails, when it did not stop cleanly.
  const leftOpen = openTrailsOfLastRun(audit.db);
  audit.append({ type: 'host.started', actor: 'host', payload: { shell: opts.shell, pid: process.pid, version, operator: operatorName() } });
  for (const t of leftOpen) {
    const closing = closingEvent(t);
    audit.append({ type: closing.type, actor: 'host', payload: closing.payload });
  }

  const firstRun = new FirstRunFile(paths.firstRun);
  if (firstRun.error) log(firstRun.error);
  if (opts.examplesDir) {
    // Before discovery, so the first listing already shows them (disabled).
    try {
      const copied = offerExamples(firstRun, opts.examplesDir, paths.plugins, clock.now());
      if (copied && copied.length > 0) record('plugin.examples-copied', 'host', { names: copied, from: opts.examplesDir, to: paths.plugins });
    } catch (err) {
      log(`could not copy the example plugins from ${opts.examplesDir}`, err);
    }
  }
  // Retention: at start, whenever settings change, and periodically.
  chain.startRetention(opts.auditRetention?.intervalMs);

  // ---- the team (only with a team URL): this host's chained events shipped to PostgreSQL ----------
  // Beside the call path, never in it: an outage queues events in the local log (see team-shipper.ts).
  const team = opts.team
    ? startTeamLink({
        ...opts.team,
        source: auditDbSource(audit.db),
        clock,
        log,
        version,
        linkChanged: ({ state, member, shippedSeq, lag, error }) => record('team.link', 'host', { state, member, shippedSeq, lag, ...(error ? { error } : {}) }),
        statusChanged: (status) => bus.emit('team.link', status),
      })
    : null;
  if (team) {
    services.add(auditCommitted.subscribe(() => team.nudge()));
    services.add(() => team.close());
  }
  // What consoles read from the team database (the Team view): a pool of its own, opened on first use.
  const teamConsole = opts.team && team ? startTeamConsole({ ...opts.team, link: () => team.status(), log, home: paths.root, asksChanged: () => bus.emit('team.asksChanged', {}) }) : null;
  if (teamConsole) services.add(() => teamConsole.close());

  // ---- the policy, then the plugin side, which WebAssembly plugins' host functions judge by ---------
  const sources = pluginSources(paths.root, opts.projectDir ?? process.cwd(), opts.pluginDirs ?? []);
  const { policy, policyEditor } = startPolicyServices({ opts, paths, clock, log, bus, services, record, sources });
  const pluginSide = startPluginServices({ opts, paths, clock, log, audit, bus, settings, services, sources, policy });
  const { registry, plugins, ptys, toolRunner, health } = pluginSide;
  const eventLoop = new EventLoopMonitor();
  services.add(() => eventLoop.close());
  const consoles = new ConsoleKeys();
  const auditQuery = new AuditQuery({ store: audit, raw: () => settings.current.auditRaw });

  // ---- the gateway: approvals, taint, and the MCP server in front of them -------------------------
  // Set by the shell once it listens (setAgentEndpoints); read when a config file is written.
  let endpoints: AgentEndpoints | null = null;
  // Set once the team inbox exists (below); until then no ask reaches the team.
  let teamInbox: TeamInbox | null = null;
  const agentSide = startGatewayServices({ opts, paths, clock, log, audit, bus, settings, services, record, trails: callTrails, plugins: pluginSide, policy, endpoints: () => endpoints, ...(opts.team ? { askRefusal: () => teamOutageRefusal(teamInbox?.listening() ?? false, settings.current.teamOutageAsks) } : {}) });
  const { approvals, upstreamMcp, gateway, mcp, hookRefused, routes, agentTokens, integrations } = agentSide;
  // Team mode: this host's asks are published to the team inbox, and decisions signed by a named
  // operator on any member's console are applied here (team-inbox.ts). Beside the local inbox, never instead of it.
  // The team policy and team grants follow over the same listening connection: the policy version in
  // force last time is applied now, before the first call is judged, then each newer signed version
  // (team-policy.ts); signed team grants are held as local grants (team-grants.ts).
  if (opts.team) {
    const teamPolicy = new TeamPolicyFollower({ member: opts.team.member, store: policy, file: paths.teamPolicy, record, log });
    teamPolicy.loadSaved();
    const teamGrants = new TeamGrantFollower({ member: opts.team.member, grants: approvals.grants, home: homedir(), now: () => clock.now(), record, log });
    const inbox = startTeamInbox({ ...opts.team, approvals, record, log, followers: [teamPolicy, teamGrants], onChanged: (fn) => bus.subscribe((name) => name === 'approvals.changed' && fn()) });
    teamInbox = inbox;
    services.add(() => inbox.close());
  }

  // ---- what runs on the gateway: supervised terminals, onboarding, the plugin watcher -------------
  const adapters = new AdapterService({
    ptys,
    clock,
    record: (e) => audit.append(e),
    folders: () => sources.map((src) => src.dir),
    allowPluginLoad: opts.allowPluginLoad ?? false,
    changed: (info) => bus.emit('adapters.changed', info),
    // A supervised terminal's permission question is judged like a hook call (decide only: the
    // program does the work), so policy, autonomy and grants apply and the rest reaches the inbox.
    ask: async (q, waiting, gone) => {
      const r = await gateway.call(
        { agent: `terminal:${q.terminal}`, session: q.session, tool: q.request?.tool ?? 'terminal_permission', arguments: { ...(q.request?.arguments ?? {}), question: q.question, options: q.options }, cwd: q.cwd, source: 'hook', client: `adapter ${q.plugin}` },
        { execute: false, signal: gone, onWaiting: (w) => waiting(w.approval), deadlineReason: 'the terminal adapter waits until the approval expires', uncontainable: ADAPTER_CANNOT_BOX },
      );
      const approval = r.approval ? { approval: r.approval } : {};
      // Dry-run: no answer is typed, whatever was decided (mayRun: nothing acts on Gatehouse's say).
      if (r.mode === 'dry-run') return { decision: 'dry-run', would: r.decision, reason: `Dry run: Gatehouse would have ${r.decision === 'allow' ? 'allowed' : r.decision === 'ask' ? 'asked about' : r.decision === 'expired' ? 'let expire' : 'denied'} this (${r.reason}); nothing was typed, the question is left to the person at the terminal.`, decider: r.decider, ...approval };
      // Containment would box this command, but the program runs what it runs: said with the answer (and on record as call.contained).
      const reason = r.contained && !r.contained.contained ? `${r.reason} It runs uncontained: ${r.contained.reason}.` : r.reason;
      return { decision: r.decision, reason, decider: r.decider, ...approval };
    },
  });
  services.add(() => adapters.dispose());
  adapters.discover();
  services.add(registry.onAdapterFolder(adapterFolderChanged(adapters, (names) => bus.emit('plugins.changed', { names }))));
  const gettingStarted = new GettingStarted({
    file: firstRun,
    plugin: (name) => registry.get(name),
    mode: () => settings.current.mode,
    gateway,
    pluginOfTool: (tool) => gateway.find(tool)?.plugin ?? null,
    sessionEvents: (session) => auditQuery.session(session, 1000).events,
    lastAgentCall: () => auditQuery.lastAgentCall(),
    record,
    clock,
    log,
  });
  const watcher =
    opts.watch === false
      ? null
      : new PluginWatcher({
          sources,
          onFolder: (dir) => registry.refreshFolder(dir),
          // A burst over several folders (a checkout): one full rescan, one change for consoles and MCP clients.
          onFolders: (dirs) => (dirs.length === 1 ? registry.refreshFolder(dirs[0]!) : registry.refreshAll()),
          log,
          ...opts.watchTiming,
        });
  services.add(() => watcher?.close());
  const ready = firstScan({
    jobs, registry, policyEditor, record, log, watcher,
    allowedPlugins: opts.allowedPlugins ?? [],
    sync: () => Promise.all([pluginSide.checkers.sync(), upstreamMcp?.sync()]),
  });
  gateway.judgeAfter(ready);

  // Set by close(): the catalog stops refreshing, a console leaving is no longer recorded.
  let closed = false;
  const handlers: Handlers<GatehouseContract['methods']> = {
    ...hostHandlers({ shell: opts.shell, home: paths.root, startedAt, jobs }),
    ...auditHandlers({ audit, query: auditQuery, chain, jobs, raw: () => settings.current.auditRaw, policy, autonomy: () => ({ level: settings.current.autonomy, autoApprove: settings.current.autoApprove, alwaysAsk: settings.current.alwaysAsk }), ...(teamConsole ? { teamSearch: (req) => teamConsole.search(req) } : {}) }),
    ...adapterPluginHandlers(registryHandlers({ registry, plugins, sources, ready, jobs, record }), { adapters, sources, registryHas: (name) => registry.get(name) !== undefined, record, changed: (names) => bus.emit('plugins.changed', { names }) }),
    ...healthHandlers({ health, toolRunner, ready, containmentReady: () => pluginSide.containment.ready(), eventLoop: () => eventLoop.snapshot(), record, logFailure: () => callTrails.failure() }),
    ...terminalHandlers(ptys, consoles),
    ...adapterHandlers(adapters),
    ...agentConfigHandlers({ gateway, endpoints: () => endpoints, pending: () => approvals.pendingSize(), integrations, hostNotes: () => [exampleToolNote((name) => registry.get(name), paths.root, defaultHome())].filter((n) => n !== null) }),
    ...approvalHandlers({ approvals, clock, policy: policyEditor, sessionGrantMinutes: () => settings.current.sessionGrantMinutes }),
    ...grantHandlers({ approvals, audit, clock, home: homedir() }),
    ...agentTokenHandlers(agentTokens),
    ...catalogHandlers({ home: paths.root, audit, log, installed: (dir) => registry.refreshFolder(dir), isEnabled: (name) => registry.get(name)?.status === 'enabled', removed: (dir) => registry.refreshFolder(dir), changed: (source) => bus.emit('catalog.changed', { source }), closed: () => closed, ...(opts.shell === 'cli' ? {} : { refreshHours: () => settings.current.catalogRefreshHours ?? 6 }) }),
    ...settingsHandlers(settings),
    ...policyHandlers(policyEditor),
    ...onboardingHandlers(gettingStarted, ready),
    'team.status': () => team?.status() ?? null,
    'team.members': async () => ({ team: (await teamConsole?.members()) ?? null }),
    'team.asks': () => teamConsole?.asks() ?? { asks: null, now: clock.now(), error: null },
    'team.decide': async (req, ctx) => {
      if (!teamConsole) throw new OperationError('not-team', 'This host is not in team mode, so it has no team inbox: start it with gatehouse serve --team URL.');
      const r = await teamConsole.decide(req);
      // The operator's action, in this host's own chain; the member records the decision it applies in its own.
      record('team.decision-sent', `operator:${ctx.operator}`, { member: req.member, id: req.approvalId, decision: req.decision, operator: r.operator, outcome: r.outcome });
      return r;
    },
  };
  // Durability as the audit log gives it (through the call trails), waited for only by calls that recorded something themselves.
  const durability = { get headSeq() { return callTrails.headSeq; }, mark: () => callTrails.mark(), whenDurable: (m: number) => callTrails.whenDurable(m), writeError: () => callTrails.writeError(), recordedBy };
  const dispatcher = createDispatcher(contract.methods, inCallContext(handlers), log, durability);

  // Calls waiting for an operator are denied and answered before anything else stops.
  const answerWaiting = answerWaitingOnStop(approvals, audit);
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
    gateway,
    mcp,
    settings,
    approvals,
    policy,
    agentRoutes: routes,
    hookRefused,
    agentTokens,
    setAgentEndpoints(e) {
      endpoints = e;
    },
    chainState: () => chain.state(),
    teamStatus: () => team?.status() ?? null,
    answerWaiting,
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
      stopReason = reason;
      bus.emit('host.stopping', { reason });
      jobs.cancelAll();
      // Calls waiting for an operator are denied (fail closed) and answered before anything else stops.
      await answerWaiting();
      // Then everything started, last first; one that fails to close does not keep the rest open.
      await services.disposeAll();
    },
  };
}
