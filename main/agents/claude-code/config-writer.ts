// "Write it for me": adds Gatehouse to Claude Code's own configuration files, after the operator
// has seen the diff. preview() computes what each file would become; write() changes a file only
// if it still holds exactly what the preview was computed from, keeps a backup of it first,
// replaces it atomically with its mode kept, and records the change in the audit log.
//
// Which files, as Claude Code documents them (code.claude.com/docs/en/settings, /hooks, /mcp):
// - hooks are read from settings files: ~/.claude/settings.json (user) and
//   <project>/.claude/settings.json (project, meant to be committed); settings.json holds no MCP
//   servers;
// - MCP servers are read from ~/.claude.json: top-level "mcpServers" is the user scope
//   (`claude mcp add --scope user`), "projects"[<path>]."mcpServers" the local scope (the default);
//   and from <project>/.mcp.json, the project scope (`--scope project`), committed and shared,
//   which Claude Code asks each user to approve before first use and in which it expands
//   ${VAR} in url and headers.
//
// The token: the HTTP hook always names ${TOKEN_ENV} (Claude Code fills it in from its
// environment, allowedEnvVars). For MCP over HTTP, a project's .mcp.json gets
// "Bearer ${GATEHOUSE_AGENT_TOKEN}" too, because that file is committed; ~/.claude.json gets the
// token itself, as `claude mcp add --scope user --header …` would write it, because that file is
// the user's own and Claude Code does not document variable expansion there. The audit event
// never carries the token.
//
// Edits go through jsonc-parser's modify(), so the user's formatting, key order and every other
// key and hook stay as they were: only Gatehouse's entries are added or replaced. A file that is
// not strict JSON is never touched.
import { join } from 'node:path';
import { CLAUDE_HOOK_TIMEOUT_S, claudeHooks, hookTimeoutProblem, MAX_HOOK_TIMEOUT_S, MCP_SERVER_NAME, MIN_HOOK_TIMEOUT_S, mcpHttpServer, mcpStdioServer, preToolUseGroup, TOKEN_ENV, type ClaudeHookEvent, type HookLauncher, type JsonObject } from '../../../shared/claude-config.js';
import type { RuntimeHost } from '../../core/node-runtime.js';
import { agentLauncher, writerLauncher, type AgentLauncher } from '../../gateway/agent-launcher.js';
import { OperationError } from '../../core/operation-error.js';
import { CLAUDE_HOOK_PATH } from '../../gateway/agent-routes.js';
import { ABSENT, ConfigFileError, isObject, kindOf, planJsonFile, projectFolder, sameJson, writePlanned, type ConfigPreview, type ConfigTarget, type CurrentFile, type JsonEdit, type PlannedFile, type WrittenFile } from '../config-file.js';
import { mergeHookGroup } from '../hook-groups.js';
import { verifyByPreview, type AgentDetection, type AgentIntegration, type AgentVerification } from '../integration.js';
import { detectAgent } from '../detect.js';

export type ClaudeScope = 'user' | 'project';
export type McpForm = 'http' | 'stdio' | 'none';
export type HookForm = 'command' | 'http' | 'none';

export interface ClaudeConfigRequest {
  scope: ClaudeScope;
  /** The project folder (scope "project"): absolute, or starting with ~/. */
  projectDir?: string | undefined;
  mcp: McpForm;
  hook: HookForm;
}

export interface ClaudeConfigDeps {
  /** The user's home directory, where ~/.claude/settings.json and ~/.claude.json live (injectable for tests). */
  userHome: string;
  /** This host's GATEHOUSE_HOME, passed to `gatehouse hook` and `gatehouse mcp` as --home. */
  gatehouseHome: string;
  /** Where agents reach this host over HTTP; null when it does not listen for them. */
  endpoints: () => { mcpUrl: string; hookUrl: string; agentToken: string } | null;
  record?: (type: string, actor: string, payload: Record<string, unknown>) => void;
  now?: () => number;
  /** How the hook command starts Gatehouse (absolute paths); null: `gatehouse` from the PATH. Default: this installation's. */
  launcher?: HookLauncher | null;
  /** Without `launcher`: stand-ins for Electron's process.versions and PATH and for bin/gatehouse.js (tests). */
  runtime?: RuntimeHost;
  entry?: string | null;
}

type HookEventName = ClaudeHookEvent;

