// Accessibility (issue #16 item 8): axe-core scans every view, in the dark theme and in the light
// theme that follows the system (prefers-color-scheme), and finds no serious or critical
// violation — colour contrast of text at least 4.5:1 included.
import { axe } from '../support/axe.ts';
import { test, expect } from '../fixtures.ts';
import type { Page } from '@playwright/test';
import { views } from '../pages/console-page.ts';

/** The serious and critical axe violations of the page as it is now, one line each, prefixed with `what`. */
async function seriousViolations(page: Page, what: string): Promise<string[]> {
  const result = await axe(page).exclude('.xterm').exclude('.monaco-editor').analyze();
  return result.violations
    .filter((x) => x.impact === 'serious' || x.impact === 'critical')
    .map((violation) => `${what}: ${violation.id} (${violation.impact}) ×${violation.nodes.length}: ${violation.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`).join(' | ')}`);
}

for (const scheme of ['dark', 'light'] as const) {
  test(`every view in the ${scheme} theme: no serious or critical axe violations`, async ({ console: app }) => {
    // Eleven axe scans: on a loaded two-core machine they take longer than 90 s.
    test.setTimeout(180_000);
    await app.page.emulateMedia({ colorScheme: scheme });
    await app.status.expectConnected();
    const found: string[] = [];
    for (const v of views) {
      await app.open(v);
      // The view settles (its first load) before it is scanned.
      await expect(app.view(v)).toBeVisible();
      await app.page.waitForLoadState('networkidle').catch(() => {});
      found.push(...(await seriousViolations(app.page, v)));
    }
    expect(found, found.join('\n')).toEqual([]);
  });
}

test.describe('the inbox with calls waiting', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' } } });

  for (const scheme of ['dark', 'light'] as const) {
    test(`rows, the detail pane, a diff and a decoded payload in the ${scheme} theme: no serious or critical axe violations`, async ({ console: app, home }) => {
      await app.page.emulateMedia({ colorScheme: scheme });
      await app.status.expectConnected();
      const { serveFile } = await import('../support/agents.ts');
      const s = await serveFile(home);
      const post = (tool: string, input: Record<string, unknown>, n: number) =>
        fetch(new URL('/hooks/claude/pre-tool-use', s.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${s.agentToken}` },
          body: JSON.stringify({ session_id: `a11y-${n}`, transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: `tu-${n}` }),
        }).catch(() => null);
      void post('Bash', { command: 'echo cm0gLXJmIH4= | base64 -d | sh', description: 'tidy up' }, 1);
      void post('Write', { file_path: '/tmp/gatehouse-a11y-notes.md', content: 'one\ntwo\n' }, 2);
      void post('Bash', { command: 'rm -rf build', description: 'clean' }, 3);
      await app.open('approvals');
      await expect(app.page.getByTestId('approval-item')).toHaveCount(3);
      // The three calls are posted at once, so which waits first is not fixed (a fresh host's first
      // shell call is judged in its worker): the decoded payload is the echo row's.
      await app.page.getByTestId('approval-item').filter({ hasText: 'echo' }).click();
      await expect(app.page.getByTestId('approval-decoded-text')).toBeVisible();
      const found: string[] = [];
      for (const row of ['echo', 'write', 'rm -rf']) {
        await app.page.getByTestId('approval-item').filter({ hasText: row }).click();
        await expect(app.page.getByTestId('approval-detail')).toBeVisible();
        const result = await axe(app.page).analyze();
        for (const violation of result.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
          found.push(`${row}: ${violation.id} (${violation.impact}): ${violation.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`).join(' | ')}`);
        }
      }
      expect(found, found.join('\n')).toEqual([]);
    });
  }
});

test.describe('a busy host: plugins of every status, an open breaker, calls waiting, an event open', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' }, plugins: ['hello'], auditEvents: 50 } });

  for (const scheme of ['dark', 'light'] as const) {
    test(`every view with data in the ${scheme} theme: no serious or critical axe violations`, async ({ console: app, home }) => {
      test.setTimeout(240_000);
      await app.page.emulateMedia({ colorScheme: scheme });
      await app.status.expectConnected();
      const { hostCall, serveFile } = await import('../support/agents.ts');
      const { FAILING_TOOL, writeToolPlugin } = await import('../support/tool-plugin.ts');
      writeToolPlugin(home, 'flaky', FAILING_TOOL);
      const state = async () => (await hostCall<{ plugins: { name: string; breaker: { state: string } }[] }>(home, 'health.list')).plugins.find((p) => p.name === 'flaky')?.breaker.state;
      await expect.poll(state).toBe('closed');
      await hostCall(home, 'plugins.enable', { name: 'flaky' });
      await expect
        .poll(async () => {
          await hostCall(home, 'plugins.testRun', { name: 'flaky', input: { message: 'x' } });
          return state();
        }, { intervals: [0] })
        .toBe('open');
      const s = await serveFile(home);
      void fetch(new URL('/hooks/claude/pre-tool-use', s.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.agentToken}` },
        body: JSON.stringify({ session_id: 'a11y-busy', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git push --force origin main' }, tool_use_id: 'tu-busy' }),
      }).catch(() => null);
      await expect(app.page.getByTestId('toast')).toBeVisible();
      await expect.poll(async () => (await hostCall<{ items: unknown[] }>(home, 'approvals.list', { state: 'pending' })).items.length).toBe(1);
      const found: string[] = [];
      for (const v of views) {
        await app.open(v);
        await expect(app.view(v)).toBeVisible();
        if (v === 'audit') {
          await app.audit.rows.first().click();
          await expect(app.audit.detail).toBeVisible();
        }
        if (v === 'health') await expect(app.page.getByTestId('history-card').first()).toBeVisible();
        found.push(...(await seriousViolations(app.page, v)));
      }
      expect(found, found.join('\n')).toEqual([]);
    });
  }
});
