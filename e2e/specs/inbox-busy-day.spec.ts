// The operator's busy day (issue #26 items 1–5), in Chromium against a live `gatehouse serve`:
// real Claude Code hook requests (`hookAsk: inbox`, so each waits for an operator) from two named
// agent tokens, with long session ids as Claude Code sends them.
//  - 200 waiting calls where identical ones fold into one row with a count; deciding the folded
//    row decides each call (each answered, each in the audit log); rows picked with
//    Shift/Ctrl-click and x are decided in bulk.
//  - At 1440×900 a row leads with its command, shown whole when it is short, and the deadline is
//    never cut; the session is its first eight characters.
//  - `a` on an evasive call stops and asks, as "Approve all" does; Cancel (focused) approves nothing.
//  - "Don't ask again" releases the waiting calls its grant covers, recorded as decided by the
//    grant; its preview names them "waiting".
//  - At 1024×700 the decision (buttons, summary, who asked, the command) is on screen.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage } from '../pages/approvals-page.ts';
import { auditTail, hookCall, hostCall, serveFile, type HookAnswer } from '../support/agents.ts';
import { boxOf } from '../support/layout.ts';

/** `rm -rf ~` in base64, piped into a shell: evasive. */
const EVASIVE = 'echo cm0gLXJmIH4= | base64 -d | sh';

const shots = join(import.meta.dirname, '..', '..', '.tmp', 'inbox-busy-day');

async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

/** The text of this cell fits it: nothing cut off by an ellipsis. */
async function expectWhole(cell: Locator, what: string): Promise<void> {
  const { scroll, client, text } = await cell.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, text: el.textContent ?? '' }));
  expect(scroll, `${what} (${JSON.stringify(text)}) is not cut: scrollWidth ${scroll} <= clientWidth ${client}`).toBeLessThanOrEqual(client);
  expect(client, `${what} has room`).toBeGreaterThan(0);
}

/** Every pending call denied, so the hook requests end with the test. */
async function denyRest(home: string): Promise<void> {
  const { items } = await hostCall<{ items: { id: string; argsHash: string }[] }>(home, 'approvals.list', { state: 'pending' });
  if (items.length > 0) await hostCall(home, 'approvals.batch', { action: 'deny', reason: 'end of test', items: items.map((i) => ({ id: i.id, argsHash: i.argsHash })) });
}

function project(): string {
  // Outside GATEHOUSE_HOME, whose files are Gatehouse's own (and protected).
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'gh-busy-')));
  test.info().attach('project', { body: dir }).catch(() => {});
  return dir;
}

/** Answers as they come, by label: a call answered before the operator decided shows up here. */
function track(answers: Map<string, Promise<HookAnswer>>): Map<string, string> {
  const got = new Map<string, string>();
  for (const [label, p] of answers) p.then((a) => got.set(label, a.hookSpecificOutput?.permissionDecision ?? 'none'), (e: unknown) => got.set(label, `error ${String(e)}`));
  return got;
}

/**
 * The first judgement on a cold host, on a busy machine, can pass the extractor's deadline and is
 * then denied (fail closed, by design): one call first, until one waits, so the calls the test is
 * about meet a warm judge. The waiting one is denied again and leaves the inbox empty.
 */
async function warmUp(home: string, token: string, dir: string, inbox: ApprovalsPage): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = hookCall(home, token, 'warm-up', dir, 'Bash', { command: `npm run warm-up -- ${attempt}` });
    const outcome = await Promise.race([answer.then(() => 'answered' as const), expect(inbox.pendingCount).toHaveAttribute('data-count', '1').then(() => 'waiting' as const, () => 'answered' as const)]);
    if (outcome === 'waiting') {
      await denyRest(home);
      await answer;
      await inbox.expectPending(0);
      return;
    }
  }
  throw new Error('no call waited in the inbox after three tries: every judgement passed its deadline');
}

