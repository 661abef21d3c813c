// PTY sessions in the Terminals view, in a real browser against a real `gatehouse serve`: a shell
// the operator opens streams live into xterm.js, typing needs a take-over, Ctrl-C stops `yes`
// at once (flow control keeps the output in flight small), the view re-attaches without losing
// output, and Kill ends the session.
import { test, expect } from '../fixtures.ts';
import { TerminalsPage } from '../pages/terminals-page.ts';

// "New shell" opens $GATEHOUSE_SHELL (else $SHELL). The host inherits this process's
// environment; /bin/sh keeps the spec independent of the machine's bash start-up files (which
// can take seconds, and which a kill in mid-start-up can leave locked).
process.env.GATEHOUSE_SHELL ??= '/bin/sh';

// @alone: it times what the operator waits for after Ctrl-C, so it runs with the machine to
// itself (npm test runs these after the rest, one at a time); beside another spec's browser and
// host on two cores the same Ctrl-C took 3.7 s.
test('a shell streams live, Ctrl-C stops `yes` at once, re-attach keeps the output, Kill ends it', { tag: '@alone' }, async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('terminals');
  const terminals = new TerminalsPage(app.page);

  const id = await terminals.newShell();
  await expect(terminals.notice).toContainText('read-only');

  // Before the take-over, keystrokes go nowhere.
  await terminals.type('echo typed-before-take-over');
  await terminals.takeOver();
  await expect(terminals.notice).toContainText('You have taken over');
  // Ctrl-U clears whatever the shell's line holds (nothing, if the first keystrokes were dropped).
  await terminals.press('Control+u');
  await terminals.type('echo first-$((1+1))');
  await terminals.press('Enter');
  await terminals.expectLine(/^first-2$/);
  // Output reaches xterm.js as UTF-8 bytes: characters of two and three bytes come out whole.
  await terminals.type("printf 'utf8-\\303\\251\\342\\234\\223-end\\n'");
  await terminals.press('Enter');
  await terminals.expectLine(/^utf8-é✓-end$/);

  // `yes` streams into the terminal…
  await terminals.type('yes');
  await terminals.press('Enter');
  await expect.poll(async () => (await terminals.screen()).filter((l) => l === 'y').length, { message: 'rows of y on screen' }).toBeGreaterThan(5);

  // …and Ctrl-C stops it at once: the shell answers right away, not after a backlog drains.
  const pressed = Date.now();
  await terminals.press('Control+c');
  await terminals.type('echo done-$((6*7))');
  await terminals.press('Enter');
  await terminals.expectLine(/^done-42$/, 5_000);
  const answeredMs = Date.now() - pressed;
  expect(answeredMs, 'Ctrl-C to the next command’s output').toBeLessThan(3_000);

  // Read the screen, cause another round trip through the shell, read it again: no `y` came in
  // between or after, so the flood had really stopped, not just paused behind the prompt.
  const first = await terminals.screen();
  await terminals.type('echo mark-$((2*3))');
  await terminals.press('Enter');
  await terminals.expectLine(/^mark-6$/);
  const second = await terminals.screen();
  const afterDone = (screen: string[]) => screen.slice(screen.findIndex((l) => l === 'done-42') + 1);
  expect(afterDone(first).filter((l) => l === 'y')).toEqual([]);
  expect(afterDone(second).filter((l) => l === 'y')).toEqual([]);
  expect(afterDone(second).some((l) => l === 'mark-6')).toBe(true);
  // The first keystrokes (before the take-over) never reached the shell.
  expect(second.some((l) => l.includes('typed-before-take-over'))).toBe(false);

  // Detach (switch away) and re-attach: the output is all still there, and so is the take-over.
  await app.open('audit');
  await app.open('terminals');
  await expect(terminals.pane).toHaveAttribute('data-id', id);
  await expect(terminals.pane).toHaveAttribute('data-attach', 'live');
  await terminals.expectLine(/^done-42$/);
  await terminals.expectLine(/^mark-6$/);
  await expect(terminals.pane).toHaveAttribute('data-typing', 'true');
  await terminals.type('echo back-$((3*3))');
  await terminals.press('Enter');
  await terminals.expectLine(/^back-9$/);

  // Kill: the session is marked exited, with the signal that ended it.
  await terminals.kill();
  await expect(terminals.row(id)).toHaveAttribute('data-state', 'exited');
  await expect(terminals.row(id)).toContainText('SIGKILL');
  await expect(terminals.killButton).toBeDisabled();
  await expect(terminals.takeOverButton).toBeDisabled();
  await expect(terminals.pane).toHaveAttribute('data-typing', 'false');
  // What it printed stays for review.
  await terminals.expectLine(/^back-9$/);
});

test('a finished session re-opens with its output; the take-over is in the audit log', async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('terminals');
  const terminals = new TerminalsPage(app.page);
  const first = await terminals.newShell();
  await terminals.takeOver();
  await terminals.type('echo from-the-first-$((40+2))');
  await terminals.press('Enter');
  await terminals.expectLine(/^from-the-first-42$/);
  await terminals.type('exit');
  await terminals.press('Enter');
  await expect(terminals.row(first)).toHaveAttribute('data-state', 'exited');
  await expect(terminals.row(first)).toContainText('exit 0');

  const second = await terminals.newShell();
  expect(second).not.toBe(first);
  await terminals.open(first);
  await terminals.expectLine(/^from-the-first-42$/);
  await expect(terminals.takeOverButton).toBeDisabled();

  await app.open('audit');
  await expect(app.audit.rows.filter({ hasText: 'pty.take-over' }).first()).toBeVisible();
});
