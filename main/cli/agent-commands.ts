// Commands agents launch: `gatehouse mcp` (an MCP stdio server that relays to the running
// host's /mcp) and `gatehouse hook` (Claude Code's PreToolUse command hook). Both find the host
// through GATEHOUSE_HOME/serve.json and authenticate with the agent token it holds.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { defaultHome } from '../home.js';
import { UsageError } from '../core/usage-error.js';
import type { HookOptions } from './hook-command.js';
import { runningHost } from './running-host.js';
import { examplesHelp } from './gatehouse-command.js';
import { connectHost } from './host-client.js';
import { HOOK_COMMAND_TIMEOUT_S } from '../gateway/hook-answer.js';
import { formatAgo } from '../../shared/format.js';

export function addAgentCommands(cli: Command): void {
  cli
    .command('mcp')
    .description('MCP server on stdin/stdout for agents that launch a command; relays to the running Gatehouse. Calls run in the folder it is started in (unless the client gives MCP roots); it ends its session when stdin closes.')
    .option('--home <dir>', 'data folder of the running Gatehouse')
    .option('--agent-token-file <file>', 'a named agent token (gatehouse agent token create) to file the calls under; default: the token in serve.json, agent "default"')
    .addHelpText('after', examplesHelp([
      ['the server entry in an MCP client\'s configuration', '{"command": "gatehouse", "args": ["mcp"]}'],
      ['relay to the Gatehouse serving another data folder', '{"command": "gatehouse", "args": ["mcp", "--home", "/srv/gatehouse"]}'],
      ['in Codex\'s ~/.codex/config.toml (Settings → Write it for Codex writes it)', '[mcp_servers.gatehouse]\n  command = "gatehouse"\n  args = ["mcp"]\n  required = true\n  default_tools_approval_mode = "approve"\n  tool_timeout_sec = 635'],
    ]))
    .action(async (o: { home?: string; agentTokenFile?: string }) => {
      await runMcpBridge(o.home ?? defaultHome(), o.agentTokenFile);
    });

  cli
    .command('hook')
    .description('Claude Code hook (command form) for PreToolUse, PostToolUse and PostToolUseFailure: reads the hook input on stdin, answers on stdout. Write it with absolute paths and "|| exit 2" (as Settings → Write it for me does): a hook command that cannot start exits with another code, which Claude Code treats as "go ahead".')
    .option('--home <dir>', 'data folder of the running Gatehouse')
    .option('--agent <name>', 'whose hook input and answer: claude-code (PreToolUse, JSON answers), gemini-cli (BeforeTool; a deny is exit 2 with the reason on stderr), opencode (what Gatehouse’s opencode plugin sends; one JSON line back), qwen-code (PreToolUse, Claude Code’s answers for Qwen Code’s tools) or copilot (preToolUse; a deny is its JSON answer and exit 2)', 'claude-code')
    .option('--event <name>', 'with --agent copilot, the event the hook is written under (its input does not say): preToolUse (decides), or postToolUse / postToolUseFailure (reports what ran)')
    .option('--unreachable <answer>', 'answer when Gatehouse is not running: deny or ask (default: the hookUnreachable setting, deny)')
    .option('--timeout <seconds>', "give up waiting for the host after this long and deny (keep it below the hook's `timeout` in Claude Code's settings, 600 s unless set)", String(HOOK_COMMAND_TIMEOUT_S))
    .option('--agent-token-file <file>', 'a named agent token (gatehouse agent token create) to file the calls under; default: the token in serve.json, agent "default"')
    .addHelpText('after', examplesHelp([
      ['in .claude/settings.json (fails closed: a missing node or gatehouse, or a crash, exits 2, which blocks the call)', '{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/usr/bin/node /opt/gatehouse/bin/gatehouse.js hook --timeout 590 || exit 2", "timeout": 600}]}]}}'],
      ['report what ran (PostToolUse and PostToolUseFailure; no "|| exit 2": the tool has already run)', '{"type": "command", "command": "/usr/bin/node /opt/gatehouse/bin/gatehouse.js hook", "timeout": 30}'],
      ['ask in Claude Code instead of denying while Gatehouse is not running', '{"type": "command", "command": "/usr/bin/node /opt/gatehouse/bin/gatehouse.js hook --unreachable ask || exit 2"}'],
    ]))
    .action(async (o: HookOptions) => {
      // Normally bin/gatehouse.js answers through hookMain without loading this file; the same code decides.
      const { hookAnswerFor, hookSettings } = await import('./hook-command.js');
      const s = hookSettings(o);
      if (!s.ok) throw new UsageError(s.message);
      await hookAnswerFor(s);
    });

  addAgentTokenCommands(cli);
}

