// An agent that connects the moment `gatehouse serve` listens, before the host's first scan is
// over (plugins, checkers, upstream servers): its tools/list and tools/call wait for the scan
// instead of being answered from an empty registry ("Unknown tool" for an enabled plugin; a CI run
// of allowed-plugins-pin.test.ts on a loaded machine failed this way). The scan is held by a real
// upstream MCP server that starts only once the test lets it (a gate file), so the window is
// open for as long as the test needs, without sleeping.
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const rendererDir = join(repoRoot, 'out', 'renderer');
const open: Array<{ host: Host; net?: Listening }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.net?.shell.close();
    await o.host.close('test done');
  }
});

function makeHome() {
  const root = tempDir('gatehouse-startup-');
  const home = join(root, 'home');
  const gate = join(root, 'gate');
  mkdirSync(gate, { recursive: true });
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  cpSync(join(repoRoot, 'examples', 'plugins', 'hello'), join(home, 'plugins', 'hello'), { recursive: true });
  // An upstream server that waits for gate/go before it starts: the host's first scan waits for its handshake.
  const dir = join(home, 'plugins', 'gated');
  mkdirSync(dir);
  cpSync(join(repoRoot, 'test', 'fixtures', 'mcp', 'hostile-server.mjs'), join(dir, 'server.mjs'));
  writeFileSync(join(dir, 'gatehouse.toml'), `name = "gated"\ndescription = "A test MCP server."\nkind = "mcp"\ncommand = "run.sh"\nargs = ["normal"]\ntimeout_secs = 120\n[permissions]\nread = [${JSON.stringify(gate)}]\n`);
  writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\nwhile [ ! -e '${gate}/go' ]; do sleep 0.02; done\nexec node "$(dirname "$0")/server.mjs" "$@"\n`, { mode: 0o755 });
  return { home, gate };
}

async function enableBoth(home: string, gate: string): Promise<void> {
  writeFileSync(join(gate, 'go'), '');
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  open.push({ host });
  await host.ready;
  await host.registry.enable('hello', 'tester', 'test fixture');
  await host.registry.enable('gated', 'tester', 'test fixture');
  await host.close('enabled');
  open.pop();
  rmSync(join(gate, 'go'));
}

async function startListening(home: string) {
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  // Listening at once, as `gatehouse serve` does: the first scan goes on behind it.
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
  open.push({ host, net });
  let ready = false;
  void host.ready.then(() => (ready = true));
  const client = new Client({ name: 'early-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(net.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${net.agentToken}` } } }));
  return { host, client, isReady: () => ready };
}

it('tools/list and tools/call sent before the first scan is over wait for it, and see the enabled plugins', async () => {
  const { home, gate } = makeHome();
  await enableBoth(home, gate);
  const { client, isReady } = await startListening(home);
  expect(existsSync(join(gate, 'go'))).toBe(false);
  const answeredWhenReady: boolean[] = [];
  const listed = client.listTools().then((r) => (answeredWhenReady.push(isReady()), r));
  const called = client.callTool({ name: 'hello', arguments: { name: 'early' } }).then((r) => (answeredWhenReady.push(isReady()), r as CallToolResult));
  // The scan can end only now.
  writeFileSync(join(gate, 'go'), '');
  const [tools, result] = await Promise.all([listed, called]);
  expect(answeredWhenReady).toEqual([true, true]);
  expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['hello', 'gated__hang']));
  expect(result.isError ?? false).toBe(false);
  expect(JSON.stringify(result.content)).toContain('early');
  await client.close();
});
