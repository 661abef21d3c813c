// "Write it for me" for Gemini CLI: one settings.json (~/.gemini/settings.json, or a project's
// .gemini/settings.json) gets Gatehouse as an MCP server (mcpServers.gatehouse, the stdio bridge,
// trusted so Gemini CLI does not ask its own confirmation: Gatehouse asks in its inbox) and as a
// BeforeTool hook for every tool (`gatehouse hook --agent gemini-cli`, failing closed). The same
// guards as for Claude Code's files (config-file.ts): the diff first, a hash check, a backup, an
// atomic write, audited as agent.config-written.
//
// As Gemini CLI 0.61 reads them (bundle: HookRunner, HookPlanner, settings schema): hooks live in
// settings.json as {"hooks": {"BeforeTool": [{"matcher": REGEX, "hooks": [{"type": "command",
// "command", "name", "timeout" (ms, default 60 000)}]}]}}; hooksConfig.enabled (default true)
// switches every hook off when false; a project's hooks run only in a folder Gemini CLI trusts.
import { join } from 'node:path';
import { geminiHook, GEMINI_HOOK_TIMEOUT_MS, MCP_SERVER_NAME, mcpStdioServer, type HookLauncher, type JsonObject } from '../../../shared/claude-config.js';
import type { RuntimeHost } from '../../core/node-runtime.js';
import { OperationError } from '../../core/operation-error.js';
import { agentLauncher, type AgentLauncher } from '../../gateway/agent-launcher.js';
import { isGatehouseHook } from '../claude-code/config-writer.js';
import { ABSENT, ConfigFileError, isObject, kindOf, planJsonFile, projectFolder, sameJson, writePlanned, type ConfigPreview, type ConfigTarget, type CurrentFile, type JsonEdit, type PlannedFile, type WrittenFile } from '../config-file.js';
import { detectAgent } from '../detect.js';
import { mergeHookGroup } from '../hook-groups.js';
import { verifyByPreview, type AgentDetection, type AgentIntegration, type AgentOptions, type AgentVerification } from '../integration.js';

export type GeminiConfigRequest = AgentOptions<'gemini-cli'>;

/** What Gatehouse cannot guarantee for Gemini CLI (docs/security-model.md). */
export const GEMINI_LIMITS: readonly string[] = [
  'Gemini CLI runs the tool when the hook times out (the hook\'s timeout, written as 600 s) or exits with any code but 2, or exits 2 with no text: the command Gatehouse writes turns every failure it can see into exit 2 with a sentence, but a hook killed at its timeout fails open.',
  'A project\'s .gemini/settings.json hooks run only in a folder Gemini CLI trusts; elsewhere Gemini CLI skips them and runs the tool. Prefer your own settings (~/.gemini/settings.json).',
  'hooksConfig.enabled = false (in any settings file Gemini CLI merges, or a system settings file) switches the hook off.',
];

export interface GeminiConfigDeps {
  /** The user's home, where ~/.gemini/settings.json lives (injectable for tests). */
  userHome: string;
  gatehouseHome: string;
  record?: (type: string, actor: string, payload: Record<string, unknown>) => void;
  now?: () => number;
  /** null: `gatehouse` from the PATH. Default: this installation's node and bin/gatehouse.js. */
  launcher?: HookLauncher | null;
  runtime?: RuntimeHost;
  entry?: string | null;
}

export class GeminiConfigWriter implements AgentIntegration<'gemini-cli'> {
  readonly id = 'gemini-cli' as const;
  readonly displayName = 'Gemini CLI';
  readonly limits = GEMINI_LIMITS;

  constructor(private readonly deps: GeminiConfigDeps) {}

  private launch(): AgentLauncher {
    return this.deps.launcher === undefined ? agentLauncher('hook', this.deps.runtime, this.deps.entry) : { launcher: this.deps.launcher, problem: null };
  }

  detect(): AgentDetection {
    return detectAgent([join(this.deps.userHome, '.gemini')], 'gemini');
  }

  verify(req: GeminiConfigRequest): AgentVerification {
    return verifyByPreview(this.preview(req));
  }

  snippet(req: GeminiConfigRequest): string {
    const t = this.target(req);
    return this.plan(t, req, { exists: false, text: '', hash: ABSENT, real: t.path, mode: null }).plan.after;
  }

  listsTools(req: GeminiConfigRequest): boolean {
    return req.mcp !== 'none';
  }

  target(req: GeminiConfigRequest): ConfigTarget {
    if (req.mcp === 'none' && req.hook === 'none') throw new OperationError('invalid', 'Choose the MCP server, the hook, or both: there is nothing to write.');
    if (req.scope === 'user') return { path: join(this.deps.userHome, '.gemini', 'settings.json'), kind: 'settings', newMode: 0o600 };
    return { path: join(this.projectDir(req.projectDir), '.gemini', 'settings.json'), kind: 'settings', newMode: 0o644 };
  }

  preview(req: GeminiConfigRequest): ConfigPreview {
    return { files: [this.plan(this.target(req), req).plan], notes: this.notes(req) };
  }

