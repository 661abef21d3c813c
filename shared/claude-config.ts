// What Claude Code (and other MCP clients) need to reach Gatehouse, in the shapes they document.
// One source for the Settings view's copyable snippets and for the host's "write it for me"
// (main/gateway/claude-config-writer.ts), so what is shown and what is written never differ.
//
// Claude Code's shapes, as its documentation gives them (code.claude.com/docs/en/hooks and
// code.claude.com/docs/en/mcp):
// - hooks live in settings.json: {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [HOOK]}]}}, a
//   HOOK being {"type": "command", "command": …} or {"type": "http", "url": …, "headers": …,
//   "allowedEnvVars": […]}; an http hook's header values expand $VAR / ${VAR} only for variables
//   listed in allowedEnvVars (others become empty strings);
// - MCP servers live in {"mcpServers": {NAME: SERVER}}, SERVER being {"type": "http", "url": …,
//   "headers": …} or {"type": "stdio", "command": …, "args": […]}; .mcp.json expands ${VAR} in
//   command, args, env, url and headers;
// - `claude mcp add [--transport http|sse|stdio] [--scope local|project|user] [--header "K: V"]
//   [--env K=V] NAME URL` or `… NAME -- COMMAND [ARGS…]`: every option comes before the name, and
//   `--` separates Claude Code's options from the server's command line.

/** The environment variable an HTTP hook and a project's .mcp.json read the agent token from. */
export const TOKEN_ENV = 'GATEHOUSE_AGENT_TOKEN';
/** The MCP server name: Claude Code names its tools mcp__gatehouse__<tool>. */
export const MCP_SERVER_NAME = 'gatehouse';
/** The command on PATH that runs the CLI (`gatehouse hook`, `gatehouse mcp`). */
export const GATEHOUSE_COMMAND = 'gatehouse';

export type JsonObject = { [key: string]: unknown };

/** `--home DIR` when the host's home is known, so the CLI finds this host's serve.json. */
function homeArgs(home: string | null): string[] {
  return home ? ['--home', home] : [];
}

/**
 * What Claude Code's shell runs when the command itself fails (not on PATH, crashed): Claude Code
 * treats any exit but 2 as a non-blocking error and lets the tool call through, so without this
 * a missing `gatehouse` would fail open. `gatehouse hook` answers every decision with exit 0.
 */
export const HOOK_FAIL_CLOSED = `|| { echo 'Gatehouse: the hook command could not run (is gatehouse on the PATH Claude Code uses?); this call is blocked.' >&2; exit 2; }`;

/**
 * How the hook command starts Gatehouse without the PATH: the absolute path of a real Node.js
 * (never the desktop app's binary: main/gateway/agent-launcher.ts) and of the gatehouse entry script. Claude Code runs hooks with its own
 * environment, where `gatehouse` may not be on the PATH (or the PATH may be unset).
 */
export interface HookLauncher {
  node: string;
  entry: string;
  /** Environment assignments put before the command. */
  env?: Record<string, string>;
  /**
   * The bash + curl client (out/main/gatehouse-hook.sh) Claude Code's hooks run instead of Node,
   * when /bin/bash and curl are there (main/gateway/agent-launcher.ts): a Node start-up is paid on
   * every tool call otherwise. The other agents' hooks always run the Node command.
   */
  shClient?: string;
}

/** What runs the hook client (it speaks HTTP over bash's /dev/tcp): at this path on Linux and macOS alike. */
export const HOOK_CLIENT_SHELL = '/bin/bash';

/** The words that start the CLI: absolute paths when known, else `gatehouse` from the PATH. */
function launch(launcher: HookLauncher | null | undefined): string[] {
  if (!launcher) return [GATEHOUSE_COMMAND];
  return [...envWords(launcher), shellQuote(launcher.node), shellQuote(launcher.entry)];
}

/** The launcher's environment assignments, put before the command. */
function envWords(launcher: HookLauncher): string[] {
  return Object.entries(launcher.env ?? {}).map(([k, v]) => `${k}=${shellQuote(v)}`);
}

export interface HookCommandOptions {
  launcher?: HookLauncher | null;
  /** `--timeout` in seconds: how long the command waits for the host (written below the hook's own timeout). */
  timeoutS?: number;
}

/**
 * What the shell runs when the bash client itself fails (its file gone, killed): exit 2, which
 * blocks the call, as HOOK_FAIL_CLOSED does for the Node command.
 */
export const HOOK_CLIENT_FAIL_CLOSED = `|| { echo 'Gatehouse: the hook client could not run (is the Gatehouse installation its command names still there?); this call is blocked.' >&2; exit 2; }`;

