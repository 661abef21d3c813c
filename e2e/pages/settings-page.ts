// The Settings view as an operator uses it: pick the mode and the autonomy level, set numbers and
// tool lists, read the host's refusal next to a field, and copy what an agent needs to connect.
// Specs say what they do; this knows the DOM.
//
// Test ids (renderer/src/views/settings/*):
//   gateway-settings            the settings panel
//   setting-<key>               one setting (key as in shared/contract.ts `settings`), with
//                               data-overridden ("true" when set for this run only) and data-pending
//     setting-error             the host's sentence for the last refused change of that field
//     setting-state             where its last change stands (a live region): data-state idle | saving | saved | failed
//     setting-overridden        the "overridden for this run" badge
//     setting-input             a number field (committed on Enter or blur)
//     setting-toggle            a checkbox
//     input[value=…]            a radio choice (mode, autonomy, hookAsk, hookUnreachable)
//     glob-item[data-glob]      a tool-name glob of autoApprove / alwaysAsk; glob-remove inside it
//     glob-input, glob-add      add a glob
//   audit-settings              the "Audit log" panel: setting-auditRaw ("Show raw audit values",
//                               a setting-toggle that asks first: setting-confirm-dialog with
//                               setting-confirm and setting-confirm-cancel), setting-auditRetentionDays,
//                               setting-auditMaxEvents (number fields)
//   settings-sandbox            the sandbox state, data-kind bwrap | none | unknown
//   settings-file-error         the settings file could not be read (safe defaults in use)
//   settings-overridden         the list of fields set for this run
//   agent-connect               "Connect an agent" (id connect-agent: other views scroll to it)
//     agent-mcp-url, agent-hook-url
//     agent-token               data-revealed "true" | "false"; agent-token-reveal, agent-token-copy
//     agent-snippet[data-kind]  claude-mcp-http | claude-mcp-stdio | hook-command | hook-http |
//                               mcp-http | mcp-stdio; snippet-copy inside
//     agent-tool[data-name]     a tool agents see (data-kind builtin | tool | mcp)
//     write-config-open         "Write it for me…", opens write-config-dialog:
//       write-config-scope        radios value project | user; write-config-project-dir (Enter shows
//                                 the diff), write-config-show
//       write-config-mcp          radios value http | stdio | none
//       write-config-hook         radios value command | http | none
//       write-config-file         one file's preview (data-path, data-kind settings | mcp,
//                                 data-changed), with its diff (.diff-add / .diff-del lines)
//       write-config-notes        what is left to do; write-config-error: the host's refusal
//       write-config-apply        Apply; write-config-apply-error; write-config-cancel
//       write-config-result       after Apply: write-config-written (data-path, data-written) with
//                                 write-config-backup; write-config-close
import { expect, type Locator, type Page } from '@playwright/test';

export type SettingKey =
  | 'mode'
  | 'autonomy'
  | 'autoApprove'
  | 'alwaysAsk'
  | 'approvalExpiryMinutes'
  | 'sessionGrantMinutes'
  | 'requireSandbox'
  | 'hookAsk'
  | 'hookUnreachable'
  | 'containment'
  | 'desktopNotifications'
  | 'auditRaw'
  | 'auditRetentionDays'
  | 'auditMaxEvents';

export type NumberSettingKey = 'approvalExpiryMinutes' | 'sessionGrantMinutes' | 'auditRetentionDays' | 'auditMaxEvents';
export type ToggleSettingKey = 'requireSandbox' | 'desktopNotifications' | 'auditRaw';

export type SnippetKind = 'claude-mcp-http' | 'claude-mcp-stdio' | 'hook-command' | 'hook-http' | 'mcp-http' | 'mcp-stdio';

