// Supervising an agent in a terminal through its adapter, in a real browser against a real
// `gatehouse serve`: the fixture agent (a program that asks permission with numbered options)
// runs with its adapter; its row says "waiting for permission"; the question is in the inbox;
// an approval is typed back and the agent goes on; a denial and it is told no.
import { cpSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage } from '../pages/approvals-page.ts';
import { TerminalsPage } from '../pages/terminals-page.ts';
import type { ConsolePage } from '../pages/console-page.ts';
import type { Locator } from '@playwright/test';

/**
 * Drops the fixture adapter into the running host's plugins folder, starts its agent from
 * Terminals and waits for its row to show it waiting for permission.
 */
async function startFixture(app: ConsolePage, home: string): Promise<{ terminals: TerminalsPage; state: Locator }> {
  // Dropped into the plugins folder of the running host: adapters are read again when listed.
  // Copied beside it first and moved in whole: the host watches that folder, and a copy seen
  // half-made and then changed is quarantined (a changed adapter is, until approved).
  mkdirSync(join(home, 'plugins'), { recursive: true });
  const staged = join(home, 'permission-agent.staged');
  cpSync(join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'adapters', 'permission-agent'), staged, { recursive: true });
  renameSync(staged, join(home, 'plugins', 'permission-agent'));
  const agent = join(home, 'plugins', 'permission-agent', 'agent.mjs');

  await app.status.expectConnected();
  await app.open('terminals');
  const terminals = new TerminalsPage(app.page);
  await app.page.getByTestId('terminal-run-adapter').click();
  await expect(app.page.getByTestId('adapter-select')).toHaveValue('permission-agent');
  // A command of its own, so the agent works outside the plugin folder (where policy would refuse its deletes outright).
  await app.page.getByTestId('adapter-command').fill(`${process.execPath} ${agent}`);
  await app.page.getByTestId('adapter-start').click();
  const row = terminals.rows.filter({ hasText: 'adapter permission-agent' });
  await expect(row).toHaveCount(1);
  const state = row.getByTestId('terminal-adapter-state');
  await expect(state).toHaveAttribute('data-state', 'waiting_for_permission');
  return { terminals, state };
}

test.describe('live', () => {
  // Live: an operator's answer is typed into the program.
  test.use({ homeSetup: { settings: { mode: 'live' } } });

  test('run the fixture agent with its adapter: waiting for permission, approve from the inbox, deny the next', async ({ console: app, home }) => {
    const { terminals, state } = await startFixture(app, home);
    await expect(state).toContainText('waiting for permission');
    await terminals.expectLine(/^Agent wants to run the command: rm -rf build$/);

    await app.open('approvals');
    const inbox = new ApprovalsPage(app.page);
    const first = await inbox.select('rm -rf build');
    await expect(inbox.item('rm -rf build')).toHaveAttribute('data-agent', /^terminal:pty-/);
    await first.getByTestId('approval-approve').click();

    await app.open('terminals');
    await terminals.expectLine(/^got 1: allowed, continuing \(removed build\/\)$/);
    await terminals.expectLine(/^Agent wants to run the command: git push --force origin main$/);
    await expect(state).toHaveAttribute('data-state', 'waiting_for_permission');

    await app.open('approvals');
    await (await inbox.select('git push --force')).getByTestId('approval-deny').click();
    await inbox.denyReason.fill('not on main');
    await app.page.getByTestId('deny-confirm').click();

    await app.open('terminals');
    await terminals.expectLine(/^got 2: told no, skipping$/);
    await terminals.expectLine(/^All done\.$/);
    await expect(state).toHaveAttribute('data-state', 'done');
  });
});

test('dry-run: the question approved from the inbox is not answered; the program still waits and the views say nothing was typed', async ({ console: app, home }) => {
  // A new install is in dry-run.
  const { terminals, state } = await startFixture(app, home);

  await app.open('approvals');
  const inbox = new ApprovalsPage(app.page);
  await (await inbox.select('rm -rf build')).getByTestId('approval-approve').click();

  // The answer Gatehouse gave, as the log has it: nothing typed, the question left to the person at the terminal.
  await app.open('audit');
  const answered = app.audit.rows.filter({ hasText: 'adapter.answered' });
  await expect(answered).toHaveCount(1);
  await answered.click();
  await expect(app.page.getByTestId('audit-detail')).toContainText('dry-run');
  await expect(app.page.getByTestId('audit-detail')).toContainText('nothing was typed');

  await app.open('terminals');
  await expect(state).toHaveAttribute('data-state', 'waiting_for_permission');
  await terminals.expectLine(/^Agent wants to run the command: rm -rf build$/);
  expect((await terminals.screen()).some((line) => /^got 1/.test(line))).toBe(false);
});
