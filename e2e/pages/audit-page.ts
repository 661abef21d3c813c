// The Audit view (incident review). Test ids:
//   audit-verify                 Verify chain button (header)
//   audit-export                 Export filtered JSONL button (header); downloads the current filter
//   audit-export-result          "Exported N events to FILE" (data-count)
//   audit-export-error           the host refused the export
//   audit-chain-badge            chain state badge (data-state = verified | broken | checking | unknown)
//   audit-chain-first-bad        link to the first broken row (data-seq), shown when broken
//   audit-search                 search box (FTS5 syntax); Enter applies it with the text facets
//   audit-search-hint            one-line syntax hint
//   audit-search-error           the host's error for the query (bad FTS syntax…)
//   audit-facet-time             time range preset (15m, 1h, 24h, 7d, all, custom)
//   audit-facet-from / -to       custom range (datetime-local), when time = custom
//   audit-facet-agent / -session / -plugin   text facets (applied on Enter)
//   audit-facet-decision / -type selects, applied at once
//   audit-scope                  team mode: where to search (data-scope local | team); audit-scope-local, audit-scope-team
//                                switch it (aria-pressed); audit-facet-member, in the team scope
//   audit-member                 a team event's member, in its row; audit-detail-member in the detail pane (data-member on audit-detail)
//   audit-total                  match count (data-total, data-capped; "10,000+" when capped)
//   audit-took                   query time
//   audit-unavailable            the host cannot search; the latest events are shown instead
//   audit-table                  the virtualized table's scroller (data-loaded rows, data-rendered rows in the DOM)
//   audit-row                    one rendered row (data-seq, aria-selected); only rows near the view exist
//   audit-detail                 event detail pane (data-seq)
//   audit-detail-json / -hash    pretty payload, chain hash
//   audit-related-link           an event of the same call (data-seq)
//   audit-session-link           opens the session timeline
//   audit-plugin-link            opens the Plugins view on the plugin
//   audit-timeline               session waterfall (data-session, data-count events, data-calls)
//   audit-waterfall              the calls (listbox; arrows/Home/End select, the call opens in audit-detail)
//   audit-waterfall-bar          one call (data-call, data-seq of its first event, data-outcome ok|danger|warn|neutral,
//                                data-start/-end epoch ms, aria-selected)
//   audit-waterfall-seg          a step inside a bar (data-step extraction|policy|approval|run, data-start/-end epoch ms)
//   audit-waterfall-tick         a time-axis label (data-ms from the session's first event)
//   audit-waterfall-other        an event of no call, as a tick (data-seq)
//   audit-call-steps             the selected call's steps beside the waterfall (data-call); audit-call-step (data-step, data-ms),
//                                audit-call-outcome
//   audit-timeline-close
//   audit-group-by-call          the results' "Group by call" toggle (aria-pressed)
//   audit-group                  a call's group row (data-call, data-count, data-outcome, data-expanded); audit-group-toggle
//                                folds/unfolds it (aria-expanded), audit-group-outcome says how the call ended
//   audit-replay                 "Replay against policy"; audit-replay-result (data-changed), audit-replay-change, audit-replay-error
//   audit-verify-progress        a running verification (data-done, data-total); -cancel stops it; audit-verify-note says how far it got
//   audit-export-progress        a running export; -cancel stops it; audit-export-note says how far it got
//   audit-replay-progress        a running replay of the session; -cancel; audit-replay-note
import { expect, type Download, type Locator, type Page } from '@playwright/test';

