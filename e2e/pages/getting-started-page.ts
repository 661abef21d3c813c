// The Getting Started panel (the Start view) as an operator uses it: read each step's state,
// enable the example tool after reading its scan, go to Connect an agent, send a test call and
// follow it to the inbox, Health and the audit log. Specs say what they do; this knows the DOM.
//
// Test ids (renderer/src/views/start-view.tsx, views/start/*):
//   view-start                          the view; nav-start its sidebar item (Alt+0)
//   start-intro, start-progress         mode and autonomy in a sentence; "N of 3 done" (data-done)
//   start-dismiss / start-restore       dismiss the panel / have it open at start again
//   start-dismissed                     the "dismissed" note
//   start-error                         the host refused an action
//   start-step [data-step=plugin|agent|test|live, data-done]   one step; start-step-state inside
//   start-scan [data-passed]            the example's scan; start-scan-summary, start-finding
//   start-plugin-status [data-status]   the example's status badge
//   start-enable, start-open-plugin     enable it / open it in the Plugins view
//   start-agent-status                  who connected (or not yet); start-open-connect, start-agent-skip
//   start-send                          send a (another) test call
//   test-call [data-call, data-stage=sent|waiting|decided|finished, data-approval-state, data-executed]
//     test-call-stage [data-stage=sent|inbox|result, data-state=done|current|todo]
//     start-open-inbox, start-open-health, start-open-audit
//   start-go-live / start-dry-run, start-mode-dialog, start-mode-confirm
import { expect, type Locator, type Page } from '@playwright/test';

export type StepId = 'plugin' | 'agent' | 'test' | 'live';

export class GettingStartedPage {
  readonly root: Locator;
  readonly navItem: Locator;
  readonly progress: Locator;
  readonly dismissButton: Locator;
  readonly restoreButton: Locator;
  readonly scan: Locator;
  readonly scanSummary: Locator;
  readonly pluginStatus: Locator;
  readonly enableButton: Locator;
  readonly agentStatus: Locator;
  readonly openConnectButton: Locator;
  readonly agentSkipButton: Locator;
  readonly sendButton: Locator;
  readonly testCall: Locator;
  readonly openInboxLink: Locator;
  readonly openHealthLink: Locator;
  readonly openAuditLink: Locator;

  constructor(readonly page: Page) {
    const id = (t: string) => page.getByTestId(t);
    this.root = id('view-start');
    this.navItem = id('nav-start');
    this.progress = id('start-progress');
    this.dismissButton = id('start-dismiss');
    this.restoreButton = id('start-restore');
    this.scan = id('start-scan');
    this.scanSummary = id('start-scan-summary');
    this.pluginStatus = id('start-plugin-status');
    this.enableButton = id('start-enable');
    this.agentStatus = id('start-agent-status');
    this.openConnectButton = id('start-open-connect');
    this.agentSkipButton = id('start-agent-skip');
    this.sendButton = id('start-send');
    this.testCall = id('test-call');
    this.openInboxLink = id('start-open-inbox');
    this.openHealthLink = id('start-open-health');
    this.openAuditLink = id('start-open-audit');
  }

  step(step: StepId): Locator {
    return this.page.locator(`[data-testid="start-step"][data-step="${step}"]`);
  }

  stage(stage: 'sent' | 'inbox' | 'result'): Locator {
    return this.testCall.locator(`[data-testid="test-call-stage"][data-stage="${stage}"]`);
  }

  /** The panel is on screen (opened by itself on a new home, or from the sidebar). */
  async expectShown(): Promise<void> {
    await expect(this.root.getByRole('heading', { level: 1, name: 'Getting started' })).toBeVisible();
    await expect(this.navItem).toHaveAttribute('aria-current', 'page');
  }

  async open(): Promise<void> {
    await this.navItem.click();
    await this.expectShown();
  }

  async expectDone(step: StepId, done: boolean): Promise<void> {
    await expect(this.step(step)).toHaveAttribute('data-done', String(done));
  }

  async expectProgress(done: number): Promise<void> {
    await expect(this.progress).toHaveAttribute('data-done', String(done));
  }

  /** The test call reached a stage (sent, waiting, decided, finished), as the host's audit log says. */
  async expectTestCallStage(stage: 'sent' | 'waiting' | 'decided' | 'finished'): Promise<void> {
    await expect(this.testCall).toHaveAttribute('data-stage', stage);
  }

  /** The id of the call on screen. */
  async testCallId(): Promise<string> {
    const id = await this.testCall.getAttribute('data-call');
    expect(id, 'the test call shows its id').toBeTruthy();
    return id!;
  }
}
