// The MCP client side of the gateway on real upstream servers: the filesystem MCP server from npm
// as a plugin, and a hand-written hostile server (fixtures/mcp/hostile-server.mjs) that writes
// garbage, crashes, never answers, or describes its tools in words aimed at the model. Each
// runs in the host's sandbox plan (bwrap when this machine has a working one), and after close()
// nothing of any server may be left running.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { EventEmitter } from 'node:events';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import { TrustStore } from '../../../main/registry/trust-store.js';
import { BreakerBoard } from '../../../main/runner/breaker-board.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import { sandboxPlan } from '../../../main/runner/sandbox-plan.js';
import { UpstreamMcp } from '../../../main/gateway/upstream-mcp.js';
import { upstreamToolName } from '../../../main/gateway/upstream-tools.js';
import { TOOL_NAME_RE } from '../../../main/registry/plugin-registry.js';
import { repoRoot } from '../../support/cli.js';
import { liveInGroup } from '../../support/processes.js';

const sandbox = detectSandbox();
const FS_SERVER = join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const HOSTILE = join(repoRoot, 'test/fixtures/mcp/hostile-server.mjs');

function writePlugin(root: string, name: string, manifest: string, runSh: string, extra: Record<string, string> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), `name = "${name}"\ndescription = "Upstream MCP server for tests."\nkind = "mcp"\ncommand = "run.sh"\n${manifest}`);
  writeFileSync(join(dir, 'run.sh'), runSh);
  chmodSync(join(dir, 'run.sh'), 0o755);
  for (const [file, from] of Object.entries(extra)) copyFileSync(from, join(dir, file));
  return dir;
}

/** A plugin running the hostile server in one mode; a backgrounded sleep checks that the whole process group goes. */
function hostilePlugin(root: string, name: string, mode: string, timeoutSecs = 5): string {
  return writePlugin(root, name, `args = ["${mode}"]\ntimeout_secs = ${timeoutSecs}\n`, '#!/bin/sh\nsleep 1000 >/dev/null 2>&1 &\nexec node "$(dirname "$0")/server.mjs" "$@"\n', { 'server.mjs': HOSTILE });
}

interface Harness {
  mcp: UpstreamMcp;
  registry: PluginRegistry;
  records: { type: string; payload: Record<string, unknown> }[];
  breakers: BreakerBoard;
  metrics: PluginMetrics;
  /** Resolves when pred() holds, checked after every record and every changed(). */
  until(pred: () => boolean): Promise<void>;
  changes(): number;
  /** Every server process (group leader) seen, to check that none is left. */
  pids: Set<number>;
}

