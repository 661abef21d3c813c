// The agents' side of the host, wired together: the approval inbox (restored from the audit
// database), session taint, upstream MCP servers, the guarded extractor, the gateway and the MCP
// server in front of it, the hook routes and agent tokens. Built after the policy and the plugin
// side, which it uses. Part of the composition root: it only builds and connects.
import type { CallTrails } from '../audit/call-trails.js';
import { homedir } from 'node:os';
import { sep } from 'node:path';
import { installRoot } from '../core/install-files.js';
import { ApprovalQueue } from '../approvals/approval-queue.js';
import { ApprovalStore } from '../approvals/approval-store.js';
import { agentRoutes, type HookRefusalSink } from '../gateway/agent-routes.js';
import { AgentTokens } from '../gateway/agent-tokens.js';
import { agentIntegrations } from '../agents/index.js';
import { Gateway } from '../gateway/gateway.js';
import { hookRefusalRecorder } from '../gateway/hook-refusals.js';
import { HookOutcomes } from '../gateway/hook-outcomes.js';
import { McpGateway } from '../gateway/mcp-server.js';
import { UpstreamMcp } from '../gateway/upstream-mcp.js';
import { TaintRegistry } from '../policy/autonomy.js';
import { GuardedExtractor } from '../policy/extract/guarded-extract.js';
import type { PolicyStore } from '../policy/rules/store.js';
import { shellPlan } from '../runner/sandbox-plan.js';
import { version } from '../version.js';
import type { AgentEndpoints, HostBase, HostOptions } from './host-types.js';
import type { startPluginServices } from './plugin-services.js';
import { Signal } from './signal.js';

export interface GatewayServicesDeps extends HostBase {
  opts: Pick<HostOptions, 'upstream' | 'projectDir' | 'claudeUserHome' | 'mcpMaxSessions'>;
  record: (type: string, actor: string, payload: Record<string, unknown>) => void;
  /** Each call's trail in the log (call-trails.ts): a tool runs and an agent is answered once its own events are on disk. */
  trails: CallTrails;
  plugins: ReturnType<typeof startPluginServices>;
  policy: PolicyStore;
  /** Where agents reach this host, once a shell listens. */
  endpoints: () => AgentEndpoints | null;
  /** Why an ask is denied instead of waiting (team mode's outage setting); see PipelineDeps.askRefusal. */
  askRefusal?: () => string | null;
}

