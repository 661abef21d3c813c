// The command palette and the shortcuts sheet (issue #16 item 6): Ctrl+K finds a view, a waiting
// call and a session by typing part of their names, Enter goes there; `?` lists the keys.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage } from '../pages/approvals-page.ts';
import { serveFile } from '../support/agents.ts';

test.describe('a live host whose hook calls wait in the inbox', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' } } });

  test('Ctrl+K opens a view, a waiting call and a session; ? shows the keys', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-palette-')));
    const s = await serveFile(home);
    const post = (session: string, command: string) =>
      fetch(new URL('/hooks/claude/pre-tool-use', s.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.agentToken}` },
        body: JSON.stringify({ session_id: session, transcript_path: join(project, 't.jsonl'), cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `tu-${session}` }),
      }).catch(() => null);
    void post('palette-a', 'npm run build');
    void post('palette-b', 'npm run deploy-preview');
    const inbox = new ApprovalsPage(app.page);
    await expect(inbox.badge).toHaveText('2');

    const palette = app.page.getByTestId('command-palette');
    const input = app.page.getByTestId('command-palette-input');
    await app.page.keyboard.press('Control+k');
    await expect(input).toBeFocused();
    await input.fill('audit');
    await expect(palette.getByTestId('command-palette-item').first()).toHaveAttribute('data-id', 'view:audit');
    await input.press('Enter');
    await expect(palette).toHaveCount(0);
    await expect(app.view('audit')).toBeVisible();

    // A waiting call by its command: the inbox opens with it selected.
    await app.page.keyboard.press('Control+k');
    await input.fill('deploy-preview');
    await expect(palette.getByTestId('command-palette-item')).toHaveCount(1);
    await input.press('Enter');
    await expect(app.view('approvals')).toBeVisible();
    await expect(inbox.item('deploy-preview')).toHaveAttribute('data-active', 'true');
    await expect(inbox.detail.getByTestId('approval-command')).toHaveText('npm run deploy-preview');

    // A session: the inbox filtered to it, shown as a chip.
    await app.page.keyboard.press('Control+k');
    await input.fill('session palette-a');
    await input.press('ArrowDown');
    await input.press('ArrowUp');
    await input.press('Enter');
    await expect(inbox.items).toHaveCount(1);
    await expect(inbox.items.first()).toHaveAttribute('data-session', 'default/palette-a');
    await expect(app.page.getByTestId('approvals-filter-chips')).toContainText('palette-a');

    // ? lists the keys (not while typing in a field).
    await app.page.getByTestId('filters-clear-all').click();
    await app.page.keyboard.press('?');
    const sheet = app.page.getByTestId('shortcuts-sheet');
    await expect(sheet).toContainText('Command palette');
    await expect(sheet).toContainText('Inbox: approve once');
    await app.page.keyboard.press('Escape');
    await expect(sheet).toHaveCount(0);
    await inbox.filterText.focus();
    await app.page.keyboard.press('?');
    await expect(inbox.filterText).toHaveValue('?');
    await expect(sheet).toHaveCount(0);
    rmSync(project, { recursive: true, force: true });
  });
});
