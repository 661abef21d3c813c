// The views in sidebar order, and the one place a view is added: its id in `viewIds`, its entry
// in `viewRegistry`. Each entry names the view's component and, in `bind`, its domain's binding
// (sync/<domain>-actions.ts): bindStores binds every one when the console starts, so the view's
// data is loaded on connect and kept current by the host's events whether or not the view is
// open. Alt+0…9 follow this order: Getting Started is Alt+0, so the views operators use every
// day keep Alt+1 onwards.
import type { ComponentType } from 'react';
import { GearIcon, InboxIcon, KeyIcon, LedgerIcon, PluginIcon, PulseIcon, RulesIcon, StartIcon, TerminalIcon } from '../components/icons.tsx';
import { bindActivity } from '../sync/activity-actions.ts';
import { bindApprovals, bindGrants } from '../sync/approvals-actions.ts';
import { bindAudit } from '../sync/audit-actions.ts';
import { bindCatalog } from '../sync/catalog-actions.ts';
import type { DomainBinder } from '../sync/bind-domain.ts';
import { bindGettingStarted } from '../sync/getting-started-actions.ts';
import { bindHealth } from '../sync/health-actions.ts';
import { bindPlugins } from '../sync/plugins-actions.ts';
import { bindPolicy } from '../sync/policy-actions.ts';
import { bindSettings } from '../sync/settings-actions.ts';
import { ActivityView } from './activity-view.tsx';
import { ApprovalsView } from './approvals-view.tsx';
import { AuditView } from './audit-view.tsx';
import { CatalogView } from './catalog-view.tsx';
import { GrantsView } from './grants-view.tsx';
import { HealthView } from './health-view.tsx';
import { PluginsView } from './plugins-view.tsx';
import { RulesView } from './rules-view.tsx';
import { SettingsView } from './settings-view.tsx';
import { StartView } from './start-view.tsx';
import { bindTerminals } from './terminals/terminal-actions.ts';
import { TerminalsView } from './terminals-view.tsx';

/**
 * The ids, on their own so that the type of a view id never depends on the views' components
 * (which use it): stores/ui-store.ts takes its ViewId from here.
 */
export const viewIds = ['start', 'approvals', 'grants', 'plugins', 'health', 'terminals', 'audit', 'rules', 'settings', 'activity', 'catalog'] as const;
export type ViewId = (typeof viewIds)[number];

export interface ViewSpec {
  id: ViewId;
  label: string;
  /** The key after Alt that opens this view: a digit, or a letter past the ten digits (Alt+C, by the key's position). */
  shortcut: string | null;
  Icon: ComponentType;
  View: ComponentType;
  /** Loads and refreshes the view's data; bound once for the life of the console. */
  bind?: DomainBinder;
}

export const viewRegistry = [
  { id: 'start', label: 'Start', shortcut: '0', Icon: StartIcon, View: StartView, bind: bindGettingStarted },
  { id: 'approvals', label: 'Approvals', shortcut: '1', Icon: InboxIcon, View: ApprovalsView, bind: bindApprovals },
  { id: 'grants', label: 'Grants', shortcut: '2', Icon: KeyIcon, View: GrantsView, bind: bindGrants },
  { id: 'plugins', label: 'Plugins', shortcut: '3', Icon: PluginIcon, View: PluginsView, bind: bindPlugins },
  { id: 'health', label: 'Health', shortcut: '4', Icon: PulseIcon, View: HealthView, bind: bindHealth },
  { id: 'terminals', label: 'Terminals', shortcut: '5', Icon: TerminalIcon, View: TerminalsView, bind: bindTerminals },
  { id: 'audit', label: 'Audit', shortcut: '6', Icon: LedgerIcon, View: AuditView, bind: bindAudit },
  { id: 'rules', label: 'Rules', shortcut: '7', Icon: RulesIcon, View: RulesView, bind: bindPolicy },
  { id: 'settings', label: 'Settings', shortcut: '8', Icon: GearIcon, View: SettingsView, bind: bindSettings },
  { id: 'activity', label: 'Activity', shortcut: '9', Icon: PulseIcon, View: ActivityView, bind: bindActivity },
  { id: 'catalog', label: 'Catalog', shortcut: 'C', Icon: PluginIcon, View: CatalogView, bind: bindCatalog },
] as const satisfies readonly ViewSpec[];

// Every id has its entry (the type-check fails naming an id without one).
type Unlisted = Exclude<ViewId, (typeof viewRegistry)[number]['id']>;
export const everyViewListed: [Unlisted] extends [never] ? true : Unlisted = true;

declare module '../stores/ui-store.ts' {
  // The ids above become the console's ViewId (see stores/ui-store.ts). Spelled out: inside this
  // block `ViewId` would name ui-store's own, defined by this very interface.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members are the ids, from the base type
  interface RegisteredViews extends Record<(typeof viewIds)[number], true> {}
}
