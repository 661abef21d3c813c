// The agent side of bench/gateway.ts, in its own process as a real agent would be: connects with
// the SDK client to Gatehouse's /mcp and to the baseline (bench/mcp-direct-server.ts: the same
// tool over MCP, the runner called directly). On each message {calls, tool, args, direct} it makes
// that many sequential calls to one of them and answers with, per call, its duration, the runner
// step's duration and the sum of the other pipeline steps (from the result's _meta.gatehouse.steps),
// all in ms; on {pings} it makes that many MCP pings to Gatehouse (the transport with no tool
// behind it) and answers with their times; on {spawn: {command, args, input, expect}, runs} it
// runs a command that many times as an agent runs its hooks (input on stdin, its stdout checked
// against the pattern `expect`) and answers with their times: from this process, whose fork costs
// what an agent's does, not from the bench's, which holds every other case's data.
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, directUrl] = process.argv.slice(2);
const client = new Client({ name: 'bench-agent', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
const direct = new Client({ name: 'bench-agent-direct', version: '1' });
await direct.connect(new StreamableHTTPClientTransport(new URL(directUrl)));
process.on('message', async (m) => {
  if (m === 'close') {
    await direct.close();
    await client.close();
    process.exit(0);
  }
  if (m.spawn) {
    const times = [];
    try {
      for (let i = 0; i < m.runs; i++) times.push(await spawned(m.spawn));
      process.send({ times });
    } catch (err) {
      process.send({ error: String(err.message) });
    }
    return;
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
    const r = await (m.direct ? direct : client).callTool({ name: m.tool, arguments: m.args });
    total.push(performance.now() - t);
    if (r.isError) {
      process.send({ error: JSON.stringify(r.content) });
      return;
    }
    const steps = r._meta?.gatehouse?.steps ?? [];
    runner.push(steps.find((s) => s.step === 'runner')?.ms ?? NaN);
    pipeline.push(steps.length ? steps.filter((s) => s.step !== 'runner').reduce((a, s) => a + s.ms, 0) : NaN);
  }
  process.send({ total, runner, pipeline });
});
function spawned({ command, args, input, expect }) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stdin.on('error', () => {});
    child.on('error', reject);
    child.on('close', () => (new RegExp(expect).test(out) ? resolve(performance.now() - t) : reject(new Error(`${command} ${args.join(' ')} answered ${out}`))));
    child.stdin.end(input);
  });
}
process.send({ ready: true });
