// A tool plugin the sandbox holds to reading (strict, no write paths, no hosts) is judged a read:
// at autonomy "supervised" the example `hello` runs without an operator. Real hosts, real plugins
// run in bubblewrap. Everything that is not held that way keeps asking: a write path, a host, a
// read path reaching a secret folder, a terminal tool, a hook call naming the same tool (the
// agent's own tool runs, not the plugin), and any plugin on a machine without the sandbox.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import type { GatewayResult } from '../../../main/gateway/gateway.js';
import { HELLO_DIR, helloVariant } from '../../support/hello-variants.js';
import { tempDir } from '../../support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
  // Back to this machine's own sandbox for the next test (a test may have turned it off).
  detectSandbox({ refresh: true });
});

/** A live host at supervised with hello and the given variants of it (name → manifest lines added), all enabled. */
async function start(variants: Record<string, string> = {}): Promise<Host> {
  const home = join(tempDir('gatehouse-reader-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised' }));
  cpSync(HELLO_DIR, join(home, 'plugins', 'hello'), { recursive: true });
  for (const [name, toml] of Object.entries(variants)) helloVariant(join(home, 'plugins', name), name, toml);
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home });
  hosts.push(host);
  await host.ready;
  await host.registry.enable('hello', 'tester');
  // The scan flags a read of the whole home: an operator may still enable it, with a reason.
  for (const name of Object.keys(variants)) await host.registry.enable(name, 'tester', 'a variant of hello for a test');
  return host;
}

/** A call Gatehouse runs (the agent API's way in); an asked call answers `ask` at once instead of waiting. */
const call = (host: Host, tool: string, source: 'api' | 'hook' = 'api'): Promise<GatewayResult> =>
  host.gateway.call(
    { agent: 'default', client: 'test', session: 's1', tool, arguments: { name: 'Ada' }, cwd: host.paths.root, source },
    { ask: 'return', execute: source !== 'hook' },
  );

describe('a confined reader at autonomy supervised', () => {
  it('hello, held by the sandbox with no write paths and no hosts, is let through as a read and runs', async () => {
    expect(detectSandbox().kind, 'this test needs bubblewrap working here (gatehouse doctor)').toBe('bwrap');
    const host = await start();
    const r = await call(host, 'hello');
    expect(r).toMatchObject({ decision: 'allow', decider: { kind: 'autonomy', level: 'supervised' }, executed: true });
    expect(r.reason).toBe('Autonomy is supervised and this call only reads (hello runs in the sandbox with no write paths and no hosts).');
    expect(r.result).toMatchObject({ ok: true, sandboxed: true, output: { greeting: 'Hello, Ada.' } });
  });

  it('the same tool asks when it may write, reach a host, read a secret folder, or runs in a terminal', async () => {
    const host = await start({
      'hello-writes': '\n[permissions]\nwrite = ["./out"]\n',
      'hello-sends': '\n[permissions]\nhosts = ["example.com:443"]\n',
      'hello-reads-home': '\n[permissions]\nread = ["~"]\n',
      'hello-reads-keys': '\n[permissions]\nread = ["~/.ssh/id_ed25519"]\n',
      'hello-pty': '\npty = true\n',
    });
    for (const tool of ['hello-writes', 'hello-sends', 'hello-reads-home', 'hello-reads-keys', 'hello-pty']) {
      expect(await call(host, tool), tool).toMatchObject({ decision: 'ask', decider: { kind: 'autonomy', level: 'supervised' }, reason: 'Autonomy is supervised: calls that do more than read need an operator.', executed: false });
    }
    // hello beside them is still a read.
    expect((await call(host, 'hello')).decision).toBe('allow');
  });

  it("a hook call naming hello asks: the agent runs its own tool of that name, which no sandbox of Gatehouse's holds", async () => {
    const host = await start();
    expect(await call(host, 'hello', 'hook')).toMatchObject({ decision: 'ask', decider: { kind: 'autonomy', level: 'supervised' }, executed: false });
  });

  it('fails closed on a machine without the sandbox: hello asks again', async () => {
    // The detection a host takes when it starts, as on a machine without bubblewrap.
    expect(detectSandbox({ refresh: true, env: { ...process.env, GATEHOUSE_BWRAP: 'none' } }).kind).toBe('none');
    const host = await start();
    expect(await call(host, 'hello')).toMatchObject({ decision: 'ask', decider: { kind: 'autonomy', level: 'supervised' }, reason: 'Autonomy is supervised: calls that do more than read need an operator.', executed: false });
  });
});
