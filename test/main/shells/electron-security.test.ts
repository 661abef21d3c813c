// The Electron shell's security settings. Electron has no binary on this machine, so these test
// the pure parts the shell is made of: the window options, the navigation / window.open / IPC
// sender guards (with a recording stand-in for WebContents), the CSP, and the built preload
// bundle run in a vm with a recording stand-in for the `electron` module.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { IpcMain, WebContents } from 'electron';
import { ipcChannels, methods } from '../../../shared/contract.js';
import { contentSecurityPolicy, cspDirectives } from '../../../shared/csp.js';
import { createDispatcher, type Handlers } from '../../../main/host/dispatcher.js';
import { APP_URL } from '../../../main/shells/electron/app-protocol.js';
import { bindIpc } from '../../../main/shells/electron/ipc-adapter.js';
import { hardenContents, isTrustedSender, type GuardableContents } from '../../../main/shells/electron/security.js';
import { windowOptions } from '../../../main/shells/electron/window-options.js';
import { repoRoot } from '../../support/cli.js';

describe('BrowserWindow options', () => {
  const opts = windowOptions('/app/out/preload/index.cjs');
  const web = opts.webPreferences!;

  it('isolates the page from the preload and Node', () => {
    expect(web.contextIsolation).toBe(true);
    expect(web.sandbox).toBe(true);
    expect(web.nodeIntegration).toBe(false);
    expect(web.nodeIntegrationInWorker).toBe(false);
    expect(web.nodeIntegrationInSubFrames).toBe(false);
  });

  it('keeps web security on and extras off', () => {
    expect(web.webSecurity).toBe(true);
    expect(web.allowRunningInsecureContent).toBe(false);
    expect(web.experimentalFeatures).toBe(false);
    expect(web.webviewTag).toBe(false);
    expect(web.enableBlinkFeatures).toBeUndefined();
    expect(web.additionalArguments).toBeUndefined();
  });

  it('loads the given preload and nothing else', () => {
    expect(web.preload).toBe('/app/out/preload/index.cjs');
    expect(opts.show).toBe(false);
  });
});

/** A recording stand-in for the part of WebContents the guards use. */
function recordingContents() {
  const listeners = new Map<string, ((event: { preventDefault(): void }, ...args: unknown[]) => void)[]>();
  let openHandler: ((d: { url: string }) => { action: 'deny' } | { action: 'allow' }) | null = null;
  const contents: GuardableContents = {
    on(event, listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return contents;
    },
    setWindowOpenHandler(h) {
      openHandler = h;
    },
  };
  return {
    contents,
    /** Fires an event the way Electron would; returns whether a listener prevented it. */
    fire(event: string, ...args: unknown[]): boolean {
      let prevented = false;
      for (const l of listeners.get(event) ?? []) l({ preventDefault: () => (prevented = true) }, ...args);
      return prevented;
    },
    open(url: string) {
      if (!openHandler) throw new Error('no window open handler was set');
      return openHandler({ url });
    },
    listenerCount: (event: string) => listeners.get(event)?.length ?? 0,
  };
}

