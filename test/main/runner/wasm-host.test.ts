// A WebAssembly plugin in a real host: an agent calls its tool over MCP (real SDK client, real
// HTTP on loopback); the call goes through the pipeline, the module runs in the sandboxed worker
// process, its read_file host call is judged by the host's own policy and lands in the hash-chained
// audit log with the call's id, and execution.ended carries the fuel used.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';
import { fixtureWat, wasmPlugin } from '../../support/wasm.js';

let stop: (() => Promise<void>) | null = null;
afterEach(async () => {
  await stop?.();
  stop = null;
});

it('an agent calls a wasm tool over MCP: host calls judged by the host policy and audited with the call', async () => {
  const root = tempDir('gatehouse-wasm-host-');
  const home = join(root, 'home');
  const data = join(root, 'data');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  mkdirSync(data);
  writeFileSync(join(data, 'fact.json'), '{"fact":"wasm reads what it is granted"}');
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  const path = join(data, 'fact.json');
  const wat = fixtureWat('reader.wat', { __PATH__: path, __LEN__: String(Buffer.byteLength(path)) }).replace('"reader"', '"read"');
  await wasmPlugin(join(home, 'plugins'), 'facts', `name = "facts"\ndescription = "Reads a fact."\nkind = "wasm"\nwasm = "plugin.wasm"\n[tools.read]\ndescription = "Read the fact."\n[permissions]\nread = [${JSON.stringify(data)}]\n`, wat);

  const host: Host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home });
  await host.ready;
  await host.registry.enable('facts', 'tester');
  const net: Listening = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: join(repoRoot, 'out', 'renderer') });
  stop = async () => {
    await net.shell.close();
    await host.close('test done');
  };
  const client = new Client({ name: 'wasm-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${net.agentToken}` } } }));
  const { tools } = await client.listTools();
  // One tool: agents see it by the plugin's name.
  expect(tools.map((t) => t.name)).toContain('facts');

  const res = (await client.callTool({ name: 'facts', arguments: {} })) as CallToolResult;
  expect(res.isError ?? false).toBe(false);
  expect(res.structuredContent).toEqual({ fact: 'wasm reads what it is granted' });
  await client.close();

  const events = host.audit.tail(1000);
  const ended = events.find((e) => e.type === 'execution.ended')!;
  const hostCall = events.find((e) => e.type === 'wasm.host-call')!;
  expect(ended.payload).toMatchObject({ plugin: 'facts', ok: true, fuelUsed: expect.any(Number) });
  expect(hostCall.actor).toBe(ended.actor);
  expect(hostCall.payload).toMatchObject({ call: (ended.payload as Record<string, unknown>)['call'], plugin: 'facts', function: 'read_file', argument: path, decision: 'allow', decider: 'policy' });
});
