// Settings end to end, in a real browser against a real host: the mode and the autonomy level
// are saved to GATEHOUSE_HOME/settings.json, survive a reload, and are audited; the host's
// refusal of a bad value shows next to its field; audit retention persists, and raw audit values
// ask first and then unmask what the Audit view shows; agents' connection details are there to copy.
// Each change says beside its field whether it is saving, saved or refused, for screen readers too.
import { readFileSync } from 'node:fs';
import { axe } from '../support/axe.ts';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { SettingsPage } from '../pages/settings-page.ts';
import { callTool, httpAgent } from '../support/agents.ts';

test('changing autonomy and mode persists across a reload and is audited', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);

  // A new install starts safe.
  await settings.expectChosen('mode', 'dry-run');
  await settings.expectChosen('autonomy', 'supervised');
  await expect(settings.field('mode')).toContainText('never executed');

  await settings.choose('mode', 'live');
  // Full autonomy while live asks first, with Cancel focused: Enter by habit keeps supervised.
  await settings.choice('autonomy', 'full').click();
  const confirm = app.page.getByTestId('setting-confirm-dialog');
  await expect(confirm).toContainText('Full autonomy while live?');
  await expect(app.page.getByTestId('setting-confirm-cancel')).toBeFocused();
  await app.page.keyboard.press('Enter');
  await expect(confirm).toHaveCount(0);
  await settings.expectChosen('autonomy', 'supervised');
  await settings.choice('autonomy', 'full').click();
  await app.page.getByTestId('setting-confirm').click();
  await expect(settings.choice('autonomy', 'full')).toBeChecked();
  await settings.expectSettled('autonomy');
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

test('audit retention: days and a maximum number of events are saved, refused when invalid, and survive a reload', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);
  // A new install keeps everything.
  await expect(settings.numberInput('auditRetentionDays')).toHaveValue('0');
  await expect(settings.numberInput('auditMaxEvents')).toHaveValue('0');

  await settings.setNumber('auditRetentionDays', '30');
  await settings.setNumber('auditMaxEvents', '2.5');
  // Not a whole number: the host's sentence, and the value in force again.
  await expect(settings.error('auditMaxEvents')).toContainText('auditMaxEvents');
  await expect(settings.numberInput('auditMaxEvents')).toHaveValue('0');
  await settings.setNumber('auditMaxEvents', '50000');
  await expect(settings.error('auditMaxEvents')).toHaveCount(0);
  await expect(settings.error('auditRetentionDays')).toHaveCount(0);
  const file = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')) as Record<string, unknown>;
  expect(file).toMatchObject({ auditRetentionDays: 30, auditMaxEvents: 50000 });

  await app.page.reload();
  await app.status.expectConnected();
  await app.open('settings');
  await expect(settings.numberInput('auditRetentionDays')).toHaveValue('30');
  await expect(settings.numberInput('auditMaxEvents')).toHaveValue('50000');
});

test('"Show raw audit values" asks first; once on, a bearer token an agent sent shows unmasked in the Audit view', async ({ console: app, home }) => {
  await app.status.expectConnected();
  const secret = 'e2eSecretToken0123456789abcdef';
  const agent = await httpAgent(home, 'e2e-secret-agent');
  try {
    // The call waits for an operator (dry run, supervised); it is in the audit log at once.
    callTool(agent, 'shell', { command: `curl -H "Authorization: Bearer ${secret}" https://example.com/` });
    await app.open('audit');
    const received = app.audit.rows.filter({ hasText: 'shell called by default (e2e-secret-agent)' });
    await expect(received).toHaveCount(1);
    await expect(received).toContainText('Bearer [REDACTED]');
    await expect(received).not.toContainText(secret);

    await app.open('settings');
    const settings = new SettingsPage(app.page);
    await expect(settings.field('auditRaw')).toContainText('Show raw audit values');
    await expect(settings.toggle('auditRaw')).not.toBeChecked();
    // Cancel leaves the secrets masked.
    await settings.toggle('auditRaw').click();
    await expect(settings.confirmDialog).toBeVisible();
    await expect(settings.confirmDialog).toContainText('unmasked');
    await settings.confirmCancel.click();
    await expect(settings.confirmDialog).toHaveCount(0);
    await expect(settings.toggle('auditRaw')).not.toBeChecked();
    await app.open('audit');
    await expect(received).toContainText('Bearer [REDACTED]');

    await app.open('settings');
    await settings.toggle('auditRaw').click();
    await expect(settings.confirmButton).toBeFocused();
    await settings.confirmButton.click();
    await expect(settings.confirmDialog).toHaveCount(0);
    await settings.expectSettled('auditRaw');
    await expect(settings.toggle('auditRaw')).toBeChecked();
    await expect(settings.error('auditRaw')).toHaveCount(0);
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8'))).toMatchObject({ auditRaw: true });

    // The rows already loaded are shown again, as the host now sends them.
    await app.open('audit');
    await expect(received).toContainText(`Bearer ${secret}`);

    // Off again: masked again, without asking.
    await app.open('settings');
    await settings.toggle('auditRaw').click();
    await settings.expectSettled('auditRaw');
    await expect(settings.toggle('auditRaw')).not.toBeChecked();
    await expect(settings.confirmDialog).toHaveCount(0);
    await app.open('audit');
    await expect(received).toContainText('Bearer [REDACTED]');
  } finally {
    await agent.close();
  }
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
  await expect(settings.snippet('hook-command')).toContainText(/\/bin\/bash \S+\/gatehouse-hook\.sh --home/);
  await expect(settings.snippet('hook-command')).toContainText('PreToolUse');
  // The built-in shell tool is always there for agents.
  await expect(settings.tool('shell')).toHaveAttribute('data-kind', 'builtin');
});