/**
 * `gatehouse agent token create|list|revoke`: one token per agent, so the audit log and the
 * inbox name the agent by its token and no agent can borrow another's grants. Through the
 * running host when there is one (it starts refusing a revoked token at once), else a host
 * started here for the command.
 */
function addAgentTokenCommands(cli: Command): void {
  const agent = cli
    .command('agent')
    .description('Agents\' identities: named agent tokens.')
    .addHelpText('after', examplesHelp([
      ['a token for the CI job (shown once)', 'gatehouse agent token create ci-bot'],
      ['which agents have tokens', 'gatehouse agent token list'],
    ]));
  const token = agent
    .command('token')
    .description('Create, list and revoke named agent tokens; calls are filed under the name of the token they come with.')
    .addHelpText('after', examplesHelp([
      ['a token for the CI job (shown once)', 'gatehouse agent token create ci-bot'],
      ['stop accepting it', 'gatehouse agent token revoke ci-bot'],
    ]));

  token
    .command('create <name>')
    .description('Create a token for a new agent name and print it once (Gatehouse keeps only its SHA-256).')
    .option('--json', 'print {"name", "token", "createdAt"}')
    .option('--home <dir>', 'data folder')
    .addHelpText('after', examplesHelp([
      ['the agent then sends Authorization: Bearer <token>', 'gatehouse agent token create ci-bot'],
      ['for a script that stores it', 'gatehouse agent token create nightly --json'],
    ]))
    .action(async (name: string, o: { json?: boolean; home?: string }) => {
      // Checked here too, so a mistake is a usage error before any host starts.
      const { AGENT_NAME, AGENT_NAME_RULE } = await import('../gateway/agent-tokens.js');
      if (!AGENT_NAME.test(name)) throw new UsageError(`Agent name ${JSON.stringify(name)} is not allowed: ${AGENT_NAME_RULE}.`);
      const host = await connectHost(o.home ?? defaultHome(), { watch: false });
      try {
        const r = await host.call('agents.tokens.create', { name });
        if (o.json) console.log(JSON.stringify(r));
        else {
          console.log(`Agent token for ${r.name} (shown only now; Gatehouse keeps its SHA-256):`);
          console.log(r.token);
          console.log(`Give it to the agent as "Authorization: Bearer <token>" for /mcp, the hook route and /agent/v1/*; its calls are filed under agent "${r.name}".`);
        }
      } finally {
        await host.close();
      }
    });

  token
    .command('list')
    .description('List agent tokens by name (never the tokens themselves).')
    .option('--json', 'print JSON')
    .option('--home <dir>', 'data folder')
    .addHelpText('after', examplesHelp(['gatehouse agent token list --json']))
    .action(async (o: { json?: boolean; home?: string }) => {
      const host = await connectHost(o.home ?? defaultHome(), { watch: false });
      try {
        const { tokens } = await host.call('agents.tokens.list', {});
        if (o.json) console.log(JSON.stringify(tokens, null, 2));
        else if (tokens.length === 0) console.log('No agent tokens yet. Create one with `gatehouse agent token create NAME`.');
        else {
          for (const t of tokens) {
            const made = t.isDefault ? 'the token in serve.json' : `created ${new Date(t.createdAt).toISOString()} by ${t.createdBy}`;
            const used = t.lastUsedAt === null ? '' : `, last used ${new Date(t.lastUsedAt).toISOString()} (${formatAgo(t.lastUsedAt)})`;
            console.log(`${t.name}  (${made}${used})`);
          }
        }
      } finally {
        await host.close();
      }
    });

  agent
    .command('integrations')
    .description('The agents Gatehouse writes configuration for (Settings → Connect an agent): whether each is found on this host, and what Gatehouse cannot guarantee for it.')
    .option('--json', 'print JSON')
    .option('--home <dir>', 'data folder')
    .addHelpText('after', examplesHelp(['gatehouse agent integrations', 'gatehouse agent integrations --json']))
    .action(async (o: { json?: boolean; home?: string }) => {
      const host = await connectHost(o.home ?? defaultHome(), { watch: false });
      try {
        const { agents } = await host.call('agents.integrations', {});
        if (o.json) console.log(JSON.stringify(agents, null, 2));
        else {
          for (const a of agents) {
            console.log(`${a.displayName} (${a.id}): ${a.found ? `found (${a.evidence.join(', ')})` : 'not found here'}`);
            for (const l of a.limits) console.log(`  - ${l}`);
          }
        }
      } finally {
        await host.close();
      }
    });

  token
    .command('revoke <name>')
    .description('Revoke a named agent token: the running Gatehouse refuses it from the next request on.')
    .option('--home <dir>', 'data folder')
    .addHelpText('after', examplesHelp(['gatehouse agent token revoke ci-bot']))
    .action(async (name: string, o: { home?: string }) => {
      const host = await connectHost(o.home ?? defaultHome(), { watch: false });
      try {
        await host.call('agents.tokens.revoke', { name });
        console.log(`Revoked the agent token ${name}.`);
      } finally {
        await host.close();
      }
    });
}

