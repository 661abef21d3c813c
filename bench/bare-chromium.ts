// Headless Chromium driven over its DevTools pipe with nothing enabled but what a bench asks for.
//
// Why not Playwright for the timed part of a browser case: Playwright enables the Network domain
// on every page it attaches to (it reports WebSockets to page.on('websocket')), and with it
// enabled Chromium serialises every WebSocket frame's payload into a DevTools event, sends it
// through the browser process and down the pipe, where Playwright parses it again. For the
// console's terminal stream that is the whole output a second time: measured with 20 MB through
// the console, this driver gave 6.95 MB/s, the same driver with Network.enable 3.66, Playwright
// 3.28. A console on an operator's screen has no DevTools attached. Playwright attaches to every
// page target of a browser it launched, so a bench that needs a quiet page launches its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

interface Reply {
  id?: number;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { message: string };
}

export class BareChromium {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  private exited = false;
  /** Listeners for DevTools events (method → callbacks), e.g. Tracing.dataCollected. */
  readonly listeners = new Map<string, ((params: Record<string, unknown>) => void)[]>();

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
    private readonly toBrowser: Writable,
  ) {
    let pending = '';
    (child.stdio[4] as Readable).setEncoding('utf8').on('data', (text: string) => {
      // The pipe's messages are JSON, each ended by a NUL.
      const parts = (pending + text).split('\0');
      pending = parts.pop()!;
      for (const part of parts) this.onMessage(JSON.parse(part) as Reply);
    });
    child.once('exit', () => {
      this.exited = true;
      for (const w of this.waiting.values()) w.reject(new Error('chromium exited'));
      this.waiting.clear();
    });
  }

  /** `args` as for Playwright's launch; the pipe, headless mode and a throwaway profile are added. */
  static async launch(executablePath: string, args: string[]): Promise<BareChromium> {
    const profile = mkdtempSync(join(tmpdir(), 'gatehouse-bench-chromium-'));
    const child = spawn(executablePath, [...args, '--headless', '--remote-debugging-pipe', '--no-first-run', '--no-default-browser-check', '--hide-scrollbars', '--mute-audio', `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    const browser = new BareChromium(child, profile, child.stdio[3] as Writable);
    await browser.send('Browser.getVersion');
    return browser;
  }

  /** A DevTools command to the browser, or to a page's session. */
  send(method: string, params: object = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.exited) return Promise.reject(new Error('chromium exited'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  /** A new page of `width` × `height` CSS pixels, on about:blank. */
  async newPage(width: number, height: number): Promise<BarePage> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    const page = new BarePage(this, sessionId);
    await page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    return page;
  }

  async close(): Promise<void> {
    if (!this.exited) {
      // Asked to close, the browser takes its child processes down before it exits, so nothing
      // writes into the profile while it is removed; killed, its children linger for a moment.
      const gone = new Promise((r) => this.child.once('exit', r));
      this.send('Browser.close').catch(() => {});
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(this.profile, { recursive: true, force: true, maxRetries: 5 });
  }

  private onMessage(m: Reply): void {
    if (m.id === undefined) {
      const e = m as unknown as { method?: string; params?: Record<string, unknown> };
      for (const l of this.listeners.get(e.method ?? '') ?? []) l(e.params ?? {});
      return;
    }
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    if (m.error) w.reject(new Error(m.error.message));
    else w.resolve(m.result ?? {});
  }
}

export class BarePage {
  constructor(
    private readonly browser: BareChromium,
    private readonly sessionId: string,
  ) {}

  send(method: string, params: object = {}): Promise<Record<string, unknown>> {
    return this.browser.send(method, params, this.sessionId);
  }

  /** Loads `url` and waits for its load event. */
  async goto(url: string): Promise<void> {
    await this.send('Page.navigate', { url });
    await this.waitFor('document.readyState === "complete"');
  }

  /**
   * `fn(arg)` in the page, awaited; its result comes back as JSON. The function's source is sent
   * as text, so it may use only what the page has.
   */
  async evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R> {
    const r = (await this.send('Runtime.evaluate', { expression: `(${fn.toString()})(${JSON.stringify(arg ?? null)})`, awaitPromise: true, returnByValue: true })) as {
      result: { value?: R };
      exceptionDetails?: { exception?: { description?: string }; text: string };
    };
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as R;
  }

  /** Polls until `expression` is true in the page (every 20 ms, up to `timeoutMs`). */
  async waitFor(expression: string, timeoutMs = 30_000): Promise<void> {
    const until = performance.now() + timeoutMs;
    for (;;) {
      const r = (await this.send('Runtime.evaluate', { expression: `Boolean(${expression})`, returnByValue: true })) as { result: { value?: boolean } };
      if (r.result.value === true) return;
      if (performance.now() > until) throw new Error(`timed out waiting for ${expression}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Waits for the element `selector` matches, then clicks it (a DOM click: the pointer stays out of the page). */
  async click(selector: string): Promise<void> {
    const q = `document.querySelector(${JSON.stringify(selector)})`;
    await this.waitFor(q);
    await this.send('Runtime.evaluate', { expression: `${q}.click()` });
  }
}
