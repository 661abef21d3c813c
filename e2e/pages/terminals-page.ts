// The Terminals view as an operator uses it: open a shell, take over, type, watch the output,
// kill. The screen is read from xterm.js's own DOM rows (what the operator sees), nothing extra.
import { expect, type Locator, type Page } from '@playwright/test';

export class TerminalsPage {
  readonly root: Locator;
  readonly newButton: Locator;
  readonly rows: Locator;
  readonly pane: Locator;
  readonly takeOverButton: Locator;
  readonly killButton: Locator;
  readonly notice: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('view-terminals');
    this.newButton = page.getByTestId('terminal-new');
    this.rows = page.getByTestId('terminal-row');
    this.pane = page.getByTestId('terminal-pane');
    this.takeOverButton = page.getByTestId('terminal-take-over');
    this.killButton = page.getByTestId('terminal-kill');
    this.notice = page.getByTestId('terminal-notice');
  }

  row(id: string): Locator {
    return this.page.locator(`[data-testid="terminal-row"][data-id="${id.replace(/["\\]/g, '\\$&')}"]`);
  }

  /** "New shell": waits until the new session is open and attached; returns its id. */
  async newShell(): Promise<string> {
    const before = await this.rows.count();
    await this.newButton.click();
    await expect(this.rows).toHaveCount(before + 1);
    await expect(this.pane).toHaveAttribute('data-attach', 'live');
    const id = await this.pane.getAttribute('data-id');
    if (!id) throw new Error('the terminal pane has no data-id');
    await expect(this.row(id)).toHaveAttribute('aria-selected', 'true');
    await expect(this.row(id)).toHaveAttribute('data-state', 'running');
    return id;
  }

  /** Opens a session from the list and waits until it is attached. */
  async open(id: string): Promise<void> {
    await this.row(id).click();
    await expect(this.pane).toHaveAttribute('data-id', id);
    await expect(this.pane).toHaveAttribute('data-attach', 'live');
  }

  async takeOver(): Promise<void> {
    await this.takeOverButton.click();
    await expect(this.pane).toHaveAttribute('data-typing', 'true');
    await expect(this.takeOverButton).toBeDisabled();
  }

  /** Focuses the terminal (its hidden textarea takes the keystrokes) and types. */
  async type(text: string): Promise<void> {
    await this.pane.locator('.xterm-helper-textarea').focus();
    await this.page.keyboard.type(text);
  }

  async press(key: string): Promise<void> {
    await this.pane.locator('.xterm-helper-textarea').focus();
    await this.page.keyboard.press(key);
  }

  /** The rows on screen, as text, trailing blanks removed. */
  async screen(): Promise<string[]> {
    const rows = await this.pane.locator('.xterm-rows > div').allTextContents();
    return rows.map((r) => r.replace(/\u00a0/g, ' ').trimEnd());
  }

  /** Waits until a row on screen matches. */
  async expectLine(pattern: RegExp, timeout?: number): Promise<void> {
    await expect
      .poll(async () => (await this.screen()).some((line) => pattern.test(line)), { message: `a terminal row matching ${pattern}`, ...(timeout ? { timeout } : {}) })
      .toBe(true);
  }

  async kill(): Promise<void> {
    await this.killButton.click();
  }
}