/** What Gatehouse cannot guarantee for Claude Code (docs/security-model.md). */
export const CLAUDE_CODE_LIMITS: readonly string[] = [
  'Claude Code lets a call through when an HTTP hook fails (host stopped, refused connection, timeout): only the command form, whose every failure exits 2, fails closed.',
  'A hook sees Claude Code\'s own tools; what an MCP server of its own (not Gatehouse) does is seen only by that server.',
];

/**
 * This installation's node and gatehouse entry (agent-launcher.ts); null when there is none, in
 * which case the hook names `gatehouse` on the PATH and still fails closed when it is missing.
 */
export function defaultHookLauncher(): HookLauncher | null {
  return agentLauncher('hook').launcher;
}


export class ClaudeConfigWriter implements AgentIntegration<'claude-code'> {
  readonly id = 'claude-code' as const;
  readonly displayName = 'Claude Code';
  readonly limits = CLAUDE_CODE_LIMITS;

  constructor(private readonly deps: ClaudeConfigDeps) {}

  detect(): AgentDetection {
    return detectAgent([join(this.deps.userHome, '.claude'), join(this.deps.userHome, '.claude.json')], 'claude');
  }

  verify(req: ClaudeConfigRequest): AgentVerification {
    return verifyByPreview(this.preview(req));
  }

  snippet(req: ClaudeConfigRequest): string {
    return this.targets(req).map((t) => `// ${t.path}\n${this.plan(t, req, { exists: false, text: '', hash: ABSENT, real: t.path, mode: null }).plan.after}`).join('\n');
  }

  listsTools(req: ClaudeConfigRequest): boolean {
    return req.mcp !== 'none';
  }

  private launch(): AgentLauncher {
    return writerLauncher('hook', this.deps);
  }

  /** The files this request would touch, in order: the settings file (hook), then the MCP file. */
  targets(req: ClaudeConfigRequest): ConfigTarget[] {
    if (req.mcp === 'none' && req.hook === 'none') throw new OperationError('invalid', 'Choose an MCP server, a hook, or both: there is nothing to write.');
    const out: ConfigTarget[] = [];
    if (req.scope === 'user') {
      const home = this.deps.userHome;
      if (req.hook !== 'none') out.push({ path: join(home, '.claude', 'settings.json'), kind: 'settings', newMode: 0o600 });
      if (req.mcp !== 'none') out.push({ path: join(home, '.claude.json'), kind: 'mcp', newMode: 0o600 });
    } else {
      const project = this.projectDir(req.projectDir);
      if (req.hook !== 'none') out.push({ path: join(project, '.claude', 'settings.json'), kind: 'settings', newMode: 0o644 });
      if (req.mcp !== 'none') out.push({ path: join(project, '.mcp.json'), kind: 'mcp', newMode: 0o644 });
    }
    return out;
  }

  preview(req: ClaudeConfigRequest): ConfigPreview {
    const files = this.targets(req).map((t) => this.plan(t, req).plan);
    return { files, notes: this.notes(req) };
  }

  /**
   * Writes every changed file of the request, if each still has the hash its preview showed
   * (`expected`: path → baseHash). Nothing is written unless all of them match.
   */
  write(req: ClaudeConfigRequest, expected: readonly { path: string; baseHash: string }[], actor: string, extra: Record<string, unknown> = {}): { files: WrittenFile[] } {
    const plans = this.targets(req).map((t) => ({ target: t, ...this.plan(t, req) }));
    const files = writePlanned(plans, expected, { agent: this.displayName, now: this.deps.now?.() ?? Date.now(), recorded: (written) => this.audit(req, plans, written, actor, extra) });
    return { files };
  }

  private audit(req: ClaudeConfigRequest, plans: { plan: PlannedFile }[], written: WrittenFile[], actor: string, extra: Record<string, unknown>): void {
    this.deps.record?.('agent.config-written', actor, {
      ...extra,
      scope: req.scope,
      projectDir: req.scope === 'project' ? this.projectDir(req.projectDir) : null,
      mcp: req.mcp,
      hook: req.hook,
      files: written
        .filter((w) => w.written)
        .map((w) => ({ path: w.path, created: w.created, backup: w.backup, changes: plans.find((p) => p.plan.path === w.path)?.plan.changes ?? [] })),
    });
  }

  private projectDir(dir: string | undefined): string {
    return projectFolder(dir, this.deps.userHome, this.displayName);
  }

  private plan(target: ConfigTarget, req: ClaudeConfigRequest, current?: CurrentFile): { plan: PlannedFile; current: CurrentFile } {
    return planJsonFile(target, this.displayName, (value, edit, changes) => {
      if (target.kind === 'settings') this.mergeHook(target.path, value, req, edit, changes);
      else this.mergeMcp(target.path, value, req, edit, changes);
    }, current);
  }

