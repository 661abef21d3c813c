// The settings.* methods of the contract over the SettingsStore (settings.json): every change
// is validated there, recorded with the operator, and pushed to the consoles.
import type { GatehouseContract } from '../../shared/contract.js';
import type { Handlers } from '../core/handlers.js';
import type { SettingsStore } from './settings-store.js';

type SettingsMethods = 'settings.get' | 'settings.update';
export type SettingsHandlers = Pick<Handlers<GatehouseContract['methods']>, SettingsMethods>;

export function settingsHandlers(settings: SettingsStore): SettingsHandlers {
  return {
    'settings.get': () => settings.view(),
    'settings.update': (patch, ctx) => settings.update(patch, `operator:${ctx.operator}`),
  };
}
