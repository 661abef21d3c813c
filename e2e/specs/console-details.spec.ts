// Console details (issue #26 item 8), in a real browser against a real `gatehouse serve`: an
// adapter dropped into the plugins folder reaches "Run with adapter" without a reload; its
// session shows the adapter's state whole, in the list and in the details; take-over has Release;
// its question in the inbox says it came from the terminal adapter, not a hook; Activity names
// the call's tool, agent and command; the "Approve once" key reads in the light theme.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { axe } from '../support/axe.ts';
import type { Locator, Page } from '@playwright/test';
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage } from '../pages/approvals-page.ts';
import { TerminalsPage } from '../pages/terminals-page.ts';

// hello makes home/plugins exist (and be watched) before the host starts.
test.use({ homeSetup: { settings: { mode: 'live' }, plugins: ['hello'] } });

/** WCAG contrast ratio of an element's text colour against an ancestor's background. */
async function contrast(text: Locator, background: Locator): Promise<number> {
  const rgb = (css: string) => (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
  const luminance = ([r, g, b]: number[]) => {
    const c = [r!, g!, b!].map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
  };
  const fg = luminance(rgb(await text.evaluate((el) => getComputedStyle(el).color)));
  const bg = luminance(rgb(await background.evaluate((el) => getComputedStyle(el).backgroundColor)));
  return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
}

/** Serious and critical axe findings in one view (the terminal's own canvas left out). */
async function seriousViolations(page: Page, view: string): Promise<string[]> {
  const r = await axe(page).include(`[data-testid="view-${view}"]`).exclude('.xterm').analyze();
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${view}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`);
}

test('an adapter session in Terminals, the inbox and Activity', async ({ console: app, home }) => {
  test.setTimeout(60_000);
  await app.page.emulateMedia({ colorScheme: 'light' });
  await app.status.expectConnected();
  await app.open('terminals');
  const terminals = new TerminalsPage(app.page);
  await app.page.getByTestId('terminal-run-adapter').click();
  await expect(app.page.getByText('No terminal adapters found')).toBeVisible();

  // Dropped in while the form is open: the host's plugins.changed brings it, no reload.
  const dir = join(home, 'plugins', 'permission-agent');
  cpSync(join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'adapters', 'permission-agent'), dir, { recursive: true });
  await expect(app.page.getByTestId('adapter-select')).toHaveValue('permission-agent');
  await app.page.getByTestId('adapter-command').fill(`${process.execPath} ${join(dir, 'agent.mjs')}`);
  await app.page.getByTestId('adapter-start').click();

  const row = terminals.rows.filter({ hasText: 'adapter permission-agent' });
  const badge = row.getByTestId('terminal-adapter-state');
  await expect(badge).toHaveAttribute('data-state', 'waiting_for_permission');
  // Whole, not cut at the edge of the narrow list.
  await expect(badge).toContainText(/waiting for permission \(\d+%\)/);
  const rowBox = (await row.boundingBox())!;
  const badgeBox = (await badge.boundingBox())!;
  expect(badgeBox.x + badgeBox.width).toBeLessThanOrEqual(rowBox.x + rowBox.width);
  await expect(app.page.getByTestId('terminal-adapter')).toContainText('permission-agent');
  await expect(app.page.getByTestId('terminal-detail-adapter-state')).toHaveAttribute('data-state', 'waiting_for_permission');
  const found = await seriousViolations(app.page, 'terminals');

  // Take over, then hand it back.
  await terminals.takeOver();
  await app.page.getByTestId('terminal-release').click();
  await expect(terminals.takeOverButton).toBeEnabled();
  await expect(app.page.getByTestId('terminal-release')).toHaveCount(0);
  // The question reaches the inbox. (On a loaded machine the first one may be denied at once,
  // its analysis past the host's in-process deadline: then the next question is the one waiting.)
  await app.open('approvals');
  const inbox = new ApprovalsPage(app.page);
  const summary = (await inbox.items.first().getByTestId('approval-summary').textContent()) ?? '';
  expect(summary).toMatch(/rm -rf build|git push --force origin main/);
  const detail = await inbox.select(summary);
  await expect(detail.getByTestId('approval-source')).toHaveText('terminal adapter permission-agent');
  // The primary button's key: readable on its blue in the light theme (it was an empty box).
  const approve = detail.getByTestId('approval-approve');
  expect(await contrast(approve.locator('kbd'), approve)).toBeGreaterThanOrEqual(4.5);

  await app.open('activity');
  const asked = app.page.locator('[data-testid="activity-row"][data-decision="ask"]').filter({ hasText: summary });
  await expect(asked).toHaveCount(1);
  await expect(asked.getByTestId('activity-tool')).toHaveText('Bash');
  await expect(asked.getByTestId('activity-command')).toHaveText(summary);
  await expect(asked.getByTestId('activity-agent')).toContainText(/terminal:pty-[0-9a-f]+ via terminal adapter permission-agent/);
  await app.page.getByTestId('activity-filter-text').fill(summary.slice(0, 8));
  await expect(asked).toHaveCount(1);
  found.push(...(await seriousViolations(app.page, 'activity')));
  expect(found, found.join('\n')).toEqual([]);
});

test('Health at 1024 px: the table fits beside the sidebar, nothing scrolls sideways', async ({ console: app }) => {
  await app.page.setViewportSize({ width: 1024, height: 720 });
  await app.status.expectConnected();
  await app.open('health');
  const table = app.page.getByTestId('health-table');
  await expect(table.getByTestId('health-row')).not.toHaveCount(0);
  const scroll = table.locator('xpath=..');
  const [scrollWidth, clientWidth] = await scroll.evaluate((el) => [el.scrollWidth, el.clientWidth]);
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
});