  private mergeHook(file: string, value: JsonObject, req: ClaudeConfigRequest, edit: JsonEdit, changes: string[]): void {
    // Claude Code's timeout is written explicitly: the command's own --timeout and the host's
    // inbox wait are derived from it, so Gatehouse always answers before Claude Code gives up.
    const { launcher } = this.launch();
    const form = req.hook === 'http' ? 'HTTP form' : 'command form';
    const hooks = value.hooks;
    if (hooks !== undefined && !isObject(hooks)) throw new ConfigFileError(file, `${file}: "hooks" is ${kindOf(hooks)}, not an object as Claude Code expects ({"PreToolUse": [...]}). Fix it by hand, then preview again.`);
    // A timeout the operator set on Gatehouse's PreToolUse hook is kept, and the command's
    // --timeout and the host's deadline are derived from it; left as it was, a shorter timeout
    // would end the hook before Gatehouse answers, and Claude Code would go on without its decision.
    const hookTimeoutS = operatorHookTimeout(file, hooks);
    const ours = claudeHooks(req.hook === 'http' ? 'http' : 'command', { home: this.deps.gatehouseHome, launcher, hookUrl: req.hook === 'http' ? this.need('hook').hookUrl : null, ...(hookTimeoutS !== undefined ? { hookTimeoutS } : {}) });
    const kept = hookTimeoutS !== undefined && hookTimeoutS !== CLAUDE_HOOK_TIMEOUT_S ? `, keeping your timeout of ${hookTimeoutS} s` : '';
    const events: [HookEventName, JsonObject, string][] = [
      ['PreToolUse', ours.PreToolUse, `the Gatehouse hook (${form}) for every tool (matcher "*")`],
      ['PostToolUse', ours.PostToolUse, `the Gatehouse report of what ran (${form}) for every tool`],
      ['PostToolUseFailure', ours.PostToolUseFailure, `the Gatehouse report of what failed (${form}) for every tool`],
    ];
    if (hooks === undefined) {
      edit(['hooks'], Object.fromEntries(events.map(([ev, ours]) => [ev, [preToolUseGroup(ours)]])));
      for (const [ev, , what] of events) changes.push(`hooks.${ev}: added ${what}`);
      return;
    }
    // Gatehouse's own hooks already there (either form, any port): the first is updated in
    // place, later ones removed, so a call is never sent to Gatehouse twice.
    for (const [ev, ours, what] of events) mergeHookGroup({ file, agent: this.displayName, hooks, event: ev, ours, group: preToolUseGroup(ours), what, form: ev === 'PreToolUse' ? `${form}${kept}` : form, isOurs: isGatehouseHook, edit, changes });
  }

  private mergeMcp(file: string, value: JsonObject, req: ClaudeConfigRequest, edit: JsonEdit, changes: string[]): void {
    let ours: JsonObject;
    let what: string;
    if (req.mcp === 'http') {
      const e = this.need('mcp');
      // A project's .mcp.json is committed: it names the variable; ~/.claude.json is the user's own.
      const authorization = req.scope === 'project' ? `Bearer \${${TOKEN_ENV}}` : `Bearer ${e.agentToken}`;
      ours = mcpHttpServer(e.mcpUrl, authorization);
      what = `Streamable HTTP at ${e.mcpUrl}, token ${req.scope === 'project' ? `from \${${TOKEN_ENV}}` : 'in the Authorization header'}`;
    } else {
      ours = mcpStdioServer(this.deps.gatehouseHome);
      what = 'stdio bridge, gatehouse mcp';
    }
    const servers = value.mcpServers;
    if (servers !== undefined && !isObject(servers)) throw new ConfigFileError(file, `${file}: "mcpServers" is ${kindOf(servers)}, not an object of servers by name as Claude Code expects. Fix it by hand, then preview again.`);
    const existing = servers?.[MCP_SERVER_NAME];
    if (existing !== undefined && sameJson(existing, ours)) return;
    edit(['mcpServers', MCP_SERVER_NAME], ours);
    changes.push(`mcpServers.${MCP_SERVER_NAME}: ${existing === undefined ? 'added' : 'replaced'} (${what})`);
  }

  private need(route: 'mcp' | 'hook') {
    const e = this.deps.endpoints();
    if (!e) {
      throw new OperationError(
        'unavailable',
        route === 'mcp'
          ? 'This host does not listen for agents over HTTP, so there is no MCP URL to write: choose the stdio bridge, or run gatehouse serve.'
          : 'This host does not listen for agents over HTTP, so there is no hook URL to write: choose the command form, or run gatehouse serve.',
      );
    }
    return e;
  }