/** The words that start Claude Code's hook: the bash client when there is one, else `gatehouse hook`. */
function claudeHookLaunch(launcher: HookLauncher | null | undefined): string[] {
  if (!launcher?.shClient) return [...launch(launcher), 'hook'];
  return [...envWords(launcher), HOOK_CLIENT_SHELL, shellQuote(launcher.shClient)];
}

/**
 * The command-form PreToolUse hook: `gatehouse hook [--home DIR]` (or the bash client with the same
 * options), run by a shell, failing closed (a missing node, entry or client, a crash, an unset
 * PATH: exit 2, which blocks the call).
 */
export function hookCommand(home: string | null, opts: HookCommandOptions = {}): string {
  const timeout = opts.timeoutS !== undefined ? ['--timeout', String(opts.timeoutS)] : [];
  const tail = opts.launcher?.shClient ? HOOK_CLIENT_FAIL_CLOSED : HOOK_FAIL_CLOSED;
  return [...claudeHookLaunch(opts.launcher), ...homeArgs(home).map(shellQuote), ...timeout, tail].join(' ');
}

/**
 * The command-form PostToolUse / PostToolUseFailure hook: the same command, reporting what ran
 * (the bash client is told with --report: it then prints nothing and exits 0 whatever happens).
 * Not failing closed: the tool has already run, and an exit 2 would only show the model an error.
 */
export function reportCommand(home: string | null, opts: HookCommandOptions = {}): string {
  const report = opts.launcher?.shClient ? ['--report'] : [];
  return [...claudeHookLaunch(opts.launcher), ...report, ...homeArgs(home).map(shellQuote)].join(' ');
}

/** `timeoutS`: the hook's own timeout in Claude Code (seconds), written explicitly. */
export function commandHook(home: string | null, opts: HookCommandOptions & { hookTimeoutS?: number } = {}): JsonObject {
  return { type: 'command', command: hookCommand(home, opts), ...(opts.hookTimeoutS !== undefined ? { timeout: opts.hookTimeoutS } : {}) };
}

/** The header the HTTP hook sends with its own timeout, so an inbox wait ends first (main/gateway/hook-answer.ts). */
export const HOOK_DEADLINE_HEADER_NAME = 'X-Gatehouse-Hook-Deadline-Ms';

/** The HTTP-form hook. The token never appears: Claude Code fills it in from TOKEN_ENV. */
export function httpHook(hookUrl: string, hookTimeoutS?: number): JsonObject {
  const headers: JsonObject = { Authorization: `Bearer $${TOKEN_ENV}` };
  if (hookTimeoutS !== undefined) headers[HOOK_DEADLINE_HEADER_NAME] = String(hookTimeoutS * 1000);
  return { type: 'http', url: hookUrl, headers, allowedEnvVars: [TOKEN_ENV], ...(hookTimeoutS !== undefined ? { timeout: hookTimeoutS } : {}) };
}

/** Claude Code's own default hook timeout in seconds (both forms); Gatehouse writes it explicitly. */
export const CLAUDE_HOOK_TIMEOUT_S = 600;
/** The command's --timeout is this much below the hook's timeout: it answers (deny) before it is killed. */
export const COMMAND_MARGIN_S = 10;
/**
 * The shortest PreToolUse timeout Gatehouse works with: the command needs a moment to start and
 * still answer before Claude Code gives up, and the host closes an inbox item at least 1 s in.
 */
export const MIN_HOOK_TIMEOUT_S = 5;
/** The longest the host takes a hook's deadline for (main/gateway/agent-routes.ts caps it there). */
export const MAX_HOOK_TIMEOUT_S = CLAUDE_HOOK_TIMEOUT_S * 10;

/**
 * The command's --timeout for a PreToolUse timeout of `hookTimeoutS`: COMMAND_MARGIN_S below it,
 * or a third of it for short timeouts, so an operator's 12 s still leaves the command time to
 * answer (a deny at worst) before Claude Code gives up on it and lets its own flow decide.
 */
export function commandTimeoutS(hookTimeoutS: number): number {
  return hookTimeoutS - Math.min(COMMAND_MARGIN_S, Math.ceil(hookTimeoutS / 3));
}

/**
 * Why `timeout` (an operator's PreToolUse timeout) cannot be used, or null when it can: a whole
 * number of seconds from MIN_HOOK_TIMEOUT_S to MAX_HOOK_TIMEOUT_S.
 */
export function hookTimeoutProblem(timeout: unknown): string | null {
  if (typeof timeout !== 'number' || !Number.isInteger(timeout)) return `is ${JSON.stringify(timeout)}, not a whole number of seconds`;
  if (timeout < MIN_HOOK_TIMEOUT_S || timeout > MAX_HOOK_TIMEOUT_S) return `is ${timeout} s; Gatehouse needs from ${MIN_HOOK_TIMEOUT_S} to ${MAX_HOOK_TIMEOUT_S} s to answer before Claude Code gives up`;
  return null;
}

