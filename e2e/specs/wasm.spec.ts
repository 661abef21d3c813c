// A WebAssembly plugin end to end, in a real browser against a real `gatehouse serve`: scaffold
// the AssemblyScript plugin (`gatehouse plugin new --lang wasm-as`), build it with the
// AssemblyScript compiler from npm, enable it in the console, see its imports next to its
// permissions, test-run it and see the fuel it used in the result and in Health.
import { join } from 'node:path';
import asc from 'assemblyscript/asc';
import { test, expect } from '../fixtures.ts';
import { PluginsPage } from '../pages/plugins-page.ts';
import { HealthPage } from '../pages/health-page.ts';
import { scaffoldPlugin } from '../../main/registry/scaffold.ts';

test('scaffold, build and enable an AssemblyScript plugin; a test run shows its fuel, and so does Health', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('plugins');
  const plugins = new PluginsPage(app.page);

  const dir = scaffoldPlugin(join(home, 'plugins'), 'as-echo', 'wasm-as').dir;
  // Not built yet: discovered and invalid, saying what to do.
  await plugins.expectStatus('as-echo', 'invalid');
  const built = await asc.main([join(dir, 'assembly/index.ts'), '-o', join(dir, 'plugin.wasm'), '--runtime', 'stub', '--optimize']);
  expect(built.error ?? null).toBeNull();
  await plugins.expectStatus('as-echo', 'disabled');

  await plugins.open('as-echo');
  const imports = app.page.getByTestId('plugin-wasm-imports');
  await expect(imports).toContainText('extism:host/env.output_set');
  await expect(app.page.getByTestId('wasm-imports-mismatch')).toHaveCount(0);

  await plugins.enable();
  await plugins.expectStatus('as-echo', 'enabled');

  await plugins.testRun('{"message": "hi"}');
  await expect(plugins.testRunOutput).toHaveAttribute('data-ok', 'true');
  await expect(plugins.testRunOutput.locator('[data-stream="stdout"]')).toContainText('"received":{"message":"hi"}');
  const fuel = app.page.getByTestId('test-run-fuel');
  await expect(fuel).toContainText(/fuel \d+ of 1000000/);
  const used = (await fuel.locator('.mono').textContent())!.trim();

  await app.open('health');
  const health = new HealthPage(app.page);
  await expect(health.row('as-echo').getByTestId('health-fuel')).toHaveText(`fuel ${used}`);
});
