// "Write it for me" for opencode: Gatehouse's plugin file (plugin-source.ts) in opencode's plugins
// folder (~/.config/opencode/plugins/gatehouse.js, or a project's .opencode/plugins/gatehouse.js;
// opencode loads every .js there, no config entry needed), and Gatehouse as a local MCP server
// in opencode.json (~/.config/opencode/opencode.json, or the project's opencode.json). The same
// guards as for every agent's files (config-file.ts): the diff first, a hash check, a backup, an
// atomic write, audited as agent.config-written.
//
// As opencode 1.18 reads them (its binary: the config schema McpLocalConfig, Plugin.state):
// {"mcp": {NAME: {"type": "local", "command": [ARGV], "environment": {…}, "enabled": true,
// "timeout": MS}}}; `timeout` bounds every request to the server, tool calls included (default
// 5000 ms), so it is written above Gatehouse's approval expiry, as for Codex.
import { join } from 'node:path';
import { commandTimeoutS, CLAUDE_HOOK_TIMEOUT_S, MCP_SERVER_NAME, mcpStdioServer, REPORT_TIMEOUT_S, type HookLauncher, type JsonObject } from '../../../shared/claude-config.js';
import type { RuntimeHost } from '../../core/node-runtime.js';
import { OperationError } from '../../core/operation-error.js';
import { agentLauncher, type AgentLauncher, type LauncherUse } from '../../gateway/agent-launcher.js';
import { DEADLINE_MARGIN_MS } from '../../gateway/mcp-server.js';
import { ABSENT, ConfigFileError, isObject, kindOf, planJsonFile, plannedFile, projectFolder, readCurrent, sameJson, writePlanned, type ConfigPreview, type ConfigTarget, type CurrentFile, type PlannedFile, type WrittenFile } from '../config-file.js';
import { detectAgent } from '../detect.js';
import { verifyByPreview, type AgentDetection, type AgentIntegration, type AgentOptions, type AgentVerification } from '../integration.js';
import { OPENCODE_PLUGIN_FILE, opencodePluginSource } from './plugin-source.js';

export type OpencodeConfigRequest = AgentOptions<'opencode'>;

/** opencode's MCP client name (clientInfo.name): the host's mcpClientTimeouts entry for it. */
export const OPENCODE_CLIENT_NAME = 'opencode';
/** The MCP timeout is written this far above the approval expiry: Gatehouse answers first. */
const OPENCODE_TIMEOUT_MARGIN_S = 30;

/** What Gatehouse cannot guarantee for opencode (docs/security-model.md). */
export const OPENCODE_LIMITS: readonly string[] = [
  'opencode runs every tool when the plugin file fails to load (a syntax error, a file it cannot read): it logs "Failed to load plugin" and goes on, fail-open. Gatehouse writes plain JavaScript that needs nothing installed, and verify() checks the file byte for byte.',
  'opencode --pure (or OPENCODE_PURE=1) loads no plugins, and OPENCODE_DISABLE_PROJECT_CONFIG drops a project\'s .opencode folder: then nothing is supervised. Prefer your own config (~/.config/opencode).',
  'opencode puts no timeout on a plugin: the plugin kills the hook command at its own deadline (600 s) and blocks the call, so a hung host blocks the call, it does not hang opencode forever.',
  'A call Gatehouse asks about cannot be asked in opencode itself: with hookAsk "agent" it is blocked with the reason; set hookAsk to "inbox" to have it wait for an operator in Gatehouse\'s inbox.',
  'Tools of other MCP servers reach the judge by opencode\'s name (<server>_<tool>), not as mcp__<server>__<tool>.',
];

export interface OpencodeConfigDeps {
  /** The user's home, where ~/.config/opencode lives (injectable for tests). */
  userHome: string;
  gatehouseHome: string;
  approvalExpiryS: () => number;
  /** Tells the host how long opencode waits for an MCP call (settings mcpClientTimeouts), after a write. */
  setClientTimeout?: (client: string, seconds: number, actor: string) => void;
  record?: (type: string, actor: string, payload: Record<string, unknown>) => void;
  now?: () => number;
  /** null: `gatehouse` from the PATH. Default: this installation's node and bin/gatehouse.js. */
  launcher?: HookLauncher | null;
  runtime?: RuntimeHost;
  entry?: string | null;
}

