// "Connect an agent in one step", in a real browser against a real host: Claude Code's exact
// commands are there to copy, and "write it for me" edits a project's Claude Code files only
// after showing the diff, keeps a backup, and records the change. Only the project scope is
// used here: the user scope would edit the real ~/.claude of whoever runs the suite (it is
// tested in test/main/agents/claude-config-writer.test.ts with an injected home).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { SettingsPage } from '../pages/settings-page.ts';

test.skip(({ shell }) => shell !== 'serve', 'the project folder is made on this machine for the served host');

// Codex's config.toml goes to a folder of this spec's own: the served host inherits this worker's
// environment, so the real ~/.codex is never read or written.
const codexHome = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-codex-'));
process.env.CODEX_HOME = codexHome;
test.afterAll(() => {
  rmSync(codexHome, { recursive: true, force: true });
});

let project: string;
test.beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-project-'));
});
test.afterEach(() => {
  rmSync(project, { recursive: true, force: true });
});

test('Claude Code commands are there to copy, with the scope explained', async ({ console: app }) => {
  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);
  await settings.revealToken();
  const token = (await settings.agentToken.textContent())!.trim();
  const mcpUrl = (await app.page.getByTestId('agent-mcp-url').textContent())!.trim();

  await expect(settings.snippet('claude-mcp-http').locator('pre')).toHaveText(`claude mcp add --transport http gatehouse ${mcpUrl} --header "Authorization: Bearer ${token}"`);
  await expect(settings.snippet('claude-mcp-http')).toContainText('--scope user');
  await expect(settings.snippet('claude-mcp-stdio').locator('pre')).toContainText('claude mcp add gatehouse -- gatehouse mcp --home ');
  await expect(settings.snippet('hook-command')).toContainText('"PreToolUse"');
  await expect(settings.snippet('hook-http')).toContainText('"allowedEnvVars"');
  // The generic block for other MCP clients stays.
  await expect(settings.snippet('mcp-http')).toContainText('"mcpServers"');
  for (const kind of ['claude-mcp-http', 'claude-mcp-stdio', 'hook-command', 'hook-http', 'mcp-http', 'mcp-stdio'] as const) {
    await expect(settings.snippet(kind).getByTestId('snippet-copy')).toBeVisible();
  }
});

