// Gatehouse's own MCP tools, as an agent's hook sees them (`gatehouse-shell` in Copilot CLI,
// `gatehouse_shell` in opencode, `mcp__gatehouse__shell` in Qwen Code). A call of one is judged
// when Gatehouse receives it on the MCP path, so its hook must not judge it a second time.
//
// SECURITY: a prefix alone does not prove a tool is Gatehouse's. Any MCP server whose name starts
// with `gatehouse` (a repository's MCP file can add one) gets tool names with the same prefix, and
// a hook that skipped them locally let that server's tools run unjudged. So the hook still asks
// the host, naming the tool it would be (OWN_TOOL_FIELD); the host answers "no decision" only when
// the call's tool name is that tool under one of these prefixes and it serves that tool now, and
// judges the call like any other tool's otherwise.

/** How each agent whose hook Gatehouse maps names the tools of the MCP server written as "gatehouse". */
export const OWN_TOOL_PREFIXES = { copilot: 'gatehouse-', opencode: 'gatehouse_', 'qwen-code': 'mcp__gatehouse__' } as const;

/** The hook input field naming the Gatehouse tool a call claims to be. */
export const OWN_TOOL_FIELD = 'gatehouse_tool';

/** The Gatehouse tool name `tool` would be under `prefix`, or undefined when it does not carry the prefix. */
export function ownToolName(tool: string, prefix: string): string | undefined {
  return tool.startsWith(prefix) && tool.length > prefix.length ? tool.slice(prefix.length) : undefined;
}

/**
 * Whether the host may leave a hook call to its MCP path: `claim` is a tool it serves (`serves`),
 * and the call's tool name is that tool under an agent's prefix for Gatehouse's server.
 */
export function isOwnToolCall(toolName: string, claim: string | undefined, serves: (name: string) => boolean): boolean {
  if (claim === undefined || !Object.values(OWN_TOOL_PREFIXES).some((p) => toolName === p + claim)) return false;
  return serves(claim);
}
