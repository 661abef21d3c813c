// Settings end to end, in a real browser against a real host: the mode and the autonomy level
// are saved to GATEHOUSE_HOME/settings.json, survive a reload, and are audited; the host's
// refusal of a bad value shows next to its field; agents' connection details are there to copy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { SettingsPage } from '../pages/settings-page.ts';

test('changing autonomy and mode persists across a reload and is audited', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);

  // A new install starts safe.
  await settings.expectChosen('mode', 'dry-run');
  await settings.expectChosen('autonomy', 'supervised');
  await expect(settings.field('mode')).toContainText('never executed');

  await settings.choose('mode', 'live');
  await settings.choose('autonomy', 'full');
  await expect(settings.error('mode')).toHaveCount(0);
  const file = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')) as { mode: string; autonomy: string };
  expect(file).toMatchObject({ mode: 'live', autonomy: 'full' });

  await app.page.reload();
  await app.status.expectConnected();
  await app.open('settings');
  await settings.expectChosen('mode', 'live');
  await settings.expectChosen('autonomy', 'full');

  await app.open('audit');
  await expect(app.audit.rows.filter({ hasText: 'gateway.mode-changed' })).toHaveCount(1);
  await expect(app.audit.rows.filter({ hasText: 'settings.changed' })).toHaveCount(2);
});

test('a value the host refuses shows its sentence next to the field; lists and numbers save', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);
  await expect(settings.numberInput('approvalExpiryMinutes')).toHaveValue('10');

  await settings.setNumber('approvalExpiryMinutes', '0');
  await expect(settings.error('approvalExpiryMinutes')).toContainText('approvalExpiryMinutes');
  // Refused: nothing changed, and the field shows what is in force again.
  await expect(settings.numberInput('approvalExpiryMinutes')).toHaveValue('10');

  await settings.setNumber('approvalExpiryMinutes', '2.5');
  await expect(settings.error('approvalExpiryMinutes')).toHaveCount(0);
  await settings.addGlob('alwaysAsk', 'deploy_*');
  await settings.addGlob('autoApprove', 'read_*');
  await settings.removeGlob('autoApprove', 'read_*');
  const file = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')) as Record<string, unknown>;
  expect(file).toMatchObject({ approvalExpiryMinutes: 2.5, alwaysAsk: ['deploy_*'], autoApprove: [] });
});

test('connect an agent: the token is masked until revealed, snippets and tools are listed', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);

  await expect(settings.agentToken).toHaveAttribute('data-revealed', 'false');
  const masked = await settings.agentToken.textContent();
  expect(masked).toContain('•');
  await settings.revealToken();
  const token = (await settings.agentToken.textContent())!.trim();
  expect(token).not.toContain('•');
  expect(token.length).toBeGreaterThan(16);
  // The stdio bridge and the command hook find this host through its home folder.
  await expect(settings.snippet('mcp-stdio')).toContainText('"mcp"');
  await expect(settings.snippet('mcp-stdio')).toContainText(home);
  await expect(settings.snippet('hook-command')).toContainText('gatehouse hook');
  await expect(settings.snippet('hook-command')).toContainText('PreToolUse');
  // The built-in shell tool is always there for agents.
  await expect(settings.tool('shell')).toHaveAttribute('data-kind', 'builtin');
});
