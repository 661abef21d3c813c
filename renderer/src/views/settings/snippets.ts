// Ready-to-paste configuration for agents, built from gateway.info. Pure: the view renders them
// masked or not, and the copy button always copies the real thing. The shapes come from
// shared/claude-config.ts, which the host's "write it for me" uses too.
import {
  claudeHooks,
  claudeMcpAddHttp,
  claudeMcpAddStdio,
  type HookLauncher,
  MCP_SERVER_NAME,
  mcpHttpServer,
  mcpStdioServer,
  preToolUseGroup,
  TOKEN_ENV,
} from '../../../../shared/claude-config.ts';

export { TOKEN_ENV };

export type SnippetKind = 'claude-mcp-http' | 'claude-mcp-stdio' | 'hook-command' | 'hook-http' | 'mcp-http' | 'mcp-stdio';

export interface Snippet {
  kind: SnippetKind;
  title: string;
  /** Where it goes. */
  where: string;
  text: string;
}

export interface SnippetInput {
  mcpUrl: string | null;
  hookUrl: string | null;
  agentToken: string | null;
  /** GATEHOUSE_HOME, so the CLI commands find this host's serve.json. */
  home: string | null;
  /** node and the gatehouse entry by absolute path, as "write it for me" writes the hook command. */
  hookLauncher?: HookLauncher | null;
}

const json = (v: unknown) => JSON.stringify(v, null, 2);
const groups = (hooks: ReturnType<typeof claudeHooks>) => Object.fromEntries(Object.entries(hooks).map(([event, hook]) => [event, [preToolUseGroup(hook)]]));

export function buildSnippets({ mcpUrl, hookUrl, agentToken, home, hookLauncher }: SnippetInput): Snippet[] {
  const token = agentToken ?? '<agent token>';
  const out: Snippet[] = [];
  // Claude Code first: its own command for the MCP server, then the hook for its built-in tools.
  if (mcpUrl) {
    out.push({
      kind: 'claude-mcp-http',
      title: 'Claude Code MCP, Streamable HTTP',
      where: 'run in the project folder; /mcp shows it. Default scope: you, in this project. --scope user: all your projects. Not --scope project (the token would go into .mcp.json)',
      text: claudeMcpAddHttp(mcpUrl, token),
    });
  }
  out.push({
    kind: 'claude-mcp-stdio',
    title: 'Claude Code MCP, stdio bridge',
    where: 'run in the project folder; no token needed. --scope user: all your projects. --scope project: .mcp.json, shared with the team',
    text: claudeMcpAddStdio(home),
  });
  out.push({
    kind: 'hook-command',
    title: 'Claude Code hook, command form',
    where: '.claude/settings.json (project) or ~/.claude/settings.json (you, everywhere)',
    // Exactly what "write it for me" writes: the decision hook and the two reports of what ran.
    text: json({ hooks: groups(claudeHooks('command', { home, launcher: hookLauncher ?? null })) }),
  });
  if (hookUrl) {
    out.push({
      kind: 'hook-http',
      title: 'Claude Code hook, HTTP form',
      where: `.claude/settings.json or ~/.claude/settings.json, with ${TOKEN_ENV} set to the agent token in Claude Code’s environment`,
      text: json({ hooks: groups(claudeHooks('http', { home, hookUrl })) }),
    });
  }
  // Any other MCP client: the generic mcpServers block most of them read.
  if (mcpUrl) {
    out.push({
      kind: 'mcp-http',
      title: 'Other MCP clients, Streamable HTTP',
      where: 'the client’s mcpServers configuration',
      text: json({ mcpServers: { [MCP_SERVER_NAME]: mcpHttpServer(mcpUrl, `Bearer ${token}`) } }),
    });
  }
  out.push({
    kind: 'mcp-stdio',
    title: 'Other MCP clients, stdio bridge',
    where: 'for clients that launch a command; gatehouse mcp relays to this host',
    text: json({ mcpServers: { [MCP_SERVER_NAME]: mcpStdioServer(home, { typed: false }) } }),
  });
  return out;
}

/** The token as dots, keeping the last four characters so two tokens can be told apart. */
export function maskToken(token: string): string {
  return token.length <= 8 ? '•'.repeat(token.length) : `${'•'.repeat(12)}${token.slice(-4)}`;
}