export function startGatewayServices(d: GatewayServicesDeps) {
  const { opts, paths, clock, log, audit, bus, settings, services, record, policy } = d;
  const { registry, planFor, breakers, metrics, sandbox, requireSandbox, ptys, toolRunner, checkers, containment } = d.plugins;
  const userHome = homedir();
  let knownPending = new Set<string>();
  // Inbox items and grants live in the audit database beside the log, so a restart loses neither.
  const approvalStore = new ApprovalStore(audit.db, (sql, params) => audit.queueWrite(sql, params));
  const approvals: ApprovalQueue = new ApprovalQueue({
    clock,
    record,
    store: approvalStore,
    log,
    changed: () => {
      const pending = approvals.list({ state: 'pending' });
      const added = pending.filter((i) => !knownPending.has(i.id)).map((i) => ({ id: i.id, agent: i.call.agent, tool: i.call.tool }));
      knownPending = new Set(pending.map((i) => i.id));
      bus.emit('approvals.changed', { pending: pending.length, added });
      bus.emit('grants.changed', { count: approvals.grants.list().length });
    },
  });
  services.add(() => approvals.close());
  {
    // What the last run left: its history and live grants come back; a call it left waiting (it
    // stopped without closing it: a crash, a kill) is closed now, with call.abandoned.
    const kept = approvalStore.load((table, id, err) => log(`approvals: row ${id} of ${table} is unreadable and was skipped`, err));
    approvals.restore(kept.items);
    approvals.grants.restore(kept.grants);
  }
  const taint = new TaintRegistry();
  // The tool set agents see changed (upstream servers are built before the MCP server that
  // announces it, so they announce through this; the MCP server subscribes once it exists).
  const toolSetChanged = new Signal();
  // mcp-kind plugins: upstream servers, started when enabled, their tools re-exposed and gated.
  const upstream = opts.upstream !== undefined ? opts.upstream : new UpstreamMcp({ registry, sandboxFor: planFor, breakers, metrics, record, changed: () => toolSetChanged.emit(), log });
  const upstreamMcp = upstream instanceof UpstreamMcp ? upstream : null;
  services.add(() => upstreamMcp?.close());
  // Agents' calls are judged through the guard: caps, a worker with a deadline for large calls, a
  // fresh parser after a failure; a failure denies that call only.
  const judge = new GuardedExtractor({ home: userHome });
  services.add(() => judge.close());
  const gateway: Gateway = new Gateway({
    extract: (call) => judge.extract(call),
    policy,
    checkers: { evaluate: (p) => checkers.evaluate(p), active: () => checkers.active() },
    approvals,
    grants: approvals.grants,
    approvalExpiresInMs: () => settings.current.approvalExpiryMinutes * 60_000,
    ...(d.askRefusal ? { askRefusal: d.askRefusal } : {}),
    record,
    log,
    registry,
    toolRunner,
    upstream,
    settings,
    taint,
    // Confined like a plugin: the host's sandbox, the require-sandbox setting, and Gatehouse's own folder hidden.
    shell: { ptys, plan: (scope, timeoutMs) => shellPlan(sandbox, scope, { timeoutMs, requireSandbox: requireSandbox(), gatehouseHome: paths.root }) },
    defaultCwd: defaultWorkingFolder(opts.projectDir, process.cwd(), installRoot(), userHome),
    gatehouseHome: paths.root,
    clock,
    durability: d.trails,
    contain: (call, decider, grant, cannotBox) => containment.decide(call, decider, grant, cannotBox),
  });
  // "Don't ask again" and "for this session" also answer the calls already waiting that the new
  // grant covers, judged again as new calls would be (one place: CallPipeline.releaseWaiting).
  services.add(approvals.grants.onCreate(() => void gateway.releaseWaiting().catch((err: unknown) => log('releasing waiting calls after a grant failed', err))));
  const mcp: McpGateway = new McpGateway({ gateway, version, log, sessionEnded: (id) => taint.forget(id), clientTimeouts: () => settings.current.mcpClientTimeouts, ...(opts.mcpMaxSessions !== undefined ? { maxSessions: opts.mcpMaxSessions } : {}) });
  services.add(() => mcp.close());
  // Any plugin change may change the tools agents see (names can change with the count unchanged):
  // MCP clients re-list, consoles refetch.
  services.add(toolSetChanged.subscribe(() => {
    mcp.toolsChanged();
    bus.emit('gateway.toolsChanged', { count: gateway.tools().length });
  }));
  // A plugin change may enable or disable an upstream server, and changes the plugin tools.
  services.add(d.plugins.onChanged(() => {
    void upstreamMcp?.sync();
    toolSetChanged.emit();
  }));
  // What Claude Code reports after running a hook-supervised call (PostToolUse): recorded, and taints the session.
  const hookOutcomes = new HookOutcomes({ record, taint, classify: (tool) => gateway.find(tool)?.classification, log });
  // Hook requests refused before judgement are audited (kind and reason only, never the token or input).
  // A flood of them is counted, not written row by row (hook-refusals.ts).
  const hookRefused: HookRefusalSink = hookRefusalRecorder({
    now: () => clock.now(),
    record: (payload) => {
      try {
        record('hook.refused', 'host', payload);
      } catch (err) {
        log('hook.refused not recorded', err);
      }
    },
  });
  const routes = agentRoutes({ gateway, mcp, settings: () => settings.current, outcomes: hookOutcomes, refused: hookRefused, log });
  const agentTokens = new AgentTokens({ home: paths.root, record, clock, log, revoked: (name) => mcp.endSessionsOf(name) });
  // The agents' own files (Claude Code's, Codex's …), edited for the operator after a previewed
  // diff (agents.preview / agents.write). Codex's also tells the host how long Codex waits.
  const integrations = agentIntegrations({
    userHome: opts.claudeUserHome ?? homedir(),
    // A test's injected home holds its own .codex; otherwise CODEX_HOME as Codex reads it.
    codexHome: opts.claudeUserHome ? undefined : process.env.CODEX_HOME,
    copilotHome: opts.claudeUserHome ? undefined : process.env.COPILOT_HOME,
    gatehouseHome: paths.root,
    endpoints: d.endpoints,
    approvalExpiryS: () => settings.current.approvalExpiryMinutes * 60,
    setClientTimeout: (client, seconds, actor) => void settings.update({ mcpClientTimeouts: { ...(settings.current.mcpClientTimeouts ?? {}), [client]: seconds } }, actor),
    record,
    now: () => clock.now(),
  });
  return { approvals, upstreamMcp, gateway, mcp, hookRefused, routes, agentTokens, integrations, containment };
}

/**
 * The folder a call that names none (an MCP client that sends no working folder) is judged and run
 * in: the project the host was started for, else the folder it was started in — unless that is
 * Gatehouse's own installation (`npm start` in a checkout). There, every ordinary command would be
 * judged as touching Gatehouse's own files and scripts (`npm run build` runs its package scripts,
 * which agents may not), and denied for a folder the agent never chose: the user's home instead.
 */
export function defaultWorkingFolder(projectDir: string | undefined, cwd: string, root: string | null, home: string): string {
  if (projectDir) return projectDir;
  if (root && (cwd === root || cwd.startsWith(root.endsWith(sep) ? root : root + sep))) return home;
  return cwd;
}
