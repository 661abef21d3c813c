// Commands agents launch: `gatehouse mcp` (an MCP stdio server that relays to the running
// host's /mcp) and `gatehouse hook` (Claude Code's PreToolUse command hook). Both find the host
// through GATEHOUSE_HOME/serve.json and authenticate with the agent token it holds.
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { defaultHome, homePaths } from '../home.js';
import { readServeFile, type ServeInfo } from '../shells/serve/serve-file.js';
import { processAlive } from '../host/host-lock.js';
import { hookAnswer, parseHookInput, unreachableAnswer, type HookAnswer } from '../gateway/claude-hook.js';
import { readSettingsFile } from '../gateway/settings-store.js';
import { UsageError } from './usage-error.js';
import { examplesHelp } from './gatehouse-command.js';

/** The running host for this home, or why there is none. */
export function runningHost(home: string): { ok: true; info: ServeInfo } | { ok: false; why: string } {
  const file = homePaths(home).serveJson;
  const info = readServeFile(file);
  if (!info) return { ok: false, why: `no ${file}` };
  if (!processAlive(info.pid)) return { ok: false, why: `the host recorded in ${file} (pid ${info.pid}) has exited` };
  return { ok: true, info };
}

export function addAgentCommands(cli: Command): void {
  cli
    .command('mcp')
    .description('MCP server on stdin/stdout for agents that launch a command; relays to the running Gatehouse.')
    .option('--home <dir>', 'data folder of the running Gatehouse')
    .addHelpText('after', examplesHelp([
      ['the server entry in an MCP client\'s configuration', '{"command": "gatehouse", "args": ["mcp"]}'],
      ['relay to the Gatehouse serving another data folder', '{"command": "gatehouse", "args": ["mcp", "--home", "/srv/gatehouse"]}'],
    ]))
    .action(async (o: { home?: string }) => {
      await runMcpBridge(o.home ?? defaultHome());
    });

  cli
    .command('hook')
    .description('Claude Code PreToolUse hook (command form): reads the hook input on stdin, answers on stdout.')
    .option('--home <dir>', 'data folder of the running Gatehouse')
    .option('--unreachable <answer>', 'answer when Gatehouse is not running: deny or ask (default: the hookUnreachable setting, deny)')
    .option('--timeout <seconds>', 'give up waiting for the host after this long and deny', '55')
    .addHelpText('after', examplesHelp([
      ['in .claude/settings.json', '{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "gatehouse hook"}]}]}}'],
      ['ask in Claude Code instead of denying while Gatehouse is not running', '{"type": "command", "command": "gatehouse hook --unreachable ask"}'],
    ]))
    .action(async (o: { home?: string; unreachable?: string; timeout: string }) => {
      if (o.unreachable !== undefined && o.unreachable !== 'deny' && o.unreachable !== 'ask') throw new UsageError(`--unreachable must be deny or ask, not "${o.unreachable}".`);
      const timeout = Number(o.timeout);
      if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--timeout must be a positive number of seconds, not "${o.timeout}".`);
      const input = await readStdin();
      const answer = await runHook(o.home ?? defaultHome(), input, { unreachable: o.unreachable as 'deny' | 'ask' | undefined, timeoutMs: timeout * 1000 });
      process.stdout.write(JSON.stringify(answer) + '\n');
    });
}

export async function runHook(home: string, text: string, opts: { unreachable?: 'deny' | 'ask' | undefined; timeoutMs: number }): Promise<HookAnswer> {
  const parsed = parseHookInput(text);
  if (!parsed.ok) return hookAnswer('deny', `Gatehouse could not check this call: ${parsed.message}`);
  const host = runningHost(home);
  const unreachable = opts.unreachable ?? readSettingsFile(homePaths(home).settings).settings.hookUnreachable;
  if (!host.ok) return unreachableAnswer(unreachable, host.why);
  let res: Response;
  try {
    res = await fetch(host.info.hookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${host.info.agentToken}` },
      body: text,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (err) {
    const e = err as Error;
    if (e.name === 'TimeoutError') return hookAnswer('deny', `Gatehouse did not answer within ${Math.round(opts.timeoutMs / 1000)} s, so the call is denied.`);
    return unreachableAnswer(unreachable, `${host.info.hookUrl} did not answer: ${e.message}`);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  const out = (body as HookAnswer | null)?.hookSpecificOutput;
  if (res.status !== 200 || !out || !['allow', 'deny', 'ask'].includes(out.permissionDecision)) {
    return hookAnswer('deny', `Gatehouse answered the hook with HTTP ${res.status} and no decision; the call is denied.`);
  }
  return body as HookAnswer;
}

/**
 * Relays MCP messages between stdio and the host's /mcp. Without a running host it still speaks
 * MCP, answering each request with an error that says so, so the agent shows a readable reason.
 */
export async function runMcpBridge(home: string): Promise<void> {
  const down = new StdioServerTransport();
  const host = runningHost(home);
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    void Promise.allSettled([up?.close(), down.close()]).then(() => process.exit(0));
  };
  const refuse = (m: JSONRPCMessage, message: string) => {
    if (isJSONRPCRequest(m)) void down.send({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message } });
  };
  const up = host.ok ? new StreamableHTTPClientTransport(new URL(host.info.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${host.info.agentToken}` } } }) : null;
  if (!up) {
    const why = host.ok ? '' : host.why;
    down.onmessage = (m) => refuse(m, `Gatehouse is not running (${why}). Start it with \`gatehouse serve\` and restart this MCP server.`);
  } else {
    down.onmessage = (m) => {
      up.send(m).catch((err: Error) => refuse(m, `Gatehouse at ${host.ok ? host.info.mcpUrl : ''} could not be reached: ${err.message}`));
    };
    up.onmessage = (m) => void down.send(m);
    up.onerror = (err) => process.stderr.write(`gatehouse mcp: ${err.message}\n`);
    up.onclose = shutdown;
    await up.start();
  }
  down.onclose = shutdown;
  process.stdin.on('end', shutdown);
  await down.start();
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d: string) => (text += d));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}
