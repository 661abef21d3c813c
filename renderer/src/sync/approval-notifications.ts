// Desktop notifications for new inbox items in the serve shell. The Electron main process
// already shows native ones, so the Electron console stays quiet (no double notification).
// A browser only grants the permission from a user gesture: the inbox header has the button.
import type { EventPayload } from '../../../shared/contract.ts';
import { useSettingsStore } from '../stores/settings-store.ts';
import type { ShellKind } from '../transport/types.ts';
import { approvalNotice } from '../../../shared/display-text.ts';

export type NotificationSupport = 'unsupported' | 'electron' | NotificationPermission;

/** What the "Enable notifications" button should say for this console. */
export function notificationSupport(shell: ShellKind | null): NotificationSupport {
  if (shell === 'electron') return 'electron';
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.permission;
}

/** Must run inside a click handler: browsers refuse the prompt otherwise. */
export async function requestNotificationPermission(): Promise<NotificationPermission> {
  if (typeof Notification === 'undefined') return 'denied';
  return Notification.requestPermission();
}

export function notifyNewApprovals(shell: ShellKind, added: EventPayload<'approvals.changed'>['added']): void {
  if (added.length === 0 || shell === 'electron') return;
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  if (!useSettingsStore.getState().settings?.desktopNotifications) return;
  // A desktop notification is plain text: the agent's names with their hidden characters escaped.
  const body = approvalNotice(added);
  try {
    // One tag: a burst replaces the previous notification instead of stacking.
    new Notification('Gatehouse: approval needed', { body, tag: 'gatehouse-approvals' });
  } catch {
    // Some browsers only allow notifications from a service worker; the badge and title still say it.
  }
}
