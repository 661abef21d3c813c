// Installed plugins with their validation and scan results. Empty until the registry exists.
import { create } from 'zustand';

export interface PluginSummary {
  name: string;
  version: string;
  kind: string;
}

export interface PluginsStore {
  plugins: PluginSummary[];
}

export const usePluginsStore = create<PluginsStore>()(() => ({ plugins: [] }));
