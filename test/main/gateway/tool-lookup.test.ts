// Gateway.find, asked several times for every call, builds only the tool it finds; tools() builds
// the whole list agents see. Both must name the same tool: on a real host with a single-tool plugin,
// a plugin of several tools, a module plugin (always prefixed, with a system prompt), a plugin that
// is not enabled, the shell, a real upstream MCP server and one with tools the poisoning scan hides, find(name) is exactly the tools() entry
// of that name, and a name the list does not hold is found nowhere.
import { cpSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { repoRoot } from '../../support/cli.js';
import { HELLO_DIR } from '../../support/hello-variants.js';
import { tempDir } from '../../support/temp.js';

const FS_SERVER = join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

/** Resolves once the gateway serves `tool` of the upstream plugin (its handshake done). */
function enableUpstream(host: Host, plugin: string, tool: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = () => {
      if (!host.gateway.find(tool)) return;
      off();
      resolve();
    };
    const off = host.bus.subscribe((name) => {
      if (name === 'gateway.toolsChanged') check();
    });
    void host.registry.enable(plugin, 'tester', 'test fixture').then(check);
  });
}

describe('Gateway.find', () => {
  it('finds exactly the tool tools() lists under each name, and nothing else', async () => {
    const home = join(tempDir('gatehouse-lookup-'), 'home');
    const plugins = join(home, 'plugins');
    mkdirSync(plugins, { recursive: true });
    cpSync(HELLO_DIR, join(plugins, 'hello'), { recursive: true });
    cpSync(join(repoRoot, 'examples', 'plugins', 'weather'), join(plugins, 'weather'), { recursive: true });
    cpSync(join(repoRoot, 'test', 'fixtures', 'manifests', 'multi-toml'), join(plugins, 'multi-toml'), { recursive: true });
    // Valid, never enabled: none of its tools may be found.
    cpSync(join(repoRoot, 'examples', 'plugins', 'echo'), join(plugins, 'echo'), { recursive: true });
    const workspace = realpathSync(tempDir('gatehouse-lookup-ws-'));
    mkdirSync(join(plugins, 'fs'));
    writeFileSync(
      join(plugins, 'fs', 'gatehouse.toml'),
      `name = "fs"\ndescription = "The MCP filesystem server."\nkind = "mcp"\ncommand = "run.sh"\nargs = ["${workspace}"]\ntimeout_secs = 20\n[permissions]\nread = ["${join(repoRoot, 'node_modules')}", "${workspace}"]\nwrite = ["${workspace}"]\n`,
    );
    writeFileSync(join(plugins, 'fs', 'run.sh'), `#!/bin/sh\nexec node "${FS_SERVER}" "$@"\n`, { mode: 0o755 });
    // An upstream server two of whose tools the poisoning scan hides (listed upstream, not exposed).
    mkdirSync(join(plugins, 'poison'));
    cpSync(join(repoRoot, 'test', 'fixtures', 'mcp', 'hostile-server.mjs'), join(plugins, 'poison', 'server.mjs'));
    writeFileSync(join(plugins, 'poison', 'gatehouse.toml'), 'name = "poison"\ndescription = "A test MCP server."\nkind = "mcp"\ncommand = "run.sh"\nargs = ["poison"]\ntimeout_secs = 120\n');
    writeFileSync(join(plugins, 'poison', 'run.sh'), '#!/bin/sh\nexec node "$(dirname "$0")/server.mjs" "$@"\n', { mode: 0o755 });

    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
    hosts.push(host);
    await host.ready;
    for (const p of ['hello', 'weather']) await host.registry.enable(p, 'tester');
    // Its scan flags its read of ~/projects, which does not matter here: enabled with a reason, as an operator can.
    await host.registry.enable('multi-toml', 'tester', 'test fixture');
    await enableUpstream(host, 'fs', 'fs__read_text_file');
    await enableUpstream(host, 'poison', 'poison__clean');
    // Listed by the server and hidden by the scan (each flagged on record), so never the agents'.
    const hidden = host.audit.tail(1000).filter((e) => e.type === 'mcp.tool-flagged').map((e) => (e.payload as { name: string }).name);
    expect(hidden.sort()).toEqual(['poison__hidden', 'poison__injected']);

    const listed = host.gateway.tools();
    const names = listed.map((t) => t.name);
    // Every way a name is made is in the list.
    expect(names).toEqual(expect.arrayContaining(['shell', 'hello', 'weather__forecast', 'multi-toml__count', 'multi-toml__grep', 'fs__read_text_file', 'fs__write_file', 'poison__clean']));
    expect(listed.find((t) => t.name === 'weather__forecast')!.description).toContain('Use `forecast`');
    for (const t of listed) expect(host.gateway.find(t.name), t.name).toEqual(t);

    // Names the list does not hold: the tools of a plugin not enabled, a prefix or part of a real
    // name, a tool inside its plugin's name, a kind's other naming, an invalid name.
    const absent = ['echo', 'echo__echo', 'multi-toml', 'multi-toml__', 'multi-toml__counts', 'multi-tom', 'hello__hello', 'weather', 'forecast', 'fs', 'fs__', 'read_text_file', 'fs__nope', ...hidden, 'Hello', '', 'a b', 'x'.repeat(65)];
    for (const name of absent) {
      expect(names).not.toContain(name);
      expect(host.gateway.find(name), name).toBeUndefined();
    }

    // What the operator changes shows at once in both.
    await host.registry.disable('multi-toml', 'tester');
    expect(host.gateway.tools().map((t) => t.name)).not.toContain('multi-toml__grep');
    expect(host.gateway.find('multi-toml__grep')).toBeUndefined();
    expect(host.gateway.find('hello')).toEqual(host.gateway.tools().find((t) => t.name === 'hello'));
  });
});
