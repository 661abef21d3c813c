// In the serve shell the console itself raises a web Notification for new inbox items, once the
// operator allowed it from the inbox header (browsers only ask from a user gesture). The
// Electron console never does: its main process shows native notifications instead.
import { test, expect } from '../../fixtures.ts';
import { ApprovalsPage } from '../../pages/approvals-page.ts';
import { callTool, httpAgent, resultText } from '../../support/agents.ts';

test.use({ homeSetup: { settings: { mode: 'live' }, plugins: ['hello'], helloWrites: true } });

test('after "Enable notifications", a new item raises a desktop notification naming the agent and tool', async ({ console: app, home, serveHost }) => {
  await app.status.expectConnected();
  const inbox = new ApprovalsPage(app.page);
  await app.open('approvals');

  // Record every Notification the page creates (the real constructor still runs).
  await app.page.evaluate(() => {
    const w = window as unknown as { __notes: { title: string; body: string }[] };
    w.__notes = [];
    const Real = window.Notification;
    window.Notification = class extends Real {
      constructor(title: string, options?: NotificationOptions) {
        w.__notes.push({ title, body: options?.body ?? '' });
        super(title, options);
      }
    } as typeof Notification;
  });
  const notes = () => app.page.evaluate(() => (window as unknown as { __notes: { title: string; body: string }[] }).__notes);

  await expect(inbox.enableNotifications).toBeVisible();
  await app.page.context().grantPermissions(['notifications'], { origin: new URL(serveHost!.baseUrl).origin });
  await inbox.enableNotifications.click();
  await expect(inbox.notificationsState).toHaveAttribute('data-state', 'on');

  const agent = await httpAgent(home, 'e2e-notified-agent');
  try {
    const call = callTool(agent, 'hello', { name: 'Ada' });
    await expect(inbox.item('"Ada"')).toHaveCount(1);
    await expect.poll(notes).toEqual([{ title: 'Gatehouse: approval needed', body: 'default wants to call hello' }]);

    // Deciding is not news: no second notification.
    await inbox.press('a');
    expect(resultText(await call.result)).toContain('Hello, Ada.');
    await inbox.expectPending(0);
    expect(await notes()).toHaveLength(1);
  } finally {
    await agent.close();
  }
});
