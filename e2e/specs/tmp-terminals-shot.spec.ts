import { test, expect } from '../fixtures.ts';
import { TerminalsPage } from '../pages/terminals-page.ts';
process.env.GATEHOUSE_SHELL ??= '/bin/sh';
test('shot', async ({ console: app }) => {
  await app.page.setViewportSize({ width: 1400, height: 860 });
  await app.status.expectConnected();
  await app.open('terminals');
  const t = new TerminalsPage(app.page);
  const a = await t.newShell();
  await t.takeOver();
  await t.type('echo hello; exit 3'); await t.press('Enter');
  try { await expect(t.row(a)).toHaveAttribute('data-state', 'exited', { timeout: 3000 }); } catch (e) { console.log(JSON.stringify(await t.screen())); await app.page.screenshot({ path: '/tmp/terminals-fail.png' }); throw e; }
  await t.newShell();
  await t.takeOver();
  const t0 = Date.now();
  await t.type('yes'); await t.press('Enter');
  await expect.poll(async () => (await t.screen()).filter((l) => l === 'y').length).toBeGreaterThan(5);
  console.log('yes visible after', Date.now() - t0);
  const t1 = Date.now();
  await t.press('Control+c');
  await t.type('echo done-$((6*7))'); await t.press('Enter');
  await t.expectLine(/^done-42$/);
  console.log('ctrl-c to done', Date.now() - t1);
  await t.type('ls --color=auto -d /usr/lib/*/ | head -12; printf "\\033[1;32mgreen\\033[0m €😀\\n"'); await t.press('Enter');
  await t.expectLine(/green/);
  await app.page.screenshot({ path: '/tmp/terminals.png' });
});
