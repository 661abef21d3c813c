// WASI preview 1 plugins (what AgentZero and `cargo build --target wasm32-wasip1` make): modules
// built in the test from committed .wat sources, shaped like wasip1 output (memory and _start
// exported, wasi_snapshot_preview1 imported). Run through the real registry and ToolRunner in the
// sandboxed WebAssembly process, and through MCP against the built CLI's `gatehouse serve`:
// JSON on stdin, the result on stdout, deterministic fuel, only the granted folders, no sockets.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import type { ToolRunner } from '../../../main/runner/tool-runner.js';
import { answerHostCall, wasiPreopens } from '../../../main/runner/wasm/host-functions.js';
import { wasmImportsOf } from '../../../main/registry/plugin-service.js';
import { fixtureWat, wasmPlugin, wasmRunner } from '../../support/wasm.js';
import { cliPath, runCli } from '../../support/cli.js';
import { startServe } from '../../support/served-host.mjs';
import { tempDir } from '../../support/temp.js';
import { connectAgent, resultText } from '../../support/mcp-agent.js';

const manifest = (name: string, extra = '') =>
  `name = "${name}"\ndescription = "A WASI test tool."\nkind = "wasm"\nwasm = "plugin.wasm"\n\n[tools.echo]\ndescription = "Echo the input back."\n\n[tools.echo.parameters.message]\ntype = "string"\nrequired = true\n\n[tools.again]\ndescription = "The same program, told apart by argv[1]."\n\n[limits]\nfuel = 200000\nmemory_mb = 4\ntimeout_secs = 20\n${extra}`;

const files = (path: string, created: string) => fixtureWat('wasi-files.wat', { __PATH__: path, __PLEN__: String(Buffer.byteLength(path)), __NEW__: created, __NLEN__: String(Buffer.byteLength(created)) });

