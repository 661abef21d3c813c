// "Write it for me" for an agent that keeps hooks and MCP servers in one settings.json, in the
// user's home folder or a project's (Gemini CLI's ~/.gemini, Qwen Code's ~/.qwen): Gatehouse as
// the stdio MCP bridge (mcpServers.gatehouse, trusted so the agent does not ask its own
// confirmation: Gatehouse asks in its inbox) and as the agent's hooks, which each agent merges its
// own way. The same guards as for Claude Code's files (config-file.ts): the diff first, a hash
// check, a backup, an atomic write, audited as agent.config-written.
import { join } from 'node:path';
import { MCP_SERVER_NAME, mcpStdioServer, type HookLauncher, type JsonObject } from '../../shared/claude-config.js';
import type { RuntimeHost } from '../core/node-runtime.js';
import { OperationError } from '../core/operation-error.js';
import { agentLauncher, type AgentLauncher } from '../gateway/agent-launcher.js';
import { ABSENT, ConfigFileError, isObject, kindOf, planJsonFile, projectFolder, sameJson, writePlanned, type ConfigPreview, type ConfigTarget, type CurrentFile, type JsonEdit, type PlannedFile, type WrittenFile } from './config-file.js';
import { isGatehouseHook } from './claude-code/config-writer.js';
import { detectAgent } from './detect.js';
import { mergeHookGroup } from './hook-groups.js';
import { verifyByPreview, type AgentDetection, type AgentVerification } from './integration.js';

/** What such an agent's request holds (its own schema in shared/agent-integrations.ts). */
export interface SettingsJsonRequest {
  scope: 'user' | 'project';
  projectDir?: string | undefined;
  mcp: 'stdio' | 'none';
  hook: 'command' | 'none';
}

export interface SettingsJsonDeps {
  /** The user's home, where the agent's folder lives (injectable for tests). */
  userHome: string;
  gatehouseHome: string;
  record?: (type: string, actor: string, payload: Record<string, unknown>) => void;
  now?: () => number;
  /** null: `gatehouse` from the PATH. Default: this installation's node and bin/gatehouse.js. */
  launcher?: HookLauncher | null;
  runtime?: RuntimeHost;
  entry?: string | null;
}

export abstract class SettingsJsonWriter {
  abstract readonly id: string;
  abstract readonly displayName: string;
  /** The agent's folder, in the home and in a project (".gemini"). */
  protected abstract readonly folder: string;
  /** The agent's command on the PATH (detection). */
  protected abstract readonly command: string;
  /** The MCP entry's fields besides command, args and env, and what they mean, in words. */
  protected abstract readonly mcpExtra: JsonObject;
  protected abstract readonly mcpWhat: string;

  constructor(protected readonly deps: SettingsJsonDeps) {}

  /** Merges Gatehouse's hooks into `value` (the file's JSON), saying each change. */
  protected abstract mergeHook(file: string, value: JsonObject, edit: JsonEdit, changes: string[], launcher: HookLauncher | null): void;
  /** What this agent does with its hook, for the preview (after the launcher's note). */
  protected abstract hookNotes(req: SettingsJsonRequest): string[];

  /**
   * Gatehouse's hook in one matcher group per event: all of them added when the file has no
   * hooks, else each merged in place (hook-groups.ts). `example`: the hooks' shape, for the error.
   */
  protected mergeGroups(file: string, value: JsonObject, edit: JsonEdit, changes: string[], m: { matcher: string; example: string; groups: { event: string; ours: JsonObject; what: string }[] }): void {
    const hooks = value.hooks;
    if (hooks !== undefined && !isObject(hooks)) throw new ConfigFileError(file, `${file}: "hooks" is ${kindOf(hooks)}, not an object as ${this.displayName} expects (${m.example}). Fix it by hand, then preview again.`);
    if (hooks === undefined) {
      edit(['hooks'], Object.fromEntries(m.groups.map((g) => [g.event, [{ matcher: m.matcher, hooks: [g.ours] }]])));
      for (const g of m.groups) changes.push(`hooks.${g.event}: added ${g.what}`);
      return;
    }
    for (const g of m.groups) mergeHookGroup({ file, agent: this.displayName, hooks, event: g.event, ours: g.ours, group: { matcher: m.matcher, hooks: [g.ours] }, what: g.what, form: 'command form', isOurs: isGatehouseHook, edit, changes });
  }

