// Agent ingress costs, measured against a real host on loopback:
//  - MCP gateway overhead: what Gatehouse's /mcp adds to an auto-allowed call of a plugin tool,
//    against the runner called directly behind the same MCP transport (bench/mcp-direct-server.ts,
//    in this process like the host). A real SDK client in its own process (bench/mcp-agent.mjs)
//    makes the calls, as an agent would, alternating between the two in blocks of five so drift
//    in the machine's load touches both alike. Each call counts its round trip minus its runner
//    step (the spawn's jitter, several ms for bwrap on a busy machine, would drown a
//    sub-millisecond difference); the overhead is the difference of those two medians: the token
//    and Host/Origin checks, the pipeline (extraction, rules, checkers, autonomy, approval), the
//    audit events, the result's provenance. Target (issue #29): at most 0.25 ms at p50.
//    Not in it: the wait for the decision to be on disk before the tool starts (Gateway.run awaits
//    it inside the runner step, so it is subtracted with that step); only the wait for the answer's
//    own events is. An agent waits for both: one commit and WAL fdatasync each.
//    Reported beside it: both sides' round trip minus the runner (what the client, HTTP, MCP and
//    the machine's wake-up after the wait cost, which any MCP server pays), an MCP ping to /mcp,
//    the gateway's pipeline steps from the result's step timings, the runner alone, and the
//    whole round trip through /mcp against ToolRunner called in-process.
//    And the floor under the overhead on this disk: a write the size of an answer's batch (~40 KB
//    of WAL frames) and its fdatasync, after the idle gap an agent's call leaves (the tool runs for
//    ~30 ms). A virtual disk's flush after a quiet spell takes several times its back-to-back
//    figure (here ~0.8 ms against ~0.2 ms), and every durable answer pays one.
//  - Claude Code hook round trips: the HTTP form (POST to the hook route) and the command form
//    (the command "write it for me" writes, run by /bin/sh -c as Claude Code runs it: the bash +
//    curl client where they are, else `gatehouse hook`), the latter against the floor any command
//    written in Node has: a bare `node -e 0` spawned the same way. Both are spawned by the agent
//    process, as an agent spawns its hooks: a fork's cost grows with the forking process's memory,
//    and this one holds every other case's data (from 2 GB, a spawn takes ~90 ms here).
//  - The command line's start (`gatehouse --help`), spawned the same way against the same floor.
import { fork } from 'node:child_process';
import { chmodSync, closeSync, fdatasyncSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeHooks } from '../shared/claude-config.js';
import { agentLauncher } from '../main/gateway/agent-launcher.js';
import { createHost } from '../main/host/create-host.js';
import { listenForConsolesAndAgents } from '../main/shells/serve/run-serve.js';
import { median, type BenchCase } from './harness.js';
import { startDirectServer } from './mcp-direct-server.js';

