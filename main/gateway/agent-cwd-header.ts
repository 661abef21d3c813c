// The header the stdio bridge (`gatehouse mcp`) sends with its initialize request: its own folder,
// URI-encoded (mcp-server.ts reads it). A file of its own so that the bridge, which every agent
// configured with it starts with its session, learns the name without loading the gateway.
export const AGENT_CWD_HEADER = 'gatehouse-agent-cwd';
