// Operator settings. None are editable yet; the Settings view shows host info from the
// connection store meanwhile.
import { create } from 'zustand';

export interface SettingsStore {
  /** Settings as the host reports them, once a settings method exists. */
  values: Record<string, unknown>;
}

export const useSettingsStore = create<SettingsStore>()(() => ({ values: {} }));
