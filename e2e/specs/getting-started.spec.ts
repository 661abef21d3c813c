// First run in a real browser against a real `gatehouse serve` on a new GATEHOUSE_HOME: the
// console opens on Getting Started, in dry run, with the examples discovered and not enabled.
// The operator enables hello after reading its scan, reaches Connect an agent, sends a test call
// from the console, which hello (a reader the sandbox holds) passes without asking, watches the
// panel show it decided, and finds it in the audit log. A test call that asks (hello given a write
// path) is approved in the inbox with the keyboard.
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage } from '../pages/approvals-page.ts';
import { GettingStartedPage } from '../pages/getting-started-page.ts';
import { HealthPage } from '../pages/health-page.ts';
import { PluginsPage } from '../pages/plugins-page.ts';
import { auditTail } from '../support/agents.ts';

test('from a new home to a test call in the audit log, through the Getting Started panel', async ({ console: app, home }) => {
  await app.status.expectConnected();
  const start = new GettingStartedPage(app.page);

  // A new home: the panel opens by itself, the console is in dry run, nothing is done yet.
  await start.expectShown();
  await expect(app.status.mode).toHaveAttribute('data-mode', 'dry-run');
  await expect(app.page.getByTestId('start-intro')).toContainText('dry run');
  await start.expectProgress(0);
  for (const step of ['plugin', 'agent', 'test'] as const) await start.expectDone(step, false);

  // Step 1: the example is there but not enabled; its scan shows before enabling.
  await expect(start.pluginStatus).toHaveAttribute('data-status', 'disabled');
  await expect(start.scan).toHaveAttribute('data-passed', 'true');
  await expect(start.scanSummary).toContainText('0 findings');
  // Nothing to send before the tool is enabled.
  await expect(start.sendButton).toBeDisabled();
  await start.enableButton.click();
  await start.expectDone('plugin', true);
  await expect(start.pluginStatus).toHaveAttribute('data-status', 'enabled');
  await start.expectProgress(1);

  // Step 2: Connect an agent is one click away, and the panel one click back.
  await start.openConnectButton.click();
  await expect(app.view('settings').getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await expect(app.page.getByTestId('agent-connect')).toBeInViewport();
  await expect(app.page.getByTestId('agent-mcp-url')).toContainText('/mcp');
  await start.open();
  await start.expectDone('agent', false);

  // Step 3: hello only reads, held by the sandbox: supervised lets the test call through without
  // asking, and dry run keeps it from running. The panel says so.
  await start.sendButton.click();
  await start.expectTestCallStage('finished');
  await expect(start.testCall).toHaveAttribute('data-approval-state', '');
  await expect(start.testCall).toHaveAttribute('data-executed', 'false');
  await expect(start.stage('inbox')).toHaveAttribute('data-state', 'done');
  await expect(start.stage('inbox')).toContainText('Not asked: allowed by autonomy supervised');
  await expect(start.stage('result')).toContainText('Not executed: dry-run');
  await start.expectDone('test', true);
  await start.expectProgress(2);
  const callId = await start.testCallId();

  // The plugin's Health row is one click away.
  await start.openHealthLink.click();
  await expect(new HealthPage(app.page).row('hello')).toBeVisible();

  // And the audit log, searching the test call's session.
  await start.open();
  await start.openAuditLink.click();
  await expect(app.audit.root.getByRole('heading', { level: 1, name: 'Audit' })).toBeVisible();
  const received = app.audit.rows.filter({ hasText: 'call.received' });
  await expect(received).toHaveCount(1);
  await expect(received).toContainText('agent:console-test');
  await expect(app.audit.rows.filter({ hasText: 'approval.requested' })).toHaveCount(0);
  await expect(app.audit.rows.filter({ hasText: 'gateway.test-call' })).toHaveCount(1);
  await received.click();
  await expect(app.audit.detail).toContainText(callId);
  await expect(app.page.getByTestId('audit-detail-json')).toContainText('"source": "console"');
  // The host's log says the same (not only what the console rendered).
  const events = await auditTail(home);
  expect(events.some((e) => e.type === 'call.received' && (e.payload as { call?: string }).call === callId && e.actor === 'agent:console-test')).toBe(true);

  // Marking the agent step done completes the walk; dismissing keeps it closed after a reload.
  await start.open();
  await start.agentSkipButton.click();
  await start.expectDone('agent', true);
  await start.expectProgress(3);
  await start.dismissButton.click();
  await expect(new ApprovalsPage(app.page).root).toBeVisible();
  await app.page.reload();
  await app.status.expectConnected();
  await expect(app.navItem('approvals')).toHaveAttribute('aria-current', 'page');
  await start.open();
  await expect(app.page.getByTestId('start-dismissed')).toBeVisible();
  await expect(start.restoreButton).toBeVisible();
});

test('the example plugins of a new home are listed, not enabled; Start reopens from the sidebar after a dismiss', async ({ console: app }) => {
  await app.status.expectConnected();
  const start = new GettingStartedPage(app.page);
  await start.expectShown();
  await start.dismissButton.click();
  await expect(start.navItem).not.toHaveAttribute('aria-current', 'page');

  await app.open('plugins');
  const plugins = new PluginsPage(app.page);
  for (const name of ['hello', 'path-guard', 'rate-limit']) await expect(plugins.row(name)).toHaveAttribute('data-status', 'disabled');

  await app.page.keyboard.press('Alt+0');
  await start.expectShown();
  await start.restoreButton.click();
  await expect(start.dismissButton).toBeVisible();
});

test.describe('a home whose hello may write', () => {
  test.use({ homeSetup: { plugins: ['hello'], helloWrites: true } });

  test('the test call waits in the inbox, the keyboard approves it, and the panel shows it decided', async ({ console: app }) => {
    await app.status.expectConnected();
    const start = new GettingStartedPage(app.page);
    await start.expectShown();
    await start.expectDone('plugin', true);

    // Step 3: the test call waits in the inbox; the panel says so.
    await start.sendButton.click();
    await start.expectTestCallStage('waiting');
    await expect(start.testCall).toHaveAttribute('data-approval-state', 'pending');
    await expect(start.stage('inbox')).toHaveAttribute('data-state', 'current');
    await expect(start.stage('inbox')).toContainText('Waiting for you in the inbox');

    await start.openInboxLink.click();
    const inbox = new ApprovalsPage(app.page);
    await expect(inbox.root.getByRole('heading', { level: 1, name: 'Approvals' })).toBeVisible();
    const item = inbox.item('"Gatehouse"');
    await expect(item).toHaveCount(1);
    await expect(item.getByTestId('approval-agent')).toHaveText('console-test');
    await expect(item.getByTestId('approval-tool')).toHaveText('hello');
    await expect(item).toHaveAttribute('data-active', 'true');
    await inbox.press('a');
    await inbox.expectPending(0);

    // Back in the panel: decided by the operator, and not executed because of dry run.
    await start.open();
    await start.expectTestCallStage('finished');
    await expect(start.testCall).toHaveAttribute('data-approval-state', 'approved');
    await expect(start.testCall).toHaveAttribute('data-executed', 'false');
    await expect(start.stage('inbox')).toHaveAttribute('data-state', 'done');
    await expect(start.stage('inbox')).toContainText('Approved by');
    await expect(start.stage('result')).toContainText('Not executed: dry-run');
    await start.expectDone('test', true);
  });
});
