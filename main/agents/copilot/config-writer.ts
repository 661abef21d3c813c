// "Write it for me" for GitHub Copilot CLI: two files in its home ($COPILOT_HOME, default
// ~/.copilot): hooks/gatehouse.json gets Gatehouse as a preToolUse command hook for every tool
// (`gatehouse hook --agent copilot`, failing closed) and postToolUse / postToolUseFailure
// reports of what ran, and mcp-config.json gets Gatehouse as an MCP
// server (mcpServers.gatehouse, the stdio bridge). The same guards as for every agent's files
// (config-file.ts): the diff first, a hash check, a backup, an atomic write, audited as
// agent.config-written.
//
// As Copilot CLI 1.0.102 reads them (docs.github.com/en/copilot/reference/hooks-reference, and
// measured: docs/protocols.md): every *.json in $COPILOT_HOME/hooks is a hook file
// {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash", "timeoutSec"}]}}, read in
// -p mode too and without folder trust (a repository's .github/hooks are not); mcp-config.json is
// {"mcpServers": {NAME: {"type": "local", "command", "args", "env", "tools"}}}. Only the user's
// files, then: a repository's are skipped in folders Copilot CLI does not trust, and its MCP file
// in -p mode.
import { join } from 'node:path';
import { copilotHook, copilotReportHook, COPILOT_HOOK_TIMEOUT_S, hookTimeoutProblem, MAX_HOOK_TIMEOUT_S, MIN_HOOK_TIMEOUT_S, MCP_SERVER_NAME, mcpStdioServer, type JsonObject } from '../../../shared/claude-config.js';
import { OperationError } from '../../core/operation-error.js';
import { writerLauncher, type AgentLauncher } from '../../gateway/agent-launcher.js';
import { isGatehouseHook } from '../claude-code/config-writer.js';
import { ABSENT, ConfigFileError, isObject, kindOf, planJsonFile, sameJson, writePlanned, type ConfigPreview, type ConfigTarget, type CurrentFile, type JsonEdit, type PlannedFile, type WrittenFile } from '../config-file.js';
import { detectAgent } from '../detect.js';
import { verifyByPreview, type AgentDetection, type AgentIntegration, type AgentOptions, type AgentVerification, type WriterDeps } from '../integration.js';

export type CopilotConfigRequest = AgentOptions<'copilot'>;

/** What Gatehouse cannot guarantee for Copilot CLI (docs/security-model.md), as measured with 1.0.102. */
export const COPILOT_LIMITS: readonly string[] = [
  `Copilot CLI runs the tool when the hook is killed at its timeoutSec (written as ${COPILOT_HOOK_TIMEOUT_S} s): it fails open on a timeout. The command Gatehouse writes answers (a deny at worst) 10 s before it.`,
  'Copilot CLI runs the tool when the hook exits 0 with anything but one JSON object on stdout, or when a hook file is malformed (it drops the file): both fail open. The command Gatehouse writes prints one JSON answer and exits 2 on every failure it can see.',
  '"disableAllHooks": true in a repository\'s .github/copilot/settings.json (or your ~/.copilot/settings.json) switches the hook off, Gatehouse\'s included; only a machine policy hook (/etc/github-copilot/policy.d) ignores it.',
  'Copilot CLI\'s hooks give no call id: a report of what ran is matched to its call by the tool\'s name and arguments, so a contained shell call (run with the boxed command) is reported without its call.',
];

export interface CopilotConfigDeps extends WriterDeps {
  /** COPILOT_HOME: where hooks/ and mcp-config.json live (default ~/.copilot; injectable for tests). */
  copilotHome: string;
}

/** A Copilot CLI hook entry that runs `gatehouse hook` (its command is under "bash" or "command"). */
function isCopilotGatehouseHook(h: unknown): boolean {
  return isObject(h) && h.type === 'command' && [h.bash, h.command].some((c) => typeof c === 'string' && isGatehouseHook({ type: 'command', command: c }));
}

/**
 * The timeoutSec of the first Gatehouse preToolUse hook, when the operator set one Gatehouse can
 * answer within: kept, and the command's --timeout derived from it (one deadline). One it cannot
 * answer within is refused, naming the field: Copilot CLI runs the tool when the hook times out.
 */
