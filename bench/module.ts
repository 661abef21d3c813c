// Module plugins (mod.ts): a warm call of a trivial module tool against a trivial one-shot process
// tool, both through the ToolRunner and both sandboxed (the module's long-lived child in bwrap with
// its own network namespace and Node's permission model, the process tool in bwrap with limits).
// The warm call pays the verified-copy check, the line protocol both ways and the child's executor.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginRegistry } from '../main/registry/plugin-registry.js';
import { TrustStore } from '../main/registry/trust-store.js';
import { detectSandbox } from '../main/runner/sandbox.js';
import { describeModule } from '../main/runner/module/describe-module.js';
import { medianOfCalls, type BenchCase } from './harness.js';
import { sandboxedRunner, writeEchoTool } from './sandboxed-runner.js';

const MOD = `export const manifest = { name: "hello", version: "1.0.0", description: "x", classification: "PUBLIC", declaredEndpoints: [] };
export const toolDefinitions = [{ name: "say", description: "x", parameters: { n: { type: "number" } } }];
export function createExecutor(context: unknown) { return async (name: string, input: { n?: number }) => (name === "say" ? { n: input.n ?? 0 } : null); }
`;

export async function moduleCases(opts: { calls?: number } = {}): Promise<{ cases: BenchCase[]; close(): Promise<void> }> {
  const calls = opts.calls ?? 30;
  const detection = detectSandbox();
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-bench-module-'));
  const plugins = join(root, 'plugins');
  mkdirSync(join(plugins, 'hello'), { recursive: true });
  mkdirSync(join(root, 'home'));
  writeFileSync(join(plugins, 'hello', 'mod.ts'), MOD);
  writeEchoTool(plugins);
  const cacheDir = join(root, 'home', 'module-cache');
  const registry = new PluginRegistry({ sources: [{ dir: plugins, origin: 'cli' }], trust: new TrustStore(join(root, 'home')), describeModule: (dir) => describeModule(dir, { cacheDir, detection }) });
  await registry.refreshAll();
  await registry.enable('hello', 'bench');
  await registry.enable('echo', 'bench');
  const runner = sandboxedRunner(registry, join(root, 'home'), detection, { modules: { cacheDir, detection } });
  const call = async (plugin: string, tool?: string) => {
    const r = await runner.call(plugin, tool, { n: 1 }, { actor: 'bench' });
    if (!r.ok) throw new Error(`${plugin} bench call failed: ${r.error}`);
  };
  // Warm: the module compiled, its child started and loaded.
  await call('hello', 'say');
  const sandbox = detection.kind === 'bwrap' ? 'bwrap' : 'no sandbox here';
  const baseline = `one-shot process tool call, vs module (${sandbox})`;
  const cases: BenchCase[] = [
    { name: baseline, unit: 'ms', better: 'lower', run: () => medianOfCalls(calls, () => call('echo')) },
    { name: `warm module (mod.ts) tool call (${sandbox})`, unit: 'ms', better: 'lower', baseline, target: { median: 2 }, run: () => medianOfCalls(calls * 4, () => call('hello', 'say')) },
  ];
  return {
    cases,
    close: async () => {
      await runner.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
