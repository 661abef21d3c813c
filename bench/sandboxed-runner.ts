// What the warm-call benches (bench/wasm.ts, bench/module.ts) share: a trivial one-shot process
// tool as the baseline, a ToolRunner that sandboxes every plugin the way the host does (bwrap with
// limits where it is available).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginRegistry } from '../main/registry/plugin-registry.js';
import { BreakerBoard } from '../main/runner/breaker-board.js';
import { PluginMetrics } from '../main/runner/metrics.js';
import { containWrap, profileFromManifest, type SandboxDetection } from '../main/runner/sandbox.js';
import { ToolRunner, type ToolRunnerDeps } from '../main/runner/tool-runner.js';

/** Writes `echo`, a one-shot process tool that reads its input and prints `{}`, into `plugins`. */
export function writeEchoTool(plugins: string): void {
  mkdirSync(join(plugins, 'echo'), { recursive: true });
  writeFileSync(join(plugins, 'echo', 'tool.toml'), 'name = "echo"\ndescription = "x"\ncommand = "run.sh"\ntimeout_secs = 10\n');
  writeFileSync(join(plugins, 'echo', 'run.sh'), '#!/bin/sh\ncat >/dev/null\necho \'{}\'\n', { mode: 0o755 });
}

/** A ToolRunner over `registry` that sandboxes as the host does; `more` adds the kind's own options. */
export function sandboxedRunner(registry: PluginRegistry, home: string, detection: SandboxDetection, more: Partial<ToolRunnerDeps> = {}): ToolRunner {
  return new ToolRunner({
    registry,
    breakers: new BreakerBoard({ clock: { now: () => Date.now() } }),
    metrics: new PluginMetrics(),
    runCache: join(home, 'run-cache'),
    sandboxFor: (manifest, dir, reviewedDir) =>
      detection.kind === 'bwrap'
        ? { wrap: containWrap({ detection, profile: profileFromManifest(manifest, dir, reviewedDir ? { reviewedDir } : {}) }, { timeoutMs: 10_000 }), sandboxed: true, warning: null }
        : { wrap: containWrap(null, { timeoutMs: 10_000 }), sandboxed: false, warning: null },
    record: () => {},
    ...more,
  });
}
