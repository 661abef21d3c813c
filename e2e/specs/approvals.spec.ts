// The approval inbox end to end: real MCP clients (Streamable HTTP with the agent token, and the
// `gatehouse mcp` stdio bridge) call the example `hello` plugin, given a write path so that it
// does more than read (hello as shipped is let through as a read), on a live host; the call waits in
// the inbox, the operator decides from the keyboard, and the agent gets the plugin's answer, the
// denial reason, or `expired` — with progress notifications while it waits.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage, GrantsPage } from '../pages/approvals-page.ts';
import { auditTail, callTool, httpAgent, resultText, stdioAgent } from '../support/agents.ts';
import { boxOf, textBoxOf } from '../support/layout.ts';

test.describe('a live host with the hello plugin', () => {
  test.use({ homeSetup: { settings: { mode: 'live' }, plugins: ['hello'], helloWrites: true } });

  test('a call over /mcp waits in the inbox, the keyboard approves it, and the agent gets the result', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    await inbox.expectPending(0);

    const agent = await httpAgent(home, 'e2e-http-agent');
    try {
      const call = callTool(agent, 'hello', { name: 'Ada' });
      const item = inbox.item('"Ada"');
      await expect(item).toHaveCount(1);
      await expect(item.getByTestId('approval-tool')).toHaveText('hello');
      // The agent is the token's name; the client's own name is a label beside it.
      await expect(item.getByTestId('approval-agent')).toHaveText('default');
      await expect(item.getByTestId('approval-client')).toHaveText('(e2e-http-agent)');
      // The selected row's call is in the detail pane beside the list.
      await expect(inbox.detail.getByTestId('approval-asked-by')).toContainText('autonomy supervised');
      await expect(inbox.detail.getByTestId('approval-operations')).toContainText('execute');
      await expect(item.getByTestId('approval-countdown')).toHaveText(/^\d+:\d\d left$/);
      await expect(item).toHaveAttribute('data-active', 'true');
      // The badge and the title say it from any view.
      await expect(inbox.badge).toHaveText('1');
      await expect(app.page).toHaveTitle(/^\(1\) Approvals/);
      const id = await inbox.idOf(item);

      await inbox.press('a');
      const result = await call.result;
      expect(result.isError ?? false).toBe(false);
      expect(resultText(result)).toContain('Hello, Ada.');
      expect(call.progress.length, 'progress notifications while the call waited').toBeGreaterThan(0);
      expect(call.progress[0]!.message).toContain(id);

      await inbox.expectPending(0);
      await expect(inbox.badge).toHaveCount(0);
      await expect(app.page).toHaveTitle(/^Approvals/);
      const row = inbox.historyRow(id);
      await expect(row).toHaveAttribute('data-state', 'approved');
      await expect(row.getByTestId('history-outcome')).toHaveText('Approved');
      await expect(row.getByTestId('history-decider')).toContainText('operator');

      // It really ran: the runner recorded it.
      const events = await auditTail(home);
      expect(events.some((e) => e.type === 'execution.started')).toBe(true);
    } finally {
      await agent.close();
    }
  });

  test('over the stdio bridge: j/k move, Enter opens details, keys in the filter do nothing, d denies with a reason, a approves the other', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');

    const agent = await stdioAgent(home, 'e2e-stdio-agent');
    try {
      const ada = callTool(agent, 'hello', { name: 'Ada' });
      await expect(inbox.item('"Ada"')).toHaveCount(1);
      const grace = callTool(agent, 'hello', { name: 'Grace' });
      await expect(inbox.item('"Grace"')).toHaveCount(1);
      await inbox.expectPending(2);
      await expect(inbox.item('"Ada"').getByTestId('approval-agent')).toHaveText('default');
      await expect(inbox.item('"Ada"').getByTestId('approval-client')).toHaveText('(e2e-stdio-agent)');

      // Oldest first; the highlight starts on it.
      await expect(inbox.active).toHaveCount(1);
      await expect(inbox.item('"Ada"')).toHaveAttribute('data-active', 'true');
      await inbox.press('j');
      await expect(inbox.item('"Grace"')).toHaveAttribute('data-active', 'true');
      await inbox.press('k');
      await expect(inbox.item('"Ada"')).toHaveAttribute('data-active', 'true');
      await inbox.press('ArrowDown');
      await expect(inbox.item('"Grace"')).toHaveAttribute('data-active', 'true');

      await inbox.press('Enter');
      await expect(inbox.detail).toHaveAttribute('data-id', await inbox.idOf(inbox.item('"Grace"')));
      await expect(inbox.detail.getByTestId('approval-args-hash')).toHaveText(/^[0-9a-f]{64}$/);
      // Details are per call: Ada's stay closed.
      await inbox.press('k');
      await expect(inbox.detail).toHaveAttribute('data-id', await inbox.idOf(inbox.item('"Ada"')));
      await expect(inbox.detail.getByTestId('approval-details')).toHaveCount(0);
      await inbox.press('j');

      // Typing "Grace" (with an a in it) filters; it approves nothing.
      await inbox.filterText.fill('');
      await inbox.filterText.pressSequentially('Grace');
      await expect(inbox.items).toHaveCount(1);
      await inbox.expectPending(2);
      await inbox.filterText.fill('');
      await expect(inbox.items).toHaveCount(2);
      await inbox.item('"Grace"').click();
      await expect(inbox.item('"Grace"')).toHaveAttribute('data-active', 'true');

      // Deny: a reason is required; Enter submits.
      const graceId = await inbox.idOf(inbox.item('"Grace"'));
      await inbox.press('d');
      await expect(inbox.denyDialog).toBeVisible();
      await expect(inbox.denyReason).toBeFocused();
      await inbox.denyReason.press('Enter');
      await expect(app.page.getByTestId('deny-reason-required')).toBeVisible();
      await expect(inbox.denyDialog).toBeVisible();
      await inbox.denyReason.fill('not during the release freeze');
      await inbox.denyReason.press('Enter');
      await expect(inbox.denyDialog).toHaveCount(0);

      const denied = await grace.result;
      expect(denied.isError).toBe(true);
      expect(resultText(denied)).toContain('not during the release freeze');
      expect(grace.progress.length).toBeGreaterThan(0);
      const row = inbox.historyRow(graceId);
      await expect(row).toHaveAttribute('data-state', 'denied');
      await expect(row.getByTestId('history-reason')).toHaveText('not during the release freeze');
      await expect(row.getByTestId('history-decider')).toContainText('operator');

      // The highlight falls to the one left; a approves it.
      await inbox.expectPending(1);
      await expect(inbox.item('"Ada"')).toHaveAttribute('data-active', 'true');
      await inbox.press('a');
      const approved = await ada.result;
      expect(resultText(approved)).toContain('Hello, Ada.');
      expect(ada.progress.length).toBeGreaterThan(0);
      await inbox.expectPending(0);
    } finally {
      await agent.close();
    }
  });

  test('approve for this session creates a grant that lets the same call through, until it is revoked', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    const grants = new GrantsPage(app.page);
    await app.open('grants');
    await expect(grants.rows).toHaveCount(0);
    await app.open('approvals');

    const agent = await httpAgent(home, 'e2e-session-agent');
    try {
      const first = callTool(agent, 'hello', { name: 'Ada' });
      await expect(inbox.item('"Ada"')).toHaveCount(1);
      await inbox.press('s');
      await expect(inbox.sessionDialog).toBeVisible();
      // The default expiry comes from the settings (60 minutes unless changed).
      await expect(app.page.getByTestId('session-minutes')).toHaveValue('60');
      // The pattern field has the focus (autoFocus), not the first field of the dialog.
      await expect(app.page.getByTestId('session-pattern')).toBeFocused();
      await app.page.keyboard.press('Enter');
      expect(resultText(await first.result)).toContain('Hello, Ada.');
      await inbox.expectPending(0);

      await app.open('grants');
      const row = grants.row('hello');
      await expect(row).toHaveCount(1);
      // The token's agent (serve.json's is "default"), not the name the client gave itself.
      await expect(row).toHaveAttribute('data-agent', 'default');
      await expect(row.getByTestId('grant-match')).toContainText('exact');
      await expect(row.getByTestId('grant-countdown')).toHaveText(/^(59|60):\d\d$/);

      // The same call again: the grant allows it without asking.
      const again = callTool(agent, 'hello', { name: 'Ada' });
      expect(resultText(await again.result)).toContain('Hello, Ada.');
      expect(again.progress).toHaveLength(0);

      await grants.revoke('hello');
      await expect(grants.rows).toHaveCount(0);

      // Revoked: it asks again.
      await app.open('approvals');
      const third = callTool(agent, 'hello', { name: 'Ada' });
      await expect(inbox.item('"Ada"')).toHaveCount(1);
      await (await inbox.select('"Ada"')).getByTestId('approval-deny').click();
      await inbox.denyReason.fill('grant revoked');
      await app.page.getByTestId('deny-confirm').click();
      expect(resultText(await third.result)).toContain('grant revoked');
    } finally {
      await agent.close();
    }
  });

  test('a grant with a long argument pattern fits a 1280x800 window: the pattern is cut short with a tooltip, Revoke stays on screen', async ({ console: app, home }) => {
    const viewport = { width: 1280, height: 800 };
    await app.page.setViewportSize(viewport);
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    const grants = new GrantsPage(app.page);
    await app.open('approvals');

    const agent = await httpAgent(home, 'e2e-long-pattern-agent');
    try {
      // One long word: nothing for the browser to wrap at.
      const name = `Ada-${'analytical-engine-notes-'.repeat(12)}`;
      const pattern = `{"name":"${name}*"}`;
      const call = callTool(agent, 'hello', { name });
      await expect(inbox.item('Ada-analytical')).toHaveCount(1);
      await inbox.press('s');
      await expect(inbox.sessionDialog).toBeVisible();
      await app.page.getByTestId('session-pattern').fill(pattern);
      await app.page.getByTestId('session-pattern').press('Enter');
      expect(resultText(await call.result)).toContain('Hello, Ada-analytical');

      await app.open('grants');
      const row = grants.row('hello');
      await expect(row).toHaveCount(1);
      await expect(row.getByTestId('grant-match')).toHaveAttribute('title', `Arguments matching ${pattern}`);
      const revoke = grants.revokeButton('hello');
      await expect(revoke).toBeVisible();
      const button = (await revoke.boundingBox())!;
      const table = (await grants.table.boundingBox())!;
      expect(button.x + button.width, 'Revoke ends inside the window').toBeLessThanOrEqual(viewport.width);
      expect(table.x + table.width, 'the table ends inside the window').toBeLessThanOrEqual(viewport.width);
      expect(button.x + button.width, 'Revoke ends inside the table').toBeLessThanOrEqual(table.x + table.width);

      await grants.revoke('hello');
      await expect(grants.rows).toHaveCount(0);
    } finally {
      await agent.close();
    }
  });

  test('batch decisions act on the filtered selection and report each item', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');

    const agent = await httpAgent(home, 'e2e-batch-agent');
    try {
      const calls = Object.fromEntries(['Ada', 'Grace', 'Alan'].map((n) => [n, callTool(agent, 'hello', { name: n })]));
      await inbox.expectPending(3);

      await inbox.filterText.fill('Grace');
      await expect(inbox.items).toHaveCount(1);
      await expect(inbox.batchDeny).toHaveText(/\(1\)/);
      await inbox.batchDeny.click();
      await inbox.denyReason.fill('one at a time');
      await inbox.denyReason.press('Enter');
      await expect(inbox.batchResults).toHaveCount(1);
      await expect(inbox.batchResults.first()).toHaveAttribute('data-ok', 'true');
      expect(resultText(await calls.Grace!.result)).toContain('one at a time');

      await inbox.filterText.fill('');
      await inbox.expectPending(2);
      await inbox.batchApprove.click();
      await expect(inbox.batchResults).toHaveCount(2);
      await expect(app.page.getByTestId('batch-summary')).toHaveText('2 approved');
      expect(resultText(await calls.Ada!.result)).toContain('Hello, Ada.');
      expect(resultText(await calls.Alan!.result)).toContain('Hello, Alan.');
      await inbox.expectPending(0);
    } finally {
      await agent.close();
    }
  });

  test('always shows the rule it would add, saves it on confirm, and the same call no longer asks', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-always-'));
    const target = join(dir, 'always.txt');
    const agent = await httpAgent(home, 'e2e-always-agent');
    const agents = [agent];
    try {
      // A call that touches no path or host cannot become a rule: the host says why.
      const hello = callTool(agent, 'hello', { name: 'Ada' });
      await expect(inbox.item('"Ada"')).toHaveCount(1);
      await (await inbox.select('"Ada"')).getByTestId('approval-always').click();
      await expect(inbox.alwaysDialog.getByRole('alert')).toContainText('touches no path or host');
      await expect(app.page.getByTestId('always-confirm')).toBeDisabled();
      await app.page.keyboard.press('Escape');
      await expect(inbox.alwaysDialog).toHaveCount(0);
      await (await inbox.select('"Ada"')).getByTestId('approval-approve').click();
      expect(resultText(await hello.result)).toContain('Hello, Ada.');

      // The built-in shell tool writing one file: the rule names that file. (A new session: the
      // first one carries hello's output now, and session taint keeps it off the shell tool.)
      const writer = await httpAgent(home, 'e2e-always-writer');
      agents.push(writer);
      const touch = callTool(writer, 'shell', { command: `touch ${target}` });
      const item = inbox.item(target);
      await expect(item).toHaveCount(1);
      const pane = await inbox.select(target);
      await expect(pane.getByTestId('approval-paths')).toContainText(target);
      await pane.getByTestId('approval-always').click();
      await expect(app.page.getByTestId('always-yaml')).toContainText(target);
      await expect(app.page.getByTestId('always-yaml')).toContainText('allow');
      await app.page.getByTestId('always-confirm').click();
      await expect(inbox.alwaysDialog).toHaveCount(0);
      expect((await touch.result).isError ?? false).toBe(false);
      expect(existsSync(target)).toBe(true);
      const id = await inbox.historyRows.first().getAttribute('data-id');
      await expect(inbox.historyRow(id!)).toHaveAttribute('data-state', 'approved');
      await expect(inbox.historyRow(id!).getByTestId('history-outcome')).toHaveText('Approved (always)');
      expect((await auditTail(home)).some((e) => e.type === 'policy.rule-added')).toBe(true);

      // The rule allows the same call from now on: no question, no waiting.
      const again = callTool(writer, 'shell', { command: `touch ${target}` });
      expect((await again.result).isError ?? false).toBe(false);
      expect(again.progress).toHaveLength(0);
      await inbox.expectPending(0);
    } finally {
      for (const a of agents) await a.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test.describe('a live host whose approvals expire after 3 s', () => {
  test.use({ homeSetup: { settings: { mode: 'live', approvalExpiryMinutes: 0.05 }, plugins: ['hello'], helloWrites: true } });

  test('nobody decides: the agent is told it expired, the history says expired (not denied), and the plugin never ran', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');

    const agent = await httpAgent(home, 'e2e-expiry-agent');
    try {
      const call = callTool(agent, 'hello', { name: 'Ada' });
      const item = inbox.item('"Ada"');
      await expect(item).toHaveCount(1);
      const id = await inbox.idOf(item);
      await expect(item.getByTestId('approval-countdown')).toHaveText(/^0:0[0-3] left$|^expiring…$/);

      const result = await call.result;
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain('expired');
      expect(call.progress.length).toBeGreaterThan(0);

      const row = inbox.historyRow(id);
      await expect(row).toHaveAttribute('data-state', 'expired');
      await expect(row.getByTestId('history-outcome')).toHaveText('Expired');
      await inbox.expectPending(0);

      const events = await auditTail(home);
      expect(events.some((e) => e.type === 'approval.expired' && e.payload.id === id)).toBe(true);
      expect(events.filter((e) => e.type === 'execution.started')).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});

test('the mode shows in the status bar at all times, and switching it is recorded', async ({ console: app, home }) => {
  await app.status.expectConnected();
  // A new install starts in dry-run, supervised.
  await expect(app.status.mode).toHaveAttribute('data-mode', 'dry-run');
  await expect(app.status.mode).toContainText('DRY RUN');
  await expect(app.status.autonomy).toHaveText('supervised');
  for (const v of ['plugins', 'grants', 'audit'] as const) {
    await app.open(v);
    await expect(app.status.mode).toBeVisible();
  }

  await app.status.mode.click();
  const dialog = app.status.modeDialog;
  await expect(dialog).toBeVisible();
  // Going live, the keyboard starts on Cancel: Enter by habit keeps dry run.
  await expect(app.status.modeConfirm).toHaveText('Go live');
  await expect(app.page.getByTestId('mode-cancel')).toBeFocused();
  // "Now: …" wraps inside the dialog instead of running out of it (it sits in the status bar,
  // which does not wrap).
  const box = await boxOf(dialog);
  const text = await textBoxOf(app.status.modeNow);
  expect(text.right, 'the "Now" text ends inside the dialog').toBeLessThanOrEqual(box.right);
  expect(text.bottom, 'the "Now" text ends inside the dialog').toBeLessThanOrEqual(box.bottom);
  await app.page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(app.status.mode).toHaveAttribute('data-mode', 'dry-run');
  await app.status.mode.click();
  await app.status.modeConfirm.click();
  await expect(dialog).toHaveCount(0);
  await expect(app.status.mode).toHaveAttribute('data-mode', 'live');
  await expect(app.status.mode).toContainText('LIVE');

  const events = await auditTail(home);
  const switched = events.find((e) => e.type === 'gateway.mode-changed');
  expect(switched?.payload).toEqual({ from: 'dry-run', to: 'live', console: 'serve' });
  expect(switched?.actor).toMatch(/^operator:/);

  // Cancel changes nothing.
  await app.status.mode.click();
  await app.page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(app.status.mode).toHaveAttribute('data-mode', 'live');
});