describe('WASI preview 1 plugins through the ToolRunner', () => {
  let root: string;
  let registry: PluginRegistry;
  let runner: ToolRunner;
  let records: { type: string; payload: Record<string, unknown> }[];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-wasi-'));
    mkdirSync(join(root, 'home'));
    mkdirSync(join(root, 'plugins'));
    records = [];
    ({ registry, runner } = wasmRunner(root, (type, payload) => records.push({ type, payload }), { breakerThreshold: 100 }));
  });
  afterEach(async () => {
    await runner.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function enabled(name: string, wat: string, extra = ''): Promise<void> {
    await wasmPlugin(join(root, 'plugins'), name, manifest(name, extra), wat);
    await registry.refreshAll();
    expect(registry.get(name)!.problems.filter((p) => p.severity === 'error')).toEqual([]);
    await registry.enable(name, 'alice');
  }

  it('a module importing wasi_snapshot_preview1 validates, reads its JSON on stdin and answers on stdout, with the same fuel every run', async () => {
    await enabled('wasi-echo', fixtureWat('wasi-echo.wat'));
    // The registry describes it (the Plugins view shows this): a WASI program, every import linked.
    const view = wasmImportsOf(registry.get('wasi-echo')!)!;
    expect(view.abi).toBe('wasi');
    expect(view.imports.map((i) => [`${i.module}.${i.name}`, i.granted])).toEqual([
      ['wasi_snapshot_preview1.fd_read', true],
      ['wasi_snapshot_preview1.fd_write', true],
      ['wasi_snapshot_preview1.args_sizes_get', true],
      ['wasi_snapshot_preview1.args_get', true],
    ]);
    const first = await runner.call('wasi-echo', 'echo', { message: 'hi' }, { actor: 'agent:test' });
    expect(first.ok, first.error ?? '').toBe(true);
    expect(first.output).toEqual({ received: { message: 'hi' }, argv1: 'echo' });
    const second = await runner.call('wasi-echo', 'echo', { message: 'hi' }, { actor: 'agent:test' });
    expect(second.output).toEqual(first.output);
    expect(first.wasm!.fuelUsed).toBeGreaterThan(0);
    expect(second.wasm!.fuelUsed).toBe(first.wasm!.fuelUsed);
  });

  it('an endless WASI module is stopped by fuel, at the same count each time', async () => {
    await enabled('wasi-loop', fixtureWat('wasi-loop.wat'));
    const r = await runner.call('wasi-loop', 'echo', { message: 'x' }, { actor: 'agent:test' });
    expect(r.ok).toBe(false);
    expect(r.failure).toBe('fuel');
    expect(r.error).toMatch(/out of fuel: the call used all 200000 units of limits\.fuel/);
    expect(r.wasm!.fuelUsed).toBe(200_000);
  });

  it('files: only the granted folders are preopened; a read grant cannot create files; paths outside and sockets are refused', async () => {
    const data = join(root, 'data');
    mkdirSync(data);
    writeFileSync(join(data, 'hello.txt'), 'hello from a granted folder');
    writeFileSync(join(root, 'secret.txt'), 'outside');
    const grant = `\n[permissions]\nread = [${JSON.stringify(data)}]\n`;
    await enabled('inside', files('hello.txt', 'made.txt'), grant);
    const inside = await runner.call('inside', 'echo', { message: 'x' }, { actor: 'agent:test' });
    expect(inside.ok, inside.error ?? '').toBe(true);
    // 76: ERRNO_NOTCAPABLE. Read works; creating a file in a read-only grant does not; no socket.
    expect(inside.output).toEqual({ open: 0, read: 'hello from a granted folder', create: 76, sock: [76, 76] });
    expect(existsSync(join(data, 'made.txt'))).toBe(false);
    for (const [name, path] of [['parent', '../secret.txt'], ['absolute', join(root, 'secret.txt')], ['etc', '/etc/passwd']] as const) {
      await enabled(name, files(path, 'made.txt'), grant);
      const r = await runner.call(name, 'echo', { message: 'x' }, { actor: 'agent:test' });
      expect(r.ok, r.error ?? '').toBe(true);
      expect((r.output as { open: number }).open, `${name}: ${path}`).not.toBe(0);
      expect((r.output as { read: string }).read).toBe('');
    }
    expect(records.filter((x) => x.type === 'wasm.host-call' && x.payload['function'] === 'preopen').every((x) => x.payload['decision'] === 'allow')).toBe(true);
    // Four plugins, each with a sandboxed WASI process of its own (the process is kept per plugin's
    // reviewed folder too, wasm-tool.ts): several bwrap and Node starts, slow on a loaded machine.
  }, 60_000);

  it('files: a write grant lets the module create files in that folder only; with no grant nothing is preopened', async () => {
    const out = join(root, 'out');
    mkdirSync(out);
    writeFileSync(join(out, 'hello.txt'), 'old');
    await enabled('writer', files('hello.txt', 'made.txt'), `\n[permissions]\nwrite = [${JSON.stringify(out)}]\n`);
    const r = await runner.call('writer', 'echo', { message: 'x' }, { actor: 'agent:test' });
    expect(r.output).toEqual({ open: 0, read: 'old', create: 0, sock: [76, 76] });
    expect(readFileSync(join(out, 'made.txt'), 'utf8')).toBe('x');
    await enabled('nothing', files('hello.txt', 'made.txt'));
    const none = await runner.call('nothing', 'echo', { message: 'x' }, { actor: 'agent:test' });
    // fd 3 does not exist: EBADF (8) to read; to create, refused before it is looked up (76).
    expect(none.output).toEqual({ open: 8, read: "", create: 76, sock: [76, 76] });
  });

  it("a grant of a folder holding the home's secrets (or of a file) is not preopened, and says why", async () => {
    const home = join(root, 'fakehome');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    mkdirSync(join(home, 'notes'));
    writeFileSync(join(home, 'notes', 'a.md'), 'a');
    const events: Record<string, unknown>[] = [];
    const preopens = await wasiPreopens({ plugin: 'p', tool: 't', dir: root, actor: 'agent:test', home, permissions: { read: ['~', '~/notes', '~/notes/a.md'], write: [], hosts: [] }, maxReadBytes: 1024, record: (_t, _a, payload) => events.push(payload) });
    expect(preopens).toEqual([{ path: join(home, 'notes'), writable: false }]);
    expect(events.map((e) => [e['argument'], e['decision']])).toEqual([[`read ${home}`, 'deny'], [`read ${join(home, 'notes')}`, 'allow'], [`read ${join(home, 'notes', 'a.md')}`, 'deny']]);
    expect(events[0]!['reason']).toMatch(/holds or is .*\.ssh, which a WebAssembly module never opens; grant a narrower folder/);
  });

  it('a grant inside a write grant that the module made a link (WASI path_symlink) to another folder is not preopened: only the outer grant is; a write through it is refused', async () => {
    const base = join(root, 'nested');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(join(base, 'cache'), { recursive: true });
    mkdirSync(elsewhere);
    const ctx = { plugin: 'p', tool: 't', dir: root, actor: 'agent:test', permissions: { read: [join(base, 'cache')], write: [base, join(base, 'cache')], hosts: [] }, maxReadBytes: 1024, record: () => {} };
    // The read grant inside the write grant adds nothing (the write grant is readable) and is what the module could swap.
    expect((await wasiPreopens(ctx)).map((p) => p.path)).toEqual([base]);
    // What a module with write access to the outer grant can do in one call, for the next.
    rmdirSync(join(base, 'cache'));
    symlinkSync(elsewhere, join(base, 'cache'));
    expect((await wasiPreopens(ctx)).map((p) => p.path)).toEqual([base]);
    // A host function's write through the link is refused too: it leads out of every grant.
    const reply = await answerHostCall(ctx, { fn: 'write_file', arg: join(base, 'cache', 'x.txt'), data: new TextEncoder().encode('x') });
    expect(JSON.stringify(reply)).toMatch(/not under a path the manifest grants/);
  });
});

