// Smoke specs for both shells: the console loads, navigates, and shows a live host.
import { test, expect } from '../fixtures.ts';
import { views, viewTitles } from '../pages/console-page.ts';

test('the console loads and shows a live connection and a verified audit chain', async ({ console: app }) => {
  await app.status.expectConnected();
  await expect(app.status.connection).toHaveText(/connected/i);
  await app.status.expectChainVerified();
  await expect(app.status.chain).toHaveText(/verified/i);
});

test('every sidebar item opens its view', async ({ console: app }) => {
  await app.status.expectConnected();
  for (const v of views) await app.open(v);
});

test('Alt+number switches views from the keyboard', async ({ console: app }) => {
  await app.status.expectConnected();
  // Alt+0 is Getting Started, Alt+1 onwards the views after it, in sidebar order; views past the
  // ten digits (Catalog) have no Alt shortcut.
  for (const [i, v] of views.slice(0, 10).entries()) {
    await expect(app.navItem(v)).toHaveAttribute('aria-keyshortcuts', `Alt+${i}`);
    await app.page.keyboard.press(`Alt+${i}`);
    await expect(app.view(v).getByRole('heading', { level: 1, name: viewTitles[v] })).toBeVisible();
    await expect(app.navItem(v)).toHaveAttribute('aria-current', 'page');
  }
});

test('the audit view lists the host start and verifies the chain on demand', async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('audit');
  await expect(app.audit.rows.filter({ hasText: 'host.started' }).first()).toBeVisible();
  await app.audit.verifyButton.click();
  await app.status.expectChainVerified();
});

test('settings show which host the console is attached to', async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('settings');
  await expect(app.settings.hostInfo).toContainText(/serve|electron/);
});
