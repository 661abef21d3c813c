// Only in a real Electron window: what the page can reach.
import { test, expect } from '../../fixtures.ts';

test('the page sees the contract bridge and nothing of Node or Electron', async ({ console: app }) => {
  const seen = await app.page.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    const bridge = w.gatehouse as Record<string, unknown> | undefined;
    return {
      bridgeKeys: bridge ? Object.keys(bridge).sort() : null,
      require: typeof w.require,
      process: typeof w.process,
      ipc: typeof (w as { ipcRenderer?: unknown }).ipcRenderer,
    };
  });
  expect(seen.bridgeKeys).toEqual(['invoke', 'methods', 'onEvent']);
  expect(seen.require).toBe('undefined');
  expect(seen.process).toBe('undefined');
  expect(seen.ipc).toBe('undefined');
});

test('navigation away from the console and window.open are refused', async ({ console: app }) => {
  await app.status.expectConnected();
  const before = app.page.url();
  await app.page.evaluate(() => {
    window.location.href = 'https://example.com/';
  });
  const opened = await app.page.evaluate(() => window.open('https://example.com/') === null);
  expect(opened).toBe(true);
  await app.status.expectConnected();
  expect(app.page.url()).toBe(before);
});