  protected launch(): AgentLauncher {
    return this.deps.launcher === undefined ? agentLauncher('hook', this.deps.runtime, this.deps.entry) : { launcher: this.deps.launcher, problem: null };
  }

  detect(): AgentDetection {
    return detectAgent([join(this.deps.userHome, this.folder)], this.command);
  }

  verify(req: SettingsJsonRequest): AgentVerification {
    return verifyByPreview(this.preview(req));
  }

  snippet(req: SettingsJsonRequest): string {
    const t = this.target(req);
    return this.plan(t, req, { exists: false, text: '', hash: ABSENT, real: t.path, mode: null }).plan.after;
  }

  listsTools(req: SettingsJsonRequest): boolean {
    return req.mcp !== 'none';
  }

  target(req: SettingsJsonRequest): ConfigTarget {
    if (req.mcp === 'none' && req.hook === 'none') throw new OperationError('invalid', 'Choose the MCP server, the hook, or both: there is nothing to write.');
    if (req.scope === 'user') return { path: join(this.deps.userHome, this.folder, 'settings.json'), kind: 'settings', newMode: 0o600 };
    return { path: join(projectFolder(req.projectDir, this.deps.userHome, this.displayName), this.folder, 'settings.json'), kind: 'settings', newMode: 0o644 };
  }

  preview(req: SettingsJsonRequest): ConfigPreview {
    return { files: [this.plan(this.target(req), req).plan], notes: this.notes(req) };
  }

  write(req: SettingsJsonRequest, expected: readonly { path: string; baseHash: string }[], actor: string, extra: Record<string, unknown> = {}): { files: WrittenFile[] } {
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
          projectDir: req.scope === 'project' ? projectFolder(req.projectDir, this.deps.userHome, this.displayName) : null,
          mcp: req.mcp,
          hook: req.hook,
          files: [{ path: w!.path, created: w!.created, backup: w!.backup, changes: plan.changes }],
        }),
    });
    return { files };
  }

  private plan(target: ConfigTarget, req: SettingsJsonRequest, current?: CurrentFile): { plan: PlannedFile; current: CurrentFile } {
    const { launcher } = this.launch();
    return planJsonFile(target, this.displayName, (value, edit, changes) => {
      if (req.hook === 'command') this.mergeHook(target.path, value, edit, changes, launcher);
      if (req.mcp === 'stdio') this.mergeMcp(target.path, value, edit, changes, launcher);
    }, current);
  }

  private mergeMcp(file: string, value: JsonObject, edit: JsonEdit, changes: string[], launcher: HookLauncher | null): void {
    const stdio = mcpStdioServer(this.deps.gatehouseHome, { typed: false });
    // Absolute paths when this installation has them, as for the hook.
    const ours: JsonObject = { ...(launcher ? { command: launcher.node, args: [launcher.entry, ...(stdio.args as string[])], ...(launcher.env ? { env: { ...launcher.env } } : {}) } : stdio), ...this.mcpExtra };
    const servers = value.mcpServers;
    if (servers !== undefined && !isObject(servers)) throw new ConfigFileError(file, `${file}: "mcpServers" is ${kindOf(servers)}, not an object of servers by name as ${this.displayName} expects. Fix it by hand, then preview again.`);
    const existing = servers?.[MCP_SERVER_NAME];
    if (existing !== undefined && sameJson(existing, ours)) return;
    edit(['mcpServers', MCP_SERVER_NAME], ours);
    changes.push(`mcpServers.${MCP_SERVER_NAME}: ${existing === undefined ? 'added' : 'replaced'} (stdio bridge, gatehouse mcp; ${this.mcpWhat})`);
  }

  private notes(req: SettingsJsonRequest): string[] {
    const notes: string[] = [];
    const { launcher, problem } = this.launch();
    const name = this.displayName;
    if (problem) notes.push(problem);
    if (launcher === null) notes.push(`The gatehouse command must be on the PATH ${name} runs hooks with; if it is not, the hook blocks every call (it fails closed).`);
    else notes.push(`The command names node and Gatehouse by absolute path (${launcher.node}, ${launcher.entry}); if this installation moves, write the settings again (until then the hook blocks every call).`);
    notes.push(...this.hookNotes(req));
    if (req.hook === 'none') notes.push(`Without the hook, ${name}'s own tools (shell, file edits, web fetch) are not seen by Gatehouse.`);
    notes.push(`${name} reads settings.json when it starts: restart it (/hooks and /mcp show what it loaded).`);
    return notes;
  }
}
