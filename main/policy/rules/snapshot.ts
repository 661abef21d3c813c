// Rule snapshots for checkers (docs/protocols.md §2): exactly the protocol fields, deeply frozen so
// the checker pool serialises an unchanged snapshot array once instead of on every call.
import type { RuleSnapshot } from '../../core/checker-protocol.js';
import type { Rule } from '../types.js';

export function toSnapshot(rule: Readonly<Rule>, hitCount: number): RuleSnapshot {
  return Object.freeze({
    name: rule.name,
    description: rule.description,
    source: rule.source,
    severity: rule.severity,
    priority: rule.priority,
    actions: Object.freeze([...rule.actions]) as RuleSnapshot['actions'],
    block_paths: Object.freeze([...rule.block_paths]) as string[],
    block_except: Object.freeze([...rule.block_except]) as string[],
    block_hosts: Object.freeze([...rule.block_hosts]) as string[],
    message: rule.message,
    locked: rule.locked,
    enabled: rule.enabled,
    hit_count: Math.max(0, Math.trunc(hitCount)),
  });
}

/** A frozen array of snapshots, ready for `evaluate` params. */
export function toSnapshots(rules: Iterable<Readonly<Rule>>, hits: ReadonlyMap<string, number> = new Map()): readonly RuleSnapshot[] {
  const out: RuleSnapshot[] = [];
  for (const r of rules) out.push(toSnapshot(r, hits.get(r.name) ?? 0));
  return Object.freeze(out);
}
