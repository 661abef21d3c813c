// Signals outside the view that owns them (issue #16 item 5): a plugin quarantined by a change on
// disk and a chain check that fails each put a badge on their sidebar entry and raise a toast,
// whatever view the operator is in; the toast opens the view, and the badge stays while it lasts.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { test, expect } from '../fixtures.ts';

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
    await toast.getByRole('button', { name: /quarantined/ }).click();
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
