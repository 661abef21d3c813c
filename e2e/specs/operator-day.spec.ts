// An operator's busy day (issue #26 items 6, 7 and 9), in Chromium against a real `gatehouse
// serve`: a failing plugin's breaker alarm says what it does, links to Health and clears when
// the breaker closes or the plugin is disabled, and stays gone on reload; Health draws each
// plugin's last hour; the audit table keeps its Summary readable with an event open; the session
// waterfall names each call's command and says how long a waiting call has waited.
import { test, expect } from '../fixtures.ts';
import { HealthPage } from '../pages/health-page.ts';
import { hostCall, serveFile } from '../support/agents.ts';
import { FAILING_TOOL, SUCCEEDING_TOOL, writeToolPlugin } from '../support/tool-plugin.ts';

async function breakerState(home: string, name: string): Promise<string> {
  const { plugins } = await hostCall<{ plugins: { name: string; breaker: { state: string } }[] }>(home, 'health.list');
  return plugins.find((r) => r.name === name)?.breaker.state ?? 'not found yet';
}

/** Fails the plugin through the real runner until the host says its breaker is open. */
async function openBreaker(home: string, name: string): Promise<void> {
  await expect.poll(() => breakerState(home, name)).toBe('closed');
  await expect
    .poll(async () => {
      await hostCall(home, 'plugins.testRun', { name, input: { message: 'again' } });
      return breakerState(home, name);
    }, { intervals: [0] })
    .toBe('open');
}

test('the breaker alarm says what it does, links to Health, clears when the breaker closes or the plugin is disabled, and stays gone on reload', async ({ console: app, home }) => {
  test.setTimeout(60_000);
  await app.status.expectConnected();
  writeToolPlugin(home, 'flaky', FAILING_TOOL);
  await app.open('grants');
  await expect.poll(() => breakerState(home, 'flaky')).toBe('closed');
  // Agents reach only enabled plugins: an enabled plugin's open breaker denies their calls.
  await hostCall(home, 'plugins.enable', { name: 'flaky' });
  await openBreaker(home, 'flaky');

  const toast = app.page.locator('[data-testid="toast"][data-view="health"]');
  const badge = app.page.getByTestId('nav-alert-health');
  const consequence = "Tool flaky is failing: agents' calls to it are refused";
  await expect(toast).toContainText(consequence);
  await expect(badge).toHaveAttribute('aria-label', consequence);
  await expect(toast.getByRole('link', { name: 'Open Health →' })).toBeVisible();

  // Closed by a reset made elsewhere (another console, the CLI): the alarm goes without a click.
  await hostCall(home, 'health.reset', { name: 'flaky' });
  await expect(toast).toHaveCount(0);
  await expect(badge).toHaveCount(0);

  // Open again: the toast's link takes the operator to Health.
  await openBreaker(home, 'flaky');
  await toast.getByRole('link', { name: 'Open Health →' }).click();
  await expect(app.view('health')).toBeVisible();
  const health = new HealthPage(app.page);
  await health.expectBreaker('flaky', 'open');

  // A disabled plugin gets no calls: its breaker denies nothing, so there is no alarm, now or after a reload.
  await hostCall(home, 'plugins.disable', { name: 'flaky' });
  await expect(health.row('flaky').locator('.plugin-status')).toHaveAttribute('data-status', 'disabled');
  await expect(badge).toHaveCount(0);
  await app.page.reload();
  await app.status.expectConnected();
  await app.open('health');
  await expect(health.row('flaky')).toHaveAttribute('data-breaker', 'open');
  await expect(badge).toHaveCount(0);
  await expect(app.page.getByTestId('toast')).toHaveCount(0);
});

test('Health draws each plugin’s last hour: calls, failures, latency and the breaker a minute', async ({ console: app, home }) => {
  await app.status.expectConnected();
  writeToolPlugin(home, 'steady', SUCCEEDING_TOOL);
  writeToolPlugin(home, 'flaky', FAILING_TOOL);
  await expect.poll(() => breakerState(home, 'steady')).toBe('closed');
  for (const n of [1, 2, 3]) await hostCall(home, 'plugins.testRun', { name: 'steady', input: { message: `call ${n}` } });
  await openBreaker(home, 'flaky');

  await app.open('health');
  const history = app.page.getByTestId('health-history');
  await expect(history).toBeVisible();
  const card = (name: string) => history.locator(`[data-testid="history-card"][data-name="${name}"]`);
  await expect(card('steady')).toHaveAttribute('data-calls', '3');
  await expect(card('steady')).toHaveAttribute('data-errors', '0');
  await expect(card('steady')).toContainText('3 calls');
  await expect(card('steady').locator('canvas')).toBeVisible();
  await expect(card('flaky')).toHaveAttribute('data-errors', /^[1-9]\d*$/);
  // Sixty minutes, the last one (now) open for the failing plugin, closed for the other.
  await expect(card('flaky').locator('[data-breaker]')).toHaveCount(60);
  await expect(card('flaky').locator('[data-breaker]').last()).toHaveAttribute('data-breaker', 'open');
  await expect(card('steady').locator('[data-breaker]').last()).toHaveAttribute('data-breaker', 'closed');
  await expect(card('flaky').getByRole('img')).toHaveAttribute('aria-label', /flaky, last hour: \d+ calls, \d+ failed.*breaker not closed for 1 minute, now open/);
});