  private notes(req: ClaudeConfigRequest): string[] {
    const notes: string[] = [];
    const envNeeded = req.hook === 'http' || (req.mcp === 'http' && req.scope === 'project');
    if (envNeeded) notes.push(`Claude Code reads the agent token from ${TOKEN_ENV}: set it to the agent token in the environment you start Claude Code from (export ${TOKEN_ENV}=…).`);
    if (req.mcp === 'http' && req.scope === 'user') notes.push('~/.claude.json will hold the agent token itself, as claude mcp add --scope user would write it.');
    if (req.mcp !== 'none' && req.scope === 'project') notes.push('Claude Code asks each user to approve the servers of a project’s .mcp.json before it first uses them.');
    if (req.mcp !== 'none' && req.scope === 'user') notes.push('Claude Code also rewrites ~/.claude.json while it runs: apply while it is not running, or preview again if the file changed.');
    // The command form is the one to prefer: Claude Code lets the tool run when an HTTP hook fails
    // (refused connection, timeout, an error status), while a command hook that fails exits 2, which blocks.
    if (req.hook === 'http') notes.push(HTTP_HOOK_CAVEAT);
    // Only the launcher-less form names `gatehouse` on the PATH; the default writes absolute paths of node and this installation.
    const { launcher, problem } = this.launch();
    if (req.hook === 'command' && problem) notes.push(problem);
    if ((req.hook === 'command' || req.mcp === 'stdio') && launcher === null) notes.push('The gatehouse command must be on the PATH Claude Code runs commands with; if it is not, the hook blocks every call (it fails closed).');
    else if (req.hook === 'command' || req.mcp === 'stdio') notes.push(`The command names node and Gatehouse by absolute path (${launcher!.node}, ${launcher!.entry}), so Claude Code's PATH does not matter; if this installation moves, write the settings again (until then the hook blocks every call: it fails closed).`);
    notes.push('Claude Code reads these files when a session starts: restart it (check with /hooks and /mcp).');
    return notes;
  }
}

/** Said with every preview of the HTTP hook form: why the command form is preferred. */
export const HTTP_HOOK_CAVEAT =
  'Prefer the command form of the hook: when the HTTP hook cannot reach Gatehouse (host stopped, connection refused, timeout) Claude Code runs the tool without it, while the command form then blocks the call.';

/** A Gatehouse PreToolUse hook, in either form, whatever its port or --home. */
/**
 * The `timeout` of the first Gatehouse PreToolUse hook in `hooks`, when it has one; one Gatehouse
 * cannot answer within is refused, naming the field, so the operator fixes or removes it.
 */
function operatorHookTimeout(file: string, hooks: JsonObject | undefined): number | undefined {
  const list = hooks?.PreToolUse;
  if (!Array.isArray(list)) return undefined;
  for (const [gi, group] of list.entries()) {
    if (!isObject(group) || !Array.isArray(group.hooks)) continue;
    for (const [hi, h] of group.hooks.entries()) {
      if (!isGatehouseHook(h)) continue;
      const timeout = (h as JsonObject).timeout;
      if (timeout === undefined) return undefined;
      const problem = hookTimeoutProblem(timeout);
      if (problem) throw new ConfigFileError(file, `${file}: "hooks.PreToolUse[${gi}].hooks[${hi}].timeout" ${problem}. Set it from ${MIN_HOOK_TIMEOUT_S} to ${MAX_HOOK_TIMEOUT_S}, or remove it for Claude Code's default of ${CLAUDE_HOOK_TIMEOUT_S} s, then preview again.`);
      return timeout as number;
    }
  }
  return undefined;
}

export function isGatehouseHook(h: unknown): boolean {
  if (!isObject(h)) return false;
  // `gatehouse hook`, or the sh client (out/main/gatehouse-hook.sh) written where sh and curl are.
  if (h.type === 'command' && typeof h.command === 'string') return /(^|[\s/'"])gatehouse(\.js)?['"]?\s+hook(\s|$)|(^|[\s/'"])gatehouse-hook\.sh['"]?(\s|$)/.test(h.command);
  if (h.type === 'http' && typeof h.url === 'string') {
    try {
      return new URL(h.url).pathname === CLAUDE_HOOK_PATH;
    } catch {
      return false;
    }
  }
  return false;
}

