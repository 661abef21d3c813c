// The gateway's settings as the host reports them (settings.get, then every `settings.changed`),
// and where agents connect (gateway.info). Shared by the status bar's mode indicator, the
// Approvals view (expiry defaults, notifications) and the Settings view. Loaded, refreshed and
// changed by sync/settings-actions.ts.
import { create } from 'zustand';
import type { RequestOf, ResponseOf, SettingsView } from '../../../shared/contract.ts';

export type SettingsPatch = RequestOf<'settings.update'>;
export type GatewayInfo = ResponseOf<'gateway.info'>;

export interface SettingsStore {
  /** Null until the first load answers. */
  settings: SettingsView | null;
  loaded: boolean;
  /** The last load's failure, as a sentence. */
  error: string | null;
  /** gateway.info: the MCP and hook URLs, the agent token, the tools. */
  gateway: GatewayInfo | null;
  /** The last gateway.info failure. */
  gatewayError: string | null;
}

export const initialSettingsState: SettingsStore = {
  settings: null,
  loaded: false,
  error: null,
  gateway: null,
  gatewayError: null,
};

export const useSettingsStore = create<SettingsStore>()(() => ({ ...initialSettingsState }));
