// The inbox on a busy day (issue #16 item 1): real Claude Code hook requests (the HTTP hook form,
// `hookAsk: inbox`, so each call waits for an operator) from five named agent tokens reach a live
// `gatehouse serve`, and the console lists them as one compact row each, riskiest first, in a
// virtualised list beside a detail pane. The pane shows the agent's own description, a Write as a
// diff against the file on disk (read by the host through approvals.fileBefore), and a base64
// payload decoded beside the raw text. j/k and a still decide from the keyboard.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage } from '../pages/approvals-page.ts';
import { hookCall, hostCall, serveFile, type HookAnswer } from '../support/agents.ts';

const RANK: Record<string, number> = { evasive: 5, delete: 4, network: 3, write: 2, execute: 1, read: 0 };

/** `rm -rf ~` in base64: what an evasive agent pipes into a shell. */
const PAYLOAD = 'cm0gLXJmIH4=';

test.describe('a live host whose hook calls wait in the inbox', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' } } });

  test('200 waiting calls from 5 agents are rows, riskiest first; the pane decodes a base64 payload; j/k/a decide', async ({ console: app, home }) => {
    test.setTimeout(120_000);
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    // A project outside GATEHOUSE_HOME (whose files are Gatehouse's own, and protected).
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-inbox-')));
    test.info().attach('project', { body: project }).catch(() => {});

    const agents = ['ada', 'grace', 'linus', 'margaret', 'ken'];
    const tokens = await Promise.all(agents.map((name) => hostCall<{ token: string }>(home, 'agents.tokens.create', { name }).then((r) => r.token)));
    // Mostly ordinary work (tests, builds, fetches); a few deletes; one evasive payload, sent last.
    const commands = (a: number, i: number): string => {
      if (i % 10 === 3) return `rm -rf build/${agents[a]}-${i}`;
      if (i % 10 === 5) return `curl -s https://93.184.215.14/${agents[a]}/${i}`;
      return `npm test -- --shard=${a}-${i}`;
    };
    const answers: Promise<HookAnswer>[] = [];
    for (let a = 0; a < agents.length; a++) {
      for (let i = 0; i < 40; i++) {
        if (a === 4 && i === 39) continue;
        answers.push(hookCall(home, tokens[a]!, `s${i % 2}`, project, 'Bash', { command: commands(a, i), description: `step ${i} of ${agents[a]}` }));
      }
    }
    answers.push(hookCall(home, tokens[4]!, 's1', project, 'Bash', { command: `echo ${PAYLOAD} | base64 -d | sh`, description: 'Tidy up the workspace' }));
    // Any call answered before the operator decides is a failure of this test: say which and why.
    const early: string[] = [];
    answers.forEach((p, i) => p.then((a) => early.push(`#${i}: ${a.hookSpecificOutput?.permissionDecision ?? 'no decision'} ${a.hookSpecificOutput?.permissionDecisionReason ?? ''}`), (e: unknown) => early.push(`#${i}: ${String(e)}`)));

    // 200 hook requests at once from one test process: allow them time to arrive.
    await expect(inbox.pendingCount, 'every call waits; none was answered').toHaveAttribute('data-count', '200', { timeout: 60_000 }).catch((err: unknown) => {
      throw new Error(`${String(err)}\nanswered early: ${early.slice(0, 5).join('\n')}`);
    });
    expect(early).toEqual([]);
    await expect(inbox.list).toHaveAttribute('data-rows', '200');
    // Five agents to filter by.
    await expect(inbox.filterAgent.locator('option')).toHaveCount(6);

    // Virtualised: a screenful of rows in the DOM, not 200.
    const rendered = await inbox.items.count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(80);

    // The evasive call, sent last, is the first row; risk never rises down the list.
    const first = inbox.items.first();
    await expect(first).toHaveAttribute('data-risk', 'evasive');
    await expect(first).toHaveAttribute('data-agent', 'ken');
    const risks = await inbox.items.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-risk') ?? ''));
    for (let i = 1; i < risks.length; i++) expect(RANK[risks[i]!]!, `row ${i} (${risks[i]}) after ${risks[i - 1]}`).toBeLessThanOrEqual(RANK[risks[i - 1]!]!);
    expect(risks).toContain('delete');

    // The highlight stays on the call first shown while others arrive (a call that sorts above it
    // never slides under the operator's key); the operator moves to the top row.
    await first.click();
    // The selected (first) call's pane: the agent's description, and the payload decoded beside the raw text.
    await expect(first).toHaveAttribute('data-active', 'true');
    const pane = inbox.detail;
    await expect(pane).toHaveAttribute('data-id', (await inbox.idOf(first)));
    await expect(pane.getByTestId('approval-description')).toContainText('Tidy up the workspace');
    await expect(pane.getByTestId('approval-command')).toContainText(`echo ${PAYLOAD} | base64 -d | sh`);
    const decoded = pane.getByTestId('approval-decoded-payload');
    await expect(decoded.getByTestId('approval-decoded-raw')).toHaveText(PAYLOAD);
    await expect(decoded.getByTestId('approval-decoded-text')).toHaveText('rm -rf ~');

    // j moves the selection one row down and the pane follows; k back; then d denies the evasive one.
    await inbox.press('j');
    const second = inbox.items.nth(1);
    await expect(second).toHaveAttribute('data-active', 'true');
    await expect(pane).toHaveAttribute('data-id', await inbox.idOf(second));
    await expect(pane).toHaveAttribute('data-risk', 'delete');
    await inbox.press('k');
    await expect(first).toHaveAttribute('data-active', 'true');
    await inbox.press('d');
    await inbox.denyReason.fill('Decoded, this deletes the home folder.');
    await app.page.getByTestId('deny-confirm').click();
    await inbox.expectPending(199);
    const evasive = await answers[answers.length - 1]!;
    expect(evasive.hookSpecificOutput?.permissionDecision).toBe('deny');

    // Scrolling the list reaches the last row (the least risky, oldest-first order within a level).
    await inbox.list.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect(inbox.items.last()).toHaveAttribute('data-risk', 'execute');

    // Grouped by session: a header per agent session, each call under its own.
    await app.page.getByTestId('approvals-group-session').check();
    await inbox.list.evaluate((el) => el.scrollTo({ top: 0 }));
    await expect(app.page.getByTestId('approval-group').first()).toBeVisible();
    // In screen order (virtual rows are placed by transform), each call sits under its session's header.
    const misplaced = async () =>
      inbox.list.evaluate((el) => {
        const rows = Array.from(el.querySelectorAll<HTMLElement>('[data-testid="approval-group"], [data-testid="approval-item"]')).sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
        let current: string | null = null;
        let wrong = 0;
        for (const r of rows) {
          if (r.dataset['testid'] === 'approval-group') current = r.dataset['session'] ?? null;
          else if (current !== null && r.dataset['session'] !== current) wrong++;
        }
        return { headers: rows.filter((r) => r.dataset['testid'] === 'approval-group').length, wrong };
      });
    await expect.poll(misplaced).toEqual({ headers: expect.any(Number) as unknown as number, wrong: 0 });
    expect((await misplaced()).headers).toBeGreaterThan(0);

    // Let the rest go: the hook requests end with the test.
    await hostCall(home, 'approvals.batch', { action: 'deny', reason: 'end of test', items: (await hostCall<{ items: { id: string; argsHash: string; state: string }[] }>(home, 'approvals.list', { state: 'pending' })).items.map((i) => ({ id: i.id, argsHash: i.argsHash })) });
    await inbox.expectPending(0);
    rmSync(project, { recursive: true, force: true });
  });

  test('Approve all over an rm -rf shows what will run and asks first; Cancel (focused) approves nothing', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-inbox-')));
    const { agentToken } = await serveFile(home);
    const rm = hookCall(home, agentToken, 'b1', project, 'Bash', { command: 'rm -rf build' });
    const tests = hookCall(home, agentToken, 'b1', project, 'Bash', { command: 'npm test' });
    rm.catch(() => {});
    tests.catch(() => {});
    await inbox.expectPending(2);

    await inbox.batchApprove.click();
    const dialog = app.page.getByTestId('batch-approve-dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId('batch-approve-summary')).toHaveText('2 × Bash.');
    await expect(dialog.getByTestId('batch-approve-concerns')).toContainText('deletes (1)');
    await expect(dialog.getByTestId('batch-approve-risky')).toHaveCount(1);
    await expect(dialog.getByTestId('batch-approve-risky')).toContainText('rm -rf build');
    await expect(app.page.getByTestId('batch-approve-cancel')).toBeFocused();
    await app.page.keyboard.press('Enter');
    await expect(dialog).toHaveCount(0);
    await inbox.expectPending(2);

    await inbox.batchApprove.click();
    await app.page.getByTestId('batch-approve-confirm').click();
    await inbox.expectPending(0);
    expect((await rm).hookSpecificOutput?.permissionDecision).toBe('allow');
    expect((await tests).hookSpecificOutput?.permissionDecision).toBe('allow');
    rmSync(project, { recursive: true, force: true });
  });

  test('after Approve shown the agent filter stays visible as a chip and in the select; Clear all shows the rest', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-inbox-')));
    const [ada, bob] = await Promise.all(['ada', 'bob'].map((name) => hostCall<{ token: string }>(home, 'agents.tokens.create', { name }).then((r) => r.token)));
    const calls = [hookCall(home, ada!, 'f1', project, 'Bash', { command: 'npm test' }), hookCall(home, bob!, 'f1', project, 'Bash', { command: 'npm run lint' })];
    for (const c of calls) c.catch(() => {});
    await inbox.expectPending(2);

    await inbox.filterAgent.selectOption('ada');
    await inbox.filterText.fill('npm');
    const chips = app.page.getByTestId('approvals-filter-chips').getByTestId('filter-chip');
    await expect(chips).toHaveCount(2);
    await expect(chips.first()).toHaveText(/agent:\s*ada/);
    await inbox.batchApprove.click();
    await expect(inbox.pendingCount).toHaveText('1 waiting · 0 shown');
    // The filter that hides bob's call is on screen: the select still reads ada, and its chip stays.
    await expect(inbox.filterAgent).toHaveValue('ada');
    await expect(inbox.filterAgent.locator('option:checked')).toHaveText('ada');
    await expect(app.page.getByTestId('approvals-none-shown')).toBeVisible();
    // One chip removes one filter; Clear all removes the rest.
    await chips.filter({ hasText: 'text' }).getByTestId('filter-chip-remove').click();
    await expect(chips).toHaveCount(1);
    await app.page.getByTestId('filters-clear-all').click();
    await expect(chips).toHaveCount(0);
    await expect(inbox.pendingCount).toHaveText('1 waiting');
    await expect(inbox.items).toHaveCount(1);
    await expect(inbox.items.first()).toHaveAttribute('data-agent', 'bob');
    await inbox.press('a');
    await inbox.expectPending(0);
    expect((await calls[0])!.hookSpecificOutput?.permissionDecision).toBe('allow');
    rmSync(project, { recursive: true, force: true });
  });

  test('a Write is shown as a diff against the file on disk; an Edit of a missing string says the tool will refuse', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    // A project outside GATEHOUSE_HOME (whose files are Gatehouse's own, and protected).
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-inbox-')));
    test.info().attach('project', { body: project }).catch(() => {});
    const file = join(project, 'notes.md');
    writeFileSync(file, 'line one\nline two\nline three\n');
    const { agentToken } = await serveFile(home);

    const write = hookCall(home, agentToken, 'w1', project, 'Write', { file_path: file, content: 'line one\nline 2\nline three\nline four\n' });
    write.catch(() => {});
    const pane = await (async () => {
      await expect(inbox.item('notes.md')).toHaveCount(1);
      return inbox.select('notes.md');
    })();
    const diff = pane.getByTestId('approval-diff');
    await expect(diff).toHaveAttribute('data-exists', 'true');
    await expect(diff.getByTestId('diff-del')).toHaveText(['-line two']);
    await expect(diff.getByTestId('diff-add')).toHaveText(['+line 2', '+line four']);
    await expect(diff.getByTestId('diff-ctx').first()).toHaveText(' line one');

    const edit = hookCall(home, agentToken, 'w1', project, 'Edit', { file_path: file, old_string: 'no such text', new_string: 'x' });
    edit.catch(() => {});
    await inbox.expectPending(2);
    const editRow = inbox.items.filter({ has: app.page.getByTestId('approval-tool').filter({ hasText: /^Edit$/ }) });
    await editRow.click();
    await expect(inbox.detail.getByTestId('approval-diff')).toContainText('old_string is not in the file; the tool will refuse this call');

    // Approving the Write lets Claude Code write it; the file on disk is untouched by Gatehouse itself.
    await inbox.item('write /').click();
    await inbox.press('a');
    expect((await write).hookSpecificOutput?.permissionDecision).toBe('allow');
    expect(readFileSync(file, 'utf8')).toBe('line one\nline two\nline three\n');
    rmSync(project, { recursive: true, force: true });
  });
  test('a call that arrives while the operator reads another does not take the key meant for that one', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-inbox-')));
    const { agentToken } = await serveFile(home);
    // The operator opens the inbox and reads the one call there.
    const read = hookCall(home, agentToken, 'r1', project, 'Bash', { command: 'npm test', description: 'run the tests' });
    read.catch(() => {});
    await inbox.expectPending(1);
    await expect(inbox.detail).toContainText('npm test');
    // The agent sends another that sorts above it (a write ranks above an execute) and that the
    // key approves without a second look (a write inside the project). The list re-sorts under
    // the operator, who did not move.
    const slipped = hookCall(home, agentToken, 'r1', project, 'Write', { file_path: join(project, 'package.json'), content: '{"scripts":{"test":"node ./x.js"}}' });
    slipped.catch(() => {});
    await inbox.expectPending(2);
    await inbox.press('a');
    await inbox.expectPending(1);
    // The key decided the call the operator was reading; the one that slid in still waits.
    await expect(inbox.items.first(), 'the a key approved a call that arrived after the operator read the inbox').toHaveAttribute('data-tool', 'Write');
    expect((await read).hookSpecificOutput?.permissionDecision).toBe('allow');
    rmSync(project, { recursive: true, force: true });
  });
});
