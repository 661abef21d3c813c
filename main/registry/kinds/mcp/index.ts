// kind = "mcp": an upstream MCP server Gatehouse starts and whose tools it re-exposes, judged like
// any other call. main/gateway/upstream-mcp.ts supervises every plugin of an upstream kind.
import type { PluginKindProvider } from '../provider.js';

export const mcpKind: PluginKindProvider = {
  name: 'mcp',
  info: { label: 'upstream MCP server', callable: false, judgesCalls: false, longLived: true, noTools: 'the upstream server’s tools, listed once it runs' },
  discover: { by: 'manifest' },
  toolNaming: 'none',
  upstream: true,
  manifest: {
    toolsForbidden: { why: "an mcp plugin's tools are discovered from its MCP server at run time" },
  },
};
