// "Write it for me" for Gemini CLI: one settings.json (~/.gemini/settings.json, or a project's
// .gemini/settings.json) gets Gatehouse as an MCP server (mcpServers.gatehouse, the stdio bridge,
// trusted so Gemini CLI does not ask its own confirmation: Gatehouse asks in its inbox), as a
// BeforeTool hook for every tool (`gatehouse hook --agent gemini-cli`, failing closed) and as an
// AfterTool hook that reports what each tool did. The file, the MCP entry and the guards are
// settings-json-writer.ts's, shared with Qwen Code.
//
// As Gemini CLI 0.61 reads them (bundle: HookRunner, HookPlanner, settings schema): hooks live in
// settings.json as {"hooks": {"BeforeTool": [{"matcher": REGEX, "hooks": [{"type": "command",
// "command", "name", "timeout" (ms, default 60 000)}]}]}}; hooksConfig.enabled (default true)
// switches every hook off when false; a project's hooks run only in a folder Gemini CLI trusts.
import { geminiHook, GEMINI_HOOK_TIMEOUT_MS, GEMINI_REPORT_TIMEOUT_MS, type HookLauncher, type JsonObject } from '../../../shared/claude-config.js';
import { isObject, type JsonEdit } from '../config-file.js';
import type { AgentIntegration, AgentOptions } from '../integration.js';
import { SettingsJsonWriter, type SettingsJsonDeps } from '../settings-json-writer.js';

export type GeminiConfigRequest = AgentOptions<'gemini-cli'>;

/** What Gatehouse cannot guarantee for Gemini CLI (docs/security-model.md). */
export const GEMINI_LIMITS: readonly string[] = [
  'Gemini CLI runs the tool when the hook times out (the hook\'s timeout, written as 600 s) or exits with any code but 2, or exits 2 with no text: the command Gatehouse writes turns every failure it can see into exit 2 with a sentence, but a hook killed at its timeout fails open.',
  'A project\'s .gemini/settings.json hooks run only in a folder Gemini CLI trusts; elsewhere Gemini CLI skips them and runs the tool. Prefer your own settings (~/.gemini/settings.json).',
  'hooksConfig.enabled = false (in any settings file Gemini CLI merges, or a system settings file) switches the hook off.',
];

export type GeminiConfigDeps = SettingsJsonDeps;

export class GeminiConfigWriter extends SettingsJsonWriter implements AgentIntegration<'gemini-cli'> {
  readonly id = 'gemini-cli' as const;
  readonly displayName = 'Gemini CLI';
  readonly limits = GEMINI_LIMITS;
  protected readonly folder = '.gemini';
  protected readonly command = 'gemini';
  // trust: Gatehouse asks, not Gemini CLI.
  protected readonly mcpExtra = { trust: true };
  protected readonly mcpWhat = 'trust: true, so Gatehouse asks instead of Gemini CLI';

  protected mergeHook(file: string, value: JsonObject, edit: JsonEdit, changes: string[], launcher: HookLauncher | null): void {
    // BeforeTool decides; AfterTool reports what ran (the outcome in the audit log), with a short timeout.
    this.mergeGroups(file, value, edit, changes, {
      matcher: '.*',
      example: '{"BeforeTool": [...]}',
      groups: [
        { event: 'BeforeTool', ours: geminiHook(this.deps.gatehouseHome, { launcher, hookTimeoutMs: GEMINI_HOOK_TIMEOUT_MS }), what: 'the Gatehouse hook (command form) for every tool (matcher ".*")' },
        { event: 'AfterTool', ours: geminiHook(this.deps.gatehouseHome, { launcher, hookTimeoutMs: GEMINI_REPORT_TIMEOUT_MS }), what: 'the Gatehouse report of what each tool did (command form, matcher ".*")' },
      ],
    });
    // hooksConfig.enabled = false would switch the hook off: Gatehouse's hook needs it on.
    const config = value.hooksConfig;
    if (isObject(config) && config.enabled === false) {
      edit(['hooksConfig', 'enabled'], true);
      changes.push('hooksConfig.enabled: false → true (hooks were switched off, Gatehouse\'s included)');
    }
  }

  protected hookNotes(req: GeminiConfigRequest): string[] {
    const notes: string[] = [];
    if (req.hook === 'command') notes.push('Gemini CLI runs the tool when a hook times out or fails with any exit code but 2: the hook written here turns its own failures into exit 2 and answers within its timeout (600 s), and a deny reaches the model as "Tool execution blocked: <reason>".');
    if (req.hook === 'command' && req.scope === 'project') notes.push('Gemini CLI skips a project\'s hooks in a folder it does not trust (and then runs the tool): trust the folder in Gemini CLI, or write your own settings instead.');
    return notes;
  }
}
