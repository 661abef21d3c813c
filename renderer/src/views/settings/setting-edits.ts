// The Settings view's own state around settings.update: which fields have a change in flight,
// and the host's sentence for a refused change, shown next to that field. The settings
// themselves live in stores/settings-store.ts (shared with the status bar and Approvals).
import { create } from 'zustand';
import type { Settings } from '../../../../shared/contract.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { errorMessage } from '../../lib/error-message.ts';
import { updateSettings } from '../../sync/settings-actions.ts';
import type { GatehouseClient } from '../../transport/client.ts';

export type SettingKey = keyof Settings;

export interface SettingEdits {
  pending: SettingKey[];
  fieldErrors: Partial<Record<SettingKey, string>>;
  /** The value each field shows while its change is in flight (dropped once the host answers). */
  drafts: Partial<Settings>;
}

export const useSettingEdits = create<SettingEdits>()(() => ({ pending: [], fieldErrors: {}, drafts: {} }));

/**
 * What a control shows: its change in flight, else the host's value. A box clicked changes at
 * once (as every checkbox does) instead of after the round trip, and goes back with the host's
 * sentence if the host refuses.
 */
export function useShownSetting<K extends SettingKey>(name: K): Settings[K] | undefined {
  const draft = useSettingEdits((s) => s.drafts[name]);
  const stored = useSettingsStore((s) => s.settings?.[name]);
  return draft !== undefined ? (draft as Settings[K]) : stored;
}

/** Sends one change; false (and the host's sentence on its fields) when the host refused it. */
export async function saveSetting(client: GatehouseClient, patch: Partial<Settings>): Promise<boolean> {
  const keys = Object.keys(patch) as SettingKey[];
  if (keys.length === 0) return false;
  const others = (errors: SettingEdits['fieldErrors']) => Object.fromEntries(Object.entries(errors).filter(([k]) => !keys.includes(k as SettingKey)));
  useSettingEdits.setState((s) => ({ pending: [...s.pending, ...keys], fieldErrors: others(s.fieldErrors), drafts: { ...s.drafts, ...patch } }));
  // A later change to the same field keeps its own draft: only this change's values are dropped.
  const done = (s: SettingEdits) => ({
    pending: s.pending.filter((k) => !keys.includes(k)),
    drafts: Object.fromEntries(Object.entries(s.drafts).filter(([k, v]) => !(keys.includes(k as SettingKey) && v === patch[k as SettingKey]))) as Partial<Settings>,
  });
  try {
    await updateSettings(client, patch);
    useSettingEdits.setState(done);
    return true;
  } catch (err) {
    const message = errorMessage(err);
    useSettingEdits.setState((s) => ({ ...done(s), fieldErrors: { ...s.fieldErrors, ...Object.fromEntries(keys.map((k) => [k, message])) } }));
    return false;
  }
}

export const autonomyHelp: Record<Settings['autonomy'], string> = {
  'read-only': 'Agents may only read: every call that would change, run or reach anything is denied.',
  supervised: 'Reads run on their own; anything that writes, deletes, runs or connects waits in the inbox for an operator.',
  full: 'Calls run without asking unless a rule denies or asks, a tool is on the always-ask list, or the command is evasive.',
};

export const modeHelp: Record<Settings['mode'], string> = {
  'dry-run': 'Every call is evaluated (policy, checkers, approvals) and shown with its decision, but never executed: agents are told nothing ran.',
  live: 'Allowed and approved calls are executed for real.',
};
