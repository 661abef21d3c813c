// What a host is built from (HostOptions) and what it offers its shells and tests (Host): kept
// apart from the composition root so that reading one does not mean reading the other.
import type { ChainState, GatehouseContract, Settings } from '../../shared/contract.js';
import type { ApprovalQueue } from '../approvals/approval-queue.js';
import type { AuditStore, Clock, RetentionPolicy } from '../audit/audit-store.js';
import type { Disposables } from '../core/disposables.js';
import type { CallContext, Dispatcher } from './dispatcher.js';
import type { EventBus } from './event-bus.js';
import type { AgentHandler, HookRefusalSink } from '../gateway/agent-routes.js';
import type { AgentTokens } from '../gateway/agent-tokens.js';
import type { Gateway, UpstreamTools } from '../gateway/gateway.js';
import type { McpGateway } from '../gateway/mcp-server.js';
import type { SettingsStore } from '../gateway/settings-store.js';
import type { HomePaths } from '../home.js';
import type { PolicyStore } from '../policy/rules/store.js';
import type { PtyManager } from '../pty/pty-manager.js';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import type { PluginService } from '../registry/plugin-service.js';
import type { PluginWatcher } from '../registry/plugin-watcher.js';
import type { HealthService } from '../runner/health-service.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { TeamOptions } from '../team/team-link.js';
import type { TeamLinkStatus } from '../team/team-shipper.js';

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
  /** Plugins enabled and pinned for this run only (--allowed-plugins): a change quarantines them. */
  allowedPlugins?: string[];
  /** Operator additions to the command denylist. */
  commandDenylist?: string[];
  /** Watch plugin folders for changes (off for one-shot CLI commands). */
  watch?: boolean;
  /** The watcher's burst timing (PluginWatcher's debounceMs and maxWaitMs; defaults 120 ms and 5 s). */
  watchTiming?: { debounceMs?: number; maxWaitMs?: number };
  /** Refuse to run any plugin unsandboxed (also a setting; either one forbids it). */
  requireSandbox?: boolean;
  /** Settings for this run only (`gatehouse serve --live --autonomy …`), never saved. */
  settingsOverrides?: Partial<Settings>;
  /** Upstream MCP servers (mcp-kind plugins); built by the host when absent. */
  upstream?: UpstreamTools | null;
  /** Audit retention for this run, over the settings' auditRetentionDays/auditMaxEvents; intervalMs: how often it runs (default hourly). */
  auditRetention?: RetentionPolicy & { intervalMs?: number };
  /** Whose ~/.claude/settings.json and ~/.claude.json "write it for me" edits (default: the OS user's home; tests pass a temporary folder). */
  claudeUserHome?: string;
  /** The bundled example plugins, copied into the home's plugins folder the first time a console host starts on it (the shells pass it; CLI commands do not). */
  examplesDir?: string;
  /** `--allow-plugin-load`: terminal adapters may be loaded and unloaded at run time (plugin.load). */
  allowPluginLoad?: boolean;
  /** Team mode (`--team URL`, GATEHOUSE_TEAM_URL): ship this host's audit events to the team database. */
  team?: TeamOptions;
  /** MCP sessions one agent may hold open at /mcp (McpGateway's maxSessions; default 256). */
  mcpMaxSessions?: number;
}

/** Where agents reach this host; set by the shell once it listens. */
export interface AgentEndpoints {
  mcpUrl: string;
  hookUrl: string;
  agentToken: string;
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
  readonly gateway: Gateway;
  readonly mcp: McpGateway;
  readonly settings: SettingsStore;
  readonly approvals: ApprovalQueue;
  readonly policy: PolicyStore;
  /** The agents' HTTP routes (/mcp, the hook), for a shell to mount behind the agent token. */
  readonly agentRoutes: AgentHandler;
  /** Records a hook request a shell refused before judgement (bad token, Host, Origin). */
  readonly hookRefused: HookRefusalSink;
  /** Named agent tokens; a shell authenticates agents' requests here. */
  readonly agentTokens: AgentTokens;
  setAgentEndpoints(e: AgentEndpoints): void;
  /** Records that an operator console connected (and, via the returned function, left). */
  operatorConnected(ctx: CallContext, details: Record<string, unknown>): () => void;
  chainState(): ChainState;
  /** The link to the team database (null: not in team mode). */
  teamStatus(): TeamLinkStatus | null;
  /**
   * Denies every call waiting for an operator ("Gatehouse is shutting down", `call.abandoned`)
   * and lets their answers go out: a shell calls it before it closes the agents' connections.
   * `close` calls it too. Returns how many calls were waiting.
   */
  answerWaiting(): Promise<number>;
  close(reason?: string): Promise<void>;
}

/** What every part of the host is built on: started first by createHost and handed to each side's services. */
export interface HostBase {
  paths: HomePaths;
  clock: Clock;
  log: (msg: string, err?: unknown) => void;
  audit: AuditStore;
  bus: EventBus<GatehouseContract['events']>;
  settings: SettingsStore;
  /** Where each service started is registered to be closed. */
  services: Disposables;
}