test.describe('calls waiting for an operator', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' }, auditEvents: 400 } });

  /** Sends the calls and returns the session the host filed them under, and the seq of one call's first event. */
  async function waitingHookCalls(home: string, session: string, commands: string[]): Promise<{ session: string; seq: number }> {
    const s = await serveFile(home);
    commands.forEach((command, n) => {
      void fetch(new URL('/hooks/claude/pre-tool-use', s.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.agentToken}` },
        body: JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'work' }, tool_use_id: `tu-${n}` }),
      }).catch(() => null);
    });
    // Every call recorded (under load a call can be decided without waiting, e.g. an extraction deadline).
    const received = async () => (await hostCall<{ events: { type: string; payload: { session?: string } }[] }>(home, 'audit.tail', { limit: 200 })).events.filter((e) => e.type === 'call.received' && e.payload.session?.endsWith(session)).length;
    await expect.poll(received).toBe(commands.length);
    await expect.poll(async () => (await hostCall<{ items: unknown[] }>(home, 'approvals.list', { state: 'pending' })).items.length).toBeGreaterThan(0);
    // The host keys a hook's session by the agent that sent it: the audit log says under which name.
    const { events } = await hostCall<{ events: { seq: number; type: string; payload: { session?: string } }[] }>(home, 'audit.tail', { limit: 50 });
    const first = events.find((e) => e.type === 'call.received' && e.payload.session?.endsWith(session))!;
    return { session: first.payload.session!, seq: first.seq };
  }

  test('the waterfall names each call’s command and a waiting call says “waiting” with the time it has waited', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const { session, seq } = await waitingHookCalls(home, 'operator-day-1', ['git push --force origin main', 'rm -rf build']);
    const audit = app.audit;
    await app.open('audit');
    await audit.setTextFacet('session', session);
    // The call's own row: the first row can still be the unfiltered list's while the filter applies.
    await audit.row(seq).click();
    await audit.sessionLink.click();
    await expect(audit.bars).toHaveCount(2);
    await expect(audit.bars.filter({ hasText: 'rm -rf build' })).toHaveCount(1);
    await expect(audit.bars.filter({ hasText: 'git push --force origin main' })).toHaveCount(1);
    // A call that waits for the operator (at least one does) says how long it has waited, never "0 ms".
    const waiting = app.page.locator('[data-testid="audit-waterfall-bar"][data-outcome="warn"]').first();
    await expect(waiting.getByTestId('audit-waterfall-outcome')).toHaveText(/^waiting \d+(\.\d+)? s$|^waiting \d+:\d\d min$|^waiting \d+ ms$/);
    await expect(waiting).not.toContainText(/\b0 ms\b/);
  });

  test('at 1440×900 with an event open, the Summary column stays readable', async ({ console: app, home }) => {
    await app.page.setViewportSize({ width: 1440, height: 900 });
    await app.status.expectConnected();
    const { session, seq } = await waitingHookCalls(home, 'operator-day-2', ['npm run build -- --mode production --out-dir dist/app']);
    const audit = app.audit;
    await app.open('audit');
    await audit.setTextFacet('session', session);
    await audit.row(seq).click();
    await expect(audit.detail).toHaveAttribute('data-seq', String(seq));
    // The summary cell of every row shows all of its text, or at least 60 characters' width of it.
    const summary = audit.row(seq).getByTestId('audit-summary');
    const { client, scroll } = await summary.evaluate((el) => ({ client: el.clientWidth, scroll: el.scrollWidth }));
    expect(client, 'the Summary cell is at least 360 px wide with an event open').toBeGreaterThanOrEqual(360);
    expect(scroll <= client || client >= 360).toBe(true);
    // The detail sits beside the table without pushing it under the fold.
    const table = (await audit.table.boundingBox())!;
    const detail = (await audit.detail.boundingBox())!;
    expect(table.height).toBeGreaterThan(300);
    expect(detail.x).toBeGreaterThan(table.x + 360);
  });
});