test('write it for me: the diff first, then the files, a backup and an audit event', async ({ console: app, home }) => {
  // A project that already has Claude Code settings of its own (four-space indented, group-readable).
  const settingsFile = join(project, '.claude', 'settings.json');
  const mcpFile = join(project, '.mcp.json');
  mkdirSync(join(project, '.claude'));
  const own = { model: 'opus', permissions: { deny: ['Read(./.env)'] }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }] } };
  const before = JSON.stringify(own, null, 4) + '\n';
  writeFileSync(settingsFile, before);
  chmodSync(settingsFile, 0o640);

  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);

  // Escape closes the dialog without doing anything.
  await settings.openWriteConfig();
  await app.page.keyboard.press('Escape');
  await expect(settings.writeConfig).toHaveCount(0);

  await settings.openWriteConfig();
  await expect(settings.writeConfigApply).toBeDisabled();
  await settings.writeConfigChoose('mcp', 'http');
  await settings.writeConfigChoose('hook', 'command');
  // Enter in the folder field shows the diff; it does not apply.
  await settings.writeConfigForProject(project);
  const settingsPreview = settings.writeConfigFile(settingsFile);
  const mcpPreview = settings.writeConfigFile(mcpFile);
  await expect(settingsPreview).toHaveAttribute('data-changed', 'true');
  await expect(settingsPreview).toContainText('will change');
  // By absolute path (bash and the hook client, as bash and curl are here; elsewhere node and the
  // entry), with its own --timeout below the written timeout, failing closed.
  await expect(settingsPreview.locator('.diff-add').filter({ hasText: `/bin/bash ` }).filter({ hasText: `gatehouse-hook.sh --home ${home} --timeout 590 || {` })).toHaveCount(1);
  await expect(settingsPreview.locator('.diff-del')).toHaveCount(0);
  await expect(mcpPreview).toContainText('new file');
  await expect(mcpPreview.locator('.diff-add').filter({ hasText: '"Authorization": "Bearer ${GATEHOUSE_AGENT_TOKEN}"' })).toHaveCount(1);
  await expect(settings.writeConfig.getByTestId('write-config-notes')).toContainText('GATEHOUSE_AGENT_TOKEN');
  expect(readFileSync(settingsFile, 'utf8')).toBe(before);
  expect(existsSync(mcpFile)).toBe(false);

  // Apply from the keyboard: Enter on the focused button.
  await settings.writeConfigApply.focus();
  await app.page.keyboard.press('Enter');
  await expect(settings.writeConfig.getByTestId('write-config-result')).toBeVisible();
  const backup = (await settings.writeConfigWritten(settingsFile).getByTestId('write-config-backup').textContent())!.trim();
  await expect(settings.writeConfigWritten(settingsFile)).toContainText('updated');
  await expect(settings.writeConfigWritten(mcpFile)).toContainText('created');
  await expect(settings.writeConfigWritten(mcpFile).getByTestId('write-config-backup')).toHaveCount(0);

  // On disk: the backup is the old file; the new one keeps everything and adds the hook.
  expect(backup).toMatch(new RegExp(`^${settingsFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.gatehouse-backup-`));
  expect(readFileSync(backup, 'utf8')).toBe(before);
  const after = JSON.parse(readFileSync(settingsFile, 'utf8')) as typeof own & { hooks: { PreToolUse: { matcher: string; hooks: { type: string; command: string }[] }[] } };
  expect(after.model).toBe('opus');
  expect(after.permissions).toEqual(own.permissions);
  expect(after.hooks.PreToolUse).toEqual([own.hooks.PreToolUse[0], { matcher: '*', hooks: [{ type: 'command', command: expect.stringMatching(new RegExp(`^/bin/bash \\S*/gatehouse-hook\\.sh --home ${home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --timeout 590 \\|\\| \\{`)), timeout: 600 }] }]);
  // What ran is reported back.
  expect(Object.keys(after.hooks)).toEqual(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);
  const mcp = JSON.parse(readFileSync(mcpFile, 'utf8')) as { mcpServers: Record<string, unknown> };
  const mcpUrl = (await app.page.getByTestId('agent-mcp-url').textContent())!.trim();
  expect(mcp).toEqual({ mcpServers: { gatehouse: { type: 'http', url: mcpUrl, headers: { Authorization: 'Bearer ${GATEHOUSE_AGENT_TOKEN}' } } } });

  // Again: nothing left to change, Apply stays off, no second backup.
  await settings.writeConfig.getByTestId('write-config-close').click();
  await expect(settings.writeConfig).toHaveCount(0);
  await settings.openWriteConfig();
  await settings.writeConfigChoose('mcp', 'http');
  await settings.writeConfigForProject(project);
  await expect(settings.writeConfigFile(settingsFile)).toHaveAttribute('data-changed', 'false');
  await expect(settings.writeConfigFile(mcpFile)).toContainText('already set');
  await expect(settings.writeConfigApply).toBeDisabled();
  await settings.writeConfig.getByTestId('write-config-cancel').click();
  expect(readdirSync(join(project, '.claude')).filter((f) => f.includes('gatehouse-backup'))).toHaveLength(1);

  await app.open('audit');
  await expect(app.audit.rows.filter({ hasText: 'agent.config-written' })).toHaveCount(1);
});

