// The agent side of bench/gateway.ts, in its own process as a real agent would be: connects to
// /mcp with the SDK client, then on each message {calls, tool, args} makes that many sequential
// calls and answers with, per call, its duration and the runner step's duration (from the
// result's _meta.gatehouse.steps), both in ms.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token] = process.argv.slice(2);
const client = new Client({ name: 'bench-agent', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
process.on('message', async (m) => {
  if (m === 'close') {
    await client.close();
    process.exit(0);
  }
  const total = [];
  const runner = [];
  for (let i = 0; i < m.calls; i++) {
    const t = performance.now();
    const r = await client.callTool({ name: m.tool, arguments: m.args });
    total.push(performance.now() - t);
    if (r.isError) {
      process.send({ error: JSON.stringify(r.content) });
      return;
    }
    runner.push(r._meta?.gatehouse?.steps?.find((s) => s.step === 'runner')?.ms ?? NaN);
  }
  process.send({ total, runner });
});
process.send({ ready: true });