test('each change says Saving…, Saved or Not saved beside its field, in a live region, and the view passes axe in both themes', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);
  const state = settings.saveState('approvalExpiryMinutes');
  // Present before anything changes, so the first change is announced too.
  await expect(state).toHaveAttribute('role', 'status');
  await expect(state).toHaveAttribute('aria-live', 'polite');
  await expect(state).toHaveAttribute('data-state', 'idle');

  await settings.setNumber('approvalExpiryMinutes', '0');
  await expect(state).toHaveAttribute('data-state', 'failed');
  await expect(state).toHaveText('Not saved');
  await expect(settings.error('approvalExpiryMinutes')).toBeVisible();
  // Scanned while the refusal shows (it stays until the next change), in both themes.
  const found: string[] = [];
  for (const scheme of ['dark', 'light'] as const) {
    await app.page.emulateMedia({ colorScheme: scheme });
    const result = await axe(app.page).exclude('.xterm').exclude('.monaco-editor').analyze();
    for (const v of result.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
      found.push(`${scheme}: ${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    }
  }
  expect(found, found.join('\n')).toEqual([]);

  await settings.setNumber('approvalExpiryMinutes', '3');
  await expect(state).toHaveAttribute('data-state', 'saved');
  await expect(state).toHaveText(/Saved/);
  expect((JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')) as { approvalExpiryMinutes: number }).approvalExpiryMinutes).toBe(3);
  // A radio group says it in its legend; other fields stay quiet.
  await settings.choose('mode', 'live');
  await expect(settings.saveState('mode')).toHaveAttribute('data-state', 'saved');
  await expect(settings.saveState('autonomy')).toHaveAttribute('data-state', 'idle');

  // "Saved" goes once read; the field is quiet again.
  await expect(state).toHaveAttribute('data-state', 'idle');
});

test('containment: which let-through Bash commands run in the box is saved per level, and the view says whether a box can be built here', async ({ console: app, home }) => {
  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);
  const box = (w: string) => app.page.getByTestId(`containment-${w}`);
  // On by default for full autonomy and grants.
  await expect(box('full')).toBeChecked();
  await expect(box('grants')).toBeChecked();
  await expect(box('supervised')).not.toBeChecked();
  await expect(box('read-only')).not.toBeChecked();
  // The suite runs where bubblewrap works (.ci/run installs it), so the host can build the box.
  const status = app.page.getByTestId('settings-containment');
  await expect(status).toHaveAttribute('data-available', 'true');
  await expect(status).toContainText('Containment is on for commands allowed by full autonomy, a grant or an allow rule');
  await box('supervised').check();
  await settings.expectSettled('containment');
  await box('full').uncheck();
  await settings.expectSettled('containment');
  const file = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')) as Record<string, unknown>;
  expect(file.containment).toEqual(['supervised', 'grants']);
  await app.page.reload();
  await app.status.expectConnected();
  await app.open('settings');
  await expect(box('supervised')).toBeChecked();
  await expect(box('full')).not.toBeChecked();
});
