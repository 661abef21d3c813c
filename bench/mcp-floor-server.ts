// A do-nothing MCP server for bench/gateway.ts: the least any Streamable HTTP server can cost the
// bench's agent. It answers initialize and ping at once, accepts notifications, refuses the GET
// stream (clients go on without it), and answers tools/call with one JSON body after holding it
// `holdMs` (an argument), reporting the time it held as the `runner` step, as Gatehouse does. The
// agent's round trip minus that step is then what the client, the kernel and the machine's
// scheduling cost around the same wait, with nothing between them and the answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FloorServer {
  url: string;
  close(): Promise<void>;
}

export async function startFloorServer(): Promise<FloorServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST', 'Content-Length': 0 }).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const received = performance.now();
      const m = JSON.parse(body) as { id?: number | string; method: string; params?: { protocolVersion?: string; arguments?: { holdMs?: number } } };
      if (m.id === undefined) {
        res.writeHead(202, { 'Content-Length': 0 }).end();
        return;
      }
      const answer = (result: unknown) => {
        const text = JSON.stringify({ jsonrpc: '2.0', id: m.id, result });
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'mcp-session-id': 'floor' });
        res.end(text);
      };
      if (m.method === 'initialize') return answer({ protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '1' } });
      if (m.method !== 'tools/call') return answer({});
      setTimeout(() => {
        const held = performance.now() - received;
        // The size and shape of a Gatehouse result, so the client parses the same.
        answer({
          content: [{ type: 'text', text: '{"received":{"message":"hello"}}' }],
          structuredContent: { received: { message: 'hello' } },
          _meta: { gatehouse: { call: 'call-floor', decision: 'allow', decider: { kind: 'autonomy', level: 'supervised' }, reason: 'floor', executed: true, mode: 'live', steps: [{ step: 'runner', decision: 'ok', ms: held }] } },
        });
      }, m.params?.arguments?.holdMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
