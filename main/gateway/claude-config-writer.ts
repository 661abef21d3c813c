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
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, copyFileSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type JSONPath, type ParseError } from 'jsonc-parser';
import { CLAUDE_HOOK_TIMEOUT_S, claudeHooks, hookTimeoutProblem, MAX_HOOK_TIMEOUT_S, MCP_SERVER_NAME, MIN_HOOK_TIMEOUT_S, mcpHttpServer, mcpStdioServer, preToolUseGroup, TOKEN_ENV, type ClaudeHookEvent, type HookLauncher, type JsonObject } from '../../shared/claude-config.js';
import type { RuntimeHost } from '../core/node-runtime.js';
import { agentLauncher, type AgentLauncher } from './agent-launcher.js';
import { OperationError } from '../core/operation-error.js';
import { CLAUDE_HOOK_PATH } from './agent-routes.js';

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

/**
 * This installation's node and gatehouse entry (agent-launcher.ts); null when there is none, in
 * which case the hook names `gatehouse` on the PATH and still fails closed when it is missing.
 */
export function defaultHookLauncher(): HookLauncher | null {
  return agentLauncher('hook').launcher;
}

/** One file as the preview shows it. */
export interface PlannedFile {
  path: string;
  /** "settings": a settings.json (hooks); "mcp": a file Claude Code reads MCP servers from. */
  kind: 'settings' | 'mcp';
  exists: boolean;
  changed: boolean;
  /** Unified diff of the current content against the new one (empty when nothing changes). */
  diff: string;
  /** What the diff was computed from: the SHA-256 of the current bytes, or "absent". */
  baseHash: string;
  after: string;
  /** What Gatehouse adds or replaces, in words (no token). */
  changes: string[];
}

export interface ConfigPreview {
  files: PlannedFile[];
  /** What the operator still has to do (an environment variable, a restart, an approval). */
  notes: string[];
}

export interface WrittenFile {
  path: string;
  written: boolean;
  created: boolean;
  /** The copy of the previous content, next to the file; null for a new file or no change. */
  backup: string | null;
}

export const ABSENT = 'absent';
const MAX_BYTES = 16 << 20;

/** A configuration file that is not what Claude Code expects; names the file and, for syntax, the line and column. */
export class ConfigFileError extends OperationError {
  constructor(
    readonly file: string,
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super('invalid_config', message);
  }
}

interface Target {
  path: string;
  kind: 'settings' | 'mcp';
  /** Mode for a file Gatehouse creates. */
  newMode: number;
}

export interface CurrentFile {
  exists: boolean;
  text: string;
  hash: string;
  /** The file to write: the path itself, or what its symlink points to. */
  real: string;
  mode: number | null;
}

export class ClaudeConfigWriter {
  constructor(private readonly deps: ClaudeConfigDeps) {}

  private launch(): AgentLauncher {
    return this.deps.launcher === undefined ? agentLauncher('hook', this.deps.runtime, this.deps.entry) : { launcher: this.deps.launcher, problem: null };
  }

