// Agents' idle connections: the host must not be the side that closes them first. Node's default
// (5 s) closed a connection an agent's HTTP client was about to reuse, so its call failed in
// transport ("other side closed": 15–33 calls per 10-minute soak, in bursts) and Claude Code,
// whose hook failed, ran the tool. Clients time their idle connections by the Keep-Alive header,
// so that is what is checked, on each route agents use, with a real host on loopback and a real
// keep-alive client; and the same connection then carries the agent's next call.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { IDLE_CONNECTION_MS } from '../../../main/shells/serve/serve-shell.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const running: { host: Host; net: Listening }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.net.shell.close();
    await r.host.close('test done');
  }
});

async function start(): Promise<{ host: Host; net: Listening }> {
  const home = join(tempDir('gatehouse-keep-alive-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ hookAutonomyAllow: 'allow' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: join(repoRoot, 'out', 'renderer') });
  const r = { host, net };
  running.push(r);
  return r;
}

/** One POST on `agent`'s pooled connection: status, headers, body and the local port it went out on. */
function post(agent: Agent, url: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string; localPort: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, localPort: req.socket?.localPort ?? -1 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const hookInput = (id: string) =>
  JSON.stringify({ session_id: 's', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/tmp/notes.txt' }, tool_use_id: id });

describe('idle agent connections', () => {
  it('the hook and MCP routes keep an idle connection 120 s, longer than clients keep theirs, and the next call reuses it', async () => {
    expect(IDLE_CONNECTION_MS).toBe(120_000);
    const { net } = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const hookHeaders = { authorization: `Bearer ${net.agentToken}`, 'content-type': 'application/json' };
      const first = await post(agent, net.hookUrl, hookHeaders, hookInput('toolu_1'));
      expect(first.status).toBe(200);
      expect(first.headers.connection).toBe('keep-alive');
      // Node's default said timeout=5: undici then let a connection go after 4 s, by a timer
      // that can run late, while the host closed it at 5 s.
      expect(first.headers['keep-alive']).toBe('timeout=120');
      const second = await post(agent, net.hookUrl, hookHeaders, hookInput('toolu_2'));
      expect(second.status).toBe(200);
      expect(second.localPort, 'the same connection carried the next call').toBe(first.localPort);

      const mcp = await post(
        agent,
        net.mcpUrl,
        { authorization: `Bearer ${net.agentToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'keep-alive-test', version: '1' } } }),
      );
      expect(mcp.status, mcp.body).toBe(200);
      expect(mcp.headers['keep-alive']).toBe('timeout=120');
      expect(mcp.localPort).toBe(first.localPort);
    } finally {
      agent.destroy();
    }
  });
});
