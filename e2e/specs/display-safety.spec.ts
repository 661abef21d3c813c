// Display safety in the inbox: a call whose arguments carry a right-to-left override (U+202E) and a
// zero-width space shows them as ⟨U+…⟩ tokens, with a HIDDEN CHARACTERS badge, instead of drawing
// the text reordered; the data the agent sent is unchanged (what runs is what was sent).
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage } from '../pages/approvals-page.ts';
import { callTool, httpAgent, resultText } from '../support/agents.ts';

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
