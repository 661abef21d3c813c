// The views' names as the chrome shows them (sidebar, command palette, status bar, Alt shortcuts),
// in sidebar order. It sits in components/, below views/, so the chrome never imports a view:
// views/view-registry.ts adds each view's component and bind to these entries, and the
// type-check there fails on an id without one. Alt+0…9 follow this order: Getting Started is
// Alt+0, so the views operators use every day keep Alt+1 onwards.
import type { ComponentType } from 'react';
import { GearIcon, InboxIcon, KeyIcon, LedgerIcon, PluginIcon, PulseIcon, RulesIcon, StartIcon, TeamIcon, TerminalIcon } from './icons.tsx';

/**
 * The ids, on their own so that the type of a view id never depends on the views' components
 * (which use it): stores/ui-store.ts takes its ViewId from here.
 */
export const viewIds = ['start', 'approvals', 'grants', 'plugins', 'health', 'terminals', 'audit', 'rules', 'settings', 'activity', 'catalog', 'team'] as const;

export interface ViewNavEntry {
  id: (typeof viewIds)[number];
  label: string;
  /** The key after Alt that opens this view: a digit, or a letter past the ten digits (Alt+C, by the key's position). */
  shortcut: string | null;
  Icon: ComponentType;
}

export const viewNav = [
  { id: 'start', label: 'Start', shortcut: '0', Icon: StartIcon },
  { id: 'approvals', label: 'Approvals', shortcut: '1', Icon: InboxIcon },
  { id: 'grants', label: 'Grants', shortcut: '2', Icon: KeyIcon },
  { id: 'plugins', label: 'Plugins', shortcut: '3', Icon: PluginIcon },
  { id: 'health', label: 'Health', shortcut: '4', Icon: PulseIcon },
  { id: 'terminals', label: 'Terminals', shortcut: '5', Icon: TerminalIcon },
  { id: 'audit', label: 'Audit', shortcut: '6', Icon: LedgerIcon },
  { id: 'rules', label: 'Rules', shortcut: '7', Icon: RulesIcon },
  { id: 'settings', label: 'Settings', shortcut: '8', Icon: GearIcon },
  { id: 'activity', label: 'Activity', shortcut: '9', Icon: PulseIcon },
  { id: 'catalog', label: 'Catalog', shortcut: 'C', Icon: PluginIcon },
  { id: 'team', label: 'Team', shortcut: 'T', Icon: TeamIcon },
] as const satisfies readonly ViewNavEntry[];

// Every id has its entry (the type-check fails naming an id without one).
type Unlisted = Exclude<(typeof viewIds)[number], (typeof viewNav)[number]['id']>;
export const everyViewNamed: [Unlisted] extends [never] ? true : Unlisted = true;

declare module '../stores/ui-store.ts' {
  // The ids above become the console's ViewId (see stores/ui-store.ts). Spelled out: inside this
  // block `ViewId` would name ui-store's own, defined by this very interface.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- its members are the ids, from the base type
  interface RegisteredViews extends Record<(typeof viewIds)[number], true> {}
}
