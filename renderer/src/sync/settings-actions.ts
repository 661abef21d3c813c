// The Settings domain: the gateway's settings and gateway.info, loaded on connect, replaced by
// every settings.changed push and reloaded on gateway.toolsChanged (bindSettings), and the one
// way to change a setting (updateSettings). The host audits every change.
import type { SettingsView } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import { initialSettingsState, useSettingsStore, type SettingsPatch } from '../stores/settings-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { bindDomain, latest } from './bind-domain.ts';
import { hostAction } from './host-action.ts';

const set = useSettingsStore.setState;

/** The settings to keep: an older settings.get never overwrites a newer push or update answer. */
const settingsAnswers = latest();
const gatewayAnswers = latest();

export function bindSettings(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    d.on('settings.changed', (view) => applySettings(view));
    d.on('gateway.toolsChanged', () => void loadGateway(client));
    return {
      load: () => Promise.all([loadSettings(client), loadGateway(client)]),
      reset: () => {
        settingsAnswers.supersede();
        gatewayAnswers.supersede();
        set({ ...initialSettingsState });
      },
    };
  });
}

export async function loadSettings(client: GatehouseClient): Promise<void> {
  const req = settingsAnswers.begin();
  try {
    const settings = await client.call('settings.get', {});
    if (req.current()) set({ settings, loaded: true, error: null });
  } catch (err) {
    if (req.current()) set({ error: errorMessage(err) });
  }
}

export async function loadGateway(client: GatehouseClient): Promise<void> {
  const req = gatewayAnswers.begin();
  try {
    const gateway = await client.call('gateway.info', {});
    if (req.current()) set({ gateway, gatewayError: null });
  } catch (err) {
    if (req.current()) set({ gatewayError: errorMessage(err) });
  }
}

/**
 * settings.update: the answer is stored and returned. A refusal throws (a HostCallError with the
 * host's sentence) and leaves the store as it was.
 */
export async function updateSettings(client: GatehouseClient, patch: SettingsPatch): Promise<SettingsView> {
  const settings = await client.call('settings.update', patch);
  applySettings(settings);
  return settings;
}

/** Settings the host sent as the new state (a push, or an update's answer). */
function applySettings(settings: SettingsView): void {
  settingsAnswers.supersede();
  set({ settings, loaded: true, error: null });
}

// Agent tokens and agents' configuration files (Settings › Connect an agent): the answers stay
// with the panel or dialog that asked.
export const listAgentTokens = hostAction('agents.tokens.list');
export const createAgentToken = hostAction('agents.tokens.create');
export const revokeAgentToken = hostAction('agents.tokens.revoke');
export const previewAgentConfig = hostAction('agents.preview');
export const writeAgentConfig = hostAction('agents.write');