test('a settings file that is not JSON is refused with its line and column, and left alone', async ({ console: app }) => {
  const settingsFile = join(project, '.claude', 'settings.json');
  mkdirSync(join(project, '.claude'));
  const broken = '{\n  "model": "opus",\n}\n';
  writeFileSync(settingsFile, broken);

  await app.status.expectConnected();
  await app.open('settings');
  const settings = new SettingsPage(app.page);
  await settings.openWriteConfig();
  await settings.writeConfigChoose('mcp', 'none');
  await settings.writeConfigForProject(project);
  await expect(settings.writeConfig.getByTestId('write-config-error')).toContainText(`${settingsFile} is not valid JSON: line 3, column 1`);
  await expect(settings.writeConfigApply).toBeDisabled();
  expect(readFileSync(settingsFile, 'utf8')).toBe(broken);
});

test('write it for Codex: the diff of config.toml first, then the file; Cancel and Escape write nothing', async ({ console: app }) => {
  const configFile = join(codexHome, 'config.toml');
  await app.status.expectConnected();
  await app.open('settings');
  const dialog = app.page.getByTestId('codex-config-dialog');

  await app.page.getByTestId('codex-config-open').click();
  await expect(dialog.getByRole('heading', { name: 'Connect Codex: write it for me' })).toBeVisible();
  const file = dialog.getByTestId('codex-config-file');
  await expect(file).toHaveAttribute('data-path', configFile);
  await expect(file).toHaveAttribute('data-changed', 'true');
  await expect(file).toContainText('new file');
  await expect(dialog.getByTestId('codex-config-notes')).toContainText('restart it');
  await dialog.getByTestId('codex-config-cancel').click();
  await expect(dialog).toHaveCount(0);
  await app.page.getByTestId('codex-config-open').click();
  await expect(dialog.getByTestId('codex-config-file')).toBeVisible();
  await app.page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  expect(existsSync(configFile)).toBe(false);

  await app.page.getByTestId('codex-config-open').click();
  const apply = dialog.getByRole('button', { name: 'Apply' });
  await expect(apply).toBeEnabled();
  await apply.click();
  await expect(dialog.getByTestId('codex-config-result')).toContainText(`${configFile} created`);
  expect(readFileSync(configFile, 'utf8')).toContain('gatehouse');
  await dialog.getByTestId('codex-config-close').click();
  await expect(dialog).toHaveCount(0);

  // Again: already set, so Apply stays off.
  await app.page.getByTestId('codex-config-open').click();
  await expect(dialog.getByTestId('codex-config-file')).toContainText('already set');
  await expect(dialog.getByRole('button', { name: 'Apply' })).toBeDisabled();
});

test('write it for Gemini CLI: one project’s .gemini/settings.json gets the stdio bridge, a BeforeTool hook that fails closed and an AfterTool report, after its diff', async ({ console: app, home }) => {
  // The project scope only: the user scope would edit the real ~/.gemini of whoever runs the suite.
  const settingsFile = join(project, '.gemini', 'settings.json');
  await app.status.expectConnected();
  await app.open('settings');
  const dialog = app.page.getByTestId('gemini-config-dialog');
  await app.page.getByTestId('gemini-config-open').click();
  await expect(dialog.getByRole('heading', { name: /Gemini CLI/ })).toBeVisible();
  await dialog.getByTestId('gemini-config-scope').getByRole('radio', { name: /One project/ }).check();
  await dialog.getByTestId('gemini-config-project-dir').fill(project);
  await app.page.keyboard.press('Enter');
  const file = dialog.locator(`[data-testid="gemini-config-file"][data-path="${settingsFile}"]`);
  await expect(file).toHaveAttribute('data-changed', 'true');
  await expect(file).toContainText('new file');
  await expect(file.locator('.diff-add').filter({ hasText: 'BeforeTool' })).toHaveCount(1);
  await expect(file.locator('.diff-add').filter({ hasText: 'AfterTool' })).toHaveCount(1);
  // The same command twice: BeforeTool decides, AfterTool reports what ran.
  await expect(file.locator('.diff-add').filter({ hasText: `hook --agent gemini-cli --home ${home}` })).toHaveCount(2);
  expect(existsSync(settingsFile)).toBe(false);

  await dialog.getByRole('button', { name: 'Apply' }).click();
  await expect(dialog.getByTestId('gemini-config-result')).toContainText(`${settingsFile} created`);
  const written = JSON.parse(readFileSync(settingsFile, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }>; hooks: Record<'BeforeTool' | 'AfterTool', { matcher: string; hooks: { type: string; command: string }[] }[]> };
  expect(written.mcpServers.gatehouse!.args).toContain('mcp');
  expect(written.hooks.BeforeTool).toEqual([{ matcher: '.*', hooks: [expect.objectContaining({ type: 'command', command: expect.stringContaining('hook --agent gemini-cli') })] }]);
  expect(written.hooks.AfterTool).toEqual([{ matcher: '.*', hooks: [expect.objectContaining({ type: 'command', command: expect.stringContaining('hook --agent gemini-cli') })] }]);
  await dialog.getByTestId('gemini-config-close').click();
  await expect(dialog).toHaveCount(0);

  // Again: already set, so Apply stays off.
  await app.page.getByTestId('gemini-config-open').click();
  await dialog.getByTestId('gemini-config-scope').getByRole('radio', { name: /One project/ }).check();
  await dialog.getByTestId('gemini-config-project-dir').fill(project);
  await app.page.keyboard.press('Enter');
  await expect(dialog.locator(`[data-testid="gemini-config-file"][data-path="${settingsFile}"]`)).toContainText('already set');
  await expect(dialog.getByRole('button', { name: 'Apply' })).toBeDisabled();
});

