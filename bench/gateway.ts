// Agent ingress costs, measured against a real host on loopback:
//  - MCP gateway overhead: an auto-allowed call through /mcp, made by a real SDK client in its
//    own process (bench/mcp-agent.mjs), as an agent would. What the gateway adds to a call is
//    the agent's round trip minus the runner step inside it (HTTP, MCP, extraction, rules,
//    autonomy, audit): measured per call, so the spawn's jitter (± several ms for bwrap on a
//    busy machine) does not drown a sub-millisecond difference. Target: at most 1 ms at p50.
//    Reported beside it: the same plugin on ToolRunner directly, the whole MCP round trip, and
//    the two parts of what is added: the MCP transport itself (an SDK ping round trip, no tool
//    behind it: what any Streamable HTTP server costs this client) and the gateway's own pipeline
//    steps (extraction, rules, autonomy, approval, audit; from the result's step timings). And
//    the floor under it: the same agent's same calls to a do-nothing MCP server that holds each
//    answer as long as the last Gatehouse call's runner took (bench/mcp-floor-server.ts), so the
//    client's own cost and the machine's wake-up after an idle wait show apart from the gateway's.
//  - Claude Code hook round trips: the HTTP form (POST to the hook route) and the command form
//    (`gatehouse hook`, a node process per call, as Claude Code runs it).
import { fork, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../main/host/create-host.js';
import { listenForConsolesAndAgents } from '../main/shells/serve/run-serve.js';
import { median, type BenchCase } from './harness.js';
import { startFloorServer } from './mcp-floor-server.js';

const cliPath = fileURLToPath(new URL('../../bin/gatehouse.js', import.meta.url));
const agentPath = fileURLToPath(new URL('../../bench/mcp-agent.mjs', import.meta.url));

const MANIFEST = `name = "echo"
description = "Echoes its input."
command = "run.sh"
timeout_secs = 10

[parameters.message]
type = "string"
required = true
description = "Anything."
`;
const SCRIPT = '#!/bin/sh\ninput=$(cat)\nprintf \'{"received": %s}\\n\' "$input"\n';

const HOOK_INPUT = JSON.stringify({ session_id: 'bench', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/tmp/notes.txt' } });

export async function gatewayCases(opts: { calls?: number } = {}): Promise<{ cases: BenchCase[]; close: () => Promise<void> }> {
  const calls = opts.calls ?? 30;
  const home = join(mkdtempSync(join(tmpdir(), 'gatehouse-bench-gateway-')), 'home');
  const plugin = join(home, 'plugins', 'echo');
  mkdirSync(plugin, { recursive: true });
  writeFileSync(join(plugin, 'tool.toml'), MANIFEST);
  writeFileSync(join(plugin, 'run.sh'), SCRIPT);
  chmodSync(join(plugin, 'run.sh'), 0o755);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', autoApprove: ['echo'] }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  await host.ready;
  await host.registry.enable('echo', 'bench');
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: home });
  const floor = await startFloorServer();
  const agent = fork(agentPath, [net.mcpUrl, net.agentToken, floor.url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const fromAgent = () =>
    new Promise<{ total?: number[]; runner?: number[]; pipeline?: number[]; pings?: number[]; error?: string }>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the bench agent exited (${code})`));
      agent.once('exit', onExit);
      agent.once('message', (m) => {
        agent.off('exit', onExit);
        resolve(m as { total?: number[]; runner?: number[]; pipeline?: number[]; pings?: number[]; error?: string });
      });
    });
  await fromAgent();

  const input = { message: 'hello' };
  const direct = async () => {
    const r = await host.toolRunner.call('echo', 'echo', input, { actor: 'bench' });
    if (!r.ok) throw new Error(`direct call failed: ${r.error}`);
  };
  /** `calls` sequential MCP calls by the agent process: each call's round trip and runner step. */
  const viaMcp = async (calls: number, toFloor = false) => {
    agent.send({ calls, tool: 'echo', args: input, floor: toFloor });
    const m = await fromAgent();
    if (!m.total || !m.runner || !m.pipeline) throw new Error(`MCP call failed: ${m.error}`);
    return m as { total: number[]; runner: number[]; pipeline: number[] };
  };
  const time = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const hookHttp = async () => {
    const res = await fetch(net.hookUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${net.agentToken}` }, body: HOOK_INPUT });
    const body = (await res.json()) as { hookSpecificOutput?: { permissionDecision?: string } };
    if (body.hookSpecificOutput?.permissionDecision !== 'allow') throw new Error(`hook answered ${JSON.stringify(body)}`);
  };
  const hookCommand = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [cliPath, 'hook', '--home', home], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('error', reject);
      child.on('close', () => (/"allow"/.test(out) ? resolve() : reject(new Error(`hook command answered ${out}`))));
      child.stdin.end(HOOK_INPUT);
    });

  // Filled by the overhead case's round, reported by the cases after it.
  let last = { direct: 0, mcp: 0, ping: 0, pipeline: 0, floor: 0 };
  const cases: BenchCase[] = [
    {
      name: 'MCP gateway overhead, auto-allowed call (p50 added)',
      unit: 'ms',
      better: 'lower',
      target: { median: 1 },
      async run() {
        const d: number[] = [];
        const total: number[] = [];
        const added: number[] = [];
        const pipeline: number[] = [];
        const pings: number[] = [];
        const floorAdded: number[] = [];
        // Alternating blocks, so drift in the machine's load touches every path alike.
        for (let i = 0; i < calls; i += 5) {
          for (let j = 0; j < 5; j++) d.push(await time(direct));
          const m = await viaMcp(5);
          total.push(...m.total);
          pipeline.push(...m.pipeline);
          m.total.forEach((t, k) => added.push(t - m.runner[k]!));
          agent.send({ pings: 5 });
          const p = await fromAgent();
          if (!p.pings) throw new Error(`MCP ping failed: ${p.error}`);
          pings.push(...p.pings);
          const f = await viaMcp(5, true);
          f.total.forEach((t, k) => floorAdded.push(t - f.runner[k]!));
        }
        if (added.some((x) => !Number.isFinite(x)) || pipeline.some((x) => !Number.isFinite(x))) throw new Error('an MCP result carried no step timings');
        last = { direct: median(d), mcp: median(total), ping: median(pings), pipeline: median(pipeline), floor: median(floorAdded) };
        return median(added);
      },
    },
    {
      name: 'MCP ping round trip (the transport alone, no tool)',
      unit: 'ms',
      better: 'lower',
      // Measured inside the overhead case's round.
      run: () => last.ping,
    },
    {
      name: 'MCP client floor: same calls, do-nothing server holding as long (p50 added)',
      unit: 'ms',
      better: 'lower',
      // Measured inside the overhead case's round: what is left of "added" with no gateway at all.
      run: () => last.floor,
    },
    {
      name: 'gateway pipeline steps besides the runner (p50)',
      unit: 'ms',
      better: 'lower',
      run: () => last.pipeline,
    },
    {
      name: 'tool call on ToolRunner directly',
      unit: 'ms',
      better: 'lower',
      // Measured inside the overhead case's round (interleaved with the MCP calls).
      run: () => last.direct,
    },
    {
      name: 'tool call through /mcp (agent round trip)',
      unit: 'ms',
      better: 'lower',
      baseline: 'tool call on ToolRunner directly',
      run: () => last.mcp,
    },
    {
      name: 'hook round trip, HTTP form',
      unit: 'ms',
      better: 'lower',
      async run() {
        const t: number[] = [];
        for (let i = 0; i < calls; i++) t.push(await time(hookHttp));
        return median(t);
      },
    },
    {
      name: 'hook round trip, command form (gatehouse hook)',
      unit: 'ms',
      better: 'lower',
      baseline: 'hook round trip, HTTP form',
      async run() {
        const t: number[] = [];
        for (let i = 0; i < Math.max(3, Math.floor(calls / 5)); i++) t.push(await time(hookCommand));
        return median(t);
      },
    },
  ];
  return {
    cases,
    async close() {
      agent.send('close');
      await new Promise((resolve) => agent.once('exit', resolve));
      await floor.close();
      await net.shell.close();
      await host.close('bench done');
    },
  };
}