  /** The files this request would touch, in order: the settings file (hook), then the MCP file. */
  targets(req: ClaudeConfigRequest): Target[] {
    if (req.mcp === 'none' && req.hook === 'none') throw new OperationError('invalid', 'Choose an MCP server, a hook, or both: there is nothing to write.');
    const out: Target[] = [];
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
  write(req: ClaudeConfigRequest, expected: { path: string; baseHash: string }[], actor: string, extra: Record<string, unknown> = {}): { files: WrittenFile[] } {
    const plans = this.targets(req).map((t) => ({ target: t, ...this.plan(t, req) }));
    for (const { plan } of plans) {
      const seen = expected.find((e) => e.path === plan.path);
      if (!seen) throw new OperationError('not_previewed', `${plan.path} was not in the preview you applied; preview again, read the diff, then apply.`);
      if (seen.baseHash !== plan.baseHash) {
        const what = seen.baseHash === ABSENT ? 'was created' : plan.baseHash === ABSENT ? 'was removed' : 'changed';
        throw new OperationError('changed', `${plan.path} ${what} since the preview (another program, or Claude Code itself, wrote it). Nothing was written: look at the new diff and apply again.`);
      }
    }
    const now = this.deps.now?.() ?? Date.now();
    const written: WrittenFile[] = [];
    for (const { target, plan, current } of plans) {
      if (!plan.changed) {
        written.push({ path: plan.path, written: false, created: false, backup: null });
        continue;
      }
      try {
        const backup = current.exists ? keepBackup(plan.path, current, now) : null;
        writeAtomic(current.real, plan.after, current.mode ?? target.newMode);
        written.push({ path: plan.path, written: true, created: !current.exists, backup });
      } catch (err) {
        const done = written.filter((w) => w.written);
        const already = done.length ? ` Already written: ${done.map((w) => `${w.path}${w.backup ? ` (backup ${w.backup})` : ''}`).join(', ')}.` : '';
        if (done.length) this.audit(req, plans, written, actor, extra);
        throw new OperationError('write_failed', `Could not write ${plan.path}: ${(err as Error).message}.${already}`);
      }
    }
    if (written.some((w) => w.written)) this.audit(req, plans, written, actor, extra);
    return { files: written };
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
    const raw = (dir ?? '').trim();
    if (!raw) throw new OperationError('invalid', 'Enter the project folder (the folder you start Claude Code in).');
    const expanded = raw === '~' ? this.deps.userHome : raw.startsWith('~/') ? join(this.deps.userHome, raw.slice(2)) : raw;
    if (!isAbsolute(expanded)) throw new OperationError('invalid', `The project folder must be an absolute path (it is on the host, not relative to anything): ${raw}.`);
    const abs = resolve(expanded);
    let isDir: boolean;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      throw new OperationError('invalid', `The project folder ${abs} does not exist on this host.`);
    }
    if (!isDir) throw new OperationError('invalid', `${abs} is a file, not a folder: enter the project folder.`);
    return abs;
  }

  private plan(target: Target, req: ClaudeConfigRequest): { plan: PlannedFile; current: CurrentFile } {
    const current = readCurrent(target.path);
    const value = current.exists ? parseStrict(target.path, current.text) : {};
    // An existing but empty file is an empty object; a new file starts as one.
    let text = current.exists && current.text.trim() !== '' ? current.text : '{}\n';
    const fmt = formattingOf(text);
    const changes: string[] = [];
    // Every edit is made twice: as text (jsonc-parser, keeping the user's layout) and on the
    // parsed value (the meaning). Removals are not made as text (jsonc-parser 3.3 removes a
    // compact array's element at the wrong offset: [1,2] becomes [12]); if any edit was one, or
    // the text does not parse to exactly the meaning, the file is written from the value instead.
    const model = structuredClone(value);
    let rewrite = false;
    const edit = (path: JSONPath, v: unknown, isArrayInsertion = false) => {
      editValue(model, path, v, isArrayInsertion);
      if (v === undefined) rewrite = true;
      else text = applyEdits(text, modify(text, path, v, { formattingOptions: fmt, isArrayInsertion }));
    };
    if (target.kind === 'settings') this.mergeHook(target.path, value, req, edit, changes);
    else this.mergeMcp(target.path, value, req, edit, changes);
    if (!rewrite && !parsesTo(text, model)) rewrite = true;
    if (rewrite) text = JSON.stringify(model, null, fmt.insertSpaces ? ' '.repeat(fmt.tabSize) : '\t').replace(/\n/g, fmt.eol);
    if (!text.endsWith('\n')) text += fmt.eol;
    const changed = changes.length > 0 && text !== current.text;
    const diff = changed ? createTwoFilesPatch(target.path, target.path, current.text, text, current.exists ? 'current' : 'new file', 'with Gatehouse', { context: 3 }) : '';
    return { plan: { path: target.path, kind: target.kind, exists: current.exists, changed, diff, baseHash: current.hash, after: changed ? text : current.text, changes: changed ? changes : [] }, current };
  }

  private mergeHook(file: string, value: JsonObject, req: ClaudeConfigRequest, edit: (p: JSONPath, v: unknown, ins?: boolean) => void, changes: string[]): void {
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
    for (const [ev, ours, what] of events) this.mergeEvent(file, hooks, ev, ours, what, ev === 'PreToolUse' ? `${form}${kept}` : form, edit, changes);
  }