/** Claude Code's timeout for the PostToolUse reports: recording one takes milliseconds. */
export const REPORT_TIMEOUT_S = 30;

export type ClaudeHookEvent = 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure';

/**
 * Every hook Gatehouse installs, by event, in one form: PreToolUse decides (failing closed, with
 * the timeout written explicitly and the command's own --timeout below it); PostToolUse and
 * PostToolUseFailure report what ran. One source for "write it for me" and the console's snippets.
 */
export function claudeHooks(form: 'command' | 'http', o: { home: string | null; launcher?: HookLauncher | null; hookUrl?: string | null; hookTimeoutS?: number }): Record<ClaudeHookEvent, JsonObject> {
  // The PreToolUse timeout: Claude Code's default unless the operator set another (kept by "write it for me").
  const timeout = o.hookTimeoutS ?? CLAUDE_HOOK_TIMEOUT_S;
  if (form === 'http') {
    if (!o.hookUrl) throw new Error('the HTTP form needs the hook URL');
    const report = httpHook(o.hookUrl, REPORT_TIMEOUT_S);
    return { PreToolUse: httpHook(o.hookUrl, timeout), PostToolUse: report, PostToolUseFailure: report };
  }
  const launcher = o.launcher ?? null;
  const report = { type: 'command', command: reportCommand(o.home, { launcher }), timeout: REPORT_TIMEOUT_S };
  return { PreToolUse: commandHook(o.home, { launcher, timeoutS: commandTimeoutS(timeout), hookTimeoutS: timeout }), PostToolUse: report, PostToolUseFailure: report };
}

/** One PreToolUse matcher group holding `hook`, for every tool. */
export function preToolUseGroup(hook: JsonObject): JsonObject {
  return { matcher: '*', hooks: [hook] };
}

/** Streamable HTTP; `authorization` is the whole header value ("Bearer …"). */
export function mcpHttpServer(mcpUrl: string, authorization: string): JsonObject {
  return { type: 'http', url: mcpUrl, headers: { Authorization: authorization } };
}

/**
 * The stdio bridge: `gatehouse mcp [--home DIR]` relays to the running host. Claude Code writes
 * `"type": "stdio"`; `typed: false` leaves it out for clients that know only command and args.
 */
export function mcpStdioServer(home: string | null, { typed = true }: { typed?: boolean } = {}): JsonObject {
  return { ...(typed ? { type: 'stdio' } : {}), command: GATEHOUSE_COMMAND, args: ['mcp', ...homeArgs(home)] };
}

/** `claude mcp add` for Streamable HTTP with the bearer token (default scope: local). */
export function claudeMcpAddHttp(mcpUrl: string, token: string): string {
  const header = `Authorization: Bearer ${token}`;
  // Double quotes as Claude Code's documentation writes it, unless the token needs more.
  const quoted = /^[A-Za-z0-9_.:@%+=/ -]+$/.test(header) ? `"${header}"` : shellQuote(header);
  return `claude mcp add --transport http ${MCP_SERVER_NAME} ${shellQuote(mcpUrl)} --header ${quoted}`;
}

/** `claude mcp add` for the stdio bridge (default transport stdio, default scope local). */
export function claudeMcpAddStdio(home: string | null): string {
  return ['claude', 'mcp', 'add', MCP_SERVER_NAME, '--', GATEHOUSE_COMMAND, 'mcp', ...homeArgs(home)].map(shellQuote).join(' ');
}

/** Quotes for a POSIX shell only when needed. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * What the shell runs after `gatehouse hook --agent gemini-cli` fails: Gemini CLI lets the tool
 * run after any exit but 2, and after an exit 2 with no text (agents/gemini/hook-mapping.ts), so
 * every other exit becomes exit 2 with a sentence. An exit 2 is the hook's own deny, its reason
 * already on stderr.
 */
export const GEMINI_HOOK_FAIL_CLOSED = `|| { s=$?; [ "$s" -eq 2 ] && exit 2; echo "Gatehouse: the hook command could not run (exit $s; is node or gatehouse missing?); this call is blocked." >&2; exit 2; }`;

/** Gemini CLI's default hook timeout in milliseconds is 60 s; Gatehouse writes this one explicitly. */
export const GEMINI_HOOK_TIMEOUT_MS = CLAUDE_HOOK_TIMEOUT_S * 1000;
/** The AfterTool report's timeout: the tool has run, nothing waits on a human, and a host that does not answer only loses the record. */
export const GEMINI_REPORT_TIMEOUT_MS = 30_000;

