// Module plugins (mod.ts): a warm call of a trivial module tool against a trivial one-shot process
// tool, both through the ToolRunner and both sandboxed (the module's long-lived child in bwrap with
// its own network namespace and Node's permission model, the process tool in bwrap with limits).
// The warm call pays the verified-copy check, the line protocol both ways and the child's executor.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginRegistry } from '../main/registry/plugin-registry.js';
import { TrustStore } from '../main/registry/trust-store.js';
import { ToolRunner } from '../main/runner/tool-runner.js';
import { BreakerBoard } from '../main/runner/breaker-board.js';
import { PluginMetrics } from '../main/runner/metrics.js';
import { containWrap, detectSandbox, profileFromManifest } from '../main/runner/sandbox.js';
import { describeModule } from '../main/runner/module/describe-module.js';
import { median, type BenchCase } from './harness.js';

const MOD = `export const manifest = { name: "hello", version: "1.0.0", description: "x", classification: "PUBLIC", declaredEndpoints: [] };
export const toolDefinitions = [{ name: "say", description: "x", parameters: { n: { type: "number" } } }];
export function createExecutor(context: unknown) { return async (name: string, input: { n?: number }) => (name === "say" ? { n: input.n ?? 0 } : null); }
`;

async function roundOf(calls: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

export async function moduleCases(opts: { calls?: number } = {}): Promise<{ cases: BenchCase[]; close(): Promise<void> }> {
  const calls = opts.calls ?? 30;
  const detection = detectSandbox();
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-bench-module-'));
  const plugins = join(root, 'plugins');
  mkdirSync(join(plugins, 'hello'), { recursive: true });
  mkdirSync(join(plugins, 'echo'), { recursive: true });
  mkdirSync(join(root, 'home'));
  writeFileSync(join(plugins, 'hello', 'mod.ts'), MOD);
  writeFileSync(join(plugins, 'echo', 'tool.toml'), 'name = "echo"\ndescription = "x"\ncommand = "run.sh"\ntimeout_secs = 10\n');
  writeFileSync(join(plugins, 'echo', 'run.sh'), '#!/bin/sh\ncat >/dev/null\necho \'{}\'\n', { mode: 0o755 });
  const cacheDir = join(root, 'home', 'module-cache');
  const registry = new PluginRegistry({ sources: [{ dir: plugins, origin: 'cli' }], trust: new TrustStore(join(root, 'home')), describeModule: (dir) => describeModule(dir, { cacheDir, detection }) });
  await registry.refreshAll();
  await registry.enable('hello', 'bench');
  await registry.enable('echo', 'bench');
  const runner = new ToolRunner({
    registry,
    breakers: new BreakerBoard({ clock: { now: () => Date.now() } }),
    metrics: new PluginMetrics(),
    runCache: join(root, 'home', 'run-cache'),
    modules: { cacheDir, detection },
    sandboxFor: (manifest, dir) =>
      detection.kind === 'bwrap'
        ? { wrap: containWrap({ detection, profile: profileFromManifest(manifest, dir) }, { timeoutMs: 10_000 }), sandboxed: true, warning: null }
        : { wrap: containWrap(null, { timeoutMs: 10_000 }), sandboxed: false, warning: null },
    record: () => {},
  });
  const call = async (plugin: string, tool?: string) => {
    const r = await runner.call(plugin, tool, { n: 1 }, { actor: 'bench' });
    if (!r.ok) throw new Error(`${plugin} bench call failed: ${r.error}`);
  };
  // Warm: the module compiled, its child started and loaded.
  await call('hello', 'say');
  const sandbox = detection.kind === 'bwrap' ? 'bwrap' : 'no sandbox here';
  const baseline = `one-shot process tool call, vs module (${sandbox})`;
  const cases: BenchCase[] = [
    { name: baseline, unit: 'ms', better: 'lower', run: () => roundOf(calls, () => call('echo')) },
    { name: `warm module (mod.ts) tool call (${sandbox})`, unit: 'ms', better: 'lower', baseline, target: { median: 2 }, run: () => roundOf(calls * 4, () => call('hello', 'say')) },
  ];
  return {
    cases,
    close: async () => {
      await runner.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
