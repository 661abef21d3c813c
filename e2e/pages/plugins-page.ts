// The Plugins view as an operator uses it: scaffold, open, edit in Monaco, read the problems
// list, enable / approve, test-run. Specs say what they do; this knows the DOM.
import { expect, type Locator, type Page } from '@playwright/test';

export type PluginLang = 'sh' | 'py' | 'node' | 'ts-module';
export type PluginStatus = 'enabled' | 'disabled' | 'invalid' | 'quarantined' | 'scan_failed';

export class PluginsPage {
  readonly root: Locator;
  readonly rows: Locator;
  readonly detailStatus: Locator;
  readonly editor: Locator;
  readonly problemRows: Locator;
  readonly files: Locator;
  readonly saveButton: Locator;
  readonly quarantineChanges: Locator;
  readonly testRunInput: Locator;
  readonly testRunGo: Locator;
  readonly testRunOutput: Locator;
  /** Rescan (header); plugin-rescan-progress while a scan runs (this console's, the host's or another's); plugin-rescan-note after. */
  readonly rescanButton: Locator;
  readonly scanProgress: Locator;
  readonly rescanNote: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('view-plugins');
    this.rows = page.getByTestId('plugin-row');
    this.detailStatus = page.getByTestId('plugin-status');
    this.editor = page.getByTestId('editor');
    this.problemRows = page.getByTestId('problem-row');
    this.files = page.getByTestId('plugin-file');
    this.saveButton = page.getByTestId('editor-save');
    this.quarantineChanges = page.getByTestId('quarantine-changes');
    this.testRunInput = page.getByTestId('test-run-input');
    this.testRunGo = page.getByTestId('test-run-go');
    this.testRunOutput = page.getByTestId('test-run-output');
    this.rescanButton = page.getByTestId('plugin-rescan');
    this.scanProgress = page.getByTestId('plugin-rescan-progress');
    this.rescanNote = page.getByTestId('plugin-rescan-note');
  }

  row(name: string): Locator {
    return this.page.locator(`[data-testid="plugin-row"][data-name="${cssString(name)}"]`);
  }

  file(path: string): Locator {
    return this.page.locator(`[data-testid="plugin-file"][data-path="${cssString(path)}"]`);
  }

  /** Problem rows for one rule id or problem code (e.g. "js.eval"). */
  problemRow(rule: string): Locator {
    return this.page.locator(`[data-testid="problem-row"][data-rule="${cssString(rule)}"]`);
  }

  /** Monaco's error underlines in the open file. */
  get errorSquiggles(): Locator {
    return this.editor.locator('.squiggly-error');
  }

  /** The detail pane's heading: the open plugin's name. */
  get detailHeading(): Locator {
    return this.page.getByTestId('plugin-name');
  }

  async statusOf(name: string): Promise<string | null> {
    return this.row(name).getAttribute('data-status');
  }

  async expectStatus(name: string, status: PluginStatus): Promise<void> {
    await expect(this.row(name)).toHaveAttribute('data-status', status);
  }

  /** Scaffolds a plugin with "New plugin" and waits until its code file is open in the editor. */
  async newPlugin(name: string, lang: PluginLang): Promise<void> {
    await this.page.getByTestId('plugin-new').click();
    await this.page.getByTestId('plugin-new-name').fill(name);
    await this.page.getByTestId('plugin-new-lang').selectOption(lang);
    await this.page.getByTestId('plugin-new-create').click();
    await expect(this.row(name)).toBeVisible();
    await expect(this.detailHeading).toHaveText(name);
    const code = { sh: 'run.sh', py: 'run.py', node: 'run.mjs', 'ts-module': 'mod.ts' }[lang];
    await this.expectEditorOn(code);
  }

  /** Opens a plugin from the list. */
  async open(name: string): Promise<void> {
    await this.row(name).click();
    await expect(this.row(name)).toHaveAttribute('aria-selected', 'true');
    await expect(this.detailHeading).toHaveText(name);
  }

  async openFile(path: string): Promise<void> {
    await this.file(path).click();
    await this.expectEditorOn(path);
  }

  async expectEditorOn(path: string): Promise<void> {
    await expect(this.editor).toHaveAttribute('data-path', path);
    await expect(this.editor).toHaveAttribute('data-ready', 'true');
    await expect(this.editor.locator('.view-line').first()).toBeVisible();
  }

  /** Clicks into the editor, goes to the end of the file and types there. */
  async typeInEditor(text: string): Promise<void> {
    await this.editor.locator('.view-lines').click();
    await this.page.keyboard.press('ControlOrMeta+End');
    await this.page.keyboard.type(text);
  }

  /** Empties the line the cursor is on (select it, delete). */
  async clearCurrentLine(): Promise<void> {
    await this.page.keyboard.press('End');
    await this.page.keyboard.press('Shift+Home');
    await this.page.keyboard.press('Shift+Home');
    await this.page.keyboard.press('Backspace');
  }

  async save(): Promise<void> {
    await expect(this.saveButton).toBeEnabled();
    await this.saveButton.click();
    await expect(this.saveButton).toBeDisabled();
  }

  async enable(): Promise<void> {
    await this.page.getByTestId('plugin-enable').click();
  }

  async disable(): Promise<void> {
    await this.page.getByTestId('plugin-disable').click();
  }

  async approve(): Promise<void> {
    await this.page.getByTestId('plugin-approve').click();
  }

  /** Puts the approved files of a quarantined plugin back. */
  async rollBack(): Promise<void> {
    await this.page.getByTestId('plugin-rollback').click();
  }

  /** Gives the override reason the host asks for when a plugin failed its scan. */
  async confirmOverride(reason: string): Promise<void> {
    await this.page.getByTestId('override-reason').fill(reason);
    await this.page.getByTestId('override-confirm').click();
  }

  /** The sandbox = "none" block of the open plugin: data-trusted says whether it runs unsandboxed. */
  get sandboxTrust(): Locator {
    return this.page.getByTestId('plugin-sandbox-trust');
  }

  /** Trusts the open plugin to run without the sandbox, giving the reason the dialog asks for. */
  async trust(reason: string): Promise<void> {
    await this.page.getByTestId('plugin-trust').click();
    await expect(this.page.getByTestId('trust-confirm')).toBeDisabled();
    await this.page.getByTestId('trust-reason').fill(reason);
    await this.page.getByTestId('trust-confirm').click();
  }

  async untrust(): Promise<void> {
    await this.page.getByTestId('plugin-untrust').click();
  }

  async testRun(input: string): Promise<void> {
    await this.testRunInput.fill(input);
    await this.testRunGo.click();
  }
}

function cssString(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}
