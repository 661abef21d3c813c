// Hostile module plugins: each is contained with a named failure, leaves nothing running, and
// the plugin answers again afterwards (a fresh child). Real child processes, real bubblewrap
// where it works.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox, unsandboxedWrap } from '../../../main/runner/sandbox.js';
import { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import { TrustStore } from '../../../main/registry/trust-store.js';
import { ToolRunner } from '../../../main/runner/tool-runner.js';
import { BreakerBoard } from '../../../main/runner/breaker-board.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { describeModule } from '../../../main/runner/module/describe-module.js';
import { sandboxPlan } from '../../../main/runner/sandbox-plan.js';
import { ModuleProcess, type ModuleCallResult } from '../../../main/runner/module/module-process.js';
import { tempDir } from '../../support/temp.js';
import { liveInGroup, liveWithArgv } from '../../support/processes.js';

const detection = detectSandbox();
const open: ModuleProcess[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

/** A module plugin whose one tool `t` runs `body`; `top` runs at load. */
function hostile(body: string, top = '', opts: { home?: string } = {}): ModuleProcess {
  const root = tempDir('gatehouse-module-hostile-');
  const dir = join(root, 'h');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'mod.ts'),
    `import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
${top}
export const manifest = { name: "h", version: "1.0.0", description: "hostile", classification: "PUBLIC", declaredEndpoints: [] };
export const toolDefinitions = [{ name: "t", description: "t", parameters: { mode: { type: "string" } } }];
export function createExecutor(context: any) {
  return async (name: string, input: any) => { if (input.mode === "ok") return "fine"; ${body} };
}
void readFileSync; void spawn;
`,
  );
  const p = new ModuleProcess({ pluginDir: dir, cacheDir: join(root, 'cache'), detection, loadTimeoutMs: 1500, maxLogLines: 50, fetch: { record: () => undefined }, ...(opts.home ? { home: opts.home } : {}) });
  open.push(p);
  return p;
}

/** Starts the child, then runs the hostile call, remembering the child's process group. */
async function attack(p: ModuleProcess, timeoutMs = 1500): Promise<{ r: ModuleCallResult; pgid: number }> {
  expect(await p.call('t', { mode: 'ok' }, { timeoutMs: 10_000 })).toMatchObject({ ok: true, output: 'fine' });
  const pgid = p.pid!;
  const r = await p.call('t', { mode: 'attack' }, { timeoutMs });
  return { r, pgid };
}

function expectNothingLeft(pgid: number): void {
  expect(liveInGroup(pgid), `processes left in group ${pgid}`).toEqual([]);
}

async function expectAnswersAgain(p: ModuleProcess): Promise<void> {
  expect(await p.call('t', { mode: 'ok' }, { timeoutMs: 10_000 })).toMatchObject({ ok: true, output: 'fine' });
}

