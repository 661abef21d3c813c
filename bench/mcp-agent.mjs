// The agent side of bench/gateway.ts, in its own process as a real agent would be: connects to
// /mcp with the SDK client, then on each message {calls, tool, args} makes that many sequential
// calls and answers with, per call, its duration, the runner step's duration and the sum of the
// other pipeline steps (from the result's _meta.gatehouse.steps), all in ms; on {pings} it makes
// that many MCP pings (the SDK's transport with no tool behind it) and answers with their times.
// With a third argument (a do-nothing MCP server's URL), {calls, floor: true} makes the same calls
// there instead, each asking it to hold its answer as long as the last Gatehouse call's runner
// step took: what this client and the machine cost around an equal wait, with no gateway.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, floorUrl] = process.argv.slice(2);
const client = new Client({ name: 'bench-agent', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
const floor = floorUrl ? new Client({ name: 'bench-agent-floor', version: '1' }) : null;
if (floor) await floor.connect(new StreamableHTTPClientTransport(new URL(floorUrl)));
let lastRunner = 20;
process.on('message', async (m) => {
  if (m === 'close') {
    await floor?.close();
    await client.close();
    process.exit(0);
  }
  if (m.pings) {
    const pings = [];
    for (let i = 0; i < m.pings; i++) {
      const t = performance.now();
      await client.ping();
      pings.push(performance.now() - t);
    }
    process.send({ pings });
    return;
  }
  const total = [];
  const runner = [];
  const pipeline = [];
  for (let i = 0; i < m.calls; i++) {
    const t = performance.now();
    const r = m.floor ? await floor.callTool({ name: m.tool, arguments: { ...m.args, holdMs: lastRunner } }) : await client.callTool({ name: m.tool, arguments: m.args });
    total.push(performance.now() - t);
    if (r.isError) {
      process.send({ error: JSON.stringify(r.content) });
      return;
    }
    const steps = r._meta?.gatehouse?.steps ?? [];
    runner.push(steps.find((s) => s.step === 'runner')?.ms ?? NaN);
    if (!m.floor) lastRunner = runner.at(-1);
    pipeline.push(steps.length ? steps.filter((s) => s.step !== 'runner').reduce((a, s) => a + s.ms, 0) : NaN);
  }
  process.send({ total, runner, pipeline });
});
process.send({ ready: true });
