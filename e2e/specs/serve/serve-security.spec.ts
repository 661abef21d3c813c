// The serve shell in a real browser: a wrong or replayed link gets nothing, the CSP holds, and
// the console finds its host again after a restart.
import { test, expect } from '../../fixtures.ts';
import { ConsolePage } from '../../pages/console-page.ts';

test('a wrong console link gets an explanation and no data', async ({ serveHost, blankPage }) => {
  const apiCalls: number[] = [];
  blankPage.on('response', (r) => {
    if (r.url().includes('/api/')) apiCalls.push(r.status());
  });
  await blankPage.goto(`${serveHost!.baseUrl}#code=this-is-not-a-code-the-host-made`);
  const app = new ConsolePage(blankPage);
  await expect(app.authError).toBeVisible();
  // The refusal replaces the whole console: no status bar, no views, no data behind it.
  await expect(blankPage.locator('html')).toHaveAttribute('data-connection', 'unauthorized');
  await expect(app.status.connection).toHaveCount(0);
  await expect(app.audit.rows).toHaveCount(0);
  expect(apiCalls.length).toBeGreaterThan(0);
  expect(apiCalls.every((s) => s === 401)).toBe(true);
});

test('the API answers 401 and nothing else without the token', async ({ serveHost, blankPage }) => {
  const res = await blankPage.request.get(`${serveHost!.baseUrl}api/session`);
  expect(res.status()).toBe(401);
  const body = await res.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'ok']);
  expect(body.ok).toBe(false);
});

test('the code leaves the address bar once the console has read it', async ({ console: app }) => {
  await app.status.expectConnected();
  expect(new URL(app.page.url()).hash).toBe('');
});

test('a console link opened a second time says it was used, and names the command for a new one', async ({ serveHost, console: app, blankPage }) => {
  await app.status.expectConnected();
  const url = await serveHost!.newConsoleUrl();
  const first = await blankPage.context().browser()!.newContext();
  try {
    const page = await first.newPage();
    await page.goto(url);
    await new ConsolePage(page).status.expectConnected();
  } finally {
    await first.close();
  }
  // The same URL, as an agent would find it in the browser's history.
  await blankPage.goto(url);
  await expect(blankPage.getByTestId('auth-error-detail')).toContainText('already used');
  await expect(blankPage.getByTestId('auth-error-detail')).toContainText('gatehouse url');
});

test('the CSP blocks an injected inline script', async ({ console: app, pageProblems }) => {
  await app.status.expectConnected();
  const violation = app.page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective), { once: true });
        const s = document.createElement('script');
        s.textContent = 'window.__injected = true';
        document.body.appendChild(s);
      }),
  );
  expect(await violation).toMatch(/^script-src/);
  expect(await app.page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected)).toBeUndefined();
  // The violation was provoked on purpose: wait for Chromium's report of it, then forget it.
  await expect.poll(() => pageProblems.some((p) => /inline script/i.test(p))).toBe(true);
  pageProblems.length = 0;
});

test('the console reconnects by itself after the host restarts', async ({ console: app, serveHost }) => {
  await app.status.expectConnected();
  await serveHost!.stop();
  await expect(app.status.connection).toHaveAttribute('data-state', /reconnecting|connecting/);
  await serveHost!.restart();
  await app.status.expectConnected();
  await app.status.expectChainVerified();
  // The restart is in the log the console now shows.
  await app.open('audit');
  await expect(app.audit.rows.filter({ hasText: 'host.stopped' }).first()).toBeVisible();
});
