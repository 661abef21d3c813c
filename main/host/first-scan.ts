// The host's start-up after construction: the parser and the policy file loaded, the first scan of
// every plugin folder (a job, so a console that connects meanwhile sees how far it is; it cannot
// be cancelled: the host needs its plugins), the checkers and upstream servers started for what it
// found, then the watcher. `Host.ready` is this promise.
import type { JobRunner } from '../core/job-runner.js';
import { initExtractor } from '../policy/extract/index.js';
import type { PolicyEditor } from '../policy/policy-editor.js';
import { allowedPluginRefusals } from '../registry/allowed-plugins.js';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import type { PluginWatcher } from '../registry/plugin-watcher.js';

export interface FirstScanDeps {
  jobs: JobRunner;
  registry: PluginRegistry;
  policyEditor: PolicyEditor;
  /** --allowed-plugins */
  allowedPlugins: string[];
  /** Start what runs for the enabled plugins (checkers, upstream MCP servers). */
  sync: () => Promise<unknown>;
  watcher: PluginWatcher | null;
  record: (type: string, actor: string, payload: Record<string, unknown>) => void;
  log: (msg: string, err?: unknown) => void;
}

export function firstScan(d: FirstScanDeps): Promise<void> {
  const ready = Promise.all([initExtractor(), d.policyEditor.start()])
    .then(() => d.jobs.run({ kind: 'plugins.scan', title: 'Scanning plugins', unit: 'plugins', by: 'host', cancellable: false }, (job) => d.registry.refreshAll(job)))
    .then(async () => {
      // --allowed-plugins names that could not be enabled: recorded (the serve shell prints them).
      for (const r of allowedPluginRefusals(d.registry, d.allowedPlugins)) {
        d.record('plugin.allow-refused', 'host', { name: r.name, reason: r.reason });
        d.log(`--allowed-plugins: ${r.name} was not enabled: ${r.reason}`);
      }
      await d.sync();
      d.watcher?.start();
      await d.watcher?.ready();
    });
  ready.catch((err: unknown) => d.log('start-up failed', err));
  return ready;
}
