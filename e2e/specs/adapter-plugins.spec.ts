// Terminal adapters in the Plugins view, in a real browser against a real `gatehouse serve`:
// ptywright's echo adapter, dropped into the plugins folder, is listed beside a tool plugin with
// its kind and permissions; its Lua opens with Lua colouring; typing os.execute marks that line
// with the scan's finding, a bad limit in the manifest is marked at its line; the fixed manifest
// is saved, the adapter is quarantined with the diff, and Approve change releases it. axe finds
// nothing serious in either theme.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { axe } from '../support/axe.ts';
import { test, expect } from '../fixtures.ts';
import { PluginsPage } from '../pages/plugins-page.ts';

// hello makes home/plugins exist (and be watched) before the host starts; it is a tool plugin to list beside the adapter.
test.use({ homeSetup: { plugins: ['hello'] } });

test('the echo adapter in the Plugins view: Lua markers while typing, a manifest marker, save, quarantine, approve; axe in both themes', async ({ console: app, home }) => {
  test.setTimeout(90_000);
  await app.status.expectConnected();
  const echoDir = join(home, 'plugins', 'echo');
  // Dropped in while the host runs: the watcher's reload reaches the adapters and the consoles.
  cpSync(join(import.meta.dirname, '..', '..', 'examples', 'plugins', 'echo'), echoDir, { recursive: true });
  const lua = readFileSync(join(echoDir, 'main.lua'), 'utf8');
  const manifest = readFileSync(join(echoDir, 'manifest.toml'), 'utf8');

  await app.open('plugins');
  const plugins = new PluginsPage(app.page);
  await plugins.expectStatus('echo', 'enabled');
  await expect(plugins.row('echo')).toContainText('adapter');
  await expect(plugins.row('hello')).toContainText('tool');

  await plugins.open('echo');
  await plugins.expectEditorOn('main.lua');
  // Lua colouring: `local` is a keyword token of its own (as plain text the whole line would be one span).
  await expect(plugins.editor.locator('.view-line span[class^="mtk"]').filter({ hasText: /^local$/ }).first()).toBeVisible();
  await expect(app.page.getByTestId('adapter-permissions')).toContainText('input.write');
  await expect(app.page.getByTestId('adapter-limits')).toContainText('16 MiB');

  // The file ends with a newline: the cursor lands on the empty last line, which is where os.execute goes.
  const execLine = lua.split('\n').length;
  await plugins.typeInEditor('os.execute("x")');
  await expect(plugins.problemRow('lua.os-execute')).toHaveAttribute('data-line', String(execLine));
  await expect(plugins.errorSquiggles.first()).toBeVisible();
  // Taken back: the buffer is the saved text again and the finding goes.
  await plugins.clearCurrentLine();
  await expect(plugins.problemRow('lua.os-execute')).toHaveCount(0);
  await expect(plugins.saveButton).toBeDisabled();

  await plugins.openFile('manifest.toml');
  const limitLine = manifest.split('\n').length + 1;
  await plugins.typeInEditor('[limits]\nops = 5');
  await expect(plugins.problemRow('limits.range')).toHaveAttribute('data-line', String(limitLine));
  await expect(plugins.errorSquiggles.first()).toBeVisible();
  await plugins.typeInEditor('000');
  await expect(plugins.problemRow('limits.range')).toHaveCount(0);
  await plugins.save();
  // The button is disabled when the save is sent; the file is written when the host gets it.
  await expect.poll(() => readFileSync(join(echoDir, 'manifest.toml'), 'utf8')).toBe(`${manifest}[limits]\nops = 5000`);

  // A saved change to a pinned adapter: quarantined, its diff shown, released by Approve change.
  await plugins.expectStatus('echo', 'quarantined');
  await expect(plugins.quarantineChanges.locator('[data-path="manifest.toml"]')).toContainText('ops = 5000');
  await expect(app.page.getByTestId('adapter-quarantined')).toContainText('changed on disk');
  await expect(app.page.getByTestId('plugin-rollback')).toHaveCount(0);

  const found: string[] = [];
  for (const scheme of ['dark', 'light'] as const) {
    await app.page.emulateMedia({ colorScheme: scheme });
    const result = await axe(app.page).include('[data-testid="view-plugins"]').exclude('.monaco-editor').analyze();
    for (const v of result.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
      found.push(`${scheme}: ${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`).join(' | ')}`);
    }
  }
  expect(found, found.join('\n')).toEqual([]);

  await plugins.approve();
  await plugins.expectStatus('echo', 'enabled');
  await expect(plugins.quarantineChanges).toHaveCount(0);
  await expect(app.page.getByTestId('adapter-limits')).toContainText(/5\D?000 Lua instructions/);
});
