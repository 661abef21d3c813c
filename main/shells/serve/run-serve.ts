// `gatehouse serve`: builds the host, puts the serve shell around it, and owns the process's
// lifetime (serve.json, signals, a clean audit record of the stop).
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { defaultHome } from '../../home.js';
import { operatorName } from '../../core/operator.js';
import { createHost, type Host } from '../../host/create-host.js';
import { startServeShell, type ServeShell } from './serve-shell.js';
import { UsageError } from '../../core/usage-error.js';
import { AGENT_TOKEN_RULE, AGENT_TOKEN_SOURCE, OPERATOR_TOKEN_SOURCE, TOKEN_RULE, agentToken, operatorToken, readTokenSource, tokenOnArgvMessage, validToken } from './tokens.js';
import type { Settings } from '../../../shared/contract.js';
import { CLAUDE_HOOK_PATH, MCP_PATH } from '../../gateway/agent-routes.js';
import { removeServeFile, writeServeFile } from './serve-file.js';
import { isLoopback } from './guards.js';
import type { TeamOptions } from '../../team/team-link.js';
import { shownUrl } from '../../team/team-url.js';

export interface RunServeOptions {
  home: string;
  host: string;
  port: number;
  /** The operator token for this run, already read from its file or the environment (tokensFromCli). */
  token?: string;
  newToken?: boolean;
  staticDir?: string;
  /** Why the serve shell runs: printed before the URL (the Electron fallback uses it). */
  banner?: string;
  pluginDirs?: string[];
  allowedPlugins?: string[];
  agentToken?: string;
  /** For this run only: `--live`, `--autonomy`. */
  settingsOverrides?: Partial<Settings>;
  /** The example plugins a new home is given (default: the package's examples/plugins; null: none). */
  examplesDir?: string | null;
  /** `--allow-plugin-load`: terminal adapters may be loaded at run time. */
  allowPluginLoad?: boolean;
  /** Team mode: ship this host's audit events to the team database (docs/team.md). */
  team?: TeamOptions;
}

export function defaultStaticDir(): string {
  // The CLI bundle lives in out/main/, the renderer build in out/renderer/.
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'renderer');
}

export function defaultExamplesDir(): string {
  // out/main/cli.js → the package root's examples/plugins (the npm package ships them).
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'plugins');
}

export interface Listening {
  shell: ServeShell;
  token: string;
  agentToken: string;
  mcpUrl: string;
  hookUrl: string;
}

/**
 * Puts the host on a loopback port for consoles (operator token) and agents (agent token), and
 * writes serve.json so CLI commands, `gatehouse mcp` and `gatehouse hook` can find it. Both
 * shells call this: in Electron the window uses IPC, and this port serves agents and the CLI.
 */
export async function listenForConsolesAndAgents(
  host: Host,
  opts: { bindHost: string; port: number; staticDir: string; token?: string; agentToken?: string; newToken?: boolean },
): Promise<Listening> {
  const token = operatorToken(host.paths.root, { ...(opts.token !== undefined ? { given: opts.token } : {}), rotate: opts.newToken ?? false });
  let agent = agentToken(host.paths.root, opts.agentToken !== undefined ? { given: opts.agentToken } : {});
  // A kept agent token equal to a given operator token would hand agents the console: rotate it.
  if (agent === token) agent = agentToken(host.paths.root, { rotate: true });
  // The serve.json token is the agent "default"; named tokens (agent-tokens.ts) are the others.
  host.agentTokens.setDefault(agent);
  const shell = await startServeShell({
    host,
    bindHost: opts.bindHost,
    port: opts.port,
    token,
    staticDir: opts.staticDir,
    operator: operatorName(),
    agent: { authenticate: (t) => host.agentTokens.authenticate(t), handle: host.agentRoutes, refused: host.hookRefused },
  });
  const mcpUrl = new URL(MCP_PATH, shell.url).href;
  const hookUrl = new URL(CLAUDE_HOOK_PATH, shell.url).href;
  host.setAgentEndpoints({ mcpUrl, hookUrl, agentToken: agent });
  writeServeFile(host.paths.serveJson, { url: shell.url, host: opts.bindHost, port: shell.port, pid: process.pid, token, agentToken: agent, mcpUrl, hookUrl, startedAt: host.startedAt });
  return { shell, token, agentToken: agent, mcpUrl, hookUrl };
}

/** What `gatehouse serve` was given for its tokens on the command line. */
export interface TokenOptions {
  token?: string;
  tokenFile?: string;
  agentToken?: string;
  agentTokenFile?: string;
}

/**
 * The tokens for `gatehouse serve`, from `--token-file`/`--agent-token-file` (`-`: stdin) or
 * GATEHOUSE_TOKEN/GATEHOUSE_AGENT_TOKEN. SECURITY: `--token T` and `--agent-token T` are refused,
 * not warned about: argv is readable by every process on the machine for the host's lifetime.
 */
