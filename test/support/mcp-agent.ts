// An MCP agent on a served host (serve.json's mcpUrl and agent token) that can wait for tools:
// the host loads enabled plugins after it listens and sends notifications/tools/list_changed
// when its tool list changes, so a test waits for that event instead of polling.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface McpAgent {
  client: Client;
  /** Resolves with the tool names once `ready(names)` holds, re-listing on each list_changed. */
  toolsWhen(ready: (names: string[]) => boolean): Promise<string[]>;
}

export async function connectAgent(serve: { mcpUrl: string; agentToken: string }, name = 'test-agent'): Promise<McpAgent> {
  const client = new Client({ name, version: '1.0.0' });
  let changed: () => void = () => {};
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${serve.agentToken}` } } }));
  return {
    client,
    async toolsWhen(ready) {
      for (;;) {
        const next = new Promise<void>((r) => (changed = r));
        const names = (await client.listTools()).tools.map((t) => t.name);
        if (ready(names)) return names;
        await next;
      }
    },
  };
}

/** A tool result's text content, joined. */
export const resultText = (r: CallToolResult): string => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