  private mergeEvent(file: string, hooks: JsonObject, ev: HookEventName, ours: JsonObject, what: string, form: string, edit: (p: JSONPath, v: unknown, ins?: boolean) => void, changes: string[]): void {
    const list = hooks[ev];
    if (list !== undefined && !Array.isArray(list)) throw new ConfigFileError(file, `${file}: "hooks.${ev}" is ${kindOf(list)}, not a list of matcher groups as Claude Code expects. Fix it by hand, then preview again.`);
    // Gatehouse's own hooks already there (either form, any port): the first is updated in
    // place, later ones removed, so a call is never sent to Gatehouse twice.
    const found: [number, number][] = [];
    (list ?? []).forEach((group, gi) => {
      if (!isObject(group) || !Array.isArray(group.hooks)) return;
      group.hooks.forEach((h, hi) => {
        if (isGatehouseHook(h)) found.push([gi, hi]);
      });
    });
    if (found.length === 0) {
      if (list === undefined) edit(['hooks', ev], [preToolUseGroup(ours)]);
      else edit(['hooks', ev, -1], preToolUseGroup(ours), true);
      changes.push(`hooks.${ev}: added ${what}`);
      return;
    }
    const [g0, h0] = found[0]!;
    const first = ((list as JsonObject[])[g0]!.hooks as unknown[])[h0];
    if (!sameJson(first, ours)) {
      edit(['hooks', ev, g0, 'hooks', h0], ours);
      changes.push(`hooks.${ev}[${g0}]: replaced the Gatehouse hook with the ${form}`);
    }
    // Remove the others from the last to the first, so earlier indexes stay valid. A group that
    // held nothing but Gatehouse hooks goes as a whole (never the first one's group).
    const byGroup = new Map<number, number[]>();
    for (const [gi, hi] of found.slice(1)) byGroup.set(gi, [...(byGroup.get(gi) ?? []), hi]);
    for (const gi of [...byGroup.keys()].sort((a, b) => b - a)) {
      const mine = byGroup.get(gi)!.sort((a, b) => b - a);
      const size = ((list as JsonObject[])[gi]!.hooks as unknown[]).length;
      if (gi !== g0 && mine.length === size) {
        edit(['hooks', ev, gi], undefined);
        changes.push(`hooks.${ev}[${gi}]: removed a second Gatehouse hook (its group held nothing else)`);
        continue;
      }
      for (const hi of mine) {
        edit(['hooks', ev, gi, 'hooks', hi], undefined);
        changes.push(`hooks.${ev}[${gi}].hooks[${hi}]: removed a second Gatehouse hook`);
      }
    }
  }

