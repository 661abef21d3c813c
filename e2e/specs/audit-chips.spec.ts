// Audit filters as chips (issue #16 item 4): every filter in force shows as a chip that removes
// itself, and Clear all removes every one in one step, the facet selects included.
import { test, expect } from '../fixtures.ts';
import { hostCall } from '../support/agents.ts';

test('audit filters show as chips; one chip removes one filter, Clear all the rest', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await hostCall(home, 'settings.update', { desktopNotifications: true });
  const audit = app.audit;
  await app.open('audit');
  const chips = app.page.getByTestId('audit-filter-chips').getByTestId('filter-chip');
  await expect(chips).toHaveCount(0);

  await audit.facet('type').selectOption('settings.changed');
  await expect(chips).toHaveCount(1);
  await expect(chips.first()).toHaveAttribute('data-key', 'type');
  await expect(chips.first()).toContainText('settings.changed');
  await audit.search.fill('desktopNotifications');
  await audit.search.press('Enter');
  await expect(chips).toHaveCount(2);

  await chips.filter({ hasText: 'type' }).getByTestId('filter-chip-remove').click();
  await expect(chips).toHaveCount(1);
  await expect(audit.facet('type')).toHaveValue('');
  await app.page.getByTestId('filters-clear-all').click();
  await expect(chips).toHaveCount(0);
  await expect(audit.search).toHaveValue('');
  await expect(audit.facet('type')).toHaveValue('');
});
