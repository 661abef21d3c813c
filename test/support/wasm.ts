// WebAssembly plugins for tests, built from committed sources (test/fixtures/wasm/*.wat) with
// wabt's wat2wasm from npm: no prebuilt .wasm is committed.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import wabt from 'wabt';
import { PluginRegistry } from '../../main/registry/plugin-registry.js';
import { TrustStore } from '../../main/registry/trust-store.js';
import { ToolRunner } from '../../main/runner/tool-runner.js';
import { BreakerBoard } from '../../main/runner/breaker-board.js';
import { PluginMetrics } from '../../main/runner/metrics.js';
import { detectSandbox, unsandboxedWrap } from '../../main/runner/sandbox.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'wasm');

let tools: Awaited<ReturnType<typeof wabt>> | null = null;

/** The module built from a .wat source text. */
export async function wat2wasm(source: string, name = 'module.wat'): Promise<Uint8Array> {
  tools ??= await wabt();
  const mod = tools.parseWat(name, source, { mutable_globals: true, sign_extension: true, bulk_memory: true });
  try {
    mod.validate();
    return new Uint8Array(mod.toBinary({}).buffer);
  } finally {
    mod.destroy();
  }
}

/** A fixture's source, with placeholders replaced. */
export function fixtureWat(file: string, replace: Record<string, string> = {}): string {
  let text = readFileSync(join(FIXTURES, file), 'utf8');
  for (const [k, v] of Object.entries(replace)) text = text.split(k).join(v);
  return text;
}

/** A wasm plugin folder: gatehouse.toml (the given text) and plugin.wasm built from `wat`. */
export async function wasmPlugin(root: string, name: string, manifest: string, wat: string): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), manifest);
  writeFileSync(join(dir, 'plugin.wasm'), await wat2wasm(wat, `${name}.wat`));
  return dir;
}

/**
 * A registry over ROOT/plugins (trust in ROOT/home) and a ToolRunner whose wasm calls run in the
 * sandboxed WebAssembly process (`isolated: false`: in this process, no bubblewrap).
 */
export function wasmRunner(root: string, record: (type: string, payload: Record<string, unknown>) => void, opts: { isolated?: boolean; breakerThreshold?: number } = {}): { registry: PluginRegistry; runner: ToolRunner } {
  const registry = new PluginRegistry({ sources: [{ dir: join(root, 'plugins'), origin: 'cli' }], trust: new TrustStore(join(root, 'home')) });
  const runner = new ToolRunner({
    registry,
    breakers: new BreakerBoard({ clock: { now: () => 0 }, ...(opts.breakerThreshold ? { threshold: opts.breakerThreshold } : {}) }),
    metrics: new PluginMetrics(),
    runCache: join(root, 'home', 'run-cache'),
    ...(opts.isolated === false ? {} : { wasmIsolation: { detection: detectSandbox() } }),
    sandboxFor: () => ({ wrap: unsandboxedWrap(), sandboxed: false, warning: 'not used by wasm plugins' }),
    record: (type, _actor, payload) => record(type, payload),
  });
  return { registry, runner };
}