test('write it for opencode: one project’s plugin and opencode.json, after their diffs, with its fail-open said before writing', async ({ console: app, home }) => {
  // The project scope only: the user scope would edit the real ~/.config/opencode of whoever runs the suite.
  const pluginFile = join(project, '.opencode', 'plugins', 'gatehouse.js');
  const configFile = join(project, 'opencode.json');
  // The user's own opencode.json: Gatehouse's write keeps its keys.
  writeFileSync(configFile, JSON.stringify({ model: 'anthropic/claude-sonnet-4-5' }, null, 2) + '\n');
  await app.status.expectConnected();
  await app.open('settings');
  const dialog = app.page.getByTestId('opencode-config-dialog');
  await app.page.getByTestId('opencode-config-open').click();
  await expect(dialog.getByRole('heading', { name: /Connect opencode/ })).toBeVisible();
  await dialog.getByTestId('opencode-config-scope').getByRole('radio', { name: /One project/ }).check();
  await dialog.getByTestId('opencode-config-project-dir').fill(project);
  await app.page.keyboard.press('Enter');
  const plugin = dialog.locator(`[data-testid="opencode-config-file"][data-path="${pluginFile}"]`);
  const config = dialog.locator(`[data-testid="opencode-config-file"][data-path="${configFile}"]`);
  await expect(plugin).toHaveAttribute('data-changed', 'true');
  await expect(plugin).toContainText('new file');
  await expect(plugin.locator('.diff-add').filter({ hasText: `"hook","--agent","opencode","--home","${home}"` })).toHaveCount(1);
  await expect(config).toHaveAttribute('data-changed', 'true');
  await expect(config.locator('.diff-add').filter({ hasText: '"gatehouse"' })).toHaveCount(1);
  // The console says what opencode cannot guarantee before anything is written.
  await expect(dialog.getByTestId('opencode-config-notes')).toContainText('runs every tool when the plugin file fails to load');
  expect(existsSync(pluginFile)).toBe(false);

  await dialog.getByRole('button', { name: 'Apply' }).click();
  await expect(dialog.getByTestId('opencode-config-result')).toContainText(`${pluginFile} created`);
  const written = JSON.parse(readFileSync(configFile, 'utf8')) as { model: string; mcp: Record<string, { type: string; command: string[] }> };
  expect(written.model).toBe('anthropic/claude-sonnet-4-5');
  expect(written.mcp.gatehouse).toMatchObject({ type: 'local', command: expect.arrayContaining(['mcp']) });
  expect(readFileSync(pluginFile, 'utf8')).toContain('export const GatehousePlugin');
  await dialog.getByTestId('opencode-config-close').click();
  await expect(dialog).toHaveCount(0);

  // Again: already set, so Apply stays off.
  await app.page.getByTestId('opencode-config-open').click();
  await dialog.getByTestId('opencode-config-scope').getByRole('radio', { name: /One project/ }).check();
  await dialog.getByTestId('opencode-config-project-dir').fill(project);
  await app.page.keyboard.press('Enter');
  await expect(dialog.locator(`[data-testid="opencode-config-file"][data-path="${pluginFile}"]`)).toContainText('already set');
  await expect(dialog.getByRole('button', { name: 'Apply' })).toBeDisabled();
});

