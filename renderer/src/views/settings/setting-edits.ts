// The Settings view's own state around settings.update: which fields have a change in flight,
// and the host's sentence for a refused change, shown next to that field. The settings
// themselves live in stores/settings-store.ts (shared with the status bar and Approvals).
import { create } from 'zustand';
import type { Settings } from '../../../../shared/contract.ts';
import { errorMessage } from '../../lib/error-message.ts';
import { updateSettings } from '../../sync/settings-actions.ts';
import type { GatehouseClient } from '../../transport/client.ts';

export type SettingKey = keyof Settings;

export interface SettingEdits {
  pending: SettingKey[];
  fieldErrors: Partial<Record<SettingKey, string>>;
}

export const useSettingEdits = create<SettingEdits>()(() => ({ pending: [], fieldErrors: {} }));

/** Sends one change; false (and the host's sentence on its fields) when the host refused it. */
export async function saveSetting(client: GatehouseClient, patch: Partial<Settings>): Promise<boolean> {
  const keys = Object.keys(patch) as SettingKey[];
  if (keys.length === 0) return false;
  const others = (errors: SettingEdits['fieldErrors']) => Object.fromEntries(Object.entries(errors).filter(([k]) => !keys.includes(k as SettingKey)));
  useSettingEdits.setState((s) => ({ pending: [...s.pending, ...keys], fieldErrors: others(s.fieldErrors) }));
  const done = (s: SettingEdits) => s.pending.filter((k) => !keys.includes(k));
  try {
    await updateSettings(client, patch);
    useSettingEdits.setState((s) => ({ pending: done(s) }));
    return true;
  } catch (err) {
    const message = errorMessage(err);
    useSettingEdits.setState((s) => ({ pending: done(s), fieldErrors: { ...s.fieldErrors, ...Object.fromEntries(keys.map((k) => [k, message])) } }));
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