describe('hostile module plugins', () => {
  it('an endless loop at top level ends as load-timeout and leaves nothing', async () => {
    const p = hostile('return "x";', 'while (true) {}');
    const r = await p.call('t', { mode: 'ok' }, { timeoutMs: 10_000 });
    expect(r).toMatchObject({ ok: false, failure: 'load-timeout' });
    expect(r.ok ? '' : r.error).toMatch(/top level did not finish within 1500 ms/);
    expect(p.pid).toBeNull();
  });

  it('an endless loop in the executor ends as timeout, kills the child and leaves nothing; the next call gets a fresh one', async () => {
    const p = hostile('for (;;) {}');
    const { r, pgid } = await attack(p);
    expect(r).toMatchObject({ ok: false, failure: 'timeout' });
    expect(r.ok ? '' : r.error).toMatch(/t did not answer within 1500 ms; the module was stopped/);
    expectNothingLeft(pgid);
    await expectAnswersAgain(p);
  });

  it('a call that never resolves ends as timeout and leaves nothing', async () => {
    const p = hostile('return new Promise(() => {});');
    const { r, pgid } = await attack(p);
    expect(r).toMatchObject({ ok: false, failure: 'timeout' });
    expectNothingLeft(pgid);
    await expectAnswersAgain(p);
  });

  it('a flood of context.log ends as log-flood with the first lines kept, and leaves nothing', async () => {
    const p = hostile('for (let i = 0; i < 10_000_000; i++) context.log.info("flood " + i); return "done";');
    const { r, pgid } = await attack(p, 30_000);
    expect(r, JSON.stringify(r).slice(0, 600)).toMatchObject({ ok: false, failure: "log-flood" });
    expect(r.logs).toHaveLength(50);
    expect(r.logs[0]).toEqual({ level: 'info', message: 'flood 0' });
    expectNothingLeft(pgid);
    await expectAnswersAgain(p);
  });

  it('reading ~/.ssh is refused inside the child: the key never reaches the result', async () => {
    const home = tempDir('gatehouse-module-home-');
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-MATERIAL');
    const p = hostile('return readFileSync(input.path, "utf8");', '', { home });
    expect(await p.call('t', { mode: 'ok' }, { timeoutMs: 10_000 })).toMatchObject({ ok: true });
    const r = await p.call('t', { mode: 'attack', path: join(home, '.ssh', 'id_rsa') }, { timeoutMs: 10_000 });
    expect(r).toMatchObject({ ok: false, failure: 'error' });
    expect(r.ok ? '' : r.error).toMatch(/Access to this API has been restricted|ENOENT|EACCES/);
    expect(JSON.stringify(r)).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(readFileSync(join(home, '.ssh', 'id_rsa'), 'utf8')).toBe('PRIVATE-KEY-MATERIAL');
  });

  it('spawning a process is refused inside the child, and no such process runs', async () => {
    const marker = `gatehouse-module-spawn-${process.pid}`;
    const p = hostile(`const c = spawn("/bin/sleep", ["300"], { argv0: "${marker}", detached: true }); c.unref(); return "spawned " + c.pid;`);
    const { r, pgid } = await attack(p, 10_000);
    expect(r).toMatchObject({ ok: false, failure: 'error' });
    expect(r.ok ? '' : r.error).toMatch(/Access to this API has been restricted/);
    expect(liveWithArgv([marker, '300'])).toEqual([]);
    await p.close();
    expectNothingLeft(pgid);
  });
});

describe('the module child has no network of its own', () => {
  it('a direct socket to a loopback server reaches nothing: under bubblewrap the child has its own network namespace', async () => {
    expect(detection.kind, 'these tests need a working bubblewrap').toBe('bwrap');
    const { createServer } = await import('node:net');
    let connections = 0;
    const srv = createServer((s) => {
      connections++;
      s.end('secret');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as import('node:net').AddressInfo).port;
    try {
      const p = hostile(`return await new Promise((resolve, reject) => { const s = connect(${port}, "127.0.0.1"); s.on("data", (d) => resolve(String(d))); s.on("error", reject); });`, 'import { connect } from "node:net";');
      expect(p.sandboxed).toBe(true);
      const r = await p.call('t', { mode: 'attack' }, { timeoutMs: 10_000 });
      expect(r).toMatchObject({ ok: false, failure: 'error' });
      expect(r.ok ? '' : r.error).toMatch(/ECONNREFUSED/);
      expect(connections).toBe(0);
    } finally {
      srv.close();
    }
  });
});

describe('module plugins through the ToolRunner: breaker and metrics like every plugin', () => {
  it('a module that crashes its child counts as a crash; at the threshold its breaker opens and the next call is not run', async () => {
    const root = tempDir('gatehouse-module-breaker-');
    const plugins = join(root, 'plugins');
    mkdirSync(join(plugins, 'dies'), { recursive: true });
    mkdirSync(join(root, 'home'));
    writeFileSync(
      join(plugins, 'dies', 'mod.ts'),
      `export const manifest = { name: "dies", version: "1.0.0", description: "d", classification: "PUBLIC", declaredEndpoints: [] };
export const toolDefinitions = [{ name: "t", description: "t", parameters: {} }];
export function createExecutor() { return async () => { process.exit(7); }; }
`,
    );
    const cacheDir = join(root, 'home', 'module-cache');
    const registry = new PluginRegistry({ sources: [{ dir: plugins, origin: 'cli' }], trust: new TrustStore(join(root, 'home')), describeModule: (dir) => describeModule(dir, { cacheDir, detection }) });
    await registry.refreshAll();
    await registry.enable('dies', 'tester');
    const metrics = new PluginMetrics();
    const runner = new ToolRunner({
      registry,
      breakers: new BreakerBoard({ clock: { now: () => 0 }, threshold: 2 }),
      metrics,
      runCache: join(root, 'home', 'run-cache'),
      modules: { cacheDir, detection },
      sandboxFor: () => ({ wrap: unsandboxedWrap(), sandboxed: false, warning: null }),
      record: () => undefined,
    });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await runner.call('dies', 't', {}, { actor: 'test' });
        expect(r).toMatchObject({ ok: false, failure: 'crash' });
        expect(r.error).toMatch(/the module process ended \(exit code 7\)/);
      }
      const refused = await runner.call('dies', 't', {}, { actor: 'test' });
      expect(refused).toMatchObject({ ok: false, failure: 'breaker_open' });
      expect(metrics.snapshot('dies')).toMatchObject({ calls: 3 });
    } finally {
      await runner.close();
    }
  });
});

