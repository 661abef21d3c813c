// Plugin authoring end to end, in a real browser against a real `gatehouse serve`: scaffold,
// see the scanner's markers while typing (before saving), fix, save, enable; then a change on
// disk quarantines the plugin and the console shows the diff.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { PluginsPage } from '../pages/plugins-page.ts';

test('author a plugin: markers while typing, fix, save, enable; a change on disk quarantines it', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('plugins');
  const plugins = new PluginsPage(app.page);

  await plugins.newPlugin('echo-node', 'node');
  await plugins.expectStatus('echo-node', 'disabled');
  // The scaffold starts clean.
  await expect(plugins.problemRow('js.eval')).toHaveCount(0);
  await expect(plugins.errorSquiggles).toHaveCount(0);

  // Typing eval(…) shows the scanner's finding as a marker and a problem row, unsaved.
  await plugins.typeInEditor('\neval(input)');
  await expect(plugins.saveButton).toBeEnabled();
  await expect(plugins.problemRow('js.eval')).toBeVisible({ timeout: 2_000 });
  await expect(plugins.problemRow('js.eval')).toHaveAttribute('data-line', /^\d+$/);
  await expect(plugins.errorSquiggles.first()).toBeVisible({ timeout: 2_000 });

  // Removing the line clears both.
  await plugins.clearCurrentLine();
  await expect(plugins.problemRow('js.eval')).toHaveCount(0);
  await expect(plugins.errorSquiggles).toHaveCount(0);

  await plugins.save();
  await plugins.enable();
  await plugins.expectStatus('echo-node', 'enabled');
  await expect(plugins.detailStatus).toHaveAttribute('data-status', 'enabled');

  // An edit on disk, outside the console: the pinned hash no longer matches.
  appendFileSync(join(home, 'plugins', 'echo-node', 'run.mjs'), '// changed outside the console\n');
  await plugins.expectStatus('echo-node', 'quarantined');
  await expect(plugins.detailStatus).toHaveAttribute('data-status', 'quarantined');
  await expect(plugins.quarantineChanges).toContainText('run.mjs');
  await expect(plugins.quarantineChanges.locator('.diff-add')).toContainText('// changed outside the console');

  // Approving pins the new files and lists it as enabled again.
  await plugins.approve();
  await plugins.expectStatus('echo-node', 'enabled');
  await expect(plugins.quarantineChanges).toHaveCount(0);

  // Another change on disk, rolled back this time: the approved file is put back.
  const script = join(home, 'plugins', 'echo-node', 'run.mjs');
  const approved = readFileSync(script, 'utf8');
  appendFileSync(script, 'process.exit(3)\n');
  await plugins.expectStatus('echo-node', 'quarantined');
  await plugins.rollBack();
  await plugins.expectStatus('echo-node', 'enabled');
  await expect(plugins.quarantineChanges).toHaveCount(0);
  expect(readFileSync(script, 'utf8')).toBe(approved);
});

test('a test run shows what the tool printed; bad JSON input is refused before any call', async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('plugins');
  const plugins = new PluginsPage(app.page);
  await plugins.newPlugin('echo-sh', 'sh');

  // Pre-filled from the tool's parameters.
  await expect(plugins.testRunInput).toHaveValue(/"message": ""/);

  await plugins.testRun('{"message": ');
  await expect(plugins.root.getByRole('alert').filter({ hasText: 'not valid JSON' })).toBeVisible();
  await expect(plugins.testRunOutput).toHaveCount(0);

  await plugins.testRun('{"message": "hello from e2e"}');
  await expect(plugins.testRunOutput).toHaveAttribute('data-exit-code', '0');
  await expect(plugins.testRunOutput.locator('[data-stream="stdout"]')).toContainText('hello from e2e');
});

test('enabling a plugin that failed the scan asks for a reason, and the list follows', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('plugins');
  const plugins = new PluginsPage(app.page);

  // A plugin folder that appears on disk with eval in it is discovered, scanned, and fails.
  // (A saved edit of a known plugin that fails is a failed reload instead: the old version stays.)
  const dir = join(home, 'plugins', 'risky');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), 'name = "risky"\ndescription = "Runs its input."\nversion = "0.1.0"\nkind = "tool"\ncommand = "run.mjs"\n\n[parameters.code]\ntype = "string"\nrequired = true\ndescription = "Code."\n');
  writeFileSync(join(dir, 'run.mjs'), '#!/usr/bin/env node\nlet input = "";\nprocess.stdin.on("data", (c) => (input += c));\nprocess.stdin.on("end", () => console.log(eval(JSON.parse(input).code)));\n', { mode: 0o755 });
  await plugins.expectStatus('risky', 'scan_failed');

  await plugins.open('risky');
  await plugins.expectEditorOn('run.mjs');
  await expect(plugins.problemRow('js.eval')).toBeVisible();
  await expect(plugins.errorSquiggles.first()).toBeVisible();

  await plugins.enable();
  await expect(app.page.getByTestId('override-confirm')).toBeDisabled();
  await plugins.confirmOverride('reviewed: eval only sees our own constant input');
  await plugins.expectStatus('risky', 'enabled');
  await expect(plugins.root).toContainText('reviewed: eval only sees our own constant input');
});

test('the list filters by status and moves with the keyboard', async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('plugins');
  const plugins = new PluginsPage(app.page);
  await plugins.newPlugin('alpha', 'sh');
  await plugins.newPlugin('beta', 'py');
  await plugins.enable();
  await plugins.expectStatus('beta', 'enabled');

  await app.page.locator('[data-testid="plugin-status-filter"][data-status="enabled"]').click();
  await expect(plugins.rows).toHaveCount(1);
  await expect(plugins.row('beta')).toBeVisible();
  await app.page.locator('[data-testid="plugin-status-filter"][data-status="enabled"]').click();
  // alpha, beta and the examples a new home is given (hello, path-guard, rate-limit).
  await expect(plugins.rows).toHaveCount(5);

  await app.page.getByTestId('plugin-list').focus();
  await app.page.keyboard.press('Home');
  await app.page.keyboard.press('Enter');
  await expect(plugins.detailHeading).toHaveText('alpha');
  await app.page.keyboard.press('j');
  await app.page.keyboard.press('Enter');
  await expect(plugins.detailHeading).toHaveText('beta');
});

test('a plugin asking for sandbox = "none" runs sandboxed until an operator trusts it, with a reason', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('plugins');
  const plugins = new PluginsPage(app.page);
  const dir = join(home, 'plugins', 'loose');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), 'name = "loose"\ndescription = "Needs the host."\ncommand = "run.sh"\nsandbox = "none"\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\ncat >/dev/null\necho \'{"ok": true}\'\n', { mode: 0o755 });
  await plugins.expectStatus('loose', 'disabled');
  await plugins.open('loose');
  // Not enabled yet: nothing pinned to trust.
  await expect(plugins.sandboxTrust).toHaveAttribute('data-trusted', 'false');
  await expect(app.page.getByTestId('plugin-trust')).toBeDisabled();

  await plugins.enable();
  await plugins.expectStatus('loose', 'enabled');
  await plugins.trust('drives the local Docker socket; code reviewed');
  await expect(plugins.sandboxTrust).toHaveAttribute('data-trusted', 'true');
  await expect(plugins.sandboxTrust).toContainText('Runs without the OS sandbox');
  await expect(plugins.sandboxTrust).toContainText('drives the local Docker socket; code reviewed');

  await plugins.untrust();
  await expect(plugins.sandboxTrust).toHaveAttribute('data-trusted', 'false');
});
