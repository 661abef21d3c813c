// The views in sidebar order. Alt+0…9 follow this order: Getting Started is Alt+0, so the views
// operators use every day keep Alt+1 onwards.
import type { ComponentType } from 'react';
import { GearIcon, InboxIcon, KeyIcon, LedgerIcon, PluginIcon, PulseIcon, RulesIcon, StartIcon, TerminalIcon } from '../components/icons.tsx';
import type { ViewId } from '../stores/ui-store.ts';
import { ActivityView } from './activity-view.tsx';
import { ApprovalsView } from './approvals-view.tsx';
import { AuditView } from './audit-view.tsx';
import { GrantsView } from './grants-view.tsx';
import { HealthView } from './health-view.tsx';
import { PluginsView } from './plugins-view.tsx';
import { RulesView } from './rules-view.tsx';
import { SettingsView } from './settings-view.tsx';
import { StartView } from './start-view.tsx';
import { TerminalsView } from './terminals-view.tsx';

export interface ViewSpec {
  id: ViewId;
  label: string;
  /** The key after Alt that opens this view. */
  shortcut: string;
  Icon: ComponentType;
  View: ComponentType;
}

export const viewRegistry: readonly ViewSpec[] = [
  { id: 'start', label: 'Start', shortcut: '0', Icon: StartIcon, View: StartView },
  { id: 'approvals', label: 'Approvals', shortcut: '1', Icon: InboxIcon, View: ApprovalsView },
  { id: 'grants', label: 'Grants', shortcut: '2', Icon: KeyIcon, View: GrantsView },
  { id: 'plugins', label: 'Plugins', shortcut: '3', Icon: PluginIcon, View: PluginsView },
  { id: 'health', label: 'Health', shortcut: '4', Icon: PulseIcon, View: HealthView },
  { id: 'terminals', label: 'Terminals', shortcut: '5', Icon: TerminalIcon, View: TerminalsView },
  { id: 'audit', label: 'Audit', shortcut: '6', Icon: LedgerIcon, View: AuditView },
  { id: 'rules', label: 'Rules', shortcut: '7', Icon: RulesIcon, View: RulesView },
  { id: 'settings', label: 'Settings', shortcut: '8', Icon: GearIcon, View: SettingsView },
  { id: 'activity', label: 'Activity', shortcut: '9', Icon: PulseIcon, View: ActivityView },
];
