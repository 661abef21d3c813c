// The one place a view is paired with its code: each entry of components/view-nav.ts (the view's
// name, shortcut and icon, in sidebar order) gets its component and, in `bind`, its domain's
// binding (sync/<domain>-actions.ts): bindStores binds every one when the console starts, so the
// view's data is loaded on connect and kept current by the host's events whether or not the view
// is open. A new view is added in view-nav.ts first, then here.
import type { ComponentType } from 'react';
import { viewNav, type ViewNavEntry } from '../components/view-nav.ts';
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
import { bindTerminals } from '../sync/terminals-actions.ts';
import { TerminalsView } from './terminals-view.tsx';
import { bindTeam } from '../sync/team-actions.ts';
import { TeamView } from './team-view.tsx';

export interface ViewSpec extends ViewNavEntry {
  View: ComponentType;
  /** Loads and refreshes the view's data; bound once for the life of the console. */
  bind?: DomainBinder;
}

/** Each view's code by id: a Record, so the type-check fails naming an id of view-nav.ts without one. */
const viewCode: Record<ViewNavEntry['id'], Pick<ViewSpec, 'View' | 'bind'>> = {
  start: { View: StartView, bind: bindGettingStarted },
  approvals: { View: ApprovalsView, bind: bindApprovals },
  grants: { View: GrantsView, bind: bindGrants },
  plugins: { View: PluginsView, bind: bindPlugins },
  health: { View: HealthView, bind: bindHealth },
  terminals: { View: TerminalsView, bind: bindTerminals },
  audit: { View: AuditView, bind: bindAudit },
  rules: { View: RulesView, bind: bindPolicy },
  settings: { View: SettingsView, bind: bindSettings },
  activity: { View: ActivityView, bind: bindActivity },
  catalog: { View: CatalogView, bind: bindCatalog },
  team: { View: TeamView, bind: bindTeam },
};

/** The views in sidebar order (view-nav.ts's), each with its component and bind. */
export const viewRegistry: readonly ViewSpec[] = viewNav.map((v) => ({ ...v, ...viewCode[v.id] }));
