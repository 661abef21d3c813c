// Ready-to-paste configuration for agents, built from gateway.info. Pure: the view renders them
// masked or not, and the copy button always copies the real thing.

export type SnippetKind = 'mcp-http' | 'mcp-stdio' | 'hook-command' | 'hook-http';

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
}

/** The environment variable the HTTP hook reads the token from (Claude Code expands it in headers). */
export const TOKEN_ENV = 'GATEHOUSE_AGENT_TOKEN';

const json = (v: unknown) => JSON.stringify(v, null, 2);

export function buildSnippets({ mcpUrl, hookUrl, agentToken, home }: SnippetInput): Snippet[] {
  const token = agentToken ?? '<agent token>';
  const homeArgs = home ? ['--home', home] : [];
  const hookCommand = ['gatehouse', 'hook', ...homeArgs.map(shellQuote)].join(' ');
  const out: Snippet[] = [];
  if (mcpUrl) {
    out.push({
      kind: 'mcp-http',
      title: 'MCP client, Streamable HTTP',
      where: 'your MCP client’s server configuration (e.g. .mcp.json)',
      text: json({ mcpServers: { gatehouse: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } }),
    });
  }
  out.push({
    kind: 'mcp-stdio',
    title: 'MCP client, stdio bridge',
    where: 'for clients that launch a command; gatehouse mcp relays to this host',
    text: json({ mcpServers: { gatehouse: { command: 'gatehouse', args: ['mcp', ...homeArgs] } } }),
  });
  out.push({
    kind: 'hook-command',
    title: 'Claude Code hook, command form',
    where: '.claude/settings.json',
    text: json({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hookCommand }] }] } }),
  });
  if (hookUrl) {
    out.push({
      kind: 'hook-http',
      title: 'Claude Code hook, HTTP form',
      where: `.claude/settings.json, with ${TOKEN_ENV} set to the agent token in Claude Code’s environment`,
      text: json({
        hooks: {
          PreToolUse: [{ matcher: '*', hooks: [{ type: 'http', url: hookUrl, headers: { Authorization: `Bearer $${TOKEN_ENV}` }, allowedEnvVars: [TOKEN_ENV] }] }],
        },
      }),
    });
  }
  return out;
}

/** The token as dots, keeping the last four characters so two tokens can be told apart. */
export function maskToken(token: string): string {
  return token.length <= 8 ? '•'.repeat(token.length) : `${'•'.repeat(12)}${token.slice(-4)}`;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
