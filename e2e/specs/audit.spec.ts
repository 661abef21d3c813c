// Incident review in the browser: a real MCP agent makes a session of calls on a live host; the
// operator finds the session by a word from one call's arguments, opens it as a waterfall of its
// calls and moves through them, and exports the filter as JSONL whose lines are the stored events.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { test, expect } from '../fixtures.ts';
import { auditTail, callTool, hostCall, httpAgent, resultText } from '../support/agents.ts';

interface Event {
  seq: number;
  ts: number;
  type: string;
  actor: string;
  payload: Record<string, unknown>;
  hash: string;
}
interface SearchPage {
  events: Event[];
  total: number;
  totalCapped: boolean;
  nextBefore: number | null;
}

/** Every event matching a filter, through the operator API, newest first. */
async function searchAll(home: string, filter: Record<string, unknown>): Promise<Event[]> {
  const out: Event[] = [];
  let before: number | undefined;
  for (;;) {
    const page = await hostCall<SearchPage>(home, 'audit.search', { ...filter, limit: 1000, ...(before ? { before } : {}) });
    out.push(...page.events);
    if (page.nextBefore === null) return out;
    before = page.nextBefore;
  }
}

const word = 'Quetzalcoatl';

test.describe('a live host where the hello plugin runs without asking', () => {
  test.use({ homeSetup: { settings: { mode: 'live', autoApprove: ['hello'] }, plugins: ['hello'] } });

  test('a session of MCP calls is found by a word from one argument, its waterfall is walked by keyboard, and its export matches the stored events', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const agent = await httpAgent(home, 'e2e-audit-agent');
    try {
      for (const name of ['Ada', word, 'Grace']) {
        const result = await callTool(agent, 'hello', { name }).result;
        expect(resultText(result)).toContain(`Hello, ${name}.`);
      }
    } finally {
      await agent.close();
    }
    const received = (await auditTail(home)).filter((e) => e.type === 'call.received' && e.payload.client === 'e2e-audit-agent');
    expect(received).toHaveLength(3);
    const session = received[0]!.payload.session as string;
    expect(received.every((e) => e.payload.session === session)).toBe(true);

    const audit = app.audit;
    await app.open('audit');
    await expect(audit.searchHint).toBeVisible();

    // A broken query is answered inline, not with an empty table that looks like "nothing happened".
    await audit.searchFor('"unbalanced');
    await expect(audit.searchError).toBeVisible();
    await expect(audit.rows).toHaveCount(0);

    // The word from one argument finds that call, and the table shows what the host matched.
    await audit.searchFor(word);
    await expect(audit.searchError).toHaveCount(0);
    const matched = await searchAll(home, { query: word });
    expect(matched.length).toBeGreaterThan(0);
    await expect(audit.total).toHaveAttribute('data-total', String(matched.length));
    await expect(audit.took).toBeVisible();
    await expect(audit.rows).toHaveCount(matched.length);
    for (const e of matched) await expect(audit.row(e.seq)).toContainText(e.type);

    // Its detail links to the session; the timeline holds the session's whole story in order.
    await audit.row(matched[matched.length - 1]!.seq).click();
    await expect(audit.detail).toHaveAttribute('data-seq', String(matched[matched.length - 1]!.seq));
    await expect(audit.detail.getByTestId('audit-detail-hash')).toHaveText(matched[matched.length - 1]!.hash);
    await audit.sessionLink.click();
    const story = (await hostCall<{ events: Event[] }>(home, 'audit.session', { session })).events;
    expect(story.map((e) => e.seq)).toEqual([...story.map((e) => e.seq)].sort((a, b) => a - b));
    expect(story.filter((e) => e.type === 'call.received')).toHaveLength(3);
    await expect(audit.timeline).toHaveAttribute('data-session', session);
    await expect(audit.timeline).toHaveAttribute('data-count', String(story.length));

    // The waterfall: one bar per call, in the order they were received, each starting at its
    // call.received; the keyboard is on the calls at once, and the arrows open each beside it.
    const calls = story.filter((e) => e.type === 'call.received').map((e) => ({ call: e.payload.call as string, seq: e.seq }));
    await expect(audit.bars).toHaveCount(3);
    for (const [i, c] of calls.entries()) {
      await expect(audit.bars.nth(i)).toHaveAttribute('data-call', c.call);
      await expect(audit.bars.nth(i)).toHaveAttribute('data-seq', String(c.seq));
      await expect(audit.bars.nth(i)).toHaveAttribute('data-outcome', 'ok');
    }
    await expect(audit.waterfall).toBeFocused();
    await audit.waterfall.press('Home');
    await audit.expectSelectedBar(calls[0]!.call);
    await expect(audit.detail).toHaveAttribute('data-seq', String(calls[0]!.seq));
    await audit.waterfall.press('ArrowDown');
    await audit.expectSelectedBar(calls[1]!.call);
    await expect(audit.detail).toHaveAttribute('data-seq', String(calls[1]!.seq));
    await audit.waterfall.press('End');
    await audit.expectSelectedBar(calls[2]!.call);
    await audit.waterfall.press('ArrowUp');
    await audit.expectSelectedBar(calls[1]!.call);
    await audit.bars.nth(0).click();
    await audit.expectSelectedBar(calls[0]!.call);
    await expect(audit.bars.filter({ hasText: 'ran' })).toHaveCount(3);

    // Export the session's filter: its lines are the stored events the same filter finds.
    await audit.search.fill('');
    await audit.setTextFacet('session', session);
    const stored = await searchAll(home, { session });
    await expect(audit.total).toHaveAttribute('data-total', String(stored.length));
    const download = await audit.exportFile();
    expect(download.suggestedFilename()).toMatch(/^gatehouse-audit-\d{8}-\d{6}\.jsonl$/);
    await expect(audit.exportResult).toHaveAttribute('data-count', String(stored.length));
    const lines = readFileSync(await download.path(), 'utf8').split('\n').filter((l) => l !== '');
    const exported = lines.map((l) => JSON.parse(l) as Event);
    expect(exported.map((e) => e.seq).sort((a, b) => a - b)).toEqual(stored.map((e) => e.seq).sort((a, b) => a - b));
    const bySeq = new Map(stored.map((e) => [e.seq, e]));
    for (const e of exported) {
      const s = bySeq.get(e.seq)!;
      expect({ type: e.type, actor: e.actor, ts: e.ts, hash: e.hash, payload: e.payload }).toEqual({ type: s.type, actor: s.actor, ts: s.ts, hash: s.hash, payload: s.payload });
    }
    for (const r of received) expect(bySeq.has(r.seq), `call.received #${r.seq} is in the export`).toBe(true);
  });
});