describe('hardenContents', () => {
  const foreign = ['https://evil.example/', 'http://127.0.0.1:7411/', 'file:///etc/passwd', 'gatehouse://evil/index.html', 'gatehouse://app.evil.example/', 'javascript:alert(1)', 'data:text/html,<script>1</script>', 'about:blank', 'not a url'];

  it.each(foreign)('prevents navigating to %s', (url) => {
    const c = recordingContents();
    hardenContents(c.contents, () => {});
    expect(c.fire('will-navigate', url)).toBe(true);
    expect(c.fire('will-redirect', url)).toBe(true);
  });

  it('lets the console navigate within itself', () => {
    const c = recordingContents();
    hardenContents(c.contents, () => {});
    expect(c.fire('will-navigate', APP_URL)).toBe(false);
    expect(c.fire('will-navigate', 'gatehouse://app/index.html#/audit')).toBe(false);
    expect(c.fire('will-redirect', APP_URL)).toBe(false);
  });

  it('never attaches a <webview>', () => {
    const c = recordingContents();
    hardenContents(c.contents, () => {});
    expect(c.listenerCount('will-attach-webview')).toBe(1);
    expect(c.fire('will-attach-webview', {}, {})).toBe(true);
  });

  it('denies every new window and sends only http(s) links to the system browser', () => {
    const c = recordingContents();
    const external: string[] = [];
    hardenContents(c.contents, (url) => external.push(url));
    const urls = ['https://example.com/docs', 'http://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'gatehouse://app/index.html', 'data:text/html,x', 'smb://share/x', 'vbscript:msgbox', 'mailto:a@b.c', 'nonsense'];
    for (const url of urls) expect(c.open(url)).toEqual({ action: 'deny' });
    expect(external).toEqual(['https://example.com/docs', 'http://example.com/']);
  });
});

describe('isTrustedSender', () => {
  it('trusts only the console top-level frame', () => {
    expect(isTrustedSender({ url: APP_URL, parent: null })).toBe(true);
    expect(isTrustedSender({ url: 'gatehouse://app/index.html#/plugins', parent: null })).toBe(true);
  });

  it.each([
    ['a subframe of the console', { url: APP_URL, parent: { url: APP_URL } }],
    ['a foreign page', { url: 'https://evil.example/', parent: null }],
    ['a file page', { url: 'file:///tmp/x.html', parent: null }],
    ['another gatehouse host', { url: 'gatehouse://evil/index.html', parent: null }],
    ['a frame without a url', { url: '', parent: null }],
    ['no frame (destroyed)', null],
    ['an undefined frame', undefined],
  ])('refuses %s', (_what, frame) => {
    expect(isTrustedSender(frame as { url: string; parent: unknown } | null | undefined)).toBe(false);
  });

  it('is what the IPC adapter checks before dispatching', async () => {
    const dispatched: unknown[] = [];
    const handlers = Object.fromEntries(Object.keys(methods).map((m) => [m, () => dispatched.push(m)])) as unknown as Handlers<typeof methods>;
    const dispatcher = createDispatcher(methods, handlers, () => {});
    const registered = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>();
    const ipcMain = { handle: (ch: string, h: (event: unknown, ...args: unknown[]) => Promise<unknown>) => void registered.set(ch, h), removeHandler: (ch: string) => void registered.delete(ch) };
    const unbind = bindIpc(ipcMain as unknown as Pick<IpcMain, 'handle' | 'removeHandler'>, { dispatcher, bus: { subscribe: () => () => {} } }, { console: 'electron', operator: 'tester' }, () => [] as WebContents[]);
    const invoke = registered.get(ipcChannels.invoke)!;
    await expect(invoke({ senderFrame: { url: APP_URL, parent: { url: APP_URL } } }, 'host.info', {})).resolves.toMatchObject({ ok: false, error: { code: 'forbidden' } });
    await expect(invoke({ senderFrame: { url: 'https://evil.example/', parent: null } }, 'host.info', {})).resolves.toMatchObject({ ok: false, error: { code: 'forbidden' } });
    await expect(invoke({ senderFrame: null }, 'host.info', {})).resolves.toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(dispatched).toEqual([]);
    await invoke({ senderFrame: { url: APP_URL, parent: null } }, 'host.info', {});
    expect(dispatched).toEqual(['host.info']);
    unbind();
    expect(registered.size).toBe(0);
  });
});

describe('Content Security Policy', () => {
  const directives = (policy: string) => new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]));

  it('allows no inline script, no eval and no remote origin', () => {
    const policy = contentSecurityPolicy();
    for (const bad of ["'unsafe-eval'", "'unsafe-hashes'", "'wasm-unsafe-eval'", "'strict-dynamic'", '*', 'http:', 'https:', 'blob:']) {
      expect(policy, bad).not.toContain(bad);
    }
    const d = directives(policy);
    // Inline code never; inline styles at most (Monaco and xterm.js inject <style> at run time).
    for (const [k, v] of d) if (v.includes("'unsafe-inline'")) expect(k).toBe('style-src');
    expect(d.get('default-src')).toEqual(["'none'"]);
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(d.get('object-src')).toEqual(["'none'"]);
    expect(d.get('base-uri')).toEqual(["'none'"]);
    expect(d.get('form-action')).toEqual(["'none'"]);
    // data: is allowed for images and fonts only, never where it could run.
    for (const [k, v] of d) if (v.includes('data:')) expect(['img-src', 'font-src']).toContain(k);
  });

  it('adds only the given connect origins, and frame-ancestors for headers', () => {
    const d = directives(contentSecurityPolicy({ connect: ['ws://127.0.0.1:7411'], frameAncestors: true }));
    expect(d.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:7411']);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.get('script-src')).toEqual(["'self'"]);
    // The shared table itself is not changed by adding origins.
    expect(cspDirectives['connect-src']).toEqual(["'self'"]);
  });

  it('is in the built index.html as a meta tag, and the page has no inline or remote script', () => {
    const html = readFileSync(join(repoRoot, 'out', 'renderer', 'index.html'), 'utf8');
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy()}" />`);
    // The policy must come before anything that loads.
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\bsrc="\.\//);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//);
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });
});

