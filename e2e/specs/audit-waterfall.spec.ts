// A session as a waterfall and the results grouped by call (issue #16 item 7), in the browser
// against a live `gatehouse serve`: a real MCP agent makes two calls that wait for an operator;
// one is approved and runs, the other is denied. Each call is a bar whose steps sit where the
// audit log puts them, the keyboard moves through the calls with the call beside the waterfall,
// and grouped results say how each call ended even when the search matched none of the events
// that decide it. Both states are scanned with axe in both themes.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { test, expect } from '../fixtures.ts';
import { callTool, hostCall, httpAgent, resultText } from '../support/agents.ts';

interface Event {
  seq: number;
  ts: number;
  type: string;
  payload: Record<string, unknown>;
}
interface Item {
  id: string;
  argsHash: string;
}

async function pendingOne(home: string): Promise<Item> {
  let item: Item | undefined;
  await expect
    .poll(async () => {
      item = (await hostCall<{ items: Item[] }>(home, 'approvals.list', { state: 'pending' })).items[0];
      return item !== undefined;
    })
    .toBe(true);
  return item!;
}

/** Serious and critical axe violations of the page as it is, in both themes. */
async function axeBothThemes(page: Page, what: string): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const result = await new AxeBuilder({ page }).exclude('.xterm').exclude('.monaco-editor').analyze();
    for (const v of result.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
      found.push(`${what} (${scheme}): ${v.id} (${v.impact}) ×${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`).join(' | ')}`);
    }
  }
  return found;
}

test.describe('a live host where the hello plugin always asks', () => {
  test.use({ homeSetup: { settings: { mode: 'live', alwaysAsk: ['hello'] }, plugins: ['hello'] } });

  test('a session as a waterfall: bars with their steps where the log puts them, keyboard selection, and results grouped by call', async ({ console: app, home }) => {
    test.setTimeout(90_000);
    await app.status.expectConnected();
    const agent = await httpAgent(home, 'e2e-waterfall-agent');
    try {
      const approved = callTool(agent, 'hello', { name: 'Ada' });
      const a = await pendingOne(home);
      await hostCall(home, 'approvals.approve', { id: a.id, argsHash: a.argsHash, scope: 'once' });
      expect(resultText(await approved.result)).toContain('Hello, Ada.');
      const denied = callTool(agent, 'hello', { name: 'Mallory' });
      const b = await pendingOne(home);
      await hostCall(home, 'approvals.deny', { id: b.id, reason: 'not this one' });
      await denied.result;
    } finally {
      await agent.close();
    }

    // The story as the host stored it: the expectations below come from these events.
    const tail = (await hostCall<{ events: Event[] }>(home, 'audit.tail', { limit: 1000 })).events;
    const session = tail.find((e) => e.type === 'call.received' && e.payload.client === 'e2e-waterfall-agent')!.payload.session as string;
    const story = (await hostCall<{ events: Event[] }>(home, 'audit.session', { session })).events;
    const receivedEvents = story.filter((e) => e.type === 'call.received');
    expect(receivedEvents).toHaveLength(2);
    const [ada, mallory] = receivedEvents.map((e) => e.payload.call as string) as [string, string];
    const of = (call: string, type: string) => story.find((e) => e.payload.call === call && e.type === type)!;

    const audit = app.audit;
    await app.open('audit');
    await audit.setTextFacet('session', session);
    await expect(audit.row(of(ada, 'call.received').seq)).toBeVisible();
    await audit.row(of(ada, 'call.received').seq).click();
    await audit.sessionLink.click();
    await expect(audit.timeline).toHaveAttribute('data-session', session);
    await expect(audit.timeline).toHaveAttribute('data-count', String(story.length));

    // One bar per call in the order received; each spans its first event to its last.
    await expect(audit.bars).toHaveCount(2);
    await expect(audit.bars.nth(0)).toHaveAttribute('data-call', ada);
    await expect(audit.bars.nth(1)).toHaveAttribute('data-call', mallory);
    for (const call of [ada, mallory]) {
      const own = story.filter((e) => e.payload.call === call);
      await expect(audit.bar(call)).toHaveAttribute('data-start', String(own[0]!.ts));
      await expect(audit.bar(call)).toHaveAttribute('data-end', String(own[own.length - 1]!.ts));
    }
    await expect(audit.bar(ada)).toHaveAttribute('data-outcome', 'ok');
    await expect(audit.bar(ada)).toContainText('ran');
    await expect(audit.bar(mallory)).toHaveAttribute('data-outcome', 'danger');
    await expect(audit.bar(mallory)).toContainText('denied');

    // The steps inside: extraction, policy, the wait for the operator and the run, from their events.
    const expectSeg = async (call: string, step: 'extraction' | 'policy' | 'approval' | 'run', from: Event, to: Event) => {
      await expect(audit.segment(call, step)).toHaveAttribute('data-start', String(from.ts));
      await expect(audit.segment(call, step)).toHaveAttribute('data-end', String(to.ts));
    };
    await expectSeg(ada, 'extraction', of(ada, 'call.received'), of(ada, 'call.extracted'));
    await expectSeg(ada, 'policy', of(ada, 'call.extracted'), of(ada, 'approval.requested'));
    await expectSeg(ada, 'approval', of(ada, 'approval.requested'), of(ada, 'approval.decided'));
    await expectSeg(ada, 'run', of(ada, 'execution.started'), of(ada, 'execution.ended'));
    await expectSeg(mallory, 'approval', of(mallory, 'approval.requested'), of(mallory, 'approval.decided'));
    await expect(audit.segment(mallory, 'run')).toHaveCount(0);
    // Later calls sit further right on the same axis.
    const adaBox = (await audit.bar(ada).locator('.wf-bar').boundingBox())!;
    const malloryBox = (await audit.bar(mallory).locator('.wf-bar').boundingBox())!;
    expect(malloryBox.x).toBeGreaterThan(adaBox.x);
    await expect(app.page.getByTestId('audit-waterfall-tick').first()).toHaveAttribute('data-ms', '0');

    // The keyboard: the calls have it once the session loads; each call opens beside the waterfall.
    await expect(audit.waterfall).toBeFocused();
    await audit.waterfall.press('ArrowDown');
    await audit.expectSelectedBar(mallory);
    await expect(audit.detail).toHaveAttribute('data-seq', String(of(mallory, 'call.received').seq));
    await expect(app.page.getByTestId('audit-call-outcome')).toHaveText('denied');
    await audit.waterfall.press('ArrowUp');
    await audit.expectSelectedBar(ada);
    const wait = of(ada, 'approval.decided').ts - of(ada, 'approval.requested').ts;
    await expect(audit.callSteps.locator('[data-testid="audit-call-step"][data-step="approval"]')).toHaveAttribute('data-ms', String(wait));
    await audit.bar(mallory).click();
    await audit.expectSelectedBar(mallory);

    const found = await axeBothThemes(app.page, 'waterfall');

    // Grouped by call: each call one row with its outcome; its events fold under it.
    await audit.timeline.getByTestId('audit-timeline-close').click();
    await audit.groupByCall.click();
    await expect(audit.groupByCall).toHaveAttribute('aria-pressed', 'true');
    await expect(audit.groups).toHaveCount(2);
    await expect(audit.group(ada).getByTestId('audit-group-outcome')).toHaveText('ran');
    await expect(audit.group(mallory).getByTestId('audit-group-outcome')).toHaveText('denied');
    const adaEvents = story.filter((e) => e.payload.call === ada);
    await expect(audit.group(ada)).toHaveAttribute('data-count', String(adaEvents.length));
    for (const e of adaEvents) await expect(audit.row(e.seq)).toHaveCount(0);
    await audit.group(ada).getByTestId('audit-group-toggle').click();
    await expect(audit.group(ada).getByTestId('audit-group-toggle')).toHaveAttribute('aria-expanded', 'true');
    for (const e of adaEvents) await expect(audit.row(e.seq)).toHaveAttribute('data-member', 'true');
    // The keyboard folds it again from the group row.
    await audit.group(ada).click();
    await audit.table.press('ArrowLeft');
    await expect(audit.group(ada)).toHaveAttribute('data-expanded', 'false');
    await expect(audit.row(adaEvents[0]!.seq)).toHaveCount(0);

    found.push(...(await axeBothThemes(app.page, 'grouped results')));

    // A search that matched only the calls' arrivals: the outcome comes from the calls themselves.
    await audit.facet('type').selectOption('call.received');
    await expect(audit.groups).toHaveCount(2);
    await expect(audit.group(ada)).toHaveAttribute('data-count', '1');
    await expect(audit.group(ada).getByTestId('audit-group-outcome')).toHaveText('ran');
    await expect(audit.group(mallory).getByTestId('audit-group-outcome')).toHaveText('denied');

    // Off again: plain rows.
    await audit.groupByCall.click();
    await expect(audit.groups).toHaveCount(0);
    await expect(audit.row(of(ada, 'call.received').seq)).toBeVisible();
    expect(found, found.join('\n')).toEqual([]);
  });
});