  private mergeMcp(file: string, value: JsonObject, req: ClaudeConfigRequest, edit: (p: JSONPath, v: unknown) => void, changes: string[]): void {
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
  if (h.type === 'command' && typeof h.command === 'string') return /(^|[\s/'"])gatehouse(\.js)?['"]?\s+hook(\s|$)/.test(h.command);
  if (h.type === 'http' && typeof h.url === 'string') {
    try {
      return new URL(h.url).pathname === CLAUDE_HOOK_PATH;
    } catch {
      return false;
    }
  }
  return false;
}

export function readCurrent(path: string): CurrentFile {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, text: '', hash: ABSENT, real: path, mode: null };
    throw new OperationError('unreadable', `Could not read ${path}: ${(err as Error).message}.`);
  }
  let real = path;
  if (st.isSymbolicLink()) {
    // A dotfile manager's link: write through it, so the link stays a link.
    try {
      real = realpathSync(path);
      st = statSync(real);
    } catch {
      throw new ConfigFileError(path, `${path} is a symbolic link to a file that does not exist; fix or remove the link, then preview again.`);
    }
  }
  if (!st.isFile()) throw new ConfigFileError(path, `${path} is not a regular file; Gatehouse leaves it alone.`);
  if (st.size > MAX_BYTES) throw new ConfigFileError(path, `${path} is over ${MAX_BYTES >> 20} MiB; Gatehouse does not edit a file that large.`);
  const bytes = readFileSync(real);
  return { exists: true, text: bytes.toString('utf8'), hash: createHash('sha256').update(bytes).digest('hex'), real, mode: st.mode & 0o7777 };
}

// By jsonc-parser's error names (ParseErrorCode is a const enum, out of reach here).
const parseErrorWords: Record<string, string> = {
  InvalidSymbol: 'a character that cannot start a JSON value',
  InvalidNumberFormat: 'a number that is not valid JSON',
  PropertyNameExpected: 'a property name in double quotes was expected (a trailing comma?)',
  ValueExpected: 'a value was expected (a trailing comma?)',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma was expected',
  CloseBraceExpected: 'a closing } was expected',
  CloseBracketExpected: 'a closing ] was expected',
  EndOfFileExpected: 'more text after the end of the JSON value',
  InvalidCommentToken: 'a comment (JSON has no comments)',
  UnexpectedEndOfComment: 'a comment that never ends',
  UnexpectedEndOfString: 'a string that never ends',
  UnexpectedEndOfNumber: 'a number that ends too early',
  InvalidUnicode: 'an invalid \\u escape',
  InvalidEscapeCharacter: 'an invalid escape character',
  InvalidCharacter: 'a control character inside a string',
};

/** The file as strict JSON, or a ConfigFileError naming the line and column of the first problem. */
export function parseStrict(file: string, text: string): JsonObject {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  let value: unknown;
  try {
    // JSON.parse has the last word on validity; jsonc-parser says where.
    value = JSON.parse(text);
  } catch (err) {
    const first = errors[0];
    const offset = first?.offset ?? Number(/at position (\d+)/.exec((err as Error).message)?.[1] ?? NaN);
    const what = first ? parseErrorWords[printParseErrorCode(first.error)] ?? 'invalid JSON' : (err as Error).message;
    if (Number.isFinite(offset)) {
      const { line, column } = lineColumn(text, offset);
      throw new ConfigFileError(file, `${file} is not valid JSON: line ${line}, column ${column}: ${what}. Gatehouse does not change a file it cannot read exactly; fix that line (or move the file aside), then preview again.`, line, column);
    }
    throw new ConfigFileError(file, `${file} is not valid JSON (${what}). Gatehouse does not change a file it cannot read exactly; fix it (or move the file aside), then preview again.`);
  }
  if (!isObject(value)) throw new ConfigFileError(file, `${file} holds ${kindOf(value)}, not a JSON object as Claude Code expects. Fix it (or move it aside), then preview again.`);
  return value;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return { line, column };
}

/** The file's own indentation and line ends, so added lines look like the rest. */
function formattingOf(text: string): FormattingOptions & { tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indents = [...text.matchAll(/\n([ \t]+)\S/g)].map((m) => m[1]!);
  if (indents.some((i) => i.startsWith('\t'))) return { insertSpaces: false, tabSize: 1, eol };
  const widths = indents.map((i) => i.length).filter((n) => n > 0);
  const tabSize = widths.length ? Math.min(...widths) : 2;
  return { insertSpaces: true, tabSize, eol };
}

export function keepBackup(path: string, current: CurrentFile, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  for (let n = 0; n < 100; n++) {
    const backup = `${path}.gatehouse-backup-${stamp}${n ? `-${n}` : ''}`;
    if (existsSync(backup)) continue;
    try {
      // The copy holds what the file held (possibly a token): the same mode, never wider.
      copyFileSync(current.real, backup, constants.COPYFILE_EXCL);
      chmodSync(backup, current.mode ?? 0o600);
      return backup;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new Error(`the backup ${backup} could not be written (${(err as Error).message}); the file was not changed`, { cause: err });
    }
  }
  throw new Error(`no free backup name next to ${path}; the file was not changed`);
}

/** Temp file in the same folder, flushed, then renamed over the file: readers see old or new, never half. */
export function writeAtomic(file: string, text: string, mode: number): void {
  const dir = dirname(file);
  // A new .claude folder is as private as the file that goes in it.
  mkdirSync(dir, { recursive: true, mode: mode & 0o077 ? 0o755 : 0o700 });
  const tmp = join(dir, `.${basename(file)}.gatehouse-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(tmp, mode); // the umask narrowed the mode openSync asked for
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw err;
  }
}

/** The same edit as jsonc-parser's modify() on the parsed value: set (creating objects on the way), append, or remove. */
function editValue(root: JsonObject, path: JSONPath, v: unknown, isArrayInsertion: boolean): void {
  let parent: unknown = root;
  for (const key of path.slice(0, -1)) {
    const container = parent as Record<string | number, unknown>;
    if (container[key] === undefined && typeof key === 'string') container[key] = {};
    parent = container[key];
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(parent) && typeof last === 'number') {
    if (v === undefined) parent.splice(last, 1);
    else if (last === -1) parent.push(v);
    else if (isArrayInsertion) parent.splice(last, 0, v);
    else parent[last] = v;
    return;
  }
  const obj = parent as Record<string, unknown>;
  if (v === undefined) delete obj[last as string];
  else obj[last as string] = v;
}

function parsesTo(text: string, value: unknown): boolean {
  try {
    return sameJson(JSON.parse(text), value);
  } catch {
    return false;
  }
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
