// The Rules view end to end, in a real browser against a real host: policy.yaml is checked as the
// operator types (problems as markers and rows, each example's result), the host refuses to save
// text with problems and the text stays in the editor, a valid rule saves and is in force, and a
// file broken on disk keeps the last good policy and never replaces unsaved edits. Every rule's
// name is shown whole, and a locked built-in opens read-only with what it matches.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { axe } from '../support/axe.ts';
import { test, expect } from '../fixtures.ts';
import { RulesPage } from '../pages/rules-page.ts';
import { callTool, hostCall, httpAgent, resultText } from '../support/agents.ts';

// One line each (YAML flow style): see RulesPage.replaceText.
const BROKEN =
  '{version: 1, rules: [{name: tmp-typo, actions: [write], paths: [/tmp/typo/**]}, ' +
  '{name: tmp-guard, actions: [write], block_paths: [/tmp/guarded/**], decision: deny, examples: {match: [write /tmp/elsewhere/x], not_match: [read /tmp/guarded/x]}}]}';
const VALID =
  '{version: 1, rules: [{name: tmp-guard, actions: [write], block_paths: [/tmp/guarded/**], decision: deny, ' +
  'examples: {match: [write /tmp/guarded/x], not_match: [read /tmp/guarded/x]}}]}';

test('a broken rule shows inline, a failing example is named, saving is refused; a valid rule saves and is in force', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('rules');
  const rules = new RulesPage(app.page);
  await rules.expectEditorReady();
  // The locked built-ins are always in force.
  await expect(rules.rule('builtin.credentials.ssh')).toHaveAttribute('data-locked', 'true');
  await expect(rules.rule('builtin.credentials.ssh').getByTestId('rule-locked')).toBeVisible();
  await expect(rules.rules.and(app.page.locator('[data-source="user"]'))).toHaveCount(0);

  await rules.replaceText(BROKEN);
  await expect(rules.dirty).toBeVisible();
  // The unknown field is a problem on its rule, with a hint, and a marker in the editor.
  await expect(rules.problemsOf('tmp-typo')).toContainText('block_paths');
  await expect(rules.errorSquiggles.first()).toBeVisible();
  // The failing example is named, next to the one that passes.
  await expect(rules.examplesOf('tmp-guard').and(app.page.locator('[data-ok="false"]'))).toContainText('write /tmp/elsewhere/x');
  await expect(rules.examplesOf('tmp-guard').and(app.page.locator('[data-ok="true"]'))).toContainText('read /tmp/guarded/x');
  await expect(rules.problemsOf('tmp-guard')).toContainText('write /tmp/elsewhere/x');

  await rules.save();
  await expect(rules.saveMessage).toHaveAttribute('data-ok', 'false');
  await expect(rules.saveMessage).toContainText('Not saved');
  // Nothing was written, nothing was lost.
  expect(existsSync(join(home, 'policy.yaml'))).toBe(false);
  await expect(rules.dirty).toBeVisible();
  await expect(rules.problemsOf('tmp-typo')).toHaveCount(1);
  await expect(rules.rule('tmp-guard')).toHaveCount(0);

  await rules.replaceText(VALID);
  await expect(rules.problemRows).toHaveCount(0);
  await expect(rules.errorSquiggles).toHaveCount(0);
  await expect(rules.examplesOf('tmp-guard').and(app.page.locator('[data-ok="true"]'))).toHaveCount(2);
  await rules.saveWithKeyboard();
  await expect(rules.saveMessage).toHaveAttribute('data-ok', 'true');
  await expect(rules.dirty).toHaveCount(0);
  await expect(rules.rule('tmp-guard')).toHaveAttribute('data-source', 'user');
  await expect(rules.rule('tmp-guard')).toHaveAttribute('data-locked', 'false');
  await expect(rules.rule('tmp-guard')).toHaveAttribute('data-decision', 'deny');
  expect(readFileSync(join(home, 'policy.yaml'), 'utf8')).toBe(VALID);
});