test.describe('a live host whose hook calls wait in the inbox', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' } } });

  test('200 waiting calls: identical ones fold and are decided together, rows lead with the command, a asks before approving an evasive call, picked rows are decided in bulk', async ({ console: app, home }) => {
    test.setTimeout(150_000);
    await app.page.setViewportSize({ width: 1440, height: 900 });
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    const dir = project();
    const [ada, grace] = await Promise.all(['ada', 'grace'].map((name) => hostCall<{ token: string }>(home, 'agents.tokens.create', { name }).then((r) => r.token)));
    const sessions = [randomUUID(), randomUUID(), randomUUID()];
    await warmUp(home, ada!, dir, inbox);

    // 15 identical force-pushes from three of ada's sessions, 10 identical `npm test` from grace,
    // 174 distinct builds, and one evasive call: 200 calls, 177 rows.
    const answers = new Map<string, Promise<HookAnswer>>();
    for (let i = 0; i < 15; i++) answers.set(`push-${i}`, hookCall(home, ada!, sessions[i % 3]!, dir, 'Bash', { command: 'git push --force origin main' }));
    for (let i = 0; i < 10; i++) answers.set(`test-${i}`, hookCall(home, grace!, sessions[0]!, dir, 'Bash', { command: 'npm test' }));
    for (let i = 0; i < 174; i++) answers.set(`build-${i}`, hookCall(home, i % 2 ? ada! : grace!, sessions[i % 3]!, dir, 'Bash', { command: `npm run build -- --part=${i}` }));
    answers.set('evasive', hookCall(home, grace!, sessions[1]!, dir, 'Bash', { command: EVASIVE, description: 'Tidy up the workspace' }));
    const got = track(answers);

    await expect(inbox.pendingCount, 'every call waits').toHaveAttribute('data-count', '200', { timeout: 60_000 });
    expect([...got]).toEqual([]);
    await expect(inbox.list).toHaveAttribute('data-calls', '200');
    await expect(inbox.list).toHaveAttribute('data-rows', '177');
    const push = inbox.item('git push --force origin main');
    await expect(push).toHaveCount(1);
    await expect(push).toHaveAttribute('data-count', '15');
    await expect(push.getByTestId('approval-count')).toHaveText('×15');
    await expect(push.getByTestId('approval-session')).toHaveText('3 sess.');
    const tests = inbox.item('npm test');
    await expect(tests).toHaveAttribute('data-count', '10');
    // A short session: the first eight characters of the client's id, the whole one in the title.
    await expect(tests.getByTestId('approval-session')).toHaveText(sessions[0]!.slice(0, 8));
    await expect(tests.getByTestId('approval-session')).toHaveAttribute('title', new RegExp(sessions[0]!));

    // Rows lead with what the call does, whole when it is short: the evasive row (EVASIVE badge
    // and all), a folded row (its count badge), an ordinary one; the deadline is never cut.
    const evasive = inbox.items.first();
    await expect(evasive).toHaveAttribute('data-risk', 'evasive');
    await shoot(app.page, 'inbox-1440x900');
    for (const [row, what] of [[evasive, 'the evasive row'], [push, 'the folded push row'], [tests, 'the folded test row']] as const) {
      await expectWhole(row.getByTestId('approval-summary'), `${what}'s command`);
      await expectWhole(row.getByTestId('approval-countdown'), `${what}'s deadline`);
      const rowBox = await boxOf(row);
      const deadline = await boxOf(row.getByTestId('approval-countdown'));
      expect(deadline.right, `${what}'s deadline inside the row`).toBeLessThanOrEqual(rowBox.right);
    }
    await expect(evasive.getByTestId('approval-summary')).toHaveText(EVASIVE);

    // `a` on the evasive call stops and asks, as Approve all would; Cancel has the focus. (The
    // highlight stays on the call first shown while the others arrive: the operator moves to it.)
    await evasive.click();
    await expect(evasive).toHaveAttribute('data-active', 'true');
    await inbox.press('a');
    const confirm = app.page.getByTestId('batch-approve-dialog');
    await expect(confirm).toBeVisible();
    await expect(confirm).toContainText('Approve this call?');
    await expect(confirm.getByTestId('batch-approve-concerns')).toContainText('evasive');
    await expect(app.page.getByTestId('batch-approve-cancel')).toBeFocused();
    await app.page.keyboard.press('Enter');
    await expect(confirm).toHaveCount(0);
    await inbox.expectPending(200);
    expect(got.has('evasive'), 'the evasive call is still waiting').toBe(false);
    await inbox.press('d');
    await inbox.denyReason.fill('Decoded, this deletes the home folder.');
    await inbox.denyReason.press('Enter');
    expect((await answers.get('evasive'))!.hookSpecificOutput?.permissionDecision).toBe('deny');
    await inbox.expectPending(199);

    // The folded push row: `a` asks (it reaches the network), then approves each of the 15.
    await push.click();
    await expect(inbox.detail.getByTestId('approval-folded')).toHaveAttribute('data-count', '15');
    await expect(inbox.detail.getByTestId('approval-approve')).toContainText('Approve all 15');
    await inbox.press('a');
    await expect(confirm).toContainText('Approve 15 calls?');
    await app.page.getByTestId('batch-approve-confirm').click();
    await inbox.expectPending(184);
    for (let i = 0; i < 15; i++) expect((await answers.get(`push-${i}`))!.hookSpecificOutput?.permissionDecision).toBe('allow');
    await expect(inbox.item('git push --force')).toHaveCount(0);
    // Each was decided on its own, by the operator, in the audit log.
    const decided = (await auditTail(home, 1000)).filter((e) => e.type === 'approval.decided' && e.payload['state'] === 'approved');
    expect(decided.filter((e) => e.actor.startsWith('operator:'))).toHaveLength(15);

    // Multi-select: click one build row, Shift-click the third below it, Ctrl-click one more, x on
    // the active row drops it again; then Approve selected decides exactly those calls.
    const builds = inbox.items.filter({ has: app.page.getByTestId('approval-summary').filter({ hasText: 'npm run build' }) });
    await builds.nth(0).click();
    await builds.nth(3).click({ modifiers: ['Shift'] });
    await builds.nth(5).click({ modifiers: ['ControlOrMeta'] });
    const selected = app.page.locator('[data-testid="approval-item"][data-selected="true"]');
    await expect(selected).toHaveCount(5);
    await expect(builds.nth(5)).toHaveAttribute('data-active', 'true');
    await inbox.press('x');
    await expect(selected).toHaveCount(4);
    const picked = await selected.evaluateAll((rows) => rows.map((r) => r.querySelector('[data-testid="approval-summary"]')?.textContent ?? ''));
    await expect(app.page.getByTestId('approvals-selection')).toHaveAttribute('data-count', '4');
    await expect(inbox.batchApprove).toHaveText('Approve selected (4)');
    await inbox.batchApprove.click();
    await inbox.expectPending(180);
    await expect.poll(() => [...got].filter(([k, v]) => k.startsWith('build-') && v === 'allow').map(([k]) => `npm run build -- --part=${k.slice('build-'.length)}`).sort()).toEqual([...picked].sort());
    for (const text of picked) await expect(app.page.getByTestId('approval-summary').getByText(text, { exact: true })).toHaveCount(0);
    await expect(selected).toHaveCount(0);
    await expect(inbox.batchApprove).toHaveText('Approve all (180)');

    await denyRest(home);
    await inbox.expectPending(0);
    rmSync(dir, { recursive: true, force: true });
  });

  test('"Don\'t ask again" releases the waiting calls its grant covers (decided by the grant), not another session\'s', async ({ console: app, home }) => {
    await app.page.setViewportSize({ width: 1440, height: 900 });
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    const dir = project();
    const { agentToken } = await serveFile(home);
    const [mine, other] = [randomUUID(), randomUUID()];
    await warmUp(home, agentToken, dir, inbox);
    const answers = new Map<string, Promise<HookAnswer>>();
    answers.set('first', hookCall(home, agentToken, mine, dir, 'Bash', { command: 'npm test' }));
    await inbox.expectPending(1);
    for (let i = 1; i <= 4; i++) answers.set(`shard-${i}`, hookCall(home, agentToken, mine, dir, 'Bash', { command: `npm test -- --shard=${i}` }));
    answers.set('other-session', hookCall(home, agentToken, other, dir, 'Bash', { command: 'npm test -- --shard=9' }));
    answers.set('not-covered', hookCall(home, agentToken, mine, dir, 'Bash', { command: 'npm run lint' }));
    const got = track(answers);
    await expect(inbox.pendingCount).toHaveAttribute('data-count', '7', { timeout: 30_000 });

    await inbox.item('npm test').filter({ hasNotText: 'shard' }).click();
    await inbox.press('g');
    const dialog = app.page.getByTestId('grant-dialog');
    await expect(dialog).toBeVisible();
    await expect(app.page.getByTestId('grant-value-command')).toHaveValue('npm test');
    await expect(app.page.getByTestId('grant-preview-count')).toHaveAttribute('data-count', '4');
    await expect(app.page.getByTestId('grant-preview-waiting')).toHaveAttribute('data-count', '4');
    const examples = app.page.getByTestId('grant-preview-examples').locator('li');
    await expect(examples).toHaveCount(4);
    for (const e of await examples.all()) await expect(e).toContainText('· waiting ·');
    await app.page.getByTestId('grant-confirm').click();
    await expect(dialog).toHaveCount(0);

    // The call it was made from, and the four its grant covers, are answered; two still wait.
    await inbox.expectPending(2);
    for (const k of ['first', 'shard-1', 'shard-2', 'shard-3', 'shard-4']) expect((await answers.get(k))!.hookSpecificOutput?.permissionDecision, k).toBe('allow');
    expect(got.has('other-session')).toBe(false);
    expect(got.has('not-covered')).toBe(false);
    const events = await auditTail(home);
    const grant = events.find((e) => e.type === 'grant.created')!;
    const byGrant = events.filter((e) => e.type === 'approval.decided' && e.actor === `grant:${String(grant.payload['id'])}`);
    expect(byGrant).toHaveLength(4);
    // The history says who decided: the grant.
    const history = inbox.historyRows.filter({ has: app.page.getByTestId('history-decider').filter({ hasText: 'grant' }) });
    await expect(history).toHaveCount(4);

    await denyRest(home);
    rmSync(dir, { recursive: true, force: true });
  });

  test('at 1024×700 the decision pane is on screen: buttons, what the call does, who asked and the command', async ({ console: app, home }) => {
    test.setTimeout(60_000);
    await app.page.setViewportSize({ width: 1024, height: 700 });
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    const dir = project();
    const { agentToken } = await serveFile(home);
    const session = randomUUID();
    await warmUp(home, agentToken, dir, inbox);
    const answers = new Map<string, Promise<HookAnswer>>();
    for (let i = 0; i < 12; i++) answers.set(`build-${i}`, hookCall(home, agentToken, session, dir, 'Bash', { command: `npm run build -- --part=${i}` }));
    answers.set('evasive', hookCall(home, agentToken, session, dir, 'Bash', { command: EVASIVE, description: 'Tidy up the workspace' }));
    const got = track(answers);
    await expect(inbox.pendingCount).toHaveAttribute('data-count', '13', { timeout: 30_000 });
    expect([...got]).toEqual([]);
    // The highlight stays on the call first shown while the others arrive: the operator moves to the top row.
    await inbox.items.first().click();
    await expect(inbox.items.first()).toHaveAttribute('data-active', 'true');
    const pane = inbox.detail;
    await expect(pane.getByTestId('approval-decoded-text')).toHaveText('rm -rf ~');
    await shoot(app.page, 'inbox-1024x700');
    const viewport = app.page.viewportSize()!;
    for (const id of ['approval-approve', 'approval-deny', 'approval-detail-summary', 'approval-asked-by', 'approval-command', 'approval-evasive-reasons', 'approval-decoded-text']) {
      const b = await boxOf(pane.getByTestId(id));
      expect(b.top, `${id} top`).toBeGreaterThanOrEqual(0);
      expect(b.left, `${id} left`).toBeGreaterThanOrEqual(0);
      expect(b.bottom, `${id} bottom within the ${viewport.height}px viewport`).toBeLessThanOrEqual(viewport.height);
      expect(b.right, `${id} right within the ${viewport.width}px viewport`).toBeLessThanOrEqual(viewport.width);
    }
    // The page itself did not scroll to show it.
    expect(await app.page.evaluate(() => document.scrollingElement?.scrollTop ?? 0)).toBe(0);
    // And the list still shows several rows.
    expect((await boxOf(inbox.list)).bottom - (await boxOf(inbox.list)).top).toBeGreaterThanOrEqual(3 * 36);
    await denyRest(home);
    rmSync(dir, { recursive: true, force: true });
  });
});