const agentPath = fileURLToPath(new URL('../../bench/mcp-agent.mjs', import.meta.url));
const cliPath = fileURLToPath(new URL('../../bin/gatehouse.js', import.meta.url));

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
  const calls = opts.calls ?? 60;
  const home = join(mkdtempSync(join(tmpdir(), 'gatehouse-bench-gateway-')), 'home');
  const plugin = join(home, 'plugins', 'echo');
  mkdirSync(plugin, { recursive: true });
  writeFileSync(join(plugin, 'tool.toml'), MANIFEST);
  writeFileSync(join(plugin, 'run.sh'), SCRIPT);
  chmodSync(join(plugin, 'run.sh'), 0o755);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', autoApprove: ['echo'], hookAutonomyAllow: 'allow' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  await host.ready;
  await host.registry.enable('echo', 'bench');
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: home });
  const direct = await startDirectServer('echo', (args) => host.toolRunner.call('echo', 'echo', args, { actor: 'bench' }));
  const agent = fork(agentPath, [net.mcpUrl, net.agentToken, direct.url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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
  const inProcess = async () => {
    const r = await host.toolRunner.call('echo', 'echo', input, { actor: 'bench' });
    if (!r.ok) throw new Error(`direct call failed: ${r.error}`);
  };
  /** `calls` sequential MCP calls by the agent process (to /mcp, or to the baseline): each call's round trip and runner step. */
  const viaMcp = async (calls: number, toDirect = false) => {
    agent.send({ calls, tool: 'echo', args: input, direct: toDirect });
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
  /** `runs` runs of a command by the agent process, as an agent runs its hooks: each one's time. */
  const spawnedByAgent = (runs: number, command: string, args: string[], expect: string) =>
    new Promise<number[]>((resolve, reject) => {
      agent.once('message', (m: { times?: number[]; error?: string }) => (m.times ? resolve(m.times) : reject(new Error(m.error))));
      agent.send({ spawn: { command, args, input: HOOK_INPUT, expect }, runs });
    });
  // The hook command exactly as "write it for me" puts it into Claude Code's settings (the sh
  // client where sh and curl are, else `gatehouse hook` with Node), run as Claude Code runs it: by
  // /bin/sh -c, from the agent's process.
  const written = claudeHooks('command', { home, launcher: agentLauncher('hook').launcher }).PreToolUse.command as string;
  const hookCommand = (runs: number) => spawnedByAgent(runs, '/bin/sh', ['-c', written], '"allow"');
  const bareNode = (runs: number) => spawnedByAgent(runs, process.execPath, ['-e', '0'], '');
  const cliHelp = (runs: number) => spawnedByAgent(runs, process.execPath, [cliPath, '--help'], '^Usage: gatehouse ');
  const commandRuns = Math.max(3, Math.floor(calls / 5));
  const medianOf = async (n: number, fn: () => Promise<unknown>) => {
    const t: number[] = [];
    for (let i = 0; i < n; i++) t.push(await time(fn));
    return median(t);
  };

  // Filled by the overhead case's round, reported by the cases after it.
  let last = { inProcess: 0, mcp: 0, mcpAdded: 0, directAdded: 0, ping: 0, pipeline: 0 };
  const cases: BenchCase[] = [
    {
      name: 'MCP gateway overhead, auto-allowed call (p50 added)',
      unit: 'ms',
      better: 'lower',
      // Issue #29. Floor: the answer waits for its call.result to be committed and the WAL fdatasynced
      // (the next row measures that sync on this disk), so this target holds only on a disk whose
      // flush after an idle gap takes well under 0.25 ms.
      target: { median: 0.25 },
      async run() {
        const d: number[] = [];
        const total: number[] = [];
        const added: number[] = [];
        const directAdded: number[] = [];
        const pipeline: number[] = [];
        const pings: number[] = [];
        for (let i = 0; i < calls; i += 5) {
          for (let j = 0; j < 5; j++) d.push(await time(inProcess));
          const m = await viaMcp(5);
          total.push(...m.total);
          pipeline.push(...m.pipeline);
          m.total.forEach((t, k) => added.push(t - m.runner[k]!));
          const b = await viaMcp(5, true);
          b.total.forEach((t, k) => directAdded.push(t - b.runner[k]!));
          agent.send({ pings: 5 });
          const p = await fromAgent();
          if (!p.pings) throw new Error(`MCP ping failed: ${p.error}`);
          pings.push(...p.pings);
        }
        if ([...added, ...directAdded, ...pipeline].some((x) => !Number.isFinite(x))) throw new Error('an MCP result carried no step timings');
        last = { inProcess: median(d), mcp: median(total), mcpAdded: median(added), directAdded: median(directAdded), ping: median(pings), pipeline: median(pipeline) };
        return last.mcpAdded - last.directAdded;
      },
    },
    {
      name: 'disk flush after an idle gap: 40 KB write + fdatasync (the floor of the overhead)',
      unit: 'ms',
      better: 'lower',
      run: () => flushAfterIdle(home, calls),
    },
    {
      name: 'MCP round trip minus runner, through /mcp (p50)',
      unit: 'ms',
      better: 'lower',
      baseline: 'MCP round trip minus runner, tool served directly (p50)',
      // Measured inside the overhead case's round.
      run: () => last.mcpAdded,
    },
    {
      name: 'MCP round trip minus runner, tool served directly (p50)',
      unit: 'ms',
      better: 'lower',
      run: () => last.directAdded,
    },
    {
      name: 'MCP ping round trip to /mcp (the transport alone, no tool)',
      unit: 'ms',
      better: 'lower',
      run: () => last.ping,
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
      run: () => last.inProcess,
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
      run: () => medianOf(calls, hookHttp),
    },
    {
      name: 'node start-up (node -e 0, spawned the same way)',
      unit: 'ms',
      better: 'lower',
      run: async () => median(await bareNode(commandRuns)),
    },
    {
      name: 'hook round trip, command form (gatehouse hook)',
      unit: 'ms',
      better: 'lower',
      baseline: 'node start-up (node -e 0, spawned the same way)',
      // Issue #29: a hook client that does not start Node (main/cli/hook-client.sh).
      target: { ratio: 0.35 },
      run: async () => median(await hookCommand(commandRuns)),
    },
    {
      name: 'command line start-up (gatehouse --help)',
      unit: 'ms',
      better: 'lower',
      baseline: 'node start-up (node -e 0, spawned the same way)',
      // Every command pays it before it runs: Commander and the command tree only, what a command
      // runs loaded by its action (main/cli/program.ts). Loading it all took 3.5× a node start.
      target: { ratio: 2 },
      run: async () => median(await cliHelp(commandRuns)),
    },
  ];
  return {
    cases,
    async close() {
      agent.send('close');
      await new Promise((resolve) => agent.once('exit', resolve));
      await direct.close();
      await net.shell.close();
      await host.close('bench done');
    },
  };
}

/**
 * The median time of `n` writes of an answer's batch (~40 KB, what an agent's call.result commit
 * adds to the WAL) and their fdatasync, each after a 30 ms idle gap, in a preallocated file beside
 * the audit log (an overwrite: the cheaper case, so a floor). What no change to Gatehouse can take
 * below: the answer is durable before the agent hears it.
 */
async function flushAfterIdle(dir: string, n: number): Promise<number> {
  const path = join(dir, 'flush-floor.bin');
  const frames = Buffer.alloc(40 * 1024, 1);
  const fd = openSync(path, 'w');
  try {
    const size = 4 * 1024 * 1024;
    for (let off = 0; off < size; off += frames.length) writeSync(fd, frames, 0, frames.length, off);
    fdatasyncSync(fd);
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      await sleep(30);
      const t = performance.now();
      writeSync(fd, frames, 0, frames.length, (i * frames.length) % (size - frames.length));
      fdatasyncSync(fd);
      times.push(performance.now() - t);
    }
    return median(times);
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
}