describe('"require sandbox" holds for module plugins', () => {
  it('with no sandbox available and the setting on, the call is refused before any child starts', async () => {
    const root = tempDir('gatehouse-module-require-');
    const plugins = join(root, 'plugins');
    mkdirSync(join(plugins, 'm'), { recursive: true });
    mkdirSync(join(root, 'home'));
    writeFileSync(
      join(plugins, 'm', 'mod.ts'),
      `export const manifest = { name: "m", version: "1.0.0", description: "d", classification: "PUBLIC", declaredEndpoints: [] };
export const toolDefinitions = [{ name: "t", description: "t", parameters: {} }];
export function createExecutor() { return async () => "ran"; }
`,
    );
    const cacheDir = join(root, 'home', 'module-cache');
    const registry = new PluginRegistry({ sources: [{ dir: plugins, origin: 'cli' }], trust: new TrustStore(join(root, 'home')), describeModule: (dir) => describeModule(dir, { cacheDir, detection }) });
    await registry.refreshAll();
    await registry.enable('m', 'tester');
    const none = { kind: 'none' as const, reason: 'bubblewrap is not installed (test)' };
    const runner = new ToolRunner({
      registry,
      breakers: new BreakerBoard({ clock: { now: () => 0 } }),
      metrics: new PluginMetrics(),
      runCache: join(root, 'home', 'run-cache'),
      modules: { cacheDir, detection: none },
      sandboxFor: (manifest, dir) => sandboxPlan(none, manifest, dir, { requireSandbox: true }),
      record: () => undefined,
    });
    try {
      const r = await runner.call('m', 't', {}, { actor: 'test' });
      expect(r).toMatchObject({ ok: false, failure: 'spawn', sandboxed: false });
      expect(r.error).toMatch(/m was not run: the policy requires a sandbox/);
    } finally {
      await runner.close();
    }
  });
});

describe('pinning and hot reload hold for module plugins', () => {
  it('an enabled module whose mod.ts changes is quarantined and not run; a disabled one is re-read with its new tools', async () => {
    const root = tempDir('gatehouse-module-pin-');
    const plugins = join(root, 'plugins');
    const dir = join(plugins, 'pin');
    mkdirSync(dir, { recursive: true });
    mkdirSync(join(root, 'home'));
    const src = (tool: string) => `export const manifest = { name: "pin", version: "1.0.0", description: "d", classification: "PUBLIC", declaredEndpoints: [] };
export const toolDefinitions = [{ name: "${tool}", description: "t", parameters: {} }];
export function createExecutor() { return async () => "ran"; }
`;
    writeFileSync(join(dir, 'mod.ts'), src('first'));
    const cacheDir = join(root, 'home', 'module-cache');
    const registry = new PluginRegistry({ sources: [{ dir: plugins, origin: 'cli' }], trust: new TrustStore(join(root, 'home')), describeModule: (d) => describeModule(d, { cacheDir, detection }) });
    await registry.refreshAll();
    expect(registry.get('pin')?.toolNames).toEqual(['pin__first']);
    // Disabled: a change is simply re-read (hot reload).
    writeFileSync(join(dir, 'mod.ts'), src('second'));
    await registry.refreshFolder(dir);
    expect(registry.get('pin')?.manifest?.tools.map((t) => t.name)).toEqual(['second']);
    // Enabled: a change quarantines it, and nothing runs.
    await registry.enable('pin', 'tester');
    writeFileSync(join(dir, 'mod.ts'), src('second').replace('"ran"', '"changed"'));
    await registry.refreshFolder(dir);
    expect(registry.get('pin')?.status).toBe('quarantined');
    expect(() => registry.verifyForRun('pin')).toThrow(/quarantined/);
  });
});
