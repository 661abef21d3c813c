// The policy and its editor, wired together. Built before the plugin side (WebAssembly plugins'
// host functions are judged by it) and the gateway (agents' calls are). Part of the composition
// root: it only builds and connects.
import { homedir } from 'node:os';
import { extract } from '../policy/extract/index.js';
import { PolicyEditor } from '../policy/policy-editor.js';
import { PolicyStore } from '../policy/rules/store.js';
import type { PluginSource } from '../registry/plugin-registry.js';
import type { HostBase, HostOptions } from './host-types.js';

export interface PolicyServicesDeps extends Pick<HostBase, 'paths' | 'clock' | 'log' | 'bus' | 'services'> {
  opts: Pick<HostOptions, 'watch'>;
  record: (type: string, actor: string, payload: Record<string, unknown>) => void;
  /** The plugin places: the locked rules protect them from agents. */
  sources: readonly PluginSource[];
}

export function startPolicyServices(d: PolicyServicesDeps) {
  const { opts, paths, clock, log, bus, services, record } = d;
  const userHome = homedir();
  const policy = new PolicyStore({
    file: paths.policy,
    home: userHome,
    gatehouseHome: paths.root,
    pluginDirs: d.sources.map((s) => s.dir),
    extract: (call) => extract(call, { home: userHome }),
    watch: opts.watch !== false,
    // The hard-link table's rescans are rate-limited by this clock (protected-identities.ts).
    now: () => clock.now(),
    log,
  });
  services.add(() => policy.close());
  // Every change of policy.yaml is in the audit log with its diff: the operator's saves, "always"
  // rules and edits made on disk (policy-editor.ts).
  const policyEditor = new PolicyEditor({ store: policy, file: paths.policy, record, changed: (state) => bus.emit('policy.changed', state) });
  services.add(() => policyEditor.close());
  return { policy, policyEditor };
}
