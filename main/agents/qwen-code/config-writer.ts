// "Write it for me" for Qwen Code: one settings.json (~/.qwen/settings.json, or a project's
// .qwen/settings.json) gets Gatehouse as an MCP server (mcpServers.gatehouse, the stdio bridge,
// trusted so Qwen Code does not ask its own confirmation, and loaded so the model is offered its
// tools), as a PreToolUse hook for every tool (`gatehouse hook --agent qwen-code`, failing closed)
// and as PostToolUse / PostToolUseFailure hooks that report what each tool did. The file, the MCP
// entry and the guards are settings-json-writer.ts's, shared with Gemini CLI.
//
// As Qwen Code 0.24 reads them (bundle: HookRegistry, resolveCommandHookTimeoutMs, settings
// schema): hooks live in settings.json as Claude Code's {"hooks": {"PreToolUse": [{"matcher": "*",
// "hooks": [{"type": "command", "command", "name", "timeout" (seconds, default 60)}]}]}};
// disableAllHooks = true switches every hook off; a project's hooks run only in a folder Qwen Code
// trusts (every folder, unless folder trust is switched on). QWEN_HOME moves ~/.qwen.
import { qwenHooks, type HookLauncher, type JsonObject } from '../../../shared/claude-config.js';
import type { JsonEdit } from '../config-file.js';
import type { AgentIntegration, AgentOptions } from '../integration.js';
import { SettingsJsonWriter, type SettingsJsonDeps } from '../settings-json-writer.js';

export type QwenConfigRequest = AgentOptions<'qwen-code'>;

/** What Gatehouse cannot guarantee for Qwen Code (docs/security-model.md). */
export const QWEN_LIMITS: readonly string[] = [
  'Qwen Code runs the tool when the hook times out (written as 600 s), exits with any code but 0 or 2, exits 2 with no text, or prints a broken JSON object: the command Gatehouse writes turns every failure it can see into exit 2 with a sentence and answers within its timeout, but a hook killed at its timeout fails open.',
  'Qwen Code ignores a changed input from a PreToolUse hook, so a command Gatehouse would only let through contained is denied instead.',
  'With folder trust switched on, a project\'s .qwen/settings.json hooks run only in a folder Qwen Code trusts; elsewhere Qwen Code skips them and runs the tool. Prefer your own settings (~/.qwen/settings.json).',
  'disableAllHooks = true (in any settings file Qwen Code merges, /etc/qwen-code/settings.json included) or starting Qwen Code in bare or safe mode switches the hook off.',
  'Qwen Code runs the tool when it cancels a waiting hook itself (a Qwen Code whose launcher was killed does so about 60 s later): the hook denies as soon as Qwen Code or its launcher is gone, but only on Linux (/proc).',
];

export type QwenConfigDeps = SettingsJsonDeps;

export class QwenConfigWriter extends SettingsJsonWriter implements AgentIntegration<'qwen-code'> {
  readonly id = 'qwen-code' as const;
  readonly displayName = 'Qwen Code';
  readonly limits = QWEN_LIMITS;
  protected readonly folder = '.qwen';
  protected readonly command = 'qwen';
  // trust: Gatehouse asks, not Qwen Code. alwaysLoadTools: Qwen Code otherwise defers an MCP
  // server's tools behind its tool_search, and the model is not offered Gatehouse's tools until it searches.
  protected readonly mcpExtra = { trust: true, alwaysLoadTools: true };
  protected readonly mcpWhat = 'trust: true, so Gatehouse asks instead of Qwen Code; alwaysLoadTools: true, so the model is offered its tools';

  protected mergeHook(file: string, value: JsonObject, edit: JsonEdit, changes: string[], launcher: HookLauncher | null): void {
    const { decide, report } = qwenHooks(this.deps.gatehouseHome, { launcher });
    // PreToolUse decides; the two reports say what ran (the outcome in the audit log).
    this.mergeGroups(file, value, edit, changes, {
      matcher: '*',
      example: '{"PreToolUse": [...]}',
      groups: [
        { event: 'PreToolUse', ours: decide, what: 'the Gatehouse hook (command form) for every tool (matcher "*")' },
        { event: 'PostToolUse', ours: report, what: 'the Gatehouse report of what each tool did (command form, matcher "*")' },
        { event: 'PostToolUseFailure', ours: report, what: 'the Gatehouse report of each tool that failed (command form, matcher "*")' },
      ],
    });
    // disableAllHooks = true would switch the hook off: Gatehouse's hook needs hooks on.
    if (value.disableAllHooks === true) {
      edit(['disableAllHooks'], false);
      changes.push('disableAllHooks: true → false (hooks were switched off, Gatehouse\'s included)');
    }
  }

  protected hookNotes(req: QwenConfigRequest): string[] {
    if (req.hook !== 'command') return [];
    return [
      'Qwen Code runs the tool when a hook times out or fails with any exit code but 0 or 2 (it fails open): the hook written here turns its own failures into exit 2 and answers within its timeout (600 s), and a deny reaches the model with its reason.',
      'Qwen Code ignores a changed input from the hook: a command Gatehouse would let through only contained is denied instead.',
      ...(req.scope === 'project' ? ['With folder trust on, Qwen Code skips a project\'s hooks in a folder it does not trust (and then runs the tool): trust the folder in Qwen Code, or write your own settings instead.'] : []),
    ];
  }
}
