// A module plugin (mod.ts) end to end, in a real browser against a real host: scaffold it with
// New plugin, edit it in the editor and save, enable it, and test-run its tool through the host's
// runner (its long-lived child in the sandbox).
import { test, expect } from '../fixtures.ts';
import { PluginsPage } from '../pages/plugins-page.ts';

test('scaffold a TypeScript module plugin, edit it, enable it and test-run it', async ({ console: app }) => {
  // A scaffold, two scans, an enable and a child started in the sandbox: ~11 s alone, past the
  // 30 s default on a loaded machine.
  test.setTimeout(60_000);
  await app.status.expectConnected();
  await app.open('plugins');
  const plugins = new PluginsPage(app.page);

  await plugins.newPlugin('ts-echo', 'ts-module');
  await plugins.expectStatus('ts-echo', 'disabled');

  // An edit: a systemPrompt export at the end of mod.ts, saved and re-read by the host.
  await plugins.typeInEditor('\nexport const systemPrompt = "Use echo to repeat text.";\n');
  await plugins.save();
  await plugins.expectStatus('ts-echo', 'disabled');

  await plugins.enable();
  await plugins.expectStatus('ts-echo', 'enabled');

  await plugins.testRun('{"message": "hello from the browser"}');
  await expect(plugins.testRunOutput).toHaveAttribute('data-ok', 'true');
  await expect(plugins.testRunOutput.locator('[data-stream="stdout"]')).toContainText('hello from the browser');
});
