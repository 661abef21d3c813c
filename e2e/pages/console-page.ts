// Page objects: specs say what an operator does ("open Audit", "verify the chain"),
// these classes know how that maps onto the DOM.
import { expect, type Locator, type Page } from '@playwright/test';
import { AuditPage } from './audit-page.ts';

export const views = ['start', 'approvals', 'grants', 'plugins', 'health', 'terminals', 'audit', 'rules', 'settings', 'activity', 'catalog', 'team'] as const;
export type ViewName = (typeof views)[number];
export const viewTitles: Record<ViewName, string> = {
  start: 'Getting started',
  approvals: 'Approvals',
  grants: 'Grants',
  plugins: 'Plugins',
  health: 'Health',
  terminals: 'Terminals',
  audit: 'Audit',
  rules: 'Rules',
  settings: 'Settings',
  activity: 'Activity',
  catalog: 'Catalog',
  team: 'Team',
};

export class StatusBar {
  readonly connection: Locator;
  readonly chain: Locator;
  readonly shell: Locator;
  /** The gateway mode: data-mode = dry-run | live; click to switch (modeDialog). */
  readonly mode: Locator;
  /** The switch's confirmation: modeConfirm switches, Escape cancels; modeNow says what is in force. */
  readonly modeDialog: Locator;
  readonly modeConfirm: Locator;
  readonly modeNow: Locator;
  readonly autonomy: Locator;
  /** Long work running on the host (anyone's): title and percent of the oldest. */
  readonly jobs: Locator;
  /** Team mode's link: data-state = connecting | up | down | forked; absent outside team mode. */
  readonly team: Locator;
  constructor(page: Page) {
    this.connection = page.getByTestId('status-connection');
    this.chain = page.getByTestId('status-chain');
    this.shell = page.getByTestId('status-shell');
    this.mode = page.getByTestId('status-mode');
    this.modeDialog = page.getByTestId('mode-dialog');
    this.modeConfirm = page.getByTestId('mode-confirm');
    this.modeNow = page.getByTestId('mode-dialog-now');
    this.autonomy = page.getByTestId('status-autonomy');
    this.jobs = page.getByTestId('status-jobs');
    this.team = page.getByTestId('status-team');
  }
  async expectConnected(): Promise<void> {
    await expect(this.connection).toHaveAttribute('data-state', 'connected');
  }
  async expectChainVerified(): Promise<void> {
    await expect(this.chain).toHaveAttribute('data-state', 'verified');
  }
}

export class SettingsView {
  readonly root: Locator;
  readonly hostInfo: Locator;
  constructor(page: Page) {
    this.root = page.getByTestId('view-settings');
    this.hostInfo = page.getByTestId('host-info');
  }
}

export class ConsolePage {
  readonly status: StatusBar;
  readonly audit: AuditPage;
  readonly settings: SettingsView;
  constructor(readonly page: Page) {
    this.status = new StatusBar(page);
    this.audit = new AuditPage(page);
    this.settings = new SettingsView(page);
  }

  navItem(view: ViewName): Locator {
    return this.page.getByTestId(`nav-${view}`);
  }

  view(view: ViewName): Locator {
    return this.page.getByTestId(`view-${view}`);
  }

  async open(view: ViewName): Promise<Locator> {
    await this.navItem(view).click();
    const root = this.view(view);
    await expect(root.getByRole('heading', { level: 1, name: viewTitles[view] })).toBeVisible();
    await expect(this.navItem(view)).toHaveAttribute('aria-current', 'page');
    return root;
  }

  get authError(): Locator {
    return this.page.getByTestId('auth-error');
  }
}
