// Signals outside the view that owns them (issue #16 item 5): a plugin quarantined by a change on
// disk and a chain check that fails each put a badge on their sidebar entry and raise a toast,
// whatever view the operator is in; the toast opens the view, and the badge stays while it lasts.
// A plugin that fails until its circuit breaker opens does the same for Health.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { test, expect } from '../fixtures.ts';
import { hostCall } from '../support/agents.ts';
import { HealthPage } from '../pages/health-page.ts';
import { FAILING_TOOL, writeToolPlugin } from '../support/tool-plugin.ts';

test.describe('a host with the hello plugin enabled', () => {
  test.use({ homeSetup: { plugins: ['hello'] } });

  test('a quarantined plugin and a broken chain: sidebar badges and toasts from any view', async ({ console: app, home }) => {
    await app.status.expectConnected();
    await app.open('grants');
    await expect(app.page.getByTestId('nav-alert-plugins')).toHaveCount(0);
    await expect(app.page.getByTestId('toast')).toHaveCount(0);

    // Someone edits the plugin on disk: the host quarantines it.
    appendFileSync(join(home, 'plugins', 'hello', 'hello.sh'), '\n# changed outside the console\n');
    await expect(app.page.getByTestId('nav-alert-plugins')).toHaveAttribute('data-count', '1');
    const toast = app.page.locator('[data-testid="toast"][data-view="plugins"]');
    await expect(toast).toContainText('1 plugin quarantined: hello');
    await toast.getByRole('link', { name: /Open Plugins/ }).click();
    await expect(app.view('plugins')).toBeVisible();
    await expect(toast).toHaveCount(0);
    await expect(app.page.getByTestId('nav-alert-plugins')).toBeVisible();

    // An event rewritten behind the host's back: Verify fails, and the Audit entry says so.
    await app.open('audit');
    const db = new Database(join(home, 'audit.db'));
    const { seq } = db.prepare("SELECT seq FROM events WHERE type = 'host.started' ORDER BY seq DESC LIMIT 1").get() as { seq: number };
    db.prepare("UPDATE events SET payload = json_set(payload, '$.operator', 'mallory') WHERE seq = ?").run(seq);
    db.close();
    await app.audit.verifyButton.click();
    await expect(app.audit.chainBadge).toHaveAttribute('data-state', 'broken');
    await expect(app.page.getByTestId('nav-alert-audit')).toHaveText('!');
    await app.open('health');
    await expect(app.page.getByTestId('nav-alert-audit')).toBeVisible();
    await expect(app.page.getByTestId('nav-alert-plugins')).toBeVisible();
  });
});

test('a plugin whose breaker opens: the Health entry gets a badge and a toast opens Health; reset clears the badge', async ({ console: app, home }) => {
  await app.status.expectConnected();
  writeToolPlugin(home, 'flaky', FAILING_TOOL);
  await app.open('grants');
  const health = new HealthPage(app.page);
  await expect(app.page.getByTestId('nav-alert-health')).toHaveCount(0);

  const breakerState = async () => {
    const { plugins } = await hostCall<{ plugins: { name: string; breaker: { state: string } | null }[] }>(home, 'health.list');
    return plugins.find((r) => r.name === 'flaky')?.breaker?.state ?? 'not found yet';
  };
  // The host finds the plugin on its own (hot reload) before any call.
  await expect.poll(breakerState).toBe('closed');
  // Agents reach only enabled plugins, so only an enabled plugin's breaker raises the alarm.
  await hostCall(home, 'plugins.enable', { name: 'flaky' });

  // Failures through the real runner until the host itself says the breaker is open (the
  // threshold is the host's, not this spec's).
  await expect
    .poll(async () => {
      const run = await hostCall<{ ok: boolean }>(home, 'plugins.testRun', { name: 'flaky', input: { message: 'again' } });
      expect(run.ok).toBe(false);
      return breakerState();
    }, { intervals: [0] })
    .toBe('open');

  // The operator is still in Grants: the badge and the toast come to them.
  await expect(app.view('grants')).toBeVisible();
  await expect(app.page.getByTestId('nav-alert-health')).toHaveAttribute('data-count', '1');
  const toast = app.page.locator('[data-testid="toast"][data-view="health"]');
  await expect(toast).toContainText("Tool flaky is failing: agents' calls to it are refused");
  await toast.getByRole('link', { name: /Open Health/ }).click();
  await expect(app.view('health')).toBeVisible();
  await expect(toast).toHaveCount(0);
  await expect(app.page.getByTestId('nav-alert-health')).toBeVisible();

  await health.reset('flaky');
  await health.expectBreaker('flaky', 'closed');
  await expect(app.page.getByTestId('nav-alert-health')).toHaveCount(0);
});
