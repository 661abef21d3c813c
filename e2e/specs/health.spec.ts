// The Health view end to end, in a real browser against a real `gatehouse serve`: a plugin
// that fails through the real runner opens its breaker, the console counts down to the next
// probe, and an operator reset closes it again.
import { test, expect } from '../fixtures.ts';
import { HealthPage } from '../pages/health-page.ts';
import { PluginsPage } from '../pages/plugins-page.ts';
import { FAILING_TOOL as FAILING, SUCCEEDING_TOOL as SUCCEEDING, writeToolPlugin } from '../support/tool-plugin.ts';

test('a plugin that fails three times shows its breaker open with a countdown, and reset closes it', async ({ console: app, home }) => {
  await app.status.expectConnected();
  writeToolPlugin(home, 'flaky', FAILING);

  await app.open('plugins');
  const plugins = new PluginsPage(app.page);
  await expect(plugins.row('flaky')).toBeVisible();
  await plugins.open('flaky');

  // Three failures through the real runner, each one seen to finish before the next.
  for (const attempt of [1, 2, 3]) {
    await plugins.testRun(`{"message": "attempt ${attempt}"}`);
    await expect(plugins.testRunOutput).toHaveAttribute('data-ok', 'false');
    await expect(plugins.testRunOutput.locator('[data-stream="stderr"]')).toContainText(`attempt ${attempt}`);
  }

  await app.open('health');
  const health = new HealthPage(app.page);
  await expect(health.sandboxStatus).toHaveAttribute('data-kind', /^(bwrap|none)$/);
  await health.expectBreaker('flaky', 'open');
  await expect(health.breakerState('flaky')).toHaveText('Open');
  await expect(health.consecutiveFailures('flaky')).toHaveText('3');

  // The first cooldown is five minutes: the countdown starts just under 5:00 and goes down.
  await expect(health.countdown('flaky')).toHaveText(/^[45]:[0-5]\d$/);
  const first = await health.secondsToProbe('flaky');
  expect(first).not.toBeNull();
  expect(first!).toBeGreaterThan(4 * 60);
  expect(first!).toBeLessThanOrEqual(5 * 60);
  await expect.poll(() => health.secondsToProbe('flaky'), { timeout: 5_000 }).toBeLessThan(first!);

  // A one-shot tool has no processes to restart.
  await expect(health.restartButton('flaky')).toHaveCount(0);

  await health.reset('flaky');
  await health.expectBreaker('flaky', 'closed');
  await expect(health.breakerState('flaky')).toHaveText('Closed');
  await expect(health.consecutiveFailures('flaky')).toHaveText('0');
  await expect(health.countdown('flaky')).toHaveCount(0);
  await expect(health.resetButton('flaky')).toHaveCount(0);
});

test('a healthy plugin keeps its breaker closed and shows its calls and latency', async ({ console: app, home }) => {
  await app.status.expectConnected();
  writeToolPlugin(home, 'steady', SUCCEEDING);

  // Health lists a plugin as soon as the host finds it, before any call.
  await app.open('health');
  const health = new HealthPage(app.page);
  await health.expectBreaker('steady', 'closed');
  await expect(health.resetButton('steady')).toHaveCount(0);

  await app.open('plugins');
  const plugins = new PluginsPage(app.page);
  await plugins.open('steady');
  for (const attempt of [1, 2]) {
    await plugins.testRun(`{"message": "call ${attempt}"}`);
    await expect(plugins.testRunOutput).toHaveAttribute('data-ok', 'true');
    await expect(plugins.testRunOutput.locator('[data-stream="stdout"]')).toContainText(`call ${attempt}`);
  }

  await app.open('health');
  await health.expectBreaker('steady', 'closed');
  await expect(health.sparkline('steady')).toHaveAttribute('data-points', '2');
  await expect(health.sparkline('steady').locator('canvas')).toBeVisible();
  await expect(health.resetButton('steady')).toHaveCount(0);
});