export class SettingsPage {
  readonly root: Locator;
  readonly agentConnect: Locator;
  /** The "write it for me" dialog (see the test ids above). */
  readonly writeConfig: Locator;
  readonly agentToken: Locator;
  readonly snippets: Locator;
  readonly agentTools: Locator;
  readonly sandbox: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('view-settings');
    this.agentConnect = page.getByTestId('agent-connect');
    this.writeConfig = page.getByTestId('write-config-dialog');
    this.agentToken = page.getByTestId('agent-token');
    this.snippets = page.getByTestId('agent-snippet');
    this.agentTools = page.getByTestId('agent-tool');
    this.sandbox = page.getByTestId('settings-sandbox');
  }

  field(key: SettingKey): Locator {
    return this.page.getByTestId(`setting-${key}`);
  }

  error(key: SettingKey): Locator {
    return this.field(key).getByTestId('setting-error');
  }

  choice(key: SettingKey, value: string): Locator {
    return this.field(key).locator(`input[type="radio"][value="${value}"]`);
  }

  /** Picks a radio choice and waits until the host has answered (the radio shows what the host has, so click, not check). */
  async choose(key: SettingKey, value: string): Promise<void> {
    await this.choice(key, value).click();
    await this.expectSettled(key);
    await expect(this.choice(key, value)).toBeChecked();
  }

  async expectChosen(key: SettingKey, value: string): Promise<void> {
    await expect(this.choice(key, value)).toBeChecked();
  }

  numberInput(key: NumberSettingKey): Locator {
    return this.field(key).getByTestId('setting-input');
  }

  /** Types a number and commits it with Enter (the host may refuse it: see error()). */
  async setNumber(key: NumberSettingKey, value: string): Promise<void> {
    await this.numberInput(key).fill(value);
    await this.numberInput(key).press('Enter');
    await this.expectSettled(key);
  }

  /** A checkbox setting (it shows what the host has). */
  toggle(key: ToggleSettingKey): Locator {
    return this.field(key).getByTestId('setting-toggle');
  }

  /** The confirmation a toggle asks for before it is turned on (auditRaw). */
  get confirmDialog(): Locator {
    return this.page.getByTestId('setting-confirm-dialog');
  }

  get confirmButton(): Locator {
    return this.confirmDialog.getByTestId('setting-confirm');
  }

  get confirmCancel(): Locator {
    return this.confirmDialog.getByTestId('setting-confirm-cancel');
  }

  globs(key: 'autoApprove' | 'alwaysAsk'): Locator {
    return this.field(key).getByTestId('glob-item');
  }

  glob(key: 'autoApprove' | 'alwaysAsk', glob: string): Locator {
    return this.field(key).locator(`[data-testid="glob-item"][data-glob="${glob.replace(/["\\]/g, '\\$&')}"]`);
  }

  async addGlob(key: 'autoApprove' | 'alwaysAsk', glob: string): Promise<void> {
    await this.field(key).getByTestId('glob-input').fill(glob);
    await this.field(key).getByTestId('glob-add').click();
    await expect(this.glob(key, glob)).toBeVisible();
  }

  async removeGlob(key: 'autoApprove' | 'alwaysAsk', glob: string): Promise<void> {
    await this.glob(key, glob).getByTestId('glob-remove').click();
    await expect(this.glob(key, glob)).toHaveCount(0);
  }

  snippet(kind: SnippetKind): Locator {
    return this.page.locator(`[data-testid="agent-snippet"][data-kind="${kind}"]`);
  }

  tool(name: string): Locator {
    return this.page.locator(`[data-testid="agent-tool"][data-name="${name.replace(/["\\]/g, '\\$&')}"]`);
  }

  async revealToken(): Promise<void> {
    await this.page.getByTestId('agent-token-reveal').click();
    await expect(this.agentToken).toHaveAttribute('data-revealed', 'true');
  }

  /** Opens "Write it for me…" from Connect an agent. */
  async openWriteConfig(): Promise<void> {
    await this.page.getByTestId('write-config-open').click();
    await expect(this.writeConfig).toBeVisible();
  }

  /** Picks "One project" and enters its folder; Enter shows the diff (it never applies). */
  async writeConfigForProject(dir: string): Promise<void> {
    await this.writeConfig.locator('input[name="config-scope"][value="project"]').check();
    const input = this.writeConfig.getByTestId('write-config-project-dir');
    await input.fill(dir);
    await input.press('Enter');
  }

  async writeConfigChoose(what: 'mcp' | 'hook', value: string): Promise<void> {
    await this.writeConfig.locator(`input[name="config-${what}"][value="${value}"]`).check();
  }

  /** One file of the preview, by its path on the host. */
  writeConfigFile(path: string): Locator {
    return this.writeConfig.locator(`[data-testid="write-config-file"][data-path="${path.replace(/["\\]/g, '\\$&')}"]`);
  }

  get writeConfigApply(): Locator {
    return this.writeConfig.getByTestId('write-config-apply');
  }

  /** The result line of a written file, after Apply. */
  writeConfigWritten(path: string): Locator {
    return this.writeConfig.locator(`[data-testid="write-config-written"][data-path="${path.replace(/["\\]/g, '\\$&')}"]`);
  }

  /** "Saving…", "Saved" or "Not saved" beside a field (data-state). */
  saveState(key: SettingKey | 'terminalGetsShortcuts'): Locator {
    return this.page.getByTestId(`setting-${key}`).getByTestId('setting-state');
  }

  async expectSettled(key: SettingKey): Promise<void> {
    await expect(this.field(key)).toHaveAttribute('data-pending', 'false');
  }
}