export class AuditPage {
  readonly root: Locator;
  readonly verifyButton: Locator;
  readonly exportButton: Locator;
  readonly exportResult: Locator;
  readonly chainBadge: Locator;
  readonly firstBad: Locator;
  readonly search: Locator;
  readonly searchHint: Locator;
  readonly searchError: Locator;
  readonly total: Locator;
  readonly took: Locator;
  readonly unavailable: Locator;
  readonly table: Locator;
  readonly rows: Locator;
  readonly detail: Locator;
  readonly sessionLink: Locator;
  readonly pluginLink: Locator;
  readonly relatedLinks: Locator;
  readonly timeline: Locator;
  readonly waterfall: Locator;
  readonly bars: Locator;
  readonly callSteps: Locator;
  readonly groupByCall: Locator;
  readonly groups: Locator;
  readonly replayButton: Locator;
  readonly replayResult: Locator;
  readonly verifyProgress: Locator;
  readonly verifyCancel: Locator;
  readonly verifyNote: Locator;
  readonly exportProgress: Locator;
  readonly exportCancel: Locator;
  readonly exportNote: Locator;

  constructor(readonly page: Page) {
    const id = (t: string) => page.getByTestId(t);
    this.root = id('view-audit');
    this.verifyButton = id('audit-verify');
    this.exportButton = id('audit-export');
    this.exportResult = id('audit-export-result');
    this.chainBadge = id('audit-chain-badge');
    this.firstBad = id('audit-chain-first-bad');
    this.search = id('audit-search');
    this.searchHint = id('audit-search-hint');
    this.searchError = id('audit-search-error');
    this.total = id('audit-total');
    this.took = id('audit-took');
    this.unavailable = id('audit-unavailable');
    this.table = id('audit-table');
    this.rows = id('audit-row');
    this.detail = id('audit-detail');
    this.sessionLink = id('audit-session-link');
    this.pluginLink = id('audit-plugin-link');
    this.relatedLinks = id('audit-related-link');
    this.timeline = id('audit-timeline');
    this.waterfall = id('audit-waterfall');
    this.bars = id('audit-waterfall-bar');
    this.callSteps = id('audit-call-steps');
    this.groupByCall = id('audit-group-by-call');
    this.groups = id('audit-group');
    this.replayButton = id('audit-replay');
    this.replayResult = id('audit-replay-result');
    this.verifyProgress = id('audit-verify-progress');
    this.verifyCancel = id('audit-verify-progress-cancel');
    this.verifyNote = id('audit-verify-note');
    this.exportProgress = id('audit-export-progress');
    this.exportCancel = id('audit-export-progress-cancel');
    this.exportNote = id('audit-export-note');
  }

  facet(name: 'time' | 'from' | 'to' | 'agent' | 'session' | 'plugin' | 'decision' | 'type'): Locator {
    return this.page.getByTestId(`audit-facet-${name}`);
  }

  row(seq: number): Locator {
    return this.page.locator(`[data-testid="audit-row"][data-seq="${seq}"]`);
  }

  /** Types the query and presses Enter. */
  async searchFor(query: string): Promise<void> {
    await this.search.fill(query);
    await this.search.press('Enter');
  }

  /** Types a text facet (agent, session, plugin) and applies it with Enter. */
  async setTextFacet(name: 'agent' | 'session' | 'plugin', value: string): Promise<void> {
    await this.facet(name).fill(value);
    await this.facet(name).press('Enter');
  }

  /** One call's bar in the waterfall. */
  bar(call: string): Locator {
    return this.page.locator(`[data-testid="audit-waterfall-bar"][data-call="${call}"]`);
  }

  /** A step segment inside a call's bar. */
  segment(call: string, step: 'extraction' | 'policy' | 'approval' | 'run'): Locator {
    return this.bar(call).locator(`[data-testid="audit-waterfall-seg"][data-step="${step}"]`);
  }

  /** A call's group row in the results grouped by call. */
  group(call: string): Locator {
    return this.page.locator(`[data-testid="audit-group"][data-call="${call}"]`);
  }

  async expectSelectedBar(call: string): Promise<void> {
    await expect(this.bar(call)).toHaveAttribute('aria-selected', 'true');
    await expect(this.callSteps).toHaveAttribute('data-call', call);
  }

  /** Clicks Export and returns the file the browser downloaded. */
  async exportFile(): Promise<Download> {
    const download = this.page.waitForEvent('download');
    await this.exportButton.click();
    return download;
  }
}