test('a file broken on disk keeps the last good policy; a change on disk never replaces unsaved edits', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('rules');
  const rules = new RulesPage(app.page);
  await rules.expectEditorReady();
  await rules.replaceText(VALID);
  await rules.save();
  await expect(rules.rule('tmp-guard')).toBeVisible();

  // Broken on disk, no unsaved edits: the editor follows the file, the banner says what is in force.
  const file = join(home, 'policy.yaml');
  writeFileSync(file, 'version: 1\nrules: [\n');
  await expect(rules.fileError).toContainText('last good policy stays active');
  await expect(rules.problemsOf('policy').first()).toBeVisible();
  await expect(rules.rule('tmp-guard')).toBeVisible();
  await expect(rules.dirty).toHaveCount(0);

  // With unsaved edits, a change on disk is announced, not loaded.
  await rules.replaceText(VALID);
  await expect(rules.dirty).toBeVisible();
  writeFileSync(file, 'version: 1\nrules: []\n');
  await expect(rules.diskChanged).toBeVisible();
  await expect(rules.fileError).toHaveCount(0);
  await expect(rules.dirty).toBeVisible();
  // Dropping the edits loads the file as it is now.
  await rules.diskChanged.getByTestId('policy-reload').click();
  await expect(rules.diskChanged).toHaveCount(0);
  await expect(rules.dirty).toHaveCount(0);
  await expect(rules.rule('tmp-guard')).toHaveCount(0);
});

test.describe('a live host', () => {
  test.use({ homeSetup: { settings: { mode: 'live', autoApprove: ['shell'] } } });

  test('a draft replayed over recorded calls shows the decision it would change, unsaved, and opens the call in the audit log', async ({ console: app, home }) => {
    await app.page.setViewportSize({ width: 1280, height: 800 });
    await app.status.expectConnected();
    // A call the settings let through without asking, recorded as allowed.
    const agent = await httpAgent(home, 'e2e-replay-agent');
    try {
      const r = await callTool(agent, 'shell', { command: 'cat /tmp/guarded-replay/notes.txt' }).result;
      expect(resultText(r)).not.toContain('denied');
    } finally {
      await agent.close();
    }

    await app.open('rules');
    const rules = new RulesPage(app.page);
    await rules.expectEditorReady();
    // The author sees the draft and its replay together, on one screen.
    await expect(rules.editor).toBeInViewport({ ratio: 1 });
    await expect(rules.replayPanel).toBeInViewport({ ratio: 1 });
    // Today's policy changes nothing.
    await rules.replayDraft('24h');
    await expect(rules.replayResult).toHaveAttribute('data-changed', '0');
    expect(Number(await rules.replayResult.getAttribute('data-calls'))).toBeGreaterThan(0);

    // A draft that denies reads there would have denied it; nothing is saved.
    await rules.replaceText('{version: 1, rules: [{name: guard-replay, actions: [read], block_paths: [/tmp/guarded-replay/**], decision: deny, message: No reads here.}]}');
    await rules.replayDraft('24h');
    await expect(rules.replayResult).toHaveAttribute('data-changed', '1');
    await expect(rules.replayChanges).toHaveCount(1);
    await expect(rules.replayChanges).toContainText('allow');
    await expect(rules.replayChanges).toContainText('deny');
    await expect(rules.replayChanges).toContainText('guard-replay');
    // The row says which call it is: its command and when it was made.
    await expect(rules.replayChanges).toContainText('cat /tmp/guarded-replay/notes.txt');
    await expect(rules.replayChanges.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/);
    // Still on one screen with the editor once the results are in.
    await expect(rules.replayChanges).toBeInViewport({ ratio: 1 });
    await expect(rules.editor).toBeInViewport({ ratio: 1 });
    await expect(rules.dirty).toBeVisible();
    expect(existsSync(join(home, 'policy.yaml'))).toBe(false);

    // The change opens the call in the Audit view.
    await rules.replayChanges.getByRole('button').click();
    await expect(app.audit.detail).toBeVisible();
    await expect(app.audit.detail).toContainText('cat /tmp/guarded-replay/notes.txt');
  });
});

