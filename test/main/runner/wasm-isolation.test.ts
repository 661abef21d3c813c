// WebAssembly plugins in depth: the worker pool lives in a child process started inside
// bubblewrap with the plugin sandbox's limits, and a worker process killed mid-call ends that
// call with an error and leaves nothing running.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import { TrustStore } from '../../../main/registry/trust-store.js';
import { ToolRunner } from '../../../main/runner/tool-runner.js';
import { BreakerBoard } from '../../../main/runner/breaker-board.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { detectSandbox, unsandboxedWrap } from '../../../main/runner/sandbox.js';
import { WasmHostClient } from '../../../main/runner/wasm/wasm-host-client.js';
import { wasmHostProcessFile } from '../../../main/runner/wasm/worker-file.js';
import { fixtureWat, wasmPlugin } from '../../support/wasm.js';
import { liveInGroup, liveWithArgv } from '../../support/processes.js';

const detection = detectSandbox();
const toml = (name: string, extra = '') => `name = "${name}"\ndescription = "A wasm test tool."\nkind = "wasm"\nwasm = "plugin.wasm"\n${extra}`;

describe('wasm isolation', () => {
  let root: string;
  let registry: PluginRegistry;
  let runner: ToolRunner;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-wasm-iso-'));
    mkdirSync(join(root, 'home'));
    registry = new PluginRegistry({ sources: [{ dir: join(root, 'plugins'), origin: 'cli' }], trust: new TrustStore(join(root, 'home')) });
    await wasmPlugin(join(root, 'plugins'), 'echo', toml('echo', '[tools.echo]\ndescription = "x"\n[tools.spin]\ndescription = "x"\n[limits]\nfuel = 1000000000000\n'), fixtureWat('echo.wat'));
    await registry.refreshAll();
    await registry.enable('echo', 'alice');
    runner = new ToolRunner({
      registry,
      breakers: new BreakerBoard({ clock: { now: () => 0 } }),
      metrics: new PluginMetrics(),
      runCache: join(root, 'home', 'run-cache'),
      wasmIsolation: { detection },
      sandboxFor: () => ({ wrap: unsandboxedWrap(), sandboxed: false, warning: 'not used by wasm plugins' }),
      record: () => undefined,
    });
  });
  afterEach(async () => {
    await runner.close();
    rmSync(root, { recursive: true, force: true });
  });

  it.runIf(detection.kind === 'bwrap')('runs the worker pool inside bubblewrap: another mount and user namespace, and the result says sandboxed', async () => {
    const r = await runner.call('echo', 'echo', { hello: 'there' }, { actor: 'agent:test' });
    expect(r.ok, r.error ?? '').toBe(true);
    expect(r.output).toEqual({ hello: 'there' });
    expect(r.sandboxed).toBe(true);
    const [pid] = liveWithArgv([process.execPath, '--disable-warning=ExperimentalWarning', wasmHostProcessFile()]);
    expect(pid).toBeDefined();
    expect(readlinkSync(`/proc/${pid}/ns/mnt`)).not.toBe(readlinkSync('/proc/self/ns/mnt'));
    expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync('/proc/self/ns/net'));
  });

  it('killing the worker process mid-call ends the call with an error and leaves nothing running', async () => {
    const client = runner.wasm().pool as WasmHostClient;
    const call = runner.call('echo', 'spin', {}, { actor: 'agent:test' });
    // The call is running once the process is up (it said ready) and has been sent the call.
    await expect.poll(() => client.inFlight, { timeout: 20_000, interval: 20 }).toBe(1);
    const group = (client as unknown as { child: { pid: number } | null }).child!.pid;
    client.kill();
    const r = await call;
    expect(r.ok).toBe(false);
    expect(r.failure).toBe('crash');
    // What the process wrote to stderr is quoted in between (it may hold line breaks).
    expect(r.error).toMatch(/the WebAssembly process ended \(signal SIGKILL\)[\s\S]*before the call finished/);
    expect(r.error).not.toContain('ExperimentalWarning');
    await expect.poll(() => liveInGroup(group).length, { timeout: 10_000, interval: 20 }).toBe(0);
    expect(liveWithArgv([process.execPath, '--disable-warning=ExperimentalWarning', wasmHostProcessFile()])).toEqual([]);
    // The next call starts a fresh process.
    const again = await runner.call('echo', 'echo', { a: 1 }, { actor: 'agent:test' });
    expect(again.output).toEqual({ a: 1 });
  });
});