describe('the built preload (out/preload/index.cjs in a vm)', () => {
  function loadPreload() {
    const code = readFileSync(join(repoRoot, 'out', 'preload', 'index.cjs'), 'utf8');
    const required: string[] = [];
    const exposed: [string, Record<string, unknown>][] = [];
    const invoked: unknown[][] = [];
    const listeners = new Map<string, ((event: unknown, ...args: unknown[]) => void)[]>();
    const ipcRenderer = {
      invoke: (...args: unknown[]) => {
        invoked.push(args);
        return Promise.resolve({ ok: true, result: 'from-main' });
      },
      on: (channel: string, l: (event: unknown, ...args: unknown[]) => void) => void listeners.set(channel, [...(listeners.get(channel) ?? []), l]),
      removeListener: (channel: string, l: (event: unknown, ...args: unknown[]) => void) => void listeners.set(channel, (listeners.get(channel) ?? []).filter((x) => x !== l)),
      send: () => {
        throw new Error('the preload must not send');
      },
      sendSync: () => {
        throw new Error('the preload must not sendSync');
      },
    };
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => void exposed.push([key, api]) },
      ipcRenderer,
    };
    const module = { exports: {} };
    runInNewContext(
      code,
      {
        module,
        exports: module.exports,
        // A sandboxed preload can require little; this one needs only electron.
        require: (id: string) => {
          required.push(id);
          if (id === 'electron') return electron;
          throw new Error(`the sandboxed preload cannot require ${id}`);
        },
        console,
      },
      { filename: 'out/preload/index.cjs' },
    );
    return { required, exposed, invoked, listeners, ipcRenderer };
  }

  it('exposes exactly one object, window.gatehouse, and requires only electron', () => {
    const p = loadPreload();
    expect(p.required).toEqual(['electron']);
    expect(p.exposed).toHaveLength(1);
    expect(p.exposed[0]![0]).toBe('gatehouse');
  });

  it('exposes only invoke, methods and onEvent, never ipcRenderer', () => {
    const p = loadPreload();
    const api = p.exposed[0]![1];
    expect(Object.keys(api).sort()).toEqual(['invoke', 'methods', 'onEvent']);
    for (const value of Object.values(api)) {
      expect(value).not.toBe(p.ipcRenderer);
      for (const fn of Object.values(p.ipcRenderer)) expect(value).not.toBe(fn);
    }
    expect(typeof api.invoke).toBe('function');
    expect(typeof api.onEvent).toBe('function');
  });

  it('lists exactly the contract methods, frozen', () => {
    const api = loadPreload().exposed[0]![1];
    expect([...(api.methods as string[])]).toEqual(Object.keys(methods));
    expect(Object.isFrozen(api.methods)).toBe(true);
  });

  it('passes known methods to the invoke channel, and never unknown ones', async () => {
    const p = loadPreload();
    const invoke = p.exposed[0]![1].invoke as (m: unknown, params?: unknown) => Promise<unknown>;
    for (const m of ['no.such.method', 'toString', '__proto__', 'constructor', '', 42, null, { toString: () => 'host.info' }]) {
      const r = (await invoke(m, {})) as { ok: boolean; error: { code: string } };
      expect(r.ok).toBe(false);
      expect(r.error.code).toBe('unknown_method');
    }
    expect(p.invoked).toEqual([]);
    await expect(invoke('host.info')).resolves.toEqual({ ok: true, result: 'from-main' });
    await invoke('audit.tail', { limit: 3 });
    expect(p.invoked).toEqual([
      [ipcChannels.invoke, 'host.info', {}],
      [ipcChannels.invoke, 'audit.tail', { limit: 3 }],
    ]);
  });

  it('gives event listeners only (name, payload), never the IPC event object', () => {
    const p = loadPreload();
    const onEvent = p.exposed[0]![1].onEvent as (l: (...args: unknown[]) => void) => () => void;
    const got: unknown[][] = [];
    const off = onEvent((...args) => got.push(args));
    const registered = p.listeners.get(ipcChannels.event) ?? [];
    expect(registered).toHaveLength(1);
    expect([...p.listeners.keys()]).toEqual([ipcChannels.event]);
    const ipcEvent = { sender: { send: () => {} }, senderFrame: {}, ports: [] };
    registered[0]!(ipcEvent, 'audit.appended', { lastSeq: 4, count: 1 });
    registered[0]!(ipcEvent, { not: 'a name' }, { lastSeq: 5 });
    expect(got).toEqual([['audit.appended', { lastSeq: 4, count: 1 }]]);
    for (const args of got) for (const a of args) expect(a).not.toBe(ipcEvent);
    off();
    expect(p.listeners.get(ipcChannels.event)).toEqual([]);
  });
});