test("the editor's worker is the bundled file beside the console, allowed by the CSP", async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('rules');
  const rules = new RulesPage(app.page);
  await rules.expectEditorReady();
  // Text beyond ASCII (a Cyrillic "а") makes Monaco ask its editor worker about it. A worker the
  // CSP refused would leave Monaco on the page's thread without a word, so the worker is checked.
  await rules.replaceText('{version: 1, rules: [{name: p\u0430ths, actions: [read], paths: [/tmp/x/**], decision: ask}]}');
  await expect.poll(() => app.page.workers().some((w) => /\/assets\/editor\.worker-[\w-]+\.js$/.test(w.url()))).toBe(true);
});

test('every rule name is shown whole, and a locked built-in opens read-only with what it matches and what the agent is told', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('rules');
  const rules = new RulesPage(app.page);
  await rules.expectEditorReady();
  // What the host has in force is what the view must show.
  const policy = await hostCall<{ rules: { name: string; locked: boolean; paths: string[]; except: string[]; hosts: string[]; message: string; description: string }[] }>(home, 'policy.get');
  const builtins = policy.rules.filter((r) => r.locked);
  expect(builtins.length).toBeGreaterThan(0);
  await expect(rules.rules.and(app.page.locator('[data-locked="true"]'))).toHaveCount(builtins.length);

  // No name is cut: each one fits inside its own cell (it wraps instead of running under the next).
  const cut = await app.page.getByTestId('rule-open').evaluateAll((els) =>
    els
      .filter((el) => {
        const cell = el.closest('td')!.getBoundingClientRect();
        const box = el.getBoundingClientRect();
        return el.scrollWidth > el.clientWidth + 1 || box.right > cell.right + 1 || box.left < cell.left - 1;
      })
      .map((el) => el.textContent),
  );
  expect(cut).toEqual([]);
  for (const r of builtins) await expect(rules.rule(r.name).getByTestId('rule-open')).toHaveText(r.name);

  const ssh = builtins.find((r) => r.name === 'builtin.credentials.ssh')!;
  const open = rules.rule(ssh.name).getByTestId('rule-open');
  await open.click();
  const dialog = app.page.getByTestId('rule-detail');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('rule-detail-name')).toHaveText(ssh.name);
  await expect(dialog.getByTestId('rule-detail-locked')).toBeVisible();
  await expect(dialog.getByTestId('rule-detail-paths').locator('li')).toHaveText(ssh.paths);
  expect(ssh.paths).toContain('~/.ssh/**');
  await expect(dialog.getByTestId('rule-detail-message')).toHaveText(ssh.message);
  // Read-only: nothing in it can be edited, and a built-in has no place in policy.yaml to go to.
  await expect(dialog.locator('input, textarea, select, [contenteditable="true"]')).toHaveCount(0);
  await expect(dialog.getByTestId('rule-detail-reveal')).toHaveCount(0);

  // Scanned open, in both themes.
  const found: string[] = [];
  for (const scheme of ['dark', 'light'] as const) {
    await app.page.emulateMedia({ colorScheme: scheme });
    const result = await axe(app.page).exclude('.monaco-editor').analyze();
    for (const v of result.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
      found.push(`${scheme}: ${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    }
  }
  expect(found, found.join('\n')).toEqual([]);

  // Escape closes it and the keyboard is back on the name.
  await app.page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(open).toBeFocused();

  // A rule with hosts shows them too.
  const net = builtins.find((r) => r.hosts.length > 0)!;
  await rules.rule(net.name).getByTestId('rule-open').click();
  await expect(dialog.getByTestId('rule-detail-hosts')).toHaveAttribute('data-count', String(net.hosts.length));
  await dialog.getByTestId('rule-detail-close').click();
  await expect(dialog).toHaveCount(0);
});
