// The Activity view (issue #16 item 5): decisions stream in live with their decider, those that
// never reach the inbox (a locked rule's deny) included, and filter like Audit.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { serveFile } from '../support/agents.ts';

test.describe('a live host', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' } } });

  test('a rule\'s deny and an asked call appear live with their deciders; the decision filter is a chip', async ({ console: app, home }) => {
    await app.status.expectConnected();
    await app.open('activity');
    const s = await serveFile(home);
    const hook = (command: string, session: string) =>
      fetch(new URL('/hooks/claude/pre-tool-use', s.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.agentToken}` },
        body: JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `tu-${session}` }),
      }).then((r) => r.json() as Promise<{ hookSpecificOutput?: { permissionDecision?: string } }>);

    const denied = await hook(`cat ${join(homedir(), '.ssh', 'id_rsa')}`, 'act-1');
    expect(denied.hookSpecificOutput?.permissionDecision).toBe('deny');
    const deny = app.page.locator('[data-testid="activity-row"][data-decision="deny"]');
    await expect(deny.first()).toBeVisible();
    await expect(deny.first().getByTestId('activity-decider')).toContainText('rule builtin.credentials.ssh');

    const asked = hook('npm run deploy', 'act-2');
    asked.catch(() => {});
    const ask = app.page.locator('[data-testid="activity-row"][data-decision="ask"]');
    await expect(ask.first()).toBeVisible();
    await expect(ask.first().getByTestId('activity-decider')).toContainText('autonomy supervised');

    await app.page.getByTestId('activity-filter-decision').selectOption('deny');
    await expect(app.page.getByTestId('activity-filter-chips').getByTestId('filter-chip')).toHaveCount(1);
    await expect(app.page.locator('[data-testid="activity-row"]:not([data-decision="deny"])')).toHaveCount(0);
    await app.page.getByTestId('filters-clear-all').click();
    await expect(ask.first()).toBeVisible();
  });
});