/**
 * `gatehouse hook --agent AGENT [--home DIR] --timeout S`, answering before the agent gives up at
 * `hookTimeoutS`; `failClosed`: every failure of the command becomes exit 2 with a sentence.
 */
export function agentHookCommand(agent: string, home: string | null, o: { launcher?: HookLauncher | null | undefined; hookTimeoutS: number; failClosed: boolean | string }): string {
  // A string is the agent's own fail-closed tail (Copilot CLI wants its deny as JSON on stdout).
  const tail = o.failClosed === true ? [GEMINI_HOOK_FAIL_CLOSED] : typeof o.failClosed === 'string' ? [o.failClosed] : [];
  return [...launch(o.launcher), 'hook', '--agent', agent, ...homeArgs(home).map(shellQuote), '--timeout', String(commandTimeoutS(o.hookTimeoutS)), ...tail].join(' ');
}

/** Gemini CLI's BeforeTool hook: `gatehouse hook --agent gemini-cli`, answering before Gemini CLI gives up, failing closed. */
export function geminiHook(home: string | null, o: { launcher?: HookLauncher | null; hookTimeoutMs?: number } = {}): JsonObject {
  const timeoutMs = o.hookTimeoutMs ?? GEMINI_HOOK_TIMEOUT_MS;
  const command = agentHookCommand('gemini-cli', home, { launcher: o.launcher, hookTimeoutS: Math.floor(timeoutMs / 1000), failClosed: true });
  return { name: 'gatehouse', type: 'command', command, timeout: timeoutMs };
}

/**
 * What the shell runs after `gatehouse hook --agent copilot` fails: Copilot CLI denies after any
 * non-zero exit, but shows the model only "hook exited with code N" unless stdout holds one JSON
 * deny, so every exit but the hook's own 2 (its deny already on stdout) prints one, with a
 * sentence, and exits 2 (agents/copilot/hook-mapping.ts).
 */
export const COPILOT_HOOK_FAIL_CLOSED = `|| { s=$?; [ "$s" -eq 2 ] && exit 2; printf '{"permissionDecision":"deny","permissionDecisionReason":"Gatehouse: the hook command could not run (exit %s; is node or gatehouse missing?); this call is blocked."}\\n' "$s"; exit 2; }`;

/** The timeoutSec Gatehouse writes for Copilot CLI's hook (its default is 30 s): long enough for an operator to answer in the inbox. */
export const COPILOT_HOOK_TIMEOUT_S = CLAUDE_HOOK_TIMEOUT_S;

/**
 * Copilot CLI's preToolUse hook: `gatehouse hook --agent copilot`, answering before Copilot CLI
 * gives up (a hook killed at its timeoutSec lets the tool run), failing closed.
 */
export function copilotHook(home: string | null, o: { launcher?: HookLauncher | null; hookTimeoutS?: number } = {}): JsonObject {
  const timeoutS = o.hookTimeoutS ?? COPILOT_HOOK_TIMEOUT_S;
  const command = agentHookCommand('copilot', home, { launcher: o.launcher, hookTimeoutS: timeoutS, failClosed: COPILOT_HOOK_FAIL_CLOSED });
  return { type: 'command', bash: command, timeoutSec: timeoutS };
}

/**
 * Copilot CLI's postToolUse / postToolUseFailure hook: the same command reporting what ran. Not
 * failing closed: the tool has already run, and a deny would only put an error before the model.
 */
export function copilotReportHook(home: string | null, event: 'postToolUse' | 'postToolUseFailure', o: { launcher?: HookLauncher | null } = {}): JsonObject {
  return { type: 'command', bash: [...launch(o.launcher), 'hook', '--agent', 'copilot', '--event', event, ...homeArgs(home).map(shellQuote)].join(' '), timeoutSec: 30 };
}

/**
 * Qwen Code's hooks (timeouts in seconds): PreToolUse decides, failing closed (Qwen Code runs the
 * tool after any exit but 0 or 2); PostToolUse and PostToolUseFailure report what ran, not failing
 * closed (an exit 2 there would only show the model an error about a tool that already ran).
 */
export function qwenHooks(home: string | null, o: { launcher?: HookLauncher | null } = {}): { decide: JsonObject; report: JsonObject } {
  const hook = (hookTimeoutS: number, failClosed: boolean) => ({ name: 'gatehouse', type: 'command', command: agentHookCommand('qwen-code', home, { launcher: o.launcher, hookTimeoutS, failClosed }), timeout: hookTimeoutS });
  return { decide: hook(CLAUDE_HOOK_TIMEOUT_S, true), report: hook(REPORT_TIMEOUT_S, false) };
}
