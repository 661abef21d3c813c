// "Don't ask again for `npm test:*`" end to end (issue #16 item 2): real Claude Code hook requests
// (the HTTP hook form, `hookAsk: inbox`) reach a live `gatehouse serve`; from the inbox's detail
// pane the operator opens the grant dialog by keyboard, sees what the prefix would have matched in
// the last hour (the calls this test sent), saves it, and the next `npm test …` is allowed at once
// while `npm test; rm -rf build`, `npm test $(cat package.json)` and `npm testing` still wait, and the locked
// rule still denies `npm test; rm -rf ~`. The dialog passes an axe scan.
import AxeBuilder from '@axe-core/playwright';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage, GrantsPage } from '../pages/approvals-page.ts';
import { auditTail, hostCall, serveFile } from '../support/agents.ts';

interface HookAnswer {
  hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
}

/** One PreToolUse hook request, as Claude Code's HTTP hook sends it; settles when Gatehouse answers. */
async function hookCall(home: string, token: string, session: string, cwd: string, command: string): Promise<HookAnswer> {
  const s = await serveFile(home);
  const res = await fetch(new URL('/hooks/claude/pre-tool-use', s.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ session_id: session, transcript_path: join(cwd, 't.jsonl'), cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `tu-${Math.random()}`, permission_mode: 'default' }),
  });
  return (await res.json()) as HookAnswer;
}

test.describe('a live host whose hook calls wait in the inbox', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' } } });

  test('a command-prefix grant: previewed over the last hour, then the next npm test runs, npm test; rm -rf ~ is still denied and npm test; rm -rf build waits', async ({ console: app, home }) => {
    test.setTimeout(90_000);
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    // A project outside GATEHOUSE_HOME (whose files are Gatehouse's own, and protected).
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-grants-')));
    try {
      const { token } = await hostCall<{ token: string }>(home, 'agents.tokens.create', { name: 'ada' });
      const answered: string[] = [];
      const send = (command: string) => {
        const p = hookCall(home, token, 's1', project, command);
        p.then((a) => answered.push(`${command}: ${a.hookSpecificOutput?.permissionDecision ?? '?'}`), () => {});
        return p;
      };

      // The last hour, as far as this grant can see: one other `npm test …` and one `npm testing`.
      const first = send('npm test -- --shard=1');
      await expect(inbox.item('--shard=1')).toHaveCount(1);
      void send('npm test -- --shard=2');
      void send('npm testing');
      await inbox.expectPending(3);

      // Keyboard only: select the first call and press g.
      await inbox.item('--shard=1').click();
      await expect(inbox.detail.getByTestId('approval-grant')).toBeVisible();
      await inbox.press('g');
      const dialog = app.page.getByTestId('grant-dialog');
      await expect(dialog).toBeVisible();
      // The prefix proposed from the call's first words, focused for editing.
      const prefix = dialog.getByTestId('grant-value-command');
      await expect(prefix).toHaveValue('npm test');
      await expect(prefix).toBeFocused();
      // Of the other calls recorded in the last hour in this session, one starts with `npm test`.
      const count = dialog.getByTestId('grant-preview-count');
      await expect(count).toHaveAttribute('data-count', '1');
      await expect(count).toContainText('of 2 recorded');
      await expect(dialog.getByTestId('grant-preview-examples')).toContainText('npm test -- --shard=2');
      await expect(dialog.getByTestId('grant-preview-examples')).not.toContainText('npm testing');

      // Widening the prefix to `npm` would have matched both: the preview follows the edit.
      await prefix.fill('npm');
      await expect(count).toHaveAttribute('data-count', '2');
      await prefix.fill('npm test');
      await expect(count).toHaveAttribute('data-count', '1');

      const axe = await new AxeBuilder({ page: app.page }).include('[data-testid="grant-dialog"]').analyze();
      const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(serious, serious.join('\n')).toEqual([]);

      // Scope and expiry by keyboard, then save with Enter in the prefix field.
      await dialog.getByTestId('grant-scope').selectOption('agent');
      await dialog.getByTestId('grant-expiry').selectOption('15');
      // Saving waits for the preview of what is saved: now over every session of ada.
      await expect(count).toContainText('from ada');
      await expect(dialog.getByTestId('grant-confirm')).toBeEnabled();
      await prefix.focus();
      await inbox.press('Enter');
      await expect(dialog).toHaveCount(0);
      expect((await first).hookSpecificOutput?.permissionDecision).toBe('allow');

      // The next matching call, in another session of the same agent, is allowed by the grant at once.
      const next = await hookCall(home, token, 's2', project, 'npm test -- --watch');
      expect(next.hookSpecificOutput?.permissionDecision, next.hookSpecificOutput?.permissionDecisionReason).toBe('allow');
      expect(next.hookSpecificOutput?.permissionDecisionReason).toContain('grant');

      // Locked rules come first: `npm test; rm -rf ~` is denied by the built-in rule, grant or not.
      const home_ = await hookCall(home, token, 's1', project, 'npm test; rm -rf ~');
      expect(home_.hookSpecificOutput?.permissionDecision).toBe('deny');
      expect(home_.hookSpecificOutput?.permissionDecisionReason).toContain('builtin.delete-root-or-home');
      // Not one plain command: these wait for an operator, as does a longer first word.
      void send('npm test; rm -rf build');
      void send('npm test $(cat package.json)');
      await expect(inbox.item('rm -rf build')).toHaveCount(1);
      await expect(inbox.item('$(cat package.json)')).toHaveCount(1);
      await expect(inbox.item('npm testing')).toHaveCount(1);
      expect(answered.filter((a) => a.includes('rm -rf') || a.includes('npm testing') || a.includes('$('))).toEqual([]);

      // Audited, and listed with its kind, scope and expiry; revocable.
      const events = await auditTail(home);
      const created = events.find((e) => e.type === 'grant.created');
      expect(created?.payload).toMatchObject({ kind: 'command', value: 'npm test', scope: 'agent' });
      expect(events.some((e) => e.type === 'call.decided' && (e.payload as { decider?: { kind?: string } }).decider?.kind === 'grant')).toBe(true);

      await app.open('grants');
      const grants = new GrantsPage(app.page);
      const row = app.page.locator('[data-testid="grant-row"][data-kind="command"]');
      await expect(row).toHaveCount(1);
      await expect(row).toHaveAttribute('data-scope', 'agent');
      await expect(row.getByTestId('grant-match')).toHaveText('command npm test:*');
      await expect(row.getByTestId('grant-scope')).toHaveText('every session');
      await expect(row.getByTestId('grant-countdown')).toHaveText(/^1[45]:\d\d$/);
      await row.getByTestId('grant-revoke').click();
      await expect(grants.rows).toHaveCount(0);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