function operatorTimeout(file: string, list: unknown): number | undefined {
  if (!Array.isArray(list)) return undefined;
  const i = list.findIndex(isCopilotGatehouseHook);
  const timeout = i < 0 ? undefined : (list[i] as JsonObject).timeoutSec;
  if (timeout === undefined) return undefined;
  if (hookTimeoutProblem(timeout)) throw new ConfigFileError(file, `${file}: "hooks.preToolUse[${i}].timeoutSec" is ${JSON.stringify(timeout)}; Gatehouse needs a whole number of seconds from ${MIN_HOOK_TIMEOUT_S} to ${MAX_HOOK_TIMEOUT_S} to answer before Copilot CLI gives up (and runs the tool). Fix it, or remove it for ${COPILOT_HOOK_TIMEOUT_S} s, then preview again.`);
  return timeout as number;
}

export class CopilotConfigWriter implements AgentIntegration<'copilot'> {
  readonly id = 'copilot' as const;
  readonly displayName = 'GitHub Copilot CLI';
  readonly limits = COPILOT_LIMITS;

  constructor(private readonly deps: CopilotConfigDeps) {}

  private launch(): AgentLauncher {
    return writerLauncher('hook', this.deps);
  }

  detect(): AgentDetection {
    return detectAgent([this.deps.copilotHome], 'copilot');
  }

  verify(req: CopilotConfigRequest): AgentVerification {
    return verifyByPreview(this.preview(req));
  }

  snippet(req: CopilotConfigRequest): string {
    return this.targets(req)
      .map((t) => `// ${t.path}\n${this.plan(t, req, { exists: false, text: '', hash: ABSENT, real: t.path, mode: null }).plan.after}`)
      .join('\n');
  }

  listsTools(req: CopilotConfigRequest): boolean {
    return req.mcp !== 'none';
  }

  targets(req: CopilotConfigRequest): ConfigTarget[] {
    if (req.mcp === 'none' && req.hook === 'none') throw new OperationError('invalid', 'Choose the MCP server, the hook, or both: there is nothing to write.');
    const targets: ConfigTarget[] = [];
    if (req.hook === 'command') targets.push({ path: join(this.deps.copilotHome, 'hooks', 'gatehouse.json'), kind: 'settings', newMode: 0o600 });
    if (req.mcp === 'stdio') targets.push({ path: join(this.deps.copilotHome, 'mcp-config.json'), kind: 'mcp', newMode: 0o600 });
    return targets;
  }

  preview(req: CopilotConfigRequest): ConfigPreview {
    return { files: this.targets(req).map((t) => this.plan(t, req).plan), notes: this.notes(req) };
  }

  write(req: CopilotConfigRequest, expected: readonly { path: string; baseHash: string }[], actor: string, extra: Record<string, unknown> = {}): { files: WrittenFile[] } {
    const plans = this.targets(req).map((target) => ({ target, ...this.plan(target, req) }));
    const files = writePlanned(plans, expected, {
      agent: this.displayName,
      now: this.deps.now?.() ?? Date.now(),
      recorded: (written) =>
        this.deps.record?.('agent.config-written', actor, {
          ...extra,
          client: this.id,
          scope: 'user',
          mcp: req.mcp,
          hook: req.hook,
          files: written.map((w) => ({ path: w.path, created: w.created, backup: w.backup, changes: plans.find((p) => p.plan.path === w.path)?.plan.changes ?? [] })),
        }),
    });
    return { files };
  }

  private plan(target: ConfigTarget, req: CopilotConfigRequest, current?: CurrentFile): { plan: PlannedFile; current: CurrentFile } {
    return planJsonFile(target, this.displayName, (value, edit, changes) => (target.kind === 'settings' ? this.mergeHook(target.path, value, edit, changes) : this.mergeMcp(target.path, value, edit, changes)), current);
  }

