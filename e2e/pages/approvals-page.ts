// The Approvals (inbox) and Grants views as an operator uses them: read a pending call, move
// with j/k, approve (a), grant for the session (s), deny with a reason (d), open details
// (Enter), filter and decide in batches, read the history; list and revoke grants.
//
// Test ids:
//   approval-list [data-rows]   the virtualised list (only rows near the viewport are in the DOM)
//   approval-item [data-id, data-tool, data-agent, data-session, data-active, data-evasive,
//     data-risk=evasive|delete|network|write|execute|read]   one row
//     approval-risk, approval-tool, approval-summary, approval-agent, approval-session,
//     approval-age, approval-countdown [data-expired], approval-evasive, hidden-text-badge
//   approval-group [data-session]   a session's header row (Group by session: approvals-group-session)
//   approval-detail [data-id, data-risk]   the selected call's pane
//     approval-detail-summary, approval-description, approval-asked-by, approval-operations,
//     approval-paths [data-count] (+ approval-paths-more past ten), approval-hosts,
//     approval-command, approval-evasive-reasons, approval-decoded-payload
//     (approval-decoded-raw, approval-decoded-text), approval-diff [data-exists] (diff-add,
//     diff-del, diff-ctx, diff-hunk lines), approval-arguments (json-folded / json-expand inside),
//     approval-details (after Enter), approval-args-hash,
//     approval-approve, approval-session, approval-always, approval-deny, approval-details-toggle
//   approvals-pending-count [data-count], approvals-filter-agent|tool|text, approvals-error
//   batch-approve, batch-deny, batch-results, batch-summary, batch-result [data-id, data-ok]
//   history-row [data-id, data-state=approved|denied|expired|gone, data-tool], history-outcome,
//     history-decider, history-reason
//   deny-dialog, deny-reason, deny-confirm, deny-reason-required
//   session-dialog, session-minutes, session-pattern, session-confirm
//   always-dialog, always-yaml, always-confirm
//   notifications-enable, notifications-state [data-state=on|off|blocked]
//   nav-count-approvals (sidebar badge)
//   grants-table, grant-row [data-id, data-tool, data-agent], grant-match (title: the whole
//     pattern or hash), grant-countdown, grant-revoke
import { expect, type Locator, type Page } from '@playwright/test';

export class ApprovalsPage {
  readonly root: Locator;
  readonly items: Locator;
  readonly list: Locator;
  readonly detail: Locator;
  readonly pendingCount: Locator;
  readonly historyRows: Locator;
  readonly denyDialog: Locator;
  readonly denyReason: Locator;
  readonly sessionDialog: Locator;
  readonly alwaysDialog: Locator;
  readonly filterText: Locator;
  readonly filterAgent: Locator;
  readonly filterTool: Locator;
  readonly batchApprove: Locator;
  readonly batchDeny: Locator;
  readonly batchResults: Locator;
  readonly badge: Locator;
  readonly enableNotifications: Locator;
  readonly notificationsState: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('view-approvals');
    this.items = page.getByTestId('approval-item');
    this.list = page.getByTestId('approval-list');
    this.detail = page.getByTestId('approval-detail');
    this.pendingCount = page.getByTestId('approvals-pending-count');
    this.historyRows = page.getByTestId('history-row');
    this.denyDialog = page.getByTestId('deny-dialog');
    this.denyReason = page.getByTestId('deny-reason');
    this.sessionDialog = page.getByTestId('session-dialog');
    this.alwaysDialog = page.getByTestId('always-dialog');
    this.filterText = page.getByTestId('approvals-filter-text');
    this.filterAgent = page.getByTestId('approvals-filter-agent');
    this.filterTool = page.getByTestId('approvals-filter-tool');
    this.batchApprove = page.getByTestId('batch-approve');
    this.batchDeny = page.getByTestId('batch-deny');
    this.batchResults = page.getByTestId('batch-result');
    this.badge = page.getByTestId('nav-count-approvals');
    this.enableNotifications = page.getByTestId('notifications-enable');
    this.notificationsState = page.getByTestId('notifications-state');
  }

  /** Rows whose one-line summary contains `text` (the command, the file, or the arguments in brief). */
  item(text: string): Locator {
    return this.items.filter({ has: this.page.getByTestId('approval-summary').filter({ hasText: text }) });
  }

  /** Selects the row whose summary contains `text` and answers the detail pane, once it shows that call. */
  async select(text: string): Promise<Locator> {
    const row = this.item(text);
    await row.click();
    const id = await this.idOf(row);
    const pane = this.page.locator(`[data-testid="approval-detail"][data-id="${id}"]`);
    await expect(pane).toBeVisible();
    return pane;
  }

  get active(): Locator {
    return this.page.locator('[data-testid="approval-item"][data-active="true"]');
  }

  historyRow(id: string): Locator {
    return this.page.locator(`[data-testid="history-row"][data-id="${id}"]`);
  }

  async idOf(item: Locator): Promise<string> {
    const id = await item.getAttribute('data-id');
    expect(id, 'a pending item has an id').toBeTruthy();
    return id!;
  }

  async expectPending(n: number): Promise<void> {
    await expect(this.pendingCount).toHaveAttribute('data-count', String(n));
  }

  /** Inbox keys go to the page, not to a field: this is what an operator's keyboard does. */
  async press(key: string): Promise<void> {
    await this.page.keyboard.press(key);
  }
}

export class GrantsPage {
  readonly root: Locator;
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('view-grants');
    this.rows = page.getByTestId('grant-row');
  }

  row(tool: string): Locator {
    return this.page.locator(`[data-testid="grant-row"][data-tool="${tool}"]`);
  }

  revokeButton(tool: string): Locator {
    return this.row(tool).getByTestId('grant-revoke');
  }

  /** The table itself (wider than the window means its last columns are cut off). */
  get table(): Locator {
    return this.root.getByTestId('grants-table');
  }

  async revoke(tool: string): Promise<void> {
    await this.revokeButton(tool).click();
  }
}
