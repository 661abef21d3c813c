// The gateway's settings as the host reports them (settings.get, then every `settings.changed`),
// and where agents connect (gateway.info). Shared by the status bar's mode indicator, the
// Approvals view (expiry defaults, notifications) and the Settings view. The API:
//
//   settings: SettingsView | null   — null until the first load answers
//   loaded / error                  — error: the last load's failure, as a sentence
//   gateway: GatewayInfo | null     — gateway.info (MCP and hook URLs, agent token, tools)
//   gatewayError                    — the last gateway.info failure
//   bind(client | null)             — bind-stores attaches the client once (null on teardown)
//   load(): Promise<void>           — settings.get into the store (bind-stores calls it on connect)
//   loadGateway(): Promise<void>    — gateway.info into the store (on connect, gateway.toolsChanged)
//   update(patch): Promise<SettingsView>
//                                   — settings.update; the answer is stored and returned; a refusal
//                                     throws (a HostCallError with the host's sentence) and leaves
//                                     the store as it was. The host audits every change.
//   apply(view)                     — a `settings.changed` push
//   reset()                         — back to nothing (a host refused this console)
import { create } from 'zustand';
import type { RequestOf, ResponseOf, SettingsView } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import type { GatehouseClient } from '../transport/client.ts';

export type SettingsPatch = RequestOf<'settings.update'>;
export type GatewayInfo = ResponseOf<'gateway.info'>;

export interface SettingsStore {
  settings: SettingsView | null;
  loaded: boolean;
  error: string | null;
  gateway: GatewayInfo | null;
  gatewayError: string | null;
  bind(client: GatehouseClient | null): void;
  load(): Promise<void>;
  loadGateway(): Promise<void>;
  update(patch: SettingsPatch): Promise<SettingsView>;
  apply(view: SettingsView): void;
  reset(): void;
}

let client: GatehouseClient | null = null;
/** Bumped by every answer: an older load never overwrites a newer event or update. */
let generation = 0;
let gatewayGeneration = 0;

function need(): GatehouseClient {
  if (!client) throw new Error('The settings store has no client yet (bindStores attaches one).');
  return client;
}

export const useSettingsStore = create<SettingsStore>()((set) => ({
  settings: null,
  loaded: false,
  error: null,
  gateway: null,
  gatewayError: null,
  bind(c) {
    client = c;
  },
  async load() {
    const mine = ++generation;
    try {
      const settings = await need().call('settings.get', {});
      if (mine === generation) set({ settings, loaded: true, error: null });
    } catch (err) {
      if (mine === generation) set({ error: errorMessage(err) });
    }
  },
  async loadGateway() {
    const mine = ++gatewayGeneration;
    try {
      const gateway = await need().call('gateway.info', {});
      if (mine === gatewayGeneration) set({ gateway, gatewayError: null });
    } catch (err) {
      if (mine === gatewayGeneration) set({ gatewayError: errorMessage(err) });
    }
  },
  async update(patch) {
    const settings = await need().call('settings.update', patch);
    generation++;
    set({ settings, loaded: true, error: null });
    return settings;
  },
  apply(settings) {
    generation++;
    set({ settings, loaded: true, error: null });
  },
  reset() {
    generation++;
    gatewayGeneration++;
    set({ settings: null, loaded: false, error: null, gateway: null, gatewayError: null });
  },
}));
