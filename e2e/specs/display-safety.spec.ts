// Display safety in the inbox: a call whose arguments carry a right-to-left override (U+202E) and a
// zero-width space shows them as ⟨U+…⟩ tokens, with a HIDDEN CHARACTERS badge, instead of drawing
// the text reordered; the data the agent sent is unchanged (what runs is what was sent).
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage } from '../pages/approvals-page.ts';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callTool, hookCall, hostCall, httpAgent, resultText } from '../support/agents.ts';

test.describe('a live host with the hello plugin', () => {
  test.use({ homeSetup: { settings: { mode: 'live' }, plugins: ['hello'], helloWrites: true } });

  test('bidi and zero-width characters in a call are drawn as tokens and flagged', async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    const agent = await httpAgent(home, 'e2e-display-agent');
    try {
      const name = 'Ada\u202Etxt.exe\u200B';
      const call = callTool(agent, 'hello', { name });
      const item = inbox.item('⟨U+202E⟩');
      await expect(item).toHaveCount(1);
      await expect(item.getByTestId('hidden-text-badge')).toHaveText('HIDDEN CHARACTERS');
      await expect(item.getByTestId('hidden-text-badge')).toHaveAttribute('data-kinds', 'bidi invisible');
      // The row flags it; the detail pane beside the list draws the arguments.
      await expect(inbox.detail.getByTestId('approval-detail-hidden-text')).toHaveText('HIDDEN CHARACTERS');
      const args = inbox.detail.getByTestId('approval-arguments');
      await expect(args.locator('[data-code-point="U+202E"]')).toHaveText('⟨U+202E⟩');
      await expect(args.locator('[data-code-point="U+200B"]')).toHaveText('⟨U+200B⟩');
      // No raw override reaches the page's text.
      expect(await args.innerText()).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/);
      await inbox.press('a');
      expect(resultText(await call.result)).toContain(`Hello, ${name}.`);
    } finally {
      await agent.close();
    }
  });
});

test.describe('a live host whose hook calls wait in the inbox', () => {
  test.use({ homeSetup: { settings: { mode: 'live', hookAsk: 'inbox' } } });

  test("the grant dialog's preview draws a recorded call's tool name with its hidden characters as tokens", async ({ console: app, home }) => {
    await app.status.expectConnected();
    const inbox = new ApprovalsPage(app.page);
    await app.open('approvals');
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'gh-display-grant-')));
    try {
      const { token } = await hostCall<{ token: string }>(home, 'agents.tokens.create', { name: 'ada' });
      // A hook call's tool_name is whatever the agent sends. Raw, the override in it reorders the
      // rest of its preview line, the (escaped) summary included.
      const tool = 'Bash\u202E';
      const first = hookCall(home, token, 's1', project, tool, { command: 'npm test -- --shard=1' });
      first.catch(() => {});
      await expect(inbox.item('--shard=1')).toHaveCount(1);
      const second = hookCall(home, token, 's1', project, tool, { command: 'npm test -- --shard=2' });
      second.catch(() => {});
      await inbox.expectPending(2);
      await inbox.item('--shard=1').click();
      await expect(inbox.detail.getByTestId('approval-grant')).toBeVisible();
      await inbox.press('g');
      const examples = app.page.getByTestId('grant-dialog').getByTestId('grant-preview-examples');
      await expect(examples).toContainText('--shard=2');
      expect(await examples.innerText()).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/);
      await expect(examples.locator('[data-code-point="U+202E"]')).toHaveText('⟨U+202E⟩');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