export class OpencodeConfigWriter implements AgentIntegration<'opencode'> {
  readonly id = 'opencode' as const;
  readonly displayName = 'opencode';
  readonly limits = OPENCODE_LIMITS;

  constructor(private readonly deps: OpencodeConfigDeps) {}

  private launch(use: LauncherUse): AgentLauncher {
    return this.deps.launcher === undefined ? agentLauncher(use, this.deps.runtime, this.deps.entry) : { launcher: this.deps.launcher, problem: null };
  }

  private get configDir(): string {
    return join(this.deps.userHome, '.config', 'opencode');
  }

  detect(): AgentDetection {
    return detectAgent([this.configDir], 'opencode');
  }

  verify(req: OpencodeConfigRequest): AgentVerification {
    return verifyByPreview(this.preview(req));
  }

  snippet(req: OpencodeConfigRequest): string {
    return this.targets(req)
      .map((t) => `// ${t.path}\n${this.plan(t, req, { exists: false, text: '', hash: ABSENT, real: t.path, mode: null }).plan.after}`)
      .join('\n');
  }

  listsTools(req: OpencodeConfigRequest): boolean {
    return req.mcp !== 'none';
  }

  /** How long opencode waits for a Gatehouse MCP call (s): above the approval expiry, so Gatehouse answers first. */
  toolTimeoutS(): number {
    return Math.ceil(this.deps.approvalExpiryS() + DEADLINE_MARGIN_MS / 1000 + OPENCODE_TIMEOUT_MARGIN_S);
  }

  /** The files this request writes, in order: the plugin, then opencode.json (the MCP server). */
  targets(req: OpencodeConfigRequest): ConfigTarget[] {
    if (req.mcp === 'none' && req.hook === 'none') throw new OperationError('invalid', 'Choose the MCP server, the plugin, or both: there is nothing to write.');
    const user = req.scope === 'user';
    const base = user ? this.configDir : this.projectDir(req.projectDir);
    const targets: ConfigTarget[] = [];
    if (req.hook === 'plugin') targets.push({ path: join(base, ...(user ? [] : ['.opencode']), 'plugins', OPENCODE_PLUGIN_FILE), kind: 'settings', newMode: 0o644 });
    if (req.mcp === 'stdio') targets.push({ path: join(base, 'opencode.json'), kind: 'mcp', newMode: user ? 0o600 : 0o644 });
    return targets;
  }

  preview(req: OpencodeConfigRequest): ConfigPreview {
    return { files: this.targets(req).map((t) => this.plan(t, req).plan), notes: this.notes(req) };
  }

  write(req: OpencodeConfigRequest, expected: readonly { path: string; baseHash: string }[], actor: string, extra: Record<string, unknown> = {}): { files: WrittenFile[] } {
    const plans = this.targets(req).map((target) => ({ target, ...this.plan(target, req) }));
    const toolTimeoutS = this.toolTimeoutS();
    const files = writePlanned(plans, expected, {
      agent: this.displayName,
      now: this.deps.now?.() ?? Date.now(),
      checked: () => {
        if (req.mcp === 'stdio') this.deps.setClientTimeout?.(OPENCODE_CLIENT_NAME, toolTimeoutS, actor);
      },
      recorded: (written) =>
        this.deps.record?.('agent.config-written', actor, {
          ...extra,
          client: this.id,
          scope: req.scope,
          projectDir: req.scope === 'project' ? this.projectDir(req.projectDir) : null,
          mcp: req.mcp,
          hook: req.hook,
          files: written.filter((w) => w.written).map((w) => ({ path: w.path, created: w.created, backup: w.backup, changes: plans.find((p) => p.plan.path === w.path)?.plan.changes ?? [] })),
        }),
    });
    return { files };
  }