  write(req: GeminiConfigRequest, expected: readonly { path: string; baseHash: string }[], actor: string, extra: Record<string, unknown> = {}): { files: WrittenFile[] } {
    const target = this.target(req);
    const { plan, current } = this.plan(target, req);
    const files = writePlanned([{ target, plan, current }], expected, {
      agent: this.displayName,
      now: this.deps.now?.() ?? Date.now(),
      recorded: ([w]) =>
        this.deps.record?.('agent.config-written', actor, {
          ...extra,
          client: this.id,
          scope: req.scope,
          projectDir: req.scope === 'project' ? this.projectDir(req.projectDir) : null,
          mcp: req.mcp,
          hook: req.hook,
          files: [{ path: w!.path, created: w!.created, backup: w!.backup, changes: plan.changes }],
        }),
    });
    return { files };
  }

  private plan(target: ConfigTarget, req: GeminiConfigRequest, current?: CurrentFile): { plan: PlannedFile; current: CurrentFile } {
    return planJsonFile(target, this.displayName, (value, edit, changes) => {
      if (req.hook === 'command') this.mergeHook(target.path, value, edit, changes);
      if (req.mcp === 'stdio') this.mergeMcp(target.path, value, edit, changes);
    }, current);
  }

  private mergeHook(file: string, value: JsonObject, edit: JsonEdit, changes: string[]): void {
    const { launcher } = this.launch();
    const hooks = value.hooks;
    if (hooks !== undefined && !isObject(hooks)) throw new ConfigFileError(file, `${file}: "hooks" is ${kindOf(hooks)}, not an object as Gemini CLI expects ({"BeforeTool": [...]}). Fix it by hand, then preview again.`);
    const ours = geminiHook(this.deps.gatehouseHome, { launcher, hookTimeoutMs: GEMINI_HOOK_TIMEOUT_MS });
    const group = { matcher: '.*', hooks: [ours] };
    const what = 'the Gatehouse hook (command form) for every tool (matcher ".*")';
    if (hooks === undefined) {
      edit(['hooks'], { BeforeTool: [group] });
      changes.push(`hooks.BeforeTool: added ${what}`);
    } else {
      mergeHookGroup({ file, agent: this.displayName, hooks, event: 'BeforeTool', ours, group, what, form: 'command form', isOurs: isGatehouseHook, edit, changes });
    }
    // hooksConfig.enabled = false would switch the hook off: Gatehouse's hook needs it on.
    const config = value.hooksConfig;
    if (isObject(config) && config.enabled === false) {
      edit(['hooksConfig', 'enabled'], true);
      changes.push('hooksConfig.enabled: false → true (hooks were switched off, Gatehouse\'s included)');
    }
  }

  private mergeMcp(file: string, value: JsonObject, edit: JsonEdit, changes: string[]): void {
    const { launcher } = this.launch();
    const stdio = mcpStdioServer(this.deps.gatehouseHome, { typed: false });
    // Absolute paths when this installation has them, as for the hook; trust: Gatehouse asks, not Gemini CLI.
    const ours: JsonObject = { ...(launcher ? { command: launcher.node, args: [launcher.entry, ...(stdio.args as string[])], ...(launcher.env ? { env: { ...launcher.env } } : {}) } : stdio), trust: true };
    const servers = value.mcpServers;
    if (servers !== undefined && !isObject(servers)) throw new ConfigFileError(file, `${file}: "mcpServers" is ${kindOf(servers)}, not an object of servers by name as Gemini CLI expects. Fix it by hand, then preview again.`);
    const existing = servers?.[MCP_SERVER_NAME];
    if (existing !== undefined && sameJson(existing, ours)) return;
    edit(['mcpServers', MCP_SERVER_NAME], ours);
    changes.push(`mcpServers.${MCP_SERVER_NAME}: ${existing === undefined ? 'added' : 'replaced'} (stdio bridge, gatehouse mcp; trust: true, so Gatehouse asks instead of Gemini CLI)`);
  }

  private projectDir(dir: string | undefined): string {
    return projectFolder(dir, this.deps.userHome, this.displayName);
  }

  private notes(req: GeminiConfigRequest): string[] {
    const notes: string[] = [];
    const { launcher, problem } = this.launch();
    if (problem) notes.push(problem);
    if (launcher === null) notes.push('The gatehouse command must be on the PATH Gemini CLI runs hooks with; if it is not, the hook blocks every call (it fails closed).');
    else notes.push(`The command names node and Gatehouse by absolute path (${launcher.node}, ${launcher.entry}); if this installation moves, write the settings again (until then the hook blocks every call).`);
    if (req.hook === 'command') notes.push('Gemini CLI runs the tool when a hook times out or fails with any exit code but 2: the hook written here turns its own failures into exit 2 and answers within its timeout (600 s), and a deny reaches the model as "Tool execution blocked: <reason>".');
    if (req.hook === 'command' && req.scope === 'project') notes.push('Gemini CLI skips a project\'s hooks in a folder it does not trust (and then runs the tool): trust the folder in Gemini CLI, or write your own settings instead.');
    if (req.hook === 'none') notes.push('Without the hook, Gemini CLI\'s own tools (shell, file edits, web fetch) are not seen by Gatehouse.');
    notes.push('Gemini CLI reads settings.json when it starts: restart it (/hooks and /mcp show what it loaded).');
    return notes;
  }
}
