// The Electron shell: the same host as `gatehouse serve`, on screen in a BrowserWindow.
// The only place under main/ that imports electron.
import { app, BrowserWindow, ipcMain, Notification, protocol, session, shell, net } from 'electron';
import { existsSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { contentSecurityPolicy } from '../../../shared/csp.js';
import { approvalNotice } from '../../../shared/display-text.js';
import { operatorName } from '../../core/operator.js';
import { createHost } from '../../host/create-host.js';
import { defaultHome } from '../../home.js';
import { removeServeFile } from '../serve/serve-file.js';
import { listenForConsolesAndAgents, type Listening } from '../serve/run-serve.js';
import { APP_SCHEME, APP_URL } from './app-protocol.js';
import { bindIpc } from './ipc-adapter.js';
import { hardenContents } from './security.js';
import { windowOptions } from './window-options.js';

// out/main/electron.cjs → out/renderer, out/preload; native/electron at the package root.
const outDir = join(__dirname, '..');
const rendererDir = join(outDir, 'renderer');
const preloadPath = join(outDir, 'preload', 'index.cjs');
// The example plugins a new home is given on its first run: the checkout's examples/plugins, or in
// a packaged app the copy electron-builder puts in resources (extraResources); absent, none are.
const examplesDir = app.isPackaged ? join(process.resourcesPath, 'examples', 'plugins') : join(outDir, '..', 'examples', 'plugins');
// Which better-sqlite3 build Electron loads. From a checkout (`npm start`), node_modules holds the
// Node build the tests use, so the Electron build lives apart in native/electron
// (scripts/build-electron-native.mjs). In a packaged app electron-builder has rebuilt node_modules'
// copy for Electron's ABI and unpacked it from the asar (electron-builder.yml: npmRebuild,
// asarUnpack), and native/ is not shipped, so the regular binding is the right one there; pointing
// a packaged app at native/electron would load nothing or, worse, a stale build for another ABI.
const nativeBinding = app.isPackaged ? null : join(outDir, '..', 'native', 'electron', 'better_sqlite3.node');

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

if (!app.requestSingleInstanceLock()) app.quit();

app.whenReady().then(async () => {
  const host = createHost({ home: defaultHome(), shell: 'electron', examplesDir, ...(nativeBinding && existsSync(nativeBinding) ? { nativeBinding } : {}) });
  // Agents (MCP, hooks) and CLI commands reach this host on a loopback port, as with `gatehouse serve`.
  let listening: Listening | null = null;
  try {
    listening = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
  } catch (err) {
    console.error('gatehouse: could not listen for agents:', err);
  }
  // New inbox items: a desktop notification (when enabled) and the dock/taskbar badge.
  host.bus.subscribe((name, payload) => {
    const p = payload as { pending: number; added: { agent: string; tool: string }[] };
    app.setBadgeCount(p.pending);
    if (p.added.length > 0 && host.settings.current.desktopNotifications && Notification.isSupported()) {
      const n = new Notification({ title: 'Gatehouse: approval needed', body: approvalNotice(p.added) });
      n.on('click', () => BrowserWindow.getAllWindows()[0]?.focus());
      n.show();
    }
  }, (name) => name === 'approvals.changed');
  const csp = contentSecurityPolicy({ frameAncestors: true });

  protocol.handle(APP_SCHEME, async (request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    const full = normalize(join(rendererDir, path === '/' ? 'index.html' : path));
    if (!full.startsWith(rendererDir + sep)) return new Response('Not found', { status: 404 });
    const res = await net.fetch(pathToFileURL(full).toString());
    const headers = new Headers(res.headers);
    headers.set('Content-Security-Policy', csp);
    headers.set('X-Content-Type-Options', 'nosniff');
    return new Response(res.body, { status: res.status, headers });
  });
  // Nothing in the console needs a permission (camera, notifications are handled by main).
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, callback) => callback(false));

  app.on('web-contents-created', (_e, contents) => hardenContents(contents, (url) => void shell.openExternal(url)));

  const ctx = { console: 'electron' as const, operator: operatorName() };
  const unbind = bindIpc(ipcMain, host, ctx, () => BrowserWindow.getAllWindows().map((w) => w.webContents));
  let left: (() => void) | null = null;

  const win = new BrowserWindow(windowOptions(preloadPath));
  win.once('ready-to-show', () => win.show());
  win.webContents.on('did-finish-load', () => {
    left?.();
    left = host.operatorConnected(ctx, { window: win.id });
  });
  void win.loadURL(APP_URL);

  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    quitting = true;
    left?.();
    unbind();
    removeServeFile(host.paths.serveJson);
    // Calls waiting in the inbox are denied and answered while the agents are still connected.
    void host
      .answerWaiting()
      .then(() => listening?.shell.close())
      .then(() => host.close('window closed'))
      .finally(() => app.exit(0));
  });
  app.on('window-all-closed', () => app.quit());
}).catch((err: unknown) => {
  // A host that cannot start (a locked database, a broken data folder) must end the app with the
  // reason, not leave it running with no window and the error as an unhandled rejection.
  console.error('gatehouse: could not start:', err);
  app.exit(1);
});