/**
 * Relays MCP messages between stdio and the host's /mcp. Without a running host it still speaks
 * MCP, answering each request with an error that says so, so the agent shows a readable reason.
 */
export async function runMcpBridge(home: string, agentTokenFile?: string): Promise<void> {
  // Read before anything is relayed: a missing file is a usage mistake, not a reason to fall back
  // to another agent's token (the calls would be filed under the wrong agent).
  let named: string | undefined;
  if (agentTokenFile !== undefined) {
    try {
      named = readFileSync(agentTokenFile, 'utf8').trim();
    } catch (err) {
      throw new UsageError(`--agent-token-file ${agentTokenFile} could not be read: ${(err as Error).message}.`);
    }
    if (!/^[A-Za-z0-9_-]{16,256}$/.test(named)) throw new UsageError(`--agent-token-file ${agentTokenFile} does not hold an agent token; make one with \`gatehouse agent token create NAME\`.`);
  }
  // Loaded here, not with the command tree: the MCP SDK is most of the CLI's start-up.
  const [{ StdioServerTransport }, { StreamableHTTPClientTransport }, { isInitializeRequest, isJSONRPCRequest }, { AGENT_CWD_HEADER }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('../gateway/agent-cwd-header.js'),
  ]);
  const down = new StdioServerTransport();
  const host = await runningHost(home);
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    // The agent is gone: end the MCP session (DELETE) so the host withdraws whatever of it still
    // waits in the inbox, instead of leaving it for the session cap to evict. Bounded: a hung
    // host must not keep the bridge alive.
    const ended = up?.sessionId ? Promise.race([up.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, 3000).unref())]) : Promise.resolve();
    void ended.then(() => Promise.allSettled([up?.close(), down.close()])).then(() => process.exit(0));
  };
  const refuse = (m: JSONRPCMessage, message: string) => {
    if (isJSONRPCRequest(m)) void down.send({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message } });
  };
  // The agent's folder is this process's (the client starts the bridge in its workspace): the
  // host judges and runs the session's calls there unless the client gives MCP roots.
  const up = host.ok
    ? new StreamableHTTPClientTransport(new URL(host.info.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${named ?? host.info.agentToken}`, [AGENT_CWD_HEADER]: encodeURIComponent(process.cwd()) } } })
    : null;
  if (!up) {
    const why = host.ok ? '' : host.why;
    down.onmessage = (m) => refuse(m, `Gatehouse is not running (${why}). Start it with \`gatehouse serve\` and restart this MCP server.`);
  } else {
    const forward = (m: JSONRPCMessage) => up.send(m).catch((err: Error) => refuse(m, `Gatehouse at ${host.ok ? host.info.mcpUrl : ''} could not be reached: ${err.message}`));
    // The host names the MCP session in its answer to initialize; a message sent before that
    // answer came would go without one and be refused ("No MCP session"). Clients may write
    // initialize, notifications/initialized and their first requests back to back, so whatever
    // comes while an initialize is under way waits for it, in order.
    let initialized: Promise<unknown> = Promise.resolve();
    down.onmessage = (m) => {
      if (isInitializeRequest(m)) initialized = initialized.then(() => forward(m));
      else void initialized.then(() => forward(m));
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
