// Hooks as Claude Code and Gemini CLI both keep them in settings.json:
// {"hooks": {EVENT: [{"matcher": …, "hooks": [HOOK, …]}, …]}}. Gatehouse's own hook (either form,
// any port or --home) is updated in place where it is, later copies removed, so a call is never
// sent to Gatehouse twice; every other hook and group stays as it was.
import type { JsonObject } from '../../shared/claude-config.js';
import { ConfigFileError, isObject, kindOf, type JsonEdit } from './config-file.js';

export interface HookGroupMerge {
  file: string;
  /** The agent as messages name it. */
  agent: string;
  hooks: JsonObject;
  event: string;
  /** Gatehouse's hook for the event, and the matcher group a new one goes in. */
  ours: JsonObject;
  group: JsonObject;
  /** What is added, in words; `form`: how a replacement is described. */
  what: string;
  form: string;
  isOurs: (hook: unknown) => boolean;
  edit: JsonEdit;
  changes: string[];
}

export function mergeHookGroup(m: HookGroupMerge): void {
  const { file, hooks, event: ev, ours, edit, changes } = m;
  const list = hooks[ev];
  if (list !== undefined && !Array.isArray(list)) throw new ConfigFileError(file, `${file}: "hooks.${ev}" is ${kindOf(list)}, not a list of matcher groups as ${m.agent} expects. Fix it by hand, then preview again.`);
  const found: [number, number][] = [];
  (list ?? []).forEach((group, gi) => {
    if (!isObject(group) || !Array.isArray(group.hooks)) return;
    group.hooks.forEach((h, hi) => {
      if (m.isOurs(h)) found.push([gi, hi]);
    });
  });
  if (found.length === 0) {
    if (list === undefined) edit(['hooks', ev], [m.group]);
    else edit(['hooks', ev, -1], m.group, true);
    changes.push(`hooks.${ev}: added ${m.what}`);
    return;
  }
  const [g0, h0] = found[0]!;
  const first = ((list as JsonObject[])[g0]!.hooks as unknown[])[h0];
  if (JSON.stringify(first) !== JSON.stringify(ours)) {
    edit(['hooks', ev, g0, 'hooks', h0], ours);
    changes.push(`hooks.${ev}[${g0}]: replaced the Gatehouse hook with the ${m.form}`);
  }
  // Remove the others from the last to the first, so earlier indexes stay valid. A group that
  // held nothing but Gatehouse hooks goes as a whole (never the first one's group).
  const byGroup = new Map<number, number[]>();
  for (const [gi, hi] of found.slice(1)) byGroup.set(gi, [...(byGroup.get(gi) ?? []), hi]);
  for (const gi of [...byGroup.keys()].sort((a, b) => b - a)) {
    const mine = byGroup.get(gi)!.sort((a, b) => b - a);
    const size = ((list as JsonObject[])[gi]!.hooks as unknown[]).length;
    if (gi !== g0 && mine.length === size) {
      edit(['hooks', ev, gi], undefined);
      changes.push(`hooks.${ev}[${gi}]: removed a second Gatehouse hook (its group held nothing else)`);
      continue;
    }
    for (const hi of mine) {
      edit(['hooks', ev, gi, 'hooks', hi], undefined);
      changes.push(`hooks.${ev}[${gi}].hooks[${hi}]: removed a second Gatehouse hook`);
    }
  }
}
