// SECURITY REGION. The renderer displays text written by agents and plugins; these options are
// what keeps an injection there from becoming code with the operator's rights.
//  - contextIsolation: the page cannot reach the preload's objects or Electron internals.
//  - sandbox: the renderer process is OS-sandboxed and the preload gets no Node.js.
//  - nodeIntegration off (also in workers and subframes): no require() in the page.
//  - webSecurity on, no insecure content, no experimental features, no <webview>.
// Changing any of these fails test/main/shells/electron-security.test.ts on purpose.
import type { BrowserWindowConstructorOptions } from 'electron';

export function windowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 560,
    title: 'Gatehouse',
    show: false,
    backgroundColor: '#11151c',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      spellcheck: false,
    },
  };
}
