// Layout (issue #16 item 8): the sidebar collapses to icons and stays so after a reload; the inbox
// list is resized from the keyboard (or by dragging its separator) and keeps its width.
import { test, expect } from '../fixtures.ts';
import { serveFile } from '../support/agents.ts';

test.describe('a live host whose hook calls wait in the inbox', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' } } });

  test('the sidebar collapses and the inbox list width is remembered across a reload', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const sidebar = app.page.locator('nav.sidebar');
    const label = app.page.getByTestId('nav-audit').locator('.nav-label');
    await expect(label).toBeVisible();
    const wide = (await sidebar.boundingBox())!.width;
    await app.page.getByTestId('sidebar-toggle').click();
    await expect(label).toBeHidden();
    expect((await sidebar.boundingBox())!.width).toBeLessThan(wide / 2);
    // Icons still open views.
    await app.page.getByTestId('nav-audit').click();
    await expect(app.view('audit')).toBeVisible();

    const s = await serveFile(home);
    void fetch(new URL('/hooks/claude/pre-tool-use', s.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.agentToken}` },
      body: JSON.stringify({ session_id: 'layout', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'tu-layout' }),
    }).catch(() => null);
    await app.open('approvals');
    const list = app.page.getByTestId('approval-list');
    await expect(app.page.getByTestId('approval-item')).toHaveCount(1);
    const before = (await list.boundingBox())!.width;
    const handle = app.page.getByTestId('approval-split-handle');
    await handle.focus();
    await app.page.keyboard.press('ArrowRight');
    await app.page.keyboard.press('ArrowRight');
    await expect.poll(async () => Math.round((await list.boundingBox())!.width)).toBe(Math.round(before) + 48);

    await app.page.reload();
    await app.status.expectConnected();
    await expect(label).toBeHidden();
    await app.open('approvals');
    await expect(app.page.getByTestId('approval-item')).toHaveCount(1);
    expect(Math.round((await list.boundingBox())!.width)).toBe(Math.round(before) + 48);
    await app.page.getByTestId('sidebar-toggle').click();
    await expect(label).toBeVisible();
  });
});
