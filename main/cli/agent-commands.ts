// Commands agents launch: `gatehouse mcp` (an MCP stdio server that relays to the running
// host's /mcp) and `gatehouse hook` (Claude Code's PreToolUse command hook). Both find the host
// through GATEHOUSE_HOME/serve.json and authenticate with the agent token it holds.
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { defaultHome } from '../home.js';
import { UsageError } from './usage-error.js';
import { hookAnswerFor, hookSettings, type HookOptions } from './hook-command.js';
import { runningHost } from './running-host.js';
import { examplesHelp } from './gatehouse-command.js';

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
    .action(async (o: HookOptions) => {
      // Normally bin/gatehouse.js answers through hookMain without loading this file; the same code decides.
      const s = hookSettings(o);
      if (!s.ok) throw new UsageError(s.message);
      await hookAnswerFor(s);
    });
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
