// A focused terminal and the console's own keys (issue #16 items 3 and 6): Alt+1 in a terminal
// that has been taken over opens the Approvals view and never reaches the shell (bash would read
// ESC 1 as a digit argument and repeat the next key), and Interrupt sends Ctrl-C, the gentle step
// before Kill. With "Terminal receives app shortcuts" on in Settings, the shell gets them instead.
// A real shell in a real PTY on a live `gatehouse serve`.
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

test('with "Terminal receives app shortcuts" on (saved, kept after a reload), Alt+3 in a focused terminal reaches the shell and the view stays', async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('settings');
  const field = app.page.getByTestId('setting-terminalGetsShortcuts');
  const toggle = field.getByRole('checkbox', { name: /Alt\+0…9/ });
  await expect(toggle).not.toBeChecked();
  await toggle.check();
  // Said beside the field, in a live region a screen reader announces.
  const state = field.getByTestId('setting-state');
  await expect(state).toHaveAttribute('data-state', 'saved');
  await expect(state).toHaveAttribute('aria-live', 'polite');
  await expect(state).toHaveText(/Saved/);

  await app.page.reload();
  await app.status.expectConnected();
  await app.open('settings');
  await expect(app.page.getByTestId('setting-terminalGetsShortcuts').getByRole('checkbox')).toBeChecked();
  // The sheet of keys says where Alt+0…9 go now.
  await app.page.getByRole('heading', { name: 'Settings', level: 1 }).focus();
  await app.page.keyboard.press('?');
  await expect(app.page.getByTestId('shortcuts-sheet')).toContainText('a focused terminal gets them instead');
  await app.page.keyboard.press('Escape');
  await expect(app.page.getByTestId('shortcuts-sheet')).toHaveCount(0);

  await app.open('terminals');
  const terminals = new TerminalsPage(app.page);
  const id = await terminals.newShell();
  await terminals.takeOver();
  await terminals.press('Control+u');
  // `cat -v` shows what the program receives, whichever shell the host's user has: Alt+3 is ESC 3.
  await terminals.type('cat -v');
  await terminals.press('Enter');
  await terminals.press('Alt+3');
  await expect(app.view('terminals')).toBeVisible();
  await terminals.type('x');
  await terminals.press('Enter');
  await terminals.expectLine(/^\^\[3x$/);
  await terminals.press('Control+d');
  await expect(terminals.pane).toHaveAttribute('data-id', id);

  // Outside the terminal the same keys still switch views.
  await app.page.getByTestId('nav-terminals').focus();
  await app.page.keyboard.press('Alt+1');
  await expect(app.view('approvals')).toBeVisible();
  await app.open('terminals');
  await terminals.open(id);
  await terminals.kill();
});
