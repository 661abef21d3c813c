// "Write it for me" for Qwen Code: one settings.json (~/.qwen/settings.json, or a project's
// .qwen/settings.json) gets Gatehouse as an MCP server (mcpServers.gatehouse, the stdio bridge,
// trusted so Qwen Code does not ask its own confirmation: Gatehouse asks in its inbox), as a
// PreToolUse hook for every tool (`gatehouse hook --agent qwen-code`, failing closed) and as
// PostToolUse / PostToolUseFailure hooks that report what each tool did. The same guards as for
// Claude Code's files (config-file.ts): the diff first, a hash check, a backup, an atomic write,
// audited as agent.config-written.
//
// As Qwen Code 0.24 reads them (bundle: HookRegistry, resolveCommandHookTimeoutMs, settings
// schema): hooks live in settings.json as Claude Code's {"hooks": {"PreToolUse": [{"matcher": "*",
// "hooks": [{"type": "command", "command", "name", "timeout" (seconds, default 60)}]}]}};
// disableAllHooks = true switches every hook off; a project's hooks run only in a folder Qwen Code
// trusts (every folder, unless folder trust is switched on). QWEN_HOME moves ~/.qwen.
import { join } from 'node:path';
import { MCP_SERVER_NAME, mcpStdioServer, qwenHooks, type HookLauncher, type JsonObject } from '../../../shared/claude-config.js';
import type { RuntimeHost } from '../../core/node-runtime.js';
import { OperationError } from '../../core/operation-error.js';
import { agentLauncher, type AgentLauncher } from '../../gateway/agent-launcher.js';
import { isGatehouseHook } from '../claude-code/config-writer.js';
import { ABSENT, ConfigFileError, isObject, kindOf, planJsonFile, projectFolder, sameJson, writePlanned, type ConfigPreview, type ConfigTarget, type CurrentFile, type JsonEdit, type PlannedFile, type WrittenFile } from '../config-file.js';
import { detectAgent } from '../detect.js';
import { mergeHookGroup } from '../hook-groups.js';
import { verifyByPreview, type AgentDetection, type AgentIntegration, type AgentOptions, type AgentVerification } from '../integration.js';

export type QwenConfigRequest = AgentOptions<'qwen-code'>;

/** What Gatehouse cannot guarantee for Qwen Code (docs/security-model.md). */
export const QWEN_LIMITS: readonly string[] = [
  'Qwen Code runs the tool when the hook times out (written as 600 s), exits with any code but 0 or 2, exits 2 with no text, or prints a broken JSON object: the command Gatehouse writes turns every failure it can see into exit 2 with a sentence and answers within its timeout, but a hook killed at its timeout fails open.',
  'Qwen Code ignores a changed input from a PreToolUse hook, so a command Gatehouse would only let through contained is denied instead.',
  'With folder trust switched on, a project\'s .qwen/settings.json hooks run only in a folder Qwen Code trusts; elsewhere Qwen Code skips them and runs the tool. Prefer your own settings (~/.qwen/settings.json).',
  'disableAllHooks = true (in any settings file Qwen Code merges, /etc/qwen-code/settings.json included) or starting Qwen Code in bare or safe mode switches the hook off.',
];

export interface QwenConfigDeps {
  /** The user's home, where ~/.qwen/settings.json lives (injectable for tests). */
  userHome: string;
  gatehouseHome: string;
  record?: (type: string, actor: string, payload: Record<string, unknown>) => void;
  now?: () => number;
  /** null: `gatehouse` from the PATH. Default: this installation's node and bin/gatehouse.js. */
  launcher?: HookLauncher | null;
  runtime?: RuntimeHost;
  entry?: string | null;
}

export class QwenConfigWriter implements AgentIntegration<'qwen-code'> {
  readonly id = 'qwen-code' as const;
  readonly displayName = 'Qwen Code';
  readonly limits = QWEN_LIMITS;

  constructor(private readonly deps: QwenConfigDeps) {}

  private launch(): AgentLauncher {
    return this.deps.launcher === undefined ? agentLauncher('hook', this.deps.runtime, this.deps.entry) : { launcher: this.deps.launcher, problem: null };
  }

  detect(): AgentDetection {
    return detectAgent([join(this.deps.userHome, '.qwen')], 'qwen');
  }

  verify(req: QwenConfigRequest): AgentVerification {
    return verifyByPreview(this.preview(req));
  }

  snippet(req: QwenConfigRequest): string {
    const t = this.target(req);
    return this.plan(t, req, { exists: false, text: '', hash: ABSENT, real: t.path, mode: null }).plan.after;
  }

  listsTools(req: QwenConfigRequest): boolean {
    return req.mcp !== 'none';
  }

  target(req: QwenConfigRequest): ConfigTarget {
    if (req.mcp === 'none' && req.hook === 'none') throw new OperationError('invalid', 'Choose the MCP server, the hook, or both: there is nothing to write.');
    if (req.scope === 'user') return { path: join(this.deps.userHome, '.qwen', 'settings.json'), kind: 'settings', newMode: 0o600 };
    return { path: join(this.projectDir(req.projectDir), '.qwen', 'settings.json'), kind: 'settings', newMode: 0o644 };
  }

  preview(req: QwenConfigRequest): ConfigPreview {
    return { files: [this.plan(this.target(req), req).plan], notes: this.notes(req) };
  }