  private mergeHook(file: string, value: JsonObject, edit: JsonEdit, changes: string[]): void {
    const { launcher } = this.launch();
    const home = this.deps.gatehouseHome;
    if (value.version !== 1) {
      if (value.version !== undefined) throw new ConfigFileError(file, `${file}: "version" is ${JSON.stringify(value.version)}; Copilot CLI reads hook files of version 1. Fix it by hand, then preview again.`);
      edit(['version'], 1);
    }
    const hooks = value.hooks;
    if (hooks !== undefined && !isObject(hooks)) throw new ConfigFileError(file, `${file}: "hooks" is ${kindOf(hooks)}, not an object as Copilot CLI expects ({"preToolUse": [...]}). Fix it by hand, then preview again.`);
    // The deciding hook, failing closed (with the operator's timeoutSec, if they set one); the reports of what ran after it.
    const wanted: [string, JsonObject, string][] = [
      ['preToolUse', copilotHook(home, { launcher, hookTimeoutS: operatorTimeout(file, hooks?.preToolUse) }), 'the Gatehouse hook (command form) for every tool'],
      ['postToolUse', copilotReportHook(home, 'postToolUse', { launcher }), 'the Gatehouse report of what ran'],
      ['postToolUseFailure', copilotReportHook(home, 'postToolUseFailure', { launcher }), 'the Gatehouse report of what failed'],
    ];
    for (const [event, ours, what] of wanted) {
      const list = hooks?.[event];
      if (list !== undefined && !Array.isArray(list)) throw new ConfigFileError(file, `${file}: "hooks.${event}" is ${kindOf(list)}, not a list of hooks as Copilot CLI expects. Fix it by hand, then preview again.`);
      if (list === undefined) {
        edit(['hooks', event], [ours]);
        changes.push(`hooks.${event}: added ${what}`);
        continue;
      }
      const found = list.flatMap((h, i) => (isCopilotGatehouseHook(h) ? [i] : []));
      if (found.length === 0) {
        edit(['hooks', event, -1], ours, true);
        changes.push(`hooks.${event}: added ${what}`);
        continue;
      }
      // One Gatehouse hook, updated in place: a second one would send every call to Gatehouse twice.
      if (!sameJson(list[found[0]!], ours)) {
        edit(['hooks', event, found[0]!], ours);
        changes.push(`hooks.${event}[${found[0]}]: replaced the Gatehouse hook with the command form`);
      }
      for (const i of found.slice(1).reverse()) {
        edit(['hooks', event, i], undefined);
        changes.push(`hooks.${event}[${i}]: removed a second Gatehouse hook`);
      }
    }
  }

  private mergeMcp(file: string, value: JsonObject, edit: JsonEdit, changes: string[]): void {
    const { launcher } = this.launch();
    const stdio = mcpStdioServer(this.deps.gatehouseHome, { typed: false });
    // Absolute paths when this installation has them, as for the hook; every tool of the server ("*").
    const ours: JsonObject = { type: 'local', ...(launcher ? { command: launcher.node, args: [launcher.entry, ...(stdio.args as string[])] } : stdio), env: { ...(launcher?.env ?? {}) }, tools: ['*'] };
    const servers = value.mcpServers;
    if (servers !== undefined && !isObject(servers)) throw new ConfigFileError(file, `${file}: "mcpServers" is ${kindOf(servers)}, not an object of servers by name as Copilot CLI expects. Fix it by hand, then preview again.`);
    const existing = servers?.[MCP_SERVER_NAME];
    if (existing !== undefined && sameJson(existing, ours)) return;
    edit(['mcpServers', MCP_SERVER_NAME], ours);
    changes.push(`mcpServers.${MCP_SERVER_NAME}: ${existing === undefined ? 'added' : 'replaced'} (stdio bridge, gatehouse mcp; its tools are named ${MCP_SERVER_NAME}-<tool>)`);
  }

  private notes(req: CopilotConfigRequest): string[] {
    const notes: string[] = [];
    const { launcher, problem } = this.launch();
    if (problem) notes.push(problem);
    if (launcher === null) notes.push('The gatehouse command must be on the PATH Copilot CLI runs hooks with; if it is not, the hook blocks every call (it fails closed).');
    else notes.push(`The command names node and Gatehouse by absolute path (${launcher.node}, ${launcher.entry}); if this installation moves, write the files again (until then the hook blocks every call).`);
    if (req.hook === 'command') {
      notes.push(`Copilot CLI runs the tool when a hook times out or prints no JSON answer (it fails open there): the hook written here answers within its timeoutSec (${COPILOT_HOOK_TIMEOUT_S} s) and turns its own failures into a deny; a deny reaches the model as "Denied by preToolUse hook: <reason>".`);
      notes.push('"disableAllHooks": true in a repository\'s .github/copilot/settings.json switches this hook off: Gatehouse denies agents\' writes to that file, but check repositories you open.');
    }
    if (req.hook === 'none') notes.push('Without the hook, Copilot CLI\'s own tools (shell, file edits, web fetch) are not seen by Gatehouse.');
    notes.push('Copilot CLI reads these files when it starts: restart it (/mcp shows what it loaded).');
    return notes;
  }
}