export function tokensFromCli(o: TokenOptions, env: NodeJS.ProcessEnv = process.env, readStdin?: () => string): { token?: string; agentToken?: string } {
  if (o.token !== undefined) throw new UsageError(tokenOnArgvMessage(OPERATOR_TOKEN_SOURCE));
  if (o.agentToken !== undefined) throw new UsageError(tokenOnArgvMessage(AGENT_TOKEN_SOURCE));
  if (o.tokenFile === '-' && o.agentTokenFile === '-') throw new UsageError('Only one token can come from stdin: give the other with its file option or variable.');
  try {
    const token = readTokenSource(OPERATOR_TOKEN_SOURCE, o.tokenFile, env, readStdin);
    const agent = readTokenSource(AGENT_TOKEN_SOURCE, o.agentTokenFile, env, readStdin);
    return { ...(token !== undefined ? { token } : {}), ...(agent !== undefined ? { agentToken: agent } : {}) };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export async function runServe(opts: RunServeOptions): Promise<{ stop: (reason: string) => Promise<void> }> {
  // A usage mistake, caught before the host starts (and records a start it would never stop).
  if (opts.token !== undefined && !validToken(opts.token)) throw new UsageError(TOKEN_RULE);
  if (opts.agentToken !== undefined && !validToken(opts.agentToken)) throw new UsageError(AGENT_TOKEN_RULE);
  if (opts.agentToken !== undefined && opts.agentToken === opts.token) throw new UsageError('The agent token must differ from the operator token: agents must never hold the operator\'s powers.');
  const host = createHost({
    home: opts.home,
    shell: 'serve',
    pluginDirs: opts.pluginDirs ?? [],
    allowedPlugins: opts.allowedPlugins ?? [],
    ...(opts.allowPluginLoad ? { allowPluginLoad: true } : {}),
    ...(opts.team ? { team: opts.team } : {}),
    ...(opts.settingsOverrides ? { settingsOverrides: opts.settingsOverrides } : {}),
    ...(opts.examplesDir !== null ? { examplesDir: opts.examplesDir ?? defaultExamplesDir() } : {}),
  });
  let listening: Listening;
  try {
    listening = await listenForConsolesAndAgents(host, {
      bindHost: opts.host,
      port: opts.port,
      staticDir: opts.staticDir ?? defaultStaticDir(),
      ...(opts.token !== undefined ? { token: opts.token } : {}),
      ...(opts.agentToken !== undefined ? { agentToken: opts.agentToken } : {}),
      newToken: opts.newToken ?? false,
    });
  } catch (err) {
    await host.close('failed to listen');
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new Error(`Port ${opts.port} on ${opts.host} is in use. Pick another with --port N, or --port 0 for any free port.`, { cause: err });
    throw err;
  }
  const { shell, mcpUrl, hookUrl } = listening;
  if (opts.banner) console.log(opts.banner);
  if (!isLoopback(opts.host)) console.log(`Warning: listening on ${opts.host}, reachable from other machines. Anyone with the token can operate this console.`);
  // A one-time link: the operator token stays in the home folder, out of browser history.
  console.log(`Gatehouse console: ${shell.newConsoleUrl()}`);
  // Named with this run's data folder, quoted for a shell, so that it can be pasted as it is.
  const urlCommand = resolve(opts.home) === defaultHome() ? 'gatehouse url' : `gatehouse url --home ${/^[\w./-]+$/.test(opts.home) ? opts.home : `'${opts.home.replace(/'/g, `'\\''`)}'`}`;
  console.log(`(The link works once, within 2 minutes; \`${urlCommand}\` prints a new one.)`);
  const mode = host.settings.current;
  if (opts.team) console.log(`Team: shipping this host's audit events to ${shownUrl(opts.team.url)} as member ${opts.team.member} (gatehouse team status shows the link and the lag).`);
  console.log(`Agents: MCP at ${mcpUrl}, Claude Code hook at ${hookUrl} (agent token in ${host.paths.serveJson}). Mode: ${mode.mode}, autonomy: ${mode.autonomy}.`);
  // A policy that did not load as written is the operator's to fix: said where they look first.
  if (host.policy.error) console.log(`Warning: ${host.policy.error}`);

  let stopping: Promise<void> | null = null;
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      removeServeFile(host.paths.serveJson);
      // Tell the consoles before their sockets close, so they show why.
      host.bus.emit('host.stopping', { reason });
      // Calls waiting in the inbox are denied and answered while their connections are still open.
      await host.answerWaiting();
      // MCP requests still running (being judged, a tool running) are answered with an error
      // while their connections are open: a client whose stream closed unanswered never learns
      // (the MCP SDK waits for its own request timeout), which left agents hanging at a restart.
      await host.mcp.close();
      await shell.close();
      await host.close(reason);
    })());
  const onSignal = (sig: NodeJS.Signals) => {
    stop(`signal ${sig}`).then(
      () => process.exit(0),
      (err) => {
        console.error('gatehouse: clean stop failed:', err);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { stop };
}
