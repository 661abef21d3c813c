// The baseline of bench/gateway.ts: the same plugin tool served over MCP with nothing between the
// agent and the runner. A node:http server speaks Streamable HTTP through the same transport and
// SDK Server as Gatehouse's /mcp (mcp-http-transport.ts), and its tools/call handler calls
// ToolRunner directly: no token check, no pipeline (extraction, rules, checkers, autonomy,
// approval), no audit. It reports the runner's time as the `runner` step, as Gatehouse does, so
// the agent's round trip minus that step is what serving a tool over MCP costs on this machine
// (client, HTTP, MCP, the kernel and the wake-up after the wait); Gatehouse's overhead is what
// its /mcp adds on top of that.
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpHttpTransport, sendError } from '../main/gateway/mcp-http-transport.js';
import { readBody } from '../main/core/http-body.js';
import type { ToolResult } from '../main/pipeline/call-pipeline.js';

export interface DirectServer {
  url: string;
  close(): Promise<void>;
}

/** Serves one tool, `name`, whose calls go straight to `run`. */
export async function startDirectServer(name: string, run: (args: Record<string, unknown>) => Promise<ToolResult>): Promise<DirectServer> {
  const sessions = new Map<string, McpHttpTransport>();
  const newSession = async () => {
    const server = new Server({ name: 'direct', version: '1' }, { capabilities: { tools: {} } });
    const transport = new McpHttpTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, transport) });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name, inputSchema: { type: 'object' as const } }] }));
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
      const t0 = performance.now();
      const r = await run((request.params.arguments as Record<string, unknown> | undefined) ?? {});
      const ms = performance.now() - t0;
      if (!r.ok) return { content: [{ type: 'text', text: r.error ?? 'failed' }], isError: true };
      return {
        content: [{ type: 'text', text: JSON.stringify(r.output) }],
        structuredContent: r.output as Record<string, unknown>,
        _meta: { gatehouse: { steps: [{ step: 'runner', decision: 'ok', ms: Math.round(ms * 1000) / 1000 }] } },
      };
    });
    await server.connect(transport);
    return transport;
  };
  const http: HttpServer = createServer((req, res) => {
    void (async () => {
      let body: unknown;
      if (req.method === 'POST') body = JSON.parse((await readBody(req, 4 << 20)) ?? 'null');
      const sid = req.headers['mcp-session-id'];
      const existing = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (existing) return existing.handleRequest(req, res, body);
      if (req.method === 'POST' && isInitializeRequest(body)) return (await newSession()).handleRequest(req, res, body);
      return sendError(res, 400, -32000, 'No session');
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
