// Browsers only ask for the notification permission from a user gesture, so the inbox header
// offers the button. In Electron the main process shows native notifications: nothing to ask.
import { useState } from 'react';
import { useConnectionStore } from '../../stores/connection-store.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { notificationSupport, requestNotificationPermission, type NotificationSupport } from '../../sync/approval-notifications.ts';

export function NotificationsButton() {
  const shell = useConnectionStore((s) => s.shell);
  const enabled = useSettingsStore((s) => s.settings?.desktopNotifications ?? null);
  const [support, setSupport] = useState<NotificationSupport>(() => notificationSupport(shell));
  const current = shell === 'electron' ? 'electron' : support;
  if (current === 'electron' || current === 'unsupported') return null;
  if (current === 'granted') {
    return (
      <span className="muted notifications-state" data-testid="notifications-state" data-state={enabled === false ? 'off' : 'on'}>
        {enabled === false ? 'Notifications off in Settings' : 'Notifications on'}
      </span>
    );
  }
  if (current === 'denied') {
    return (
      <span className="muted notifications-state" data-testid="notifications-state" data-state="blocked" title="The browser blocks notifications for this page; allow them in the site settings.">
        Notifications blocked
      </span>
    );
  }
  return (
    <button type="button" className="button button-small" data-testid="notifications-enable" onClick={() => void requestNotificationPermission().then(setSupport)}>
      Enable notifications
    </button>
  );
}
