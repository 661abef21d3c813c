// Agent ingress costs, measured against a real host on loopback:
//  - MCP gateway overhead: an auto-allowed call through /mcp (a real SDK client: HTTP, the
//    pipeline, the runner) against the same plugin called on ToolRunner directly, interleaved
//    call by call. The case's value is the p50 difference (target: at most 1 ms added).
//  - Claude Code hook round trips: the HTTP form (POST to the hook route) and the command form
//    (`gatehouse hook`, a node process per call, as Claude Code runs it).
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHost } from '../main/host/create-host.js';
import { listenForConsolesAndAgents } from '../main/shells/serve/run-serve.js';
import { median, type BenchCase } from './harness.js';

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
  const client = new Client({ name: 'bench-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(net.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${net.agentToken}` } } }));

  const input = { message: 'hello' };
  const direct = async () => {
    const r = await host.toolRunner.call('echo', 'echo', input, { actor: 'bench' });
    if (!r.ok) throw new Error(`direct call failed: ${r.error}`);
  };
  const viaMcp = async () => {
    const r = await client.callTool({ name: 'echo', arguments: input });
    if (r.isError) throw new Error(`MCP call failed: ${JSON.stringify(r.content)}`);
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

  // The last round's medians, so the overhead case can report the direct call's too.
  let last = { direct: 0, mcp: 0 };
  const cases: BenchCase[] = [
    {
      name: 'MCP gateway overhead, auto-allowed call (p50 added)',
      unit: 'ms',
      better: 'lower',
      target: { median: 1 },
      async run() {
        const d: number[] = [];
        const m: number[] = [];
        for (let i = 0; i < calls; i++) {
          d.push(await time(direct));
          m.push(await time(viaMcp));
        }
        last = { direct: median(d), mcp: median(m) };
        return Math.max(0, last.mcp - last.direct);
      },
    },
    {
      name: 'tool call on ToolRunner directly',
      unit: 'ms',
      better: 'lower',
      // Measured inside the overhead case's round (interleaved with the MCP calls).
      run: () => last.direct,
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
      await client.close();
      await net.shell.close();
      await host.close('bench done');
    },
  };
}
