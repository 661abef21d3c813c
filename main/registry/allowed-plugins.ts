// `gatehouse serve --allowed-plugins a,b`: the names that could not be enabled for this run, and
// why. Before this, a misspelt or broken name was silently ignored: the operator believed a
// plugin was on while agents never saw it. The host records each one (plugin.allow-refused) and
// the serve shell prints it.
import type { PluginRegistry } from './plugin-registry.js';

export interface AllowRefusal {
  name: string;
  reason: string;
}

export function allowedPluginRefusals(registry: Pick<PluginRegistry, 'get' | 'list'>, names: readonly string[]): AllowRefusal[] {
  const out: AllowRefusal[] = [];
  for (const name of new Set(names)) {
    const e = registry.get(name);
    if (!e) {
      const known = registry.list().map((p) => p.name);
      out.push({ name, reason: `no plugin named "${name}" was found${known.length ? ` (found: ${known.join(', ')})` : ''}; check the spelling (gatehouse plugin list), or add its folder with --plugins-dir DIR` });
      continue;
    }
    switch (e.status) {
      case 'enabled':
        continue;
      case 'invalid': {
        const errors = e.problems.filter((p) => p.severity === 'error');
        out.push({ name, reason: `it is invalid (${errors.length} error${errors.length === 1 ? '' : 's'}${errors[0] ? `, first: ${errors[0].message}` : ''}); see them with gatehouse plugin validate ${e.dir}` });
        continue;
      }
      case 'scan_failed':
        out.push({ name, reason: `it failed the security scan (weight ${e.scan?.totalWeight ?? '?'}), which --allowed-plugins does not override; review it with gatehouse plugin scan ${e.dir}` });
        continue;
      case 'quarantined':
        out.push({ name, reason: 'its files changed after an operator enabled it, so it is quarantined; review the change in the console\'s Plugins view' });
        continue;
      default:
        out.push({ name, reason: `it is ${e.status}` });
    }
  }
  return out;
}