  write(req: QwenConfigRequest, expected: readonly { path: string; baseHash: string }[], actor: string, extra: Record<string, unknown> = {}): { files: WrittenFile[] } {
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

  private plan(target: ConfigTarget, req: QwenConfigRequest, current?: CurrentFile): { plan: PlannedFile; current: CurrentFile } {
    return planJsonFile(target, this.displayName, (value, edit, changes) => {
      if (req.hook === 'command') this.mergeHook(target.path, value, edit, changes);
      if (req.mcp === 'stdio') this.mergeMcp(target.path, value, edit, changes);
    }, current);
  }

  private mergeHook(file: string, value: JsonObject, edit: JsonEdit, changes: string[]): void {
    const { launcher } = this.launch();
    const hooks = value.hooks;
    if (hooks !== undefined && !isObject(hooks)) throw new ConfigFileError(file, `${file}: "hooks" is ${kindOf(hooks)}, not an object as Qwen Code expects ({"PreToolUse": [...]}). Fix it by hand, then preview again.`);
    const { decide, report } = qwenHooks(this.deps.gatehouseHome, { launcher });
    // PreToolUse decides; the two reports say what ran (the outcome in the audit log).
    const groups = [
      { event: 'PreToolUse', ours: decide, what: 'the Gatehouse hook (command form) for every tool (matcher "*")' },
      { event: 'PostToolUse', ours: report, what: 'the Gatehouse report of what each tool did (command form, matcher "*")' },
      { event: 'PostToolUseFailure', ours: report, what: 'the Gatehouse report of each tool that failed (command form, matcher "*")' },
    ];
    if (hooks === undefined) {
      edit(['hooks'], Object.fromEntries(groups.map((g) => [g.event, [{ matcher: '*', hooks: [g.ours] }]])));
      for (const g of groups) changes.push(`hooks.${g.event}: added ${g.what}`);
    } else {
      for (const g of groups) mergeHookGroup({ file, agent: this.displayName, hooks, event: g.event, ours: g.ours, group: { matcher: '*', hooks: [g.ours] }, what: g.what, form: 'command form', isOurs: isGatehouseHook, edit, changes });
    }
    // disableAllHooks = true would switch the hook off: Gatehouse's hook needs hooks on.
    if (value.disableAllHooks === true) {
      edit(['disableAllHooks'], false);
      changes.push('disableAllHooks: true → false (hooks were switched off, Gatehouse\'s included)');
    }
  }

  private mergeMcp(file: string, value: JsonObject, edit: JsonEdit, changes: string[]): void {
    const { launcher } = this.launch();
    const stdio = mcpStdioServer(this.deps.gatehouseHome, { typed: false });
    // Absolute paths when this installation has them, as for the hook; trust: Gatehouse asks, not
    // Qwen Code; alwaysLoadTools: Qwen Code otherwise defers an MCP server's tools behind its
    // tool_search, and the model is not offered Gatehouse's tools until it searches for them.
    const ours: JsonObject = { ...(launcher ? { command: launcher.node, args: [launcher.entry, ...(stdio.args as string[])], ...(launcher.env ? { env: { ...launcher.env } } : {}) } : stdio), trust: true, alwaysLoadTools: true };
    const servers = value.mcpServers;
    if (servers !== undefined && !isObject(servers)) throw new ConfigFileError(file, `${file}: "mcpServers" is ${kindOf(servers)}, not an object of servers by name as Qwen Code expects. Fix it by hand, then preview again.`);
    const existing = servers?.[MCP_SERVER_NAME];
    if (existing !== undefined && sameJson(existing, ours)) return;
    edit(['mcpServers', MCP_SERVER_NAME], ours);
    changes.push(`mcpServers.${MCP_SERVER_NAME}: ${existing === undefined ? 'added' : 'replaced'} (stdio bridge, gatehouse mcp; trust: true, so Gatehouse asks instead of Qwen Code; alwaysLoadTools: true, so the model is offered its tools)`);
  }

  private projectDir(dir: string | undefined): string {
    return projectFolder(dir, this.deps.userHome, this.displayName);
  }

  private notes(req: QwenConfigRequest): string[] {
    const notes: string[] = [];
    const { launcher, problem } = this.launch();
    if (problem) notes.push(problem);
    if (launcher === null) notes.push('The gatehouse command must be on the PATH Qwen Code runs hooks with; if it is not, the hook blocks every call (it fails closed).');
    else notes.push(`The command names node and Gatehouse by absolute path (${launcher.node}, ${launcher.entry}); if this installation moves, write the settings again (until then the hook blocks every call).`);
    if (req.hook === 'command') notes.push('Qwen Code runs the tool when a hook times out or fails with any exit code but 0 or 2 (it fails open): the hook written here turns its own failures into exit 2 and answers within its timeout (600 s), and a deny reaches the model with its reason.');
    if (req.hook === 'command') notes.push('Qwen Code ignores a changed input from the hook: a command Gatehouse would let through only contained is denied instead.');
    if (req.hook === 'command' && req.scope === 'project') notes.push('With folder trust on, Qwen Code skips a project\'s hooks in a folder it does not trust (and then runs the tool): trust the folder in Qwen Code, or write your own settings instead.');
    if (req.hook === 'none') notes.push('Without the hook, Qwen Code\'s own tools (shell, file edits, web fetch) are not seen by Gatehouse.');
    notes.push('Qwen Code reads settings.json when it starts: restart it (/hooks and /mcp show what it loaded).');
    return notes;
  }
}