test('the table keeps only the rows in view in the DOM and fetches older pages as it scrolls', async ({ console: app, home }) => {
  await app.status.expectConnected();
  // 250 audited operator actions (each one a real change): more than a page of the table.
  let on = (await hostCall<{ desktopNotifications: boolean }>(home, 'settings.get')).desktopNotifications;
  for (let i = 0; i < 250; i++) {
    on = !on;
    await hostCall(home, 'settings.update', { desktopNotifications: on });
  }
  const stored = await searchAll(home, { types: ['settings.changed'] });
  expect(stored.length).toBeGreaterThanOrEqual(250);

  const audit = app.audit;
  await app.open('audit');
  await audit.facet('type').selectOption('settings.changed');
  await expect(audit.total).toHaveAttribute('data-total', String(stored.length));
  await expect(audit.row(stored[0]!.seq)).toBeVisible();
  const rendered = Number(await audit.table.getAttribute('data-rendered'));
  expect(rendered).toBeLessThan(80);
  await expect(audit.rows).toHaveCount(rendered);

  // Scrolling to the end of what is loaded fetches the next page by the cursor, until the oldest.
  const oldest = stored[stored.length - 1]!.seq;
  await expect(async () => {
    await audit.table.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect(audit.row(oldest)).toBeVisible({ timeout: 1_000 });
  }).toPass();
  await expect(audit.table).toHaveAttribute('data-loaded', String(stored.length));
  expect(await audit.rows.count()).toBeLessThan(80);
  // The keyboard walks the rows and opens each in the detail pane.
  await audit.row(oldest).click();
  await expect(audit.detail).toHaveAttribute('data-seq', String(oldest));
  await audit.table.press('ArrowUp');
  await expect(audit.detail).toHaveAttribute('data-seq', String(stored[stored.length - 2]!.seq));
});

test('an event rewritten behind the host\'s back: Verify finds it, names the row, and opens it', async ({ console: app, home }) => {
  await app.status.expectConnected();
  const audit = app.audit;
  await app.open('audit');
  await expect(audit.chainBadge).toHaveAttribute('data-state', 'verified');

  // Someone with access to the file edits one event in place (the chain's hashes are left alone).
  const db = new Database(join(home, 'audit.db'));
  const { seq } = db.prepare("SELECT seq FROM events WHERE type = 'host.started' ORDER BY seq DESC LIMIT 1").get() as { seq: number };
  db.prepare("UPDATE events SET payload = json_set(payload, '$.operator', 'mallory') WHERE seq = ?").run(seq);
  db.close();

  await audit.verifyButton.click();
  await expect(audit.chainBadge).toHaveAttribute('data-state', 'broken');
  await expect(audit.firstBad).toHaveAttribute('data-seq', String(seq));
  await expect(audit.firstBad.locator('..')).toContainText(`row ${seq} was altered: its contents no longer match its hash`);
  await expect(app.status.chain).toHaveText(`Audit chain broken at row ${seq}`);
  await audit.firstBad.click();
  await expect(audit.detail).toHaveAttribute('data-seq', String(seq));
  await expect(audit.detail.getByTestId('audit-detail-json')).toContainText('"operator": "mallory"');
});
