// Long work shows progress and can be cancelled, in the console: verifying a long chain and
// exporting a large filter on a host whose log holds 200,000 events, and a plugin rescan.
import { test, expect } from '../fixtures.ts';
import { PluginsPage } from '../pages/plugins-page.ts';

const SEEDED = 200_000;

test.describe('a host with a long audit log', () => {
  test.use({ homeSetup: { auditEvents: SEEDED } });

  test('verifying the chain shows how far it is and can be cancelled; run to the end it verifies every event', async ({ console: app }) => {
    await app.status.expectConnected();
    const audit = app.audit;
    await app.open('audit');
    await expect(audit.chainBadge).toHaveAttribute('data-state', 'verified');

    await audit.verifyButton.click();
    // The size is known at once, then the count moves; the status bar names the work too.
    await expect(audit.verifyProgress).toContainText('Verifying the audit chain');
    await expect(audit.verifyProgress).toHaveAttribute('data-total', /^\d{6,}$/);
    await expect(audit.verifyProgress).not.toHaveAttribute('data-done', '0');
    await expect(app.status.jobs).toContainText(/Verifying the audit chain \d+%/);
    await audit.verifyCancel.click();
    await expect(audit.verifyNote).toHaveText(/^Verifying the audit chain was cancelled after [\d,]+ of [\d,]+ events; nothing was changed\.$/);
    await expect(audit.verifyProgress).toBeHidden();
    await expect(app.status.jobs).toBeHidden();
    // The chain state is what the last finished check found.
    await expect(audit.chainBadge).toHaveAttribute('data-state', 'verified');

    await audit.verifyButton.click();
    await expect(audit.verifyProgress).toBeVisible();
    // The whole chain, 200,000 events: seconds alone, more than the default 10 s beside another spec.
    await expect(audit.verifyProgress).toBeHidden({ timeout: 60_000 });
    await expect(audit.verifyNote).toBeHidden();
    await expect(audit.chainBadge).toHaveAttribute('data-state', 'verified');
    const checked = Number((await app.status.chain.textContent())!.match(/\((\d+) events\)/)![1]);
    expect(checked).toBeGreaterThan(SEEDED);
  });

  test('an export of a large filter shows its progress and can be cancelled before anything is saved', async ({ console: app }) => {
    await app.status.expectConnected();
    const audit = app.audit;
    await app.open('audit');
    await expect(audit.total).toHaveAttribute('data-capped', 'true');
    let downloaded = false;
    app.page.on('download', () => (downloaded = true));

    await audit.exportButton.click();
    await expect(audit.exportProgress).toContainText(/Exporting audit events: [\d,]+ of [\d,]+ events/);
    await audit.exportCancel.click();
    await expect(audit.exportNote).toHaveText(/^Exporting audit events was cancelled after [\d,]+ of [\d,]+ events; nothing was changed\.$/);
    await expect(audit.exportProgress).toBeHidden();
    await expect(audit.exportResult).toBeHidden();
    await expect(audit.exportButton).toBeEnabled();
    expect(downloaded).toBe(false);
  });
});

test('a rescan of the plugin folders reports what it found', async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('plugins');
  const plugins = new PluginsPage(app.page);
  await expect(plugins.rows.first()).toBeVisible();
  const count = await plugins.rows.count();
  await plugins.rescanButton.click();
  await expect(plugins.rescanNote).toHaveText(new RegExp(`^Scanned ${count} plugins? in \\d+ ms\\.$`));
  await expect(plugins.rescanButton).toBeEnabled();
  await expect(plugins.rows).toHaveCount(count);
});
