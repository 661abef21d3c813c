// A focused terminal and the console's own keys (issue #16 items 3 and 6): Alt+1 in a terminal
// that has been taken over opens the Approvals view and never reaches the shell (bash would read
// ESC 1 as a digit argument and repeat the next key), and Interrupt sends Ctrl-C, the gentle step
// before Kill. A real shell in a real PTY on a live `gatehouse serve`.
import { test, expect } from '../fixtures.ts';
import { TerminalsPage } from '../pages/terminals-page.ts';

test('Alt+1 and Alt+3 in a focused terminal switch views and reach no shell; Interrupt stops a running command', async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('terminals');
  const terminals = new TerminalsPage(app.page);
  const id = await terminals.newShell();
  await terminals.takeOver();
  await terminals.press('Control+u');
  await terminals.type('echo ab');

  // The view changes; had ESC 1 and ESC 3 reached bash, the next key would be repeated 13 times.
  await terminals.press('Alt+1');
  await expect(app.view('approvals')).toBeVisible();
  await app.open('terminals');
  await terminals.open(id);
  await terminals.press('Alt+3');
  await expect(app.view('plugins')).toBeVisible();
  await app.open('terminals');
  await terminals.open(id);
  await terminals.type('x');
  await terminals.press('Enter');
  await terminals.expectLine(/^abx$/);
  expect((await terminals.screen()).some((l) => /\(arg: \d+\)|abxx/.test(l))).toBe(false);

  // Interrupt sits before Kill and stops the foreground command; the shell lives on.
  const interrupt = app.page.getByTestId('terminal-interrupt');
  const order = await app.page.evaluate(() => {
    const i = document.querySelector('[data-testid="terminal-interrupt"]');
    const k = document.querySelector('[data-testid="terminal-kill"]');
    return i && k ? i.compareDocumentPosition(k) & Node.DOCUMENT_POSITION_FOLLOWING : 0;
  });
  expect(order, 'Interrupt comes before Kill').toBeTruthy();
  await terminals.type('sleep 30; echo slept-$((1+1))');
  await terminals.press('Enter');
  await interrupt.click();
  await terminals.type('echo after-$((2+2))');
  await terminals.press('Enter');
  await terminals.expectLine(/^after-4$/, 5_000);
  expect((await terminals.screen()).some((l) => l === 'slept-2')).toBe(false);
  await terminals.kill();
});