describe('WASI preview 1 plugins without bubblewrap (the WASI layer alone)', () => {
  it('a link inside a granted folder that leads outside it is refused, and a read-only grant stays read-only', async () => {
    const root = tempDir('gatehouse-wasi-nobwrap-');
    mkdirSync(join(root, 'plugins'));
    mkdirSync(join(root, 'home'));
    const data = join(root, 'data');
    mkdirSync(data);
    writeFileSync(join(root, 'secret.txt'), 'SECRET');
    symlinkSync(join(root, 'secret.txt'), join(data, 'absolute-link'));
    symlinkSync('../secret.txt', join(data, 'relative-link'));
    writeFileSync(join(data, 'ro.txt'), 'ro');
    // Not isolated: the pool runs in this process, so only Gatehouse's WASI layer stands between.
    const { registry, runner } = wasmRunner(root, () => {}, { isolated: false, breakerThreshold: 100 });
    try {
      const cases = [
        ['abs', 'absolute-link', 'ro.txt'],
        ['rel', 'relative-link', 'relative-link'],
      ] as const;
      for (const [name, path, created] of cases) await wasmPlugin(join(root, 'plugins'), name, manifest(name, `\n[permissions]\nread = [${JSON.stringify(data)}]\n`), files(path, created));
      await registry.refreshAll();
      for (const [name] of cases) {
        await registry.enable(name, 'alice');
        const r = await runner.call(name, 'echo', { message: 'x' }, { actor: 'agent:test' });
        expect(r.output, name).toEqual({ open: 76, read: '', create: 76, sock: [76, 76] });
      }
      expect(readFileSync(join(data, 'ro.txt'), 'utf8')).toBe('ro');
      expect(readFileSync(join(root, 'secret.txt'), 'utf8')).toBe('SECRET');
    } finally {
      await runner.close();
    }
  }, 120_000);
});

describe('WASI preview 1 plugins through MCP against the built CLI', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  it('gatehouse plugin enable, then serve: tools/call runs the WASI module with the same fuel twice, and fuel stops an endless one', async () => {
    const home = join(tempDir('gatehouse-wasi-mcp-'), 'home');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autoApprove: ['wasi-echo__*', 'wasi-loop__*'] }));
    await wasmPlugin(join(home, 'plugins'), 'wasi-echo', manifest('wasi-echo'), fixtureWat('wasi-echo.wat'));
    await wasmPlugin(join(home, 'plugins'), 'wasi-loop', manifest('wasi-loop'), fixtureWat('wasi-loop.wat'));
    for (const name of ['wasi-echo', 'wasi-loop']) {
      const enable = await runCli(['plugin', 'enable', name, '--home', home]);
      expect(enable.code, enable.stderr).toBe(0);
      expect(enable.stdout).toContain(`${name} enabled (${name}__echo, ${name}__again)`);
    }
    const served = await startServe(cliPath, home, { ...process.env, GATEHOUSE_NO_ELECTRON: '1', NO_COLOR: '1' });
    children.push(served.host);
    const { client, toolsWhen } = await connectAgent(served.serve, 'wasi-test');
    try {
      await toolsWhen((names) => names.includes('wasi-echo__echo') && names.includes('wasi-loop__echo'));
      const text = resultText;
      const first = (await client.callTool({ name: 'wasi-echo__echo', arguments: { message: 'hello wasi' } })) as CallToolResult;
      expect(first.isError ?? false, text(first)).toBe(false);
      expect(JSON.parse(text(first))).toEqual({ received: { message: 'hello wasi' }, argv1: 'echo' });
      const second = (await client.callTool({ name: 'wasi-echo__echo', arguments: { message: 'hello wasi' } })) as CallToolResult;
      expect(text(second)).toBe(text(first));
      const again = (await client.callTool({ name: 'wasi-echo__again', arguments: {} })) as CallToolResult;
      expect(JSON.parse(text(again))).toEqual({ received: {}, argv1: 'again' });
      const loop = (await client.callTool({ name: 'wasi-loop__echo', arguments: { message: 'x' } })) as CallToolResult;
      expect(loop.isError).toBe(true);
      expect(text(loop)).toMatch(/out of fuel/);
      const { events } = (await served.op('audit.tail', { limit: 500 })) as { events: { type: string; payload: Record<string, unknown> }[] };
      const ended = events.filter((e) => e.type === 'execution.ended');
      const fuel = (plugin: string, tool = 'echo') => ended.filter((e) => e.payload['plugin'] === plugin && e.payload['tool'] === tool).map((e) => e.payload['fuelUsed']);
      const echoFuel = fuel('wasi-echo');
      expect(echoFuel).toHaveLength(2);
      expect(echoFuel[0]).toBeGreaterThan(0);
      expect(echoFuel[1]).toBe(echoFuel[0]);
      expect(fuel('wasi-loop')).toEqual([200_000]);
    } finally {
      await client.close();
    }
  }, 120_000);
});
