// SECURITY REGION: navigation, new windows and IPC senders. Each guard here closes a way for
// hostile content in the renderer to escape the console; test/main/shells/electron-security.test.ts
// fails if one is removed.
import { APP_ORIGIN } from './app-protocol.js';

/** The minimal part of Electron's WebContents these guards use. */
export interface GuardableContents {
  on(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview', listener: (event: { preventDefault(): void }, ...args: unknown[]) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void;
}

export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}` === APP_ORIGIN;
  } catch {
    return false;
  }
}

/** Only http(s) links go to the system browser; everything else is dropped. */
export function isExternalLinkAllowed(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

export function hardenContents(contents: GuardableContents, openExternal: (url: string) => void): void {
  // No page may replace the console: a navigated window would keep the preload API.
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(String(url))) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(String(url))) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // No new Electron windows ever; an http(s) link opens in the user's browser instead.
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalLinkAllowed(url)) openExternal(url);
    return { action: 'deny' };
  });
}

/** IPC is answered only for the console's own top-level frame, never an iframe or other page. */
export function isTrustedSender(frame: { url: string; parent: unknown } | null | undefined): boolean {
  if (!frame) return false;
  if (frame.parent !== null) return false;
  return isAppUrl(frame.url);
}