describe('upstream MCP servers', () => {
  let root: string;
  let workspace: string;
  let h: Harness;

  beforeEach(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'gatehouse-mcp-')));
    workspace = join(root, 'workspace');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'hello.txt'), 'hello from the workspace\n');
    mkdirSync(join(root, 'home'));
    const plugins = join(root, 'plugins');
    // The filesystem server from npm, limited to the workspace; it needs Gatehouse's node_modules (read-only).
    writePlugin(
      plugins,
      'fs',
      `args = ["${workspace}"]\ntimeout_secs = 20\n[permissions]\nread = ["${join(repoRoot, 'node_modules')}", "${workspace}"]\nwrite = ["${workspace}"]\n`,
      `#!/bin/sh\nexec node "${FS_SERVER}" "$@"\n`,
    );
    hostilePlugin(plugins, 'flaky', 'normal');
    hostilePlugin(plugins, 'silent', 'silent', 1);
    hostilePlugin(plugins, 'noisy', 'garbage-init');
    hostilePlugin(plugins, 'quitter', 'exit-after-init');
    hostilePlugin(plugins, 'poison', 'poison');

    const registry = new PluginRegistry({ sources: [{ dir: plugins, origin: 'cli' }], trust: new TrustStore(join(root, 'home')) });
    await registry.refreshAll();
    const events = new EventEmitter();
    const records: Harness['records'] = [];
    let changes = 0;
    const pids = new Set<number>();
    const breakers = new BreakerBoard({ clock: { now: () => Date.now() }, threshold: 100 });
    const metrics = new PluginMetrics();
    const mcp = new UpstreamMcp({
      registry,
      sandboxFor: (manifest, dir) => sandboxPlan(sandbox, manifest, dir),
      breakers,
      metrics,
      record: (type, _actor, payload) => {
        records.push({ type, payload });
        if (typeof payload.pid === 'number') pids.add(payload.pid);
        events.emit('tick');
      },
      changed: () => {
        changes++;
        events.emit('tick');
      },
      closeGraceMs: 300,
    });
    const until = (pred: () => boolean) =>
      new Promise<void>((resolve) => {
        if (pred()) return resolve();
        const check = () => {
          if (!pred()) return;
          events.off('tick', check);
          resolve();
        };
        events.on('tick', check);
      });
    h = { mcp, registry, records, breakers, metrics, until, changes: () => changes, pids };
  });

  afterEach(async () => {
    await h.mcp.close();
    // Nothing of any server (nor the sleep each hostile one leaves in its group) is still running.
    for (const s of h.mcp.status()) if (s.pid !== null) h.pids.add(s.pid);
    for (const pid of h.pids) expect(liveInGroup(pid), `process group ${pid}`).toEqual([]);
    rmSync(root, { recursive: true, force: true });
  });

  const enable = async (...names: string[]) => {
    // An override reason: the hostile fixtures are allowed whatever the file scan thinks of them.
    for (const n of names) await h.registry.enable(n, 'alice', 'test fixture');
    await h.mcp.sync();
  };

  it('lists the filesystem server’s tools namespaced, and a call of read_text_file returns the file', async () => {
    await enable('fs');
    const status = h.mcp.status();
    expect(status).toEqual([expect.objectContaining({ plugin: 'fs', state: 'ready', sandboxed: sandbox.kind === 'bwrap' })]);
    const names = h.mcp.tools().map((t) => t.name);
    expect(names).toContain('fs__read_text_file');
    expect(names).toContain('fs__list_directory');
    for (const t of h.mcp.tools()) {
      expect(t.name).toMatch(TOOL_NAME_RE);
      expect(t.plugin).toBe('fs');
      expect(t.findings, `${t.name}: ${JSON.stringify(t.findings)}`).toEqual([]);
      expect(t.exposed).toBe(true);
    }
    expect(h.changes()).toBe(1);
    const tool = h.mcp.find('fs__read_text_file')!;
    expect(tool.tool).toBe('read_text_file');
    expect(tool.inputSchema).toMatchObject({ type: 'object', properties: { path: expect.anything() } });

    const r = await h.mcp.call('fs__read_text_file', { path: join(workspace, 'hello.txt') });
    expect(r).toMatchObject({ ok: true, isError: false, sandboxed: sandbox.kind === 'bwrap' });
    expect(r.content).toEqual([{ type: 'text', text: 'hello from the workspace\n' }]);
    // Outside its folder the server itself says no: a tool error, not a failure of the server.
    const outside = await h.mcp.call('fs__read_text_file', { path: '/etc/hostname' });
    expect(outside.ok).toBe(false);
    expect(outside.isError).toBe(true);
    expect(outside.failure).toBeUndefined();
    expect(h.records.filter((x) => x.type === 'execution.ended').map((x) => x.payload.ok)).toEqual([true, false]);
    expect(h.metrics.snapshot('fs').successes).toBe(2);
  });

  it('a call to a tool of a plugin that was disabled fails cleanly, and sync removes its tools', async () => {
    await enable('fs');
    const pid = h.mcp.status()[0]!.pid!;
    await h.registry.disable('fs', 'alice');
    const r = await h.mcp.call('fs__read_text_file', { path: join(workspace, 'hello.txt') });
    expect(r.ok).toBe(false);
    expect(r.failure).toBe('unavailable');
    expect(r.error).toMatch(/not enabled/);
    // The call itself already took the plugin's tools off the list.
    expect(h.mcp.find('fs__read_text_file')).toBeUndefined();
    await h.mcp.sync();
    expect(h.mcp.tools()).toEqual([]);
    expect(h.mcp.status()).toEqual([]);
    await h.until(() => h.records.some((x) => x.type === 'mcp.disconnected' && x.payload.plugin === 'fs'));
    await h.mcp.close();
    expect(liveInGroup(pid)).toEqual([]);
  });

  it('follows pagination, and a tools/list_changed from the server updates the list', async () => {
    await enable('flaky');
    expect(h.mcp.tools().map((t) => t.tool)).toEqual(['add-tool', 'crash', 'deep', 'echo', 'fail', 'freeze', 'garbage', 'hang', 'huge']);
    const before = h.changes();
    const r = await h.mcp.call('flaky__add-tool', {});
    expect(r.ok).toBe(true);
    await h.until(() => h.mcp.find('flaky__added') !== undefined);
    expect(h.changes()).toBe(before + 1);
    expect(h.records.find((x) => x.type === 'mcp.tools-changed')!.payload).toMatchObject({ plugin: 'flaky', added: ['added'], removed: [] });
    expect((await h.mcp.call('flaky__added', {})).content).toEqual([{ type: 'text', text: 'called added' }]);
  });

  it('a content item nested 100,000 levels deep is recorded as run, once, and counted a success of the server (not also a failure)', async () => {
    await enable('flaky');
    const r = await h.mcp.call('flaky__deep', {});
    expect(r.ok).toBe(true);
    const ended = h.records.filter((x) => x.type === 'execution.ended' && x.payload['tool'] === 'deep');
    expect(ended).toHaveLength(1);
    expect(String(ended[0]!.payload['output'])).toContain('could not write out');
    expect(Object.values(h.metrics.snapshot('flaky').failures).every((n) => n === 0)).toBe(true);
    expect(h.breakers.snapshot('flaky').consecutiveFailures).toBe(0);
  });

  it('a crash during a call is a crash failure; the next call starts the server again', async () => {
    await enable('flaky');
    const firstPid = h.mcp.status()[0]!.pid!;
    const r = await h.mcp.call('flaky__crash', {});
    expect(r).toMatchObject({ ok: false, isError: true, failure: 'crash' });
    expect(r.error).toMatch(/exited with code 7: disk on fire/);
    expect(h.mcp.status()[0]).toMatchObject({ state: 'failed' });
    // Its tools stay listed: agents keep a stable list while the server restarts.
    expect(h.mcp.find('flaky__echo')).toBeDefined();
    const again = await h.mcp.call('flaky__echo', { text: 'still here' });
    expect(again).toMatchObject({ ok: true, content: [{ type: 'text', text: 'still here' }] });
    expect(h.mcp.status()[0]!.pid).not.toBe(firstPid);
    expect(h.metrics.snapshot('flaky').failures.crash).toBe(1);
    expect(h.breakers.snapshot('flaky').consecutiveFailures).toBe(0);
  });

  it('garbage on stdout during a call is bad_output; the host keeps working', async () => {
    await enable('flaky');
    const garbage = await h.mcp.call('flaky__garbage', {});
    expect(garbage).toMatchObject({ ok: false, failure: 'bad_output' });
    expect(garbage.error).toMatch(/not JSON \("\{\{\{ this is not json"\)/);
    const ok = await h.mcp.call('flaky__echo', { text: 'after garbage' });
    expect(ok.ok).toBe(true);
  });

  it('a tool error from the server is a tool result with isError, not a failure', async () => {
    await enable('flaky');
    const r = await h.mcp.call('flaky__fail', {});
    expect(r).toMatchObject({ ok: false, isError: true, content: [{ type: 'text', text: 'no such thing' }] });
    expect(r.failure).toBeUndefined();
    expect(r.error).toMatch(/reported an error: no such thing/);
  });

  it('a call that gets no answer times out; the server still answers pings and keeps serving', async () => {
    await enable('flaky');
    const r = await h.mcp.call('flaky__hang', {}, { timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, failure: 'timeout' });
    expect(r.error).toMatch(/did not answer within 300 ms/);
    expect((await h.mcp.call('flaky__echo', { text: 'alive' })).ok).toBe(true);
    expect(h.mcp.status()[0]!.state).toBe('ready');
  });

  it('a server that stops answering pings after a timeout is stopped, and starts again on the next call', async () => {
    await h.mcp.close();
    const pids = h.pids;
    const records: Harness['records'] = [];
    const events = new EventEmitter();
    const mcp = new UpstreamMcp({
      registry: h.registry,
      sandboxFor: (manifest, dir) => sandboxPlan(sandbox, manifest, dir),
      record: (type, _a, payload) => {
        records.push({ type, payload });
        if (typeof payload.pid === 'number') pids.add(payload.pid);
        events.emit('tick');
      },
      changed: () => {},
      pingTimeoutMs: 200,
      closeGraceMs: 300,
    });
    h = { ...h, mcp, records };
    await enable('flaky');
    const frozenPid = mcp.status()[0]!.pid!;
    const r = await mcp.call('flaky__freeze', {}, { timeoutMs: 200 });
    expect(r).toMatchObject({ ok: false, failure: 'timeout' });
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!records.some((x) => x.type === 'mcp.disconnected' && x.payload.failure === 'timeout')) return;
        events.off('tick', check);
        resolve();
      };
      events.on('tick', check);
      check();
    });
    expect(mcp.status()[0]).toMatchObject({ state: 'failed' });
    expect(mcp.status()[0]!.error).toMatch(/stopped answering/);
    const again = await mcp.call('flaky__echo', { text: 'thawed' });
    expect(again.ok).toBe(true);
    expect(mcp.status()[0]!.pid).not.toBe(frozenPid);
    expect(liveInGroup(frozenPid)).toEqual([]);
  });

  it('a plugin whose files change is dropped (quarantined) and reconnected once the change is approved', async () => {
    await enable('flaky');
    const firstPid = h.mcp.status()[0]!.pid!;
    const dir = join(root, 'plugins', 'flaky');
    writeFileSync(join(dir, 'NOTES.md'), 'changed after approval\n');
    await h.registry.refreshFolder(dir);
    expect(h.registry.get('flaky')!.status).toBe('quarantined');
    await h.mcp.sync();
    expect(h.mcp.tools()).toEqual([]);
    expect(liveInGroup(firstPid)).toEqual([]);
    const refused = await h.mcp.call('flaky__echo', { text: 'x' });
    expect(refused.failure).toBe('unavailable');
    await h.registry.approveChange('flaky', 'alice', 'test fixture');
    await h.mcp.sync();
    expect(h.mcp.status()[0]).toMatchObject({ plugin: 'flaky', state: 'ready' });
    expect(h.mcp.status()[0]!.pid).not.toBe(firstPid);
    expect((await h.mcp.call('flaky__echo', { text: 'back' })).ok).toBe(true);
  });

  it('a call can be cancelled by the caller', async () => {
    await enable('flaky');
    const ac = new AbortController();
    const pending = h.mcp.call('flaky__hang', {}, { signal: ac.signal });
    await h.until(() => h.records.some((x) => x.type === 'execution.started'));
    ac.abort();
    expect(await pending).toMatchObject({ ok: false, failure: 'cancelled' });
  });

  it('servers that break the handshake fail clearly, leave nothing running, and do not disturb the others', async () => {
    await enable('flaky', 'silent', 'noisy', 'quitter');
    const byName = Object.fromEntries(h.mcp.status().map((s) => [s.plugin, s]));
    expect(byName.flaky).toMatchObject({ state: 'ready' });
    expect(byName.silent).toMatchObject({ state: 'failed', tools: 0 });
    expect(byName.silent!.error).toMatch(/did not complete the MCP handshake/);
    expect(byName.noisy).toMatchObject({ state: 'failed', tools: 0 });
    expect(byName.noisy!.error).toMatch(/wrote a line that is not JSON \("Server starting\.\.\. please wait"\)/);
    expect(byName.quitter).toMatchObject({ state: 'failed', tools: 0 });
    expect(byName.quitter!.error).toMatch(/exited with code 4: lost my configuration/);
    const failed = h.records.filter((x) => x.type === 'mcp.connect-failed').map((x) => x.payload.plugin);
    expect(failed.sort()).toEqual(['noisy', 'quitter', 'silent']);
    // Only the working server's tools are listed, and it works.
    expect(new Set(h.mcp.tools().map((t) => t.plugin))).toEqual(new Set(['flaky']));
    expect((await h.mcp.call('flaky__echo', { text: 'fine' })).ok).toBe(true);
    // A failed attempt leaves no process behind, even before close().
    for (const pid of h.pids) if (pid !== byName.flaky!.pid) expect(liveInGroup(pid)).toEqual([]);
  });

  it('a message over the line cap stops the server with a limit failure', async () => {
    await h.mcp.close();
    const registry = h.registry;
    const pids = h.pids;
    const mcp = new UpstreamMcp({
      registry,
      sandboxFor: (manifest, dir) => sandboxPlan(sandbox, manifest, dir),
      record: (_t, _a, payload) => {
        if (typeof payload.pid === 'number') pids.add(payload.pid);
      },
      changed: () => {},
      maxMessageBytes: 64 * 1024,
      closeGraceMs: 300,
    });
    h = { ...h, mcp };
    await enable('flaky');
    const r = await mcp.call('flaky__huge', {});
    expect(r).toMatchObject({ ok: false, failure: 'limit' });
    expect(r.error).toMatch(/over the 64 KiB cap/);
    expect((await mcp.call('flaky__echo', { text: 'back' })).ok).toBe(true);
  });

  it('tools whose descriptions aim at the model get findings and are not exposed; the clean one is', async () => {
    await enable('poison');
    const tools = Object.fromEntries(h.mcp.tools().map((t) => [t.tool, t]));
    expect(tools.clean).toMatchObject({ name: 'poison__clean', exposed: true, findings: [] });
    expect(tools.injected!.exposed).toBe(false);
    expect(tools.injected!.findings.map((f) => f.rule)).toEqual(expect.arrayContaining(['poison.ignore-instructions', 'poison.hidden-block', 'poison.sensitive-file']));
    expect(tools.injected!.findings[0]).toMatchObject({ severity: 'high' });
    expect(tools.hidden!.exposed).toBe(false);
    expect(tools.hidden!.findings.map((f) => f.rule)).toEqual(['poison.invisible-text']);
    expect(h.mcp.status()[0]).toMatchObject({ tools: 3, exposed: 1 });
    expect(h.records.filter((x) => x.type === 'mcp.tool-flagged').map((x) => x.payload.tool).sort()).toEqual(['hidden', 'injected']);
    const refused = await h.mcp.call('poison__injected', { path: '/etc/hostname' });
    expect(refused).toMatchObject({ ok: false, failure: 'unavailable' });
    expect(refused.error).toMatch(/not offered to agents/);
    expect(h.records.some((x) => x.type === 'execution.started')).toBe(false);
  });

  it('an unknown tool name fails cleanly', async () => {
    const r = await h.mcp.call('nope__nothing', {});
    expect(r).toMatchObject({ ok: false, failure: 'unavailable' });
  });
});

describe('upstream tool names', () => {
  it('namespaces, replaces characters outside the rule, truncates with a hash, and stays unique', () => {
    expect(upstreamToolName('fs', 'read_file')).toBe('fs__read_file');
    expect(upstreamToolName('fs', 'read.file/x y')).toBe('fs__read_file_x_y');
    const long = upstreamToolName('plugin', 'a'.repeat(100));
    expect(long).toMatch(TOOL_NAME_RE);
    expect(long).toHaveLength(64);
    expect(long).not.toBe(upstreamToolName('plugin', `${'a'.repeat(99)}b`));
    const taken = new Set(['fs__read_file']);
    const other = upstreamToolName('fs', 'read.file', taken);
    expect(other).toMatch(/^fs__read_file_[0-9a-f]{6}$/);
    expect(upstreamToolName('fs', 'wörk')).toMatch(TOOL_NAME_RE);
  });
});