// Copilot CLI's files go to a COPILOT_HOME of this spec's own (the served host inherits this
// worker's environment), so the real ~/.copilot is never read or written.
const copilotHome = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-copilot-'));
process.env.COPILOT_HOME = copilotHome;
test.afterAll(() => {
  rmSync(copilotHome, { recursive: true, force: true });
});

test('write it for Copilot CLI: hooks/gatehouse.json (a preToolUse hook that fails closed) and mcp-config.json (the stdio bridge), each after its diff, with where Copilot CLI fails open said', async ({ console: app, home }) => {
  const hookFile = join(copilotHome, 'hooks', 'gatehouse.json');
  const mcpFile = join(copilotHome, 'mcp-config.json');
  await app.status.expectConnected();
  await app.open('settings');
  const dialog = app.page.getByTestId('copilot-config-dialog');
  await app.page.getByTestId('copilot-config-open').click();
  await expect(dialog.getByRole('heading', { name: /Copilot CLI/ })).toBeVisible();
  const hook = dialog.locator(`[data-testid="copilot-config-file"][data-path="${hookFile}"]`);
  const mcp = dialog.locator(`[data-testid="copilot-config-file"][data-path="${mcpFile}"]`);
  await expect(hook).toHaveAttribute('data-changed', 'true');
  await expect(hook).toContainText('new file');
  await expect(hook.locator('.diff-add').filter({ hasText: 'preToolUse' })).toHaveCount(1);
  await expect(hook.locator('.diff-add').filter({ hasText: `hook --agent copilot --home ${home}` })).toHaveCount(1);
  await expect(mcp).toHaveAttribute('data-changed', 'true');
  await expect(mcp.locator('.diff-add').filter({ hasText: '"gatehouse"' })).toHaveCount(1);
  // The console says where Copilot CLI fails open, before anything is written.
  await expect(dialog.getByTestId('copilot-config-notes')).toContainText('fails open');
  expect(existsSync(hookFile)).toBe(false);
  expect(existsSync(mcpFile)).toBe(false);

  await dialog.getByRole('button', { name: 'Apply' }).click();
  await expect(dialog.getByTestId('copilot-config-result')).toContainText(`${hookFile} created`);
  await expect(dialog.getByTestId('copilot-config-result')).toContainText(`${mcpFile} created`);
  const written = JSON.parse(readFileSync(hookFile, 'utf8')) as { version: number; hooks: Record<string, { type: string; bash: string; timeoutSec: number }[]> };
  expect(written).toEqual({
    version: 1,
    hooks: {
      preToolUse: [{ type: 'command', bash: expect.stringMatching(/hook --agent copilot .*\|\| \{/), timeoutSec: 600 }],
      postToolUse: [{ type: 'command', bash: expect.stringContaining('hook --agent copilot --event postToolUse'), timeoutSec: 30 }],
      postToolUseFailure: [{ type: 'command', bash: expect.stringContaining('hook --agent copilot --event postToolUseFailure'), timeoutSec: 30 }],
    },
  });
  expect((JSON.parse(readFileSync(mcpFile, 'utf8')) as { mcpServers: Record<string, { type: string; args: string[] }> }).mcpServers.gatehouse).toMatchObject({ type: 'local', args: expect.arrayContaining(['mcp']) });
  await dialog.getByTestId('copilot-config-close').click();
  await expect(dialog).toHaveCount(0);

  // Again: already set, so Apply stays off.
  await app.page.getByTestId('copilot-config-open').click();
  await expect(hook).toContainText('already set');
  await expect(mcp).toContainText('already set');
  await expect(dialog.getByRole('button', { name: 'Apply' })).toBeDisabled();
});

test('write it for Qwen Code: one project’s .qwen/settings.json gets the stdio bridge, a PreToolUse hook that fails closed and the reports, after its diff and what Qwen Code cannot guarantee', async ({ console: app, home }) => {
  // The project scope only: the user scope would edit the real ~/.qwen of whoever runs the suite.
  const settingsFile = join(project, '.qwen', 'settings.json');
  // The user's own settings with every hook switched off: the write keeps their keys and turns hooks back on.
  mkdirSync(join(project, '.qwen'), { recursive: true });
  writeFileSync(settingsFile, JSON.stringify({ model: { name: 'qwen3-coder-plus' }, disableAllHooks: true }, null, 2) + '\n');
  await app.status.expectConnected();
  await app.open('settings');
  const dialog = app.page.getByTestId('qwen-config-dialog');
  await app.page.getByTestId('qwen-config-open').click();
  await expect(dialog.getByRole('heading', { name: /Qwen Code/ })).toBeVisible();
  await dialog.getByTestId('qwen-config-scope').getByRole('radio', { name: /One project/ }).check();
  await dialog.getByTestId('qwen-config-project-dir').fill(project);
  await app.page.keyboard.press('Enter');
  const file = dialog.locator(`[data-testid="qwen-config-file"][data-path="${settingsFile}"]`);
  await expect(file).toHaveAttribute('data-changed', 'true');
  for (const event of ['PreToolUse', 'PostToolUse', 'PostToolUseFailure']) await expect(file.locator('.diff-add').filter({ hasText: `"${event}"` })).toHaveCount(1);
  // The same command three times: PreToolUse decides, the two reports say what ran.
  await expect(file.locator('.diff-add').filter({ hasText: `hook --agent qwen-code --home ${home}` })).toHaveCount(3);
  await expect(file.locator('.diff-add').filter({ hasText: '"disableAllHooks": false' })).toHaveCount(1);
  // The console says, before anything is written, where Qwen Code fails open.
  await expect(dialog.getByTestId('qwen-config-notes')).toContainText('fails open');
  expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).not.toHaveProperty('hooks');

  await dialog.getByRole('button', { name: 'Apply' }).click();
  await expect(dialog.getByTestId('qwen-config-result')).toContainText(settingsFile);
  const written = JSON.parse(readFileSync(settingsFile, 'utf8')) as { model: unknown; disableAllHooks: boolean; mcpServers: Record<string, { args: string[]; trust: boolean; alwaysLoadTools: boolean }>; hooks: Record<string, { matcher: string; hooks: { type: string; command: string; timeout: number }[] }[]> };
  expect(written.model).toEqual({ name: 'qwen3-coder-plus' });
  expect(written.disableAllHooks).toBe(false);
  expect(written.mcpServers.gatehouse).toMatchObject({ args: expect.arrayContaining(['mcp']), trust: true, alwaysLoadTools: true });
  expect(written.hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [expect.objectContaining({ type: 'command', timeout: 600, command: expect.stringMatching(/hook --agent qwen-code .*\|\| \{/) })] }]);
  await dialog.getByTestId('qwen-config-close').click();
  await expect(dialog).toHaveCount(0);

  // Again: already set, so Apply stays off.
  await app.page.getByTestId('qwen-config-open').click();
  await dialog.getByTestId('qwen-config-scope').getByRole('radio', { name: /One project/ }).check();
  await dialog.getByTestId('qwen-config-project-dir').fill(project);
  await app.page.keyboard.press('Enter');
  await expect(dialog.locator(`[data-testid="qwen-config-file"][data-path="${settingsFile}"]`)).toContainText('already set');
  await expect(dialog.getByRole('button', { name: 'Apply' })).toBeDisabled();
});
