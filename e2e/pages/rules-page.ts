// The Rules view as an operator uses it: edit policy.yaml in Monaco, read the problems and the
// examples' results, save, and read the rules in force. Specs say what they do; this knows the DOM.
//
// Test ids (renderer/src/views/rules-view.tsx, rules/*):
//   editor                      the Monaco editor (data-ready, data-markers = marker count)
//   problem-row                 a problem of the editor text (data-rule = the rule it is about,
//                               "policy" for the file; data-line)
//   policy-save                 Save (Ctrl/Cmd+S does the same)
//   policy-save-message         the outcome of the last save, data-ok "true" | "false"
//   policy-dirty                shown while the editor has unsaved edits
//   policy-error                the file on disk has problems; the last good policy stays active
//   policy-disk-changed         the file changed on disk while there were unsaved edits;
//                               policy-reload inside drops the edits and loads the file
//   policy-example              an example's result (data-rule, data-ok, data-expected, data-line);
//                               a click shows its line; policy-examples-summary counts them
//   policy-rule                 a rule in force (data-name, data-source builtin | user | cli,
//                               data-locked, data-decision, data-hits); inside: rule-locked,
//                               rule-origin, rule-hits
//   rules-replay                "Replay this draft": rules-replay-range, rules-replay-run, then
//                               audit-replay-result (data-changed, data-calls), audit-replay-change
import { expect, type Locator, type Page } from '@playwright/test';

export class RulesPage {
  readonly root: Locator;
  readonly editor: Locator;
  readonly problemRows: Locator;
  readonly saveButton: Locator;
  readonly saveMessage: Locator;
  readonly dirty: Locator;
  readonly fileError: Locator;
  readonly diskChanged: Locator;
  readonly examples: Locator;
  readonly rules: Locator;
  readonly replayPanel: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('view-rules');
    this.editor = this.root.getByTestId('editor');
    this.problemRows = this.root.getByTestId('problem-row');
    this.saveButton = page.getByTestId('policy-save');
    this.saveMessage = page.getByTestId('policy-save-message');
    this.dirty = page.getByTestId('policy-dirty');
    this.fileError = page.getByTestId('policy-error');
    this.diskChanged = page.getByTestId('policy-disk-changed');
    this.examples = page.getByTestId('policy-example');
    this.rules = page.getByTestId('policy-rule');
    this.replayPanel = page.getByTestId('rules-replay');
  }

  async expectEditorReady(): Promise<void> {
    await expect(this.editor).toHaveAttribute('data-ready', 'true');
    await expect(this.editor.locator('.view-line').first()).toBeVisible();
  }

  /** Monaco's error underlines. */
  get errorSquiggles(): Locator {
    return this.editor.locator('.squiggly-error');
  }

  /** Problem rows about one rule ("policy" for the file itself). */
  problemsOf(rule: string): Locator {
    return this.root.locator(`[data-testid="problem-row"][data-rule="${cssString(rule)}"]`);
  }

  examplesOf(rule: string): Locator {
    return this.root.locator(`[data-testid="policy-example"][data-rule="${cssString(rule)}"]`);
  }

  rule(name: string): Locator {
    return this.root.locator(`[data-testid="policy-rule"][data-name="${cssString(name)}"]`);
  }

  /**
   * Replaces the editor's text as typed input (one input event, as an IME or a paste would send).
   * Keep it on one line (YAML flow style): Monaco indents after a newline, which would change the YAML.
   */
  async replaceText(text: string): Promise<void> {
    await this.editor.locator('.view-lines').click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.insertText(text);
  }

  /** Replays the editor's text over recorded calls (range: the select's value, e.g. '24h' or 'all'). */
  async replayDraft(range = '24h'): Promise<void> {
    await this.page.getByTestId('rules-replay-range').selectOption(range);
    await this.page.getByTestId('rules-replay-run').click();
  }

  get replayResult(): Locator {
    return this.replayPanel.getByTestId('audit-replay-result');
  }

  get replayChanges(): Locator {
    return this.replayPanel.getByTestId('audit-replay-change');
  }

  async save(): Promise<void> {
    await this.saveButton.click();
  }

  /** Ctrl/Cmd+S with the focus in the editor. */
  async saveWithKeyboard(): Promise<void> {
    await this.editor.locator('.view-lines').click();
    await this.page.keyboard.press('ControlOrMeta+S');
  }
}

function cssString(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}
