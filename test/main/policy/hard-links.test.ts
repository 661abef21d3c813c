// Hard links to protected files (issue #24): a read or write of a file whose inode is a protected
// file's is that protected file, at every ingress. Real files and real links in a temporary home;
// the real PolicyStore; a WebAssembly plugin's read_file answered by the real host function; the
// shell tool through a real host.
import { appendFileSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { PolicyStore } from '../../../main/policy/rules/store.js';
import type { Extraction } from '../../../main/policy/types.js';
import { answerHostCall } from '../../../main/runner/wasm/host-functions.js';
import { tempDir } from '../../support/temp.js';

function fakeHome() {
  const root = tempDir('gatehouse-hardlinks-');
  const home = join(root, 'home');
  const proj = join(home, 'proj');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(proj, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n');
  writeFileSync(join(home, '.bashrc'), 'export A=1\n');
  writeFileSync(join(proj, 'readme.txt'), 'hello\n');
  return { root, home, proj, gatehouse: join(root, 'gatehouse') };
}

function store(h: ReturnType<typeof fakeHome>, now: () => number = () => 0) {
  return new PolicyStore({ file: join(h.gatehouse, 'policy.yaml'), home: h.home, gatehouseHome: h.gatehouse, watch: false, now });
}

const x = (operations: Extraction['operations'], paths: string[], recursive?: string[]): Extraction => ({
  operations,
  paths,
  hosts: [],
  command: '',
  content: '',
  evasive: false,
  evasiveReasons: [],
  ...(recursive ? { recursive } : {}),
});

describe('hard links to protected files, in the policy', () => {
  it('a read of a link to the key is a read of the key, named in the reason; other files stay undecided', () => {
    const h = fakeHome();
    linkSync(join(h.home, '.ssh', 'id_rsa'), join(h.proj, 'notes.bak'));
    const p = store(h);
    const r = p.evaluate(x(['read'], [join(h.proj, 'notes.bak')]), null);
    expect(r.decision).toBe('deny');
    expect(r.decisive?.rule).toBe('builtin.credentials.ssh');
    expect(r.reason).toContain(`${join(h.proj, 'notes.bak')} is a hard link to ${join(h.home, '.ssh', 'id_rsa')}`);
    expect(p.evaluate(x(['read'], [join(h.proj, 'readme.txt')]), null).decisive).toBeNull();
  });

  it('a write through a link to ~/.bashrc is a write of ~/.bashrc; a read of it is not protected', () => {
    const h = fakeHome();
    linkSync(join(h.home, '.bashrc'), join(h.proj, 'shell.rc'));
    const p = store(h);
    expect(p.evaluate(x(['write'], [join(h.proj, 'shell.rc')]), null).decisive?.rule).toBe('builtin.shell-startup');
    expect(p.evaluate(x(['read'], [join(h.proj, 'shell.rc')]), null).decisive).toBeNull();
  });

  it('a folder walked whole that holds a link is a read of the protected file', () => {
    const h = fakeHome();
    mkdirSync(join(h.proj, 'deep', 'er'), { recursive: true });
    linkSync(join(h.home, '.ssh', 'id_rsa'), join(h.proj, 'deep', 'er', 'k'));
    const r = store(h).evaluate(x(['read'], [h.proj], [h.proj]), null);
    expect(r.decision).toBe('deny');
    expect(r.reason).toContain('is a hard link to');
  });

  it('a link made after the table was listed is found by listing again; held back by the rescan limit, the call is unsure', () => {
    const h = fakeHome();
    let now = 0;
    const p = store(h, () => now);
    // Lists the protected files now (a file with two names is seen): the key has one name yet.
    writeFileSync(join(h.proj, 'a'), 'a\n');
    linkSync(join(h.proj, 'a'), join(h.proj, 'b'));
    expect(p.evaluate(x(['read'], [join(h.proj, 'a')]), null).decisive).toBeNull();
    // The key gets a second name within the rescan limit: the call is asked about, not allowed.
    linkSync(join(h.home, '.ssh', 'id_rsa'), join(h.proj, 'late'));
    const held = p.evaluate(x(['read'], [join(h.proj, 'late')]), null);
    expect(held.decision).toBe('ask');
    expect(held.decisive?.rule).toBe('builtin.evasive-command');
    // Once the limit has passed, the table is listed again and the link is the key.
    now += 1000;
    expect(p.evaluate(x(['read'], [join(h.proj, 'late')]), null).decisive?.rule).toBe('builtin.credentials.ssh');
  });

  it("a link to a .env file of the call's folder is that .env file", () => {
    const h = fakeHome();
    writeFileSync(join(h.proj, '.env'), 'TOKEN=x\n');
    linkSync(join(h.proj, '.env'), join(h.proj, 'settings.txt'));
    const call = { id: '1', agent: 'a', session: 's', tool: 'Read', arguments: {}, cwd: h.proj, source: 'hook' as const, receivedAt: 0 };
    expect(store(h).evaluate(x(['read'], [join(h.proj, 'settings.txt')]), call).decisive?.rule).toBe('builtin.credentials.env-files');
  });
});

describe('hard links at the other ingresses', () => {
  it("a WebAssembly plugin's read_file of a link to the key is denied, inside its manifest's grant", async () => {
    const h = fakeHome();
    linkSync(join(h.home, '.ssh', 'id_rsa'), join(h.proj, 'notes.bak'));
    const events: Array<Record<string, unknown>> = [];
    const reply = await answerHostCall(
      {
        plugin: 'reader',
        tool: 'read',
        dir: h.proj,
        actor: 'plugin:reader',
        permissions: { read: [h.proj], write: [], hosts: [] },
        maxReadBytes: 1 << 20,
        policy: store(h),
        home: h.home,
        record: (_type, _actor, payload) => events.push(payload),
      },
      { fn: 'read_file', arg: join(h.proj, 'notes.bak') },
    );
    expect(reply.ok).toBe(false);
    expect(reply.error).toContain('denied by policy');
    expect(reply.data).toBeUndefined();
    expect(events[0]).toMatchObject({ function: 'read_file', decision: 'deny', decider: 'policy' });
  });

  const hosts: Host[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close('test done');
  });

  it("the shell tool (MCP) may not read a link to its project's .env or append through a link to Gatehouse's own files", async () => {
    const work = tempDir('gatehouse-hardlinks-shell-');
    const home = join(work, '.gatehouse-home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ autonomy: 'full', mode: 'live' }));
    writeFileSync(join(work, '.env'), 'TOKEN=never-shown\n');
    linkSync(join(work, '.env'), join(work, 'settings.txt'));
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: work, watch: false });
    hosts.push(host);
    await host.ready;
    writeFileSync(join(home, 'notes.md'), 'gatehouse\n');
    linkSync(join(home, 'notes.md'), join(work, 'notes.md'));
    const call = (command: string) => host.gateway.call({ agent: 'claude', session: 's1', tool: 'shell', arguments: { command, cwd: work }, source: 'api' });
    const read = await call('cat settings.txt');
    expect(read.decision, read.reason).toBe('deny');
    expect(read.reason).toContain('is a hard link to');
    const write = await call('echo planted >> notes.md');
    expect(write.decision, write.reason).toBe('deny');
    expect(readFileSync(join(home, 'notes.md'), 'utf8')).toBe('gatehouse\n');
    // An ordinary file in the same folder still runs.
    writeFileSync(join(work, 'plain.txt'), 'plain\n');
    appendFileSync(join(work, 'plain.txt'), 'more\n');
    const plain = await call('cat plain.txt');
    expect(plain.decision, plain.reason).toBe('allow');
  });
});