  private plan(target: ConfigTarget, req: OpencodeConfigRequest, current?: CurrentFile): { plan: PlannedFile; current: CurrentFile } {
    if (target.kind === 'settings') {
      // The plugin file is Gatehouse's alone: whatever it holds is replaced by exactly this text.
      const now = current ?? readCurrent(target.path);
      const { launcher } = this.launch('hook');
      const text = opencodePluginSource({ launcher, home: this.deps.gatehouseHome, commandTimeoutS: commandTimeoutS(CLAUDE_HOOK_TIMEOUT_S), pluginTimeoutMs: CLAUDE_HOOK_TIMEOUT_S * 1000, reportTimeoutMs: REPORT_TIMEOUT_S * 1000 });
      const changes = now.text === text ? [] : [`${now.exists ? 'replaced' : 'added'} Gatehouse's opencode plugin (it runs gatehouse hook --agent opencode before each tool and blocks the call unless Gatehouse lets it through)`];
      return { plan: plannedFile(target, now, text, changes), current: now };
    }
    return planJsonFile(target, this.displayName, (value, edit, changes) => {
      const servers = value.mcp;
      if (servers !== undefined && !isObject(servers)) throw new ConfigFileError(target.path, `${target.path}: "mcp" is ${kindOf(servers)}, not an object of servers by name as opencode expects. Fix it by hand, then preview again.`);
      const ours = this.mcpEntry();
      const existing = servers?.[MCP_SERVER_NAME];
      if (existing !== undefined && sameJson(existing, ours)) return;
      edit(['mcp', MCP_SERVER_NAME], ours);
      changes.push(`mcp.${MCP_SERVER_NAME}: ${existing === undefined ? 'added' : 'replaced'} (stdio bridge, gatehouse mcp; timeout ${ours.timeout} ms, above Gatehouse's approval expiry)`);
    }, current);
  }

  /** The local MCP server: the stdio bridge, by absolute paths when this installation has them. */
  private mcpEntry(): JsonObject {
    const { launcher } = this.launch('cli');
    const stdio = mcpStdioServer(this.deps.gatehouseHome, { typed: false });
    const command = launcher ? [launcher.node, launcher.entry, ...(stdio.args as string[])] : [stdio.command as string, ...(stdio.args as string[])];
    return { type: 'local', command, ...(launcher?.env ? { environment: { ...launcher.env } } : {}), enabled: true, timeout: this.toolTimeoutS() * 1000 };
  }

  private projectDir(dir: string | undefined): string {
    return projectFolder(dir, this.deps.userHome, this.displayName);
  }

  private notes(req: OpencodeConfigRequest): string[] {
    const notes: string[] = [];
    const { launcher, problem } = this.launch(req.hook === 'plugin' ? 'hook' : 'cli');
    if (problem) notes.push(problem);
    if (launcher === null) notes.push('The gatehouse command must be on the PATH opencode runs with; if it is not, the plugin blocks every call (it fails closed).');
    else notes.push(`The plugin and the MCP server name node and Gatehouse by absolute path (${launcher.node}, ${launcher.entry}); if this installation moves, write them again (until then the plugin blocks every call).`);
    if (req.hook === 'plugin') {
      notes.push('opencode runs every tool when the plugin file fails to load, and loads no plugin under --pure or OPENCODE_PURE=1: Gatehouse cannot fail closed there. Do not edit the plugin file; verify checks it.');
      notes.push('A deny reaches the model as the tool\'s error, with Gatehouse\'s reason. opencode cannot ask an operator from a plugin: set hookAsk to "inbox" so that asked calls wait in Gatehouse\'s inbox.');
    }
    if (req.hook === 'plugin' && req.scope === 'project') notes.push('opencode skips a project\'s .opencode folder under OPENCODE_DISABLE_PROJECT_CONFIG; your own config (~/.config/opencode) is loaded in every project.');
    if (req.hook === 'none') notes.push('Without the plugin, opencode\'s own tools (bash, file edits, web fetch) are not seen by Gatehouse.');
    if (req.mcp === 'stdio') notes.push(`opencode waits ${this.toolTimeoutS()} s for a Gatehouse MCP call; Gatehouse's approvals for opencode expire ${DEADLINE_MARGIN_MS / 1000} s before it gives up.`);
    notes.push('opencode reads its config and plugins when it starts: restart it (opencode mcp list shows the MCP server).');
    return notes;
  }
}
