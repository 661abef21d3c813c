// The daemon a container client talks to when its command line names none: a saved Docker context
// (the config's currentContext, DOCKER_CONTEXT in the agent's environment) or a Podman connection.
// A saved context on another machine makes every `docker ps` a network operation to that host.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import type { ToolCall } from '../../../main/policy/types.js';
import { tempDir } from '../../support/temp.js';

const put = (file: string, text: string) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};
const context = (home: string, name: string, host: string) =>
  put(join(home, '.docker', 'contexts', 'meta', createHash('sha256').update(name).digest('hex'), 'meta.json'), JSON.stringify({ Name: name, Endpoints: { docker: { Host: host } } }));

function judge(command: string, home: string, env?: Record<string, string>) {
  const call: ToolCall = { id: 'c1', agent: 'test', session: 's1', tool: 'Bash', arguments: { command }, cwd: home, source: 'hook', receivedAt: 0 };
  const e = extract(call, { home, resolveSymlinks: false, ...(env ? { env } : {}) });
  return { network: e.operations.includes('network'), hosts: e.hosts, evasive: e.evasive };
}

beforeAll(() => initExtractor());

describe('container clients and their saved daemons', () => {
  it("the config's current context on another machine makes docker ps a network operation to it", () => {
    const home = tempDir('gatehouse-docker-ctx-');
    context(home, 'prod', 'tcp://10.0.0.9:2376');
    expect(judge('docker ps', home).network).toBe(false);
    put(join(home, '.docker', 'config.json'), JSON.stringify({ currentContext: 'prod' }));
    expect(judge('docker ps', home)).toMatchObject({ network: true, hosts: ['10.0.0.9'] });
    expect(judge('docker compose up -d', home).hosts).toEqual(['10.0.0.9']);
    // An address on the command line wins over the context, as in the client.
    expect(judge('docker -H unix:///var/run/docker.sock ps', home).network).toBe(false);
    // DOCKER_HOST in the agent's environment wins over the context too.
    expect(judge('docker ps', home, { DOCKER_HOST: 'unix:///run/docker.sock' }).network).toBe(false);
  });

  it("DOCKER_CONTEXT in the agent's environment, and a context named by a computed word", () => {
    const home = tempDir('gatehouse-docker-env-');
    context(home, 'edge', 'ssh://ops@10.1.2.3');
    expect(judge('docker ps', home, { DOCKER_CONTEXT: 'edge' }).hosts).toEqual(['10.1.2.3']);
    expect(judge('docker --context "$(cat name)" ps', home).evasive).toBe(true);
  });

  it("podman's connections from containers.conf; podman without --remote is local", () => {
    const home = tempDir('gatehouse-podman-');
    put(join(home, '.config', 'containers', 'containers.conf'), '[engine]\nactive_service = "lab"\n[engine.service_destinations.lab]\nuri = "ssh://core@10.4.4.4:22/run/podman/podman.sock"\n');
    expect(judge('podman ps', home).network).toBe(false);
    expect(judge('podman --remote ps', home).hosts).toEqual(['10.4.4.4']);
    expect(judge('podman-remote ps', home).hosts).toEqual(['10.4.4.4']);
    expect(judge('podman -c lab images', home).hosts).toEqual(['10.4.4.4']);
  });
});
