// PTY throughput: 100 MB of text `cat` through a PTY, three ways, in the same run.
//
// - full path: the real host (PtyManager, event bus, serve shell, WebSocket) to the real
//   console's Terminals view in headless Chromium, each batch written into xterm.js and
//   acknowledged from its write callback, flow control on. Timed from the moment the program
//   is let go until it has exited and the console has acknowledged the last char.
// - host only: PtyManager with a consumer that acknowledges every batch at once (batching,
//   UTF-8 decoding, scrollback, transcript into a real audit file, flow control bookkeeping).
// - baseline: node-pty alone, the same `cat`, the data counted and dropped.
// - xterm.js write only: the same text, as the PTY delivers it ("\n" turned into "\r\n"), written
//   into an xterm.js Terminal with the console's options in the same headless Chromium, in the
//   64 K pieces (in 128 K pieces xterm.js alone parsed slower here: 43 MB/s rather than 46, a
//   lower ceiling), 8–16 MB of them queued at any time: no PTY, host or WebSocket. It
//   is the ceiling of the full path, which is reported as a ratio to it. The pieces are UTF-8
//   bytes, as the console writes terminals.output: xterm.js parsed the same text at 50–56 MB/s
//   from bytes against 25–42 from strings here, so a string ceiling would be the lower one.
//
// Both browser cases drive Chromium over a bare DevTools pipe (bare-chromium.ts), not Playwright:
// Playwright's Network domain copies every WebSocket frame, which an operator's console never pays.
//
// The data is lines of printable ASCII (80 columns with the newline), so MB and chars agree;
// the PTY turns each "\n" into "\r\n", which every case pays alike.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as nodePty from 'node-pty';
import { AuditStore } from '../main/audit/audit-store.js';
import { createHost } from '../main/host/create-host.js';
import { PtyManager } from '../main/pty/pty-manager.js';
import { startServeShell } from '../main/shells/serve/serve-shell.js';
import { BareChromium } from './bare-chromium.js';
import type { BenchCase } from './harness.js';

export interface PtyThroughputOptions {
  /** Size of the text sent through, in MB (10^6 bytes). Default 100. */
  megabytes?: number;
  /** Include the full path through Chromium (default: when Chromium is installed). */
  browser?: boolean;
  chromiumPath?: string;
  /** The built console (default: out/renderer next to the built bench, else ./out/renderer). */
  staticDir?: string;
}

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const FULL = 'pty → xterm.js in Chromium (Gatehouse, acked)';
const HOST = 'pty → PtyManager (host only, immediate ack)';
const BASE = 'cat through node-pty (no Gatehouse)';
const XTERM = 'xterm.js write only, same data (Chromium, no transport)';
const CTRL_C = 'pty → xterm.js in Chromium: Ctrl-C tail';

let dataFile: { path: string; bytes: number; lines: number; dir: string } | null = null;

/** The text file every case cats, written once per run. */
function data(megabytes: number): { path: string; bytes: number; lines: number } {
  const bytes = Math.round(megabytes * 1e6);
  if (dataFile && dataFile.bytes === bytes) return dataFile;
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-pty-'));
  // Each line is made flat (one fromCharCode call). Built with `+=`, each was a rope of ~70
  // one-char pieces (~2 KB of heap per 80-char line: 0.8 GB for 30 MB of text, ~17 s to make),
  // garbage that the first case run then collected in the middle of its timing.
  const codes: number[] = [];
  const line = (i: number) => {
    const head = `${String(i).padStart(8, '0')} `;
    codes.length = 0;
    for (let c = 0; codes.length < 79 - head.length; c++) codes.push(33 + ((i * 7 + c) % 94));
    return `${head}${String.fromCharCode(...codes)}\n`;
  };
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const l = line(i);
    lines.push(l);
    size += l.length;
  }
  const text = lines.join('').slice(0, bytes);
  writeFileSync(join(dir, 'data.txt'), text);
  dataFile = { path: join(dir, 'data.txt'), bytes, lines: text.split('\n').length - 1, dir };
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dataFile;
}

/** The options of the console's terminal (renderer/src/views/terminals/terminal-pane.tsx), at the PTY's size. */
const CONSOLE_TERMINAL = {
  cols: 100,
  rows: 30,
  fontFamily: "ui-monospace, 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace",
  fontSize: 13,
  lineHeight: 1.1,
  scrollback: 10_000,
  cursorBlink: false,
  disableStdin: true,
};

interface BrowserTerminal {
  open(el: unknown): void;
  write(data: string | Uint8Array, callback?: () => void): void;
  dispose(): void;
}

/** xterm.js's browser build and stylesheet, the same package the console bundles. */
function xtermFiles(): { js: string; css: string } {
  const js = createRequire(import.meta.url).resolve('@xterm/xterm');
  return { js, css: join(dirname(dirname(js)), 'css', 'xterm.css') };
}

/** GATEHOUSE_BENCH_CPUPROFILE=dir: each browser case writes the page's CPU profile there (DevTools Profiler). */
async function profiled<T>(page: { send(method: string, params?: object): Promise<Record<string, unknown>> }, name: string, run: () => Promise<T>, browser?: BareChromium): Promise<T> {
  const dir = process.env.GATEHOUSE_BENCH_CPUPROFILE;
  if (!dir) return run();
  if (process.env.GATEHOUSE_BENCH_TRACE && browser) {
    const events: unknown[] = [];
    browser.listeners.set('Tracing.dataCollected', [(p) => events.push(...(p.value as unknown[]))]);
    const complete = new Promise<void>((r) => browser.listeners.set('Tracing.tracingComplete', [() => r()]));
    await browser.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink', 'cc', 'toplevel', 'ipc', 'mojom', 'loading', 'net', 'disabled-by-default-v8.gc'] }, transferMode: 'ReportEvents' });
    const r = await run();
    await browser.send('Tracing.end');
    await complete;
    writeFileSync(join(dir, `${name}-${Date.now()}.trace.json`), JSON.stringify(events));
    return r;
  }
  await page.send('Profiler.enable');
  await page.send('Profiler.setSamplingInterval', { interval: 200 });
  await page.send('Profiler.start');
  const r = await run();
  const { profile } = (await page.send('Profiler.stop')) as { profile: unknown };
  writeFileSync(join(dir, `${name}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
  return r;
}

const mbPerSecond = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);

export function defaultStaticDir(): string {
  const candidates = [fileURLToPath(new URL('../renderer', import.meta.url)), join(process.cwd(), 'out', 'renderer')];
  return candidates.find((d) => existsSync(join(d, 'index.html'))) ?? candidates[1]!;
}

export function ptyThroughputCases(opts: PtyThroughputOptions = {}): BenchCase[] {
  const megabytes = opts.megabytes ?? 100;
  const chromium = opts.chromiumPath ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  const browser = opts.browser ?? chromium !== undefined;

  const baseline: BenchCase = {
    name: BASE,
    unit: 'MB/s',
    better: 'higher',
    run() {
      const { path, bytes } = data(megabytes);
      return new Promise<number>((resolve, reject) => {
        const start = performance.now();
        const pty = nodePty.spawn('cat', [path], { cols: 120, rows: 40, cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' } });
        let chars = 0;
        pty.onData((d) => (chars += d.length));
        pty.onExit(() => {
          const ms = performance.now() - start;
          // node-pty can drop the last few KB at exit on Linux (microsoft/node-pty#726).
          if (chars < bytes * 0.99) reject(new Error(`baseline read ${chars} chars of ${bytes}`));
          else resolve(mbPerSecond(bytes, ms));
        });
      });
    },
  };

  const hostOnly: BenchCase = {
    name: HOST,
    unit: 'MB/s',
    better: 'higher',
    baseline: BASE,
    async run() {
      const { path, bytes, lines } = data(megabytes);
      const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-pty-audit-'));
      const audit = new AuditStore({ path: join(dir, 'audit.db') });
      let mgr: PtyManager | null = null;
      try {
        mgr = new PtyManager({
          record: (e) => void audit.append(e),
          events: { output: (e) => mgr!.ack(e.id, 'bench', e.data.length), changed: () => {} },
          log: () => {},
        });
        const start = performance.now();
        const s = await mgr.start({ command: 'cat', args: [path], cwd: tmpdir(), origin: { actor: 'operator:bench', tool: 'shell' } });
        mgr.attach(s.id, 'bench');
        await mgr.exited(s.id);
        const ms = performance.now() - start;
        const got = mgr.get(s.id).outputChars;
        if (got !== bytes + lines) throw new Error(`host-only read ${got} chars, expected ${bytes + lines}`);
        return mbPerSecond(bytes, ms);
      } finally {
        await mgr?.close();
        audit.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };

  /**
   * A real host, serve shell and console in Chromium, with a terminal running `cat path` once it
   * reads a line: the console attached to it and taken over, so the body starts it with Enter.
   */
  async function catIntoConsole<T>(path: string, body: (c: { host: ReturnType<typeof createHost>; s: { id: string }; page: Awaited<ReturnType<BareChromium['newPage']>>; b: BareChromium }) => Promise<T>): Promise<T> {
    const home = mkdtempSync(join(tmpdir(), 'gatehouse-bench-pty-home-'));
    const host = createHost({ home, shell: 'serve', watch: false, log: () => {} });
    const token = 'bench-token-0123456789abcdef';
    const shell = await startServeShell({ host, bindHost: '127.0.0.1', port: 0, token, staticDir: opts.staticDir ?? defaultStaticDir(), operator: 'bench' });
    // Not Playwright: its Network domain would copy every frame of the stream (bare-chromium.ts).
    const b = await BareChromium.launch(chromium!, CHROMIUM_ARGS);
    try {
      const page = await b.newPage(1280, 800);
      await page.goto(shell.newConsoleUrl());
      await page.waitFor('document.querySelector(\'[data-testid="status-connection"][data-state="connected"]\')');
      // DOM clicks: the pointer never enters the page, as an operator's rests outside the
      // terminal list (hovering there cost ~9% of the renderer: a hit test at every frame).
      await page.click('[data-testid="nav-terminals"]');
      // The program waits for a line, so the console can attach before any output.
      const s = await host.ptys.start({ command: '/bin/sh', args: ['-c', 'read go; exec cat "$0"', path], cwd: tmpdir(), cols: 100, rows: 30, origin: { actor: 'operator:bench', tool: 'shell' } });
      await page.click(`[data-testid="terminal-row"][data-id="${s.id}"]`);
      await page.waitFor(`document.querySelector('[data-testid="terminal-pane"][data-id="${s.id}"][data-attach="live"]')`);
      if (host.ptys.get(s.id).watchers !== 1) throw new Error('the console did not attach');
      host.ptys.takeOver(s.id, 'bench', 'bench');
      return await body({ host, s, page, b });
    } finally {
      await b.close();
      await shell.close();
      await host.close('bench done');
      rmSync(home, { recursive: true, force: true });
    }
  }

  const full: BenchCase = {
    name: FULL,
    unit: 'MB/s',
    better: 'higher',
    baseline: XTERM,
    // Issue #29: at least 0.6 of xterm.js writing the same data with no transport, from the same run.
    target: { median: 50, ratio: 0.6 },
    async run() {
      const { path, bytes, lines } = data(megabytes);
      return catIntoConsole(path, async ({ host, s, page, b }) => {
        const before = host.ptys.get(s.id).outputChars;

        const ms = await profiled(page, 'full', async () => {
          const start = performance.now();
          host.ptys.input(s.id, 'bench', '\r');
          await host.ptys.exited(s.id);
          // Then until the console has acknowledged the last char (it does once xterm.js caught up).
          while (host.ptys.behind(s.id) > 0) await new Promise((r) => setTimeout(r, 2));
          return performance.now() - start;
        }, b);

        const got = host.ptys.get(s.id).outputChars - before;
        // + the echo of the Enter ("\r\n").
        if (got !== bytes + lines + 2) throw new Error(`full path read ${got} chars, expected ${bytes + lines + 2}`);
        return mbPerSecond(bytes, ms);
      });
    },
  };

  // The tail after Ctrl-C: the same `cat` to the same console, interrupted once 30 MB went
  // through, at the moment reading pauses (the whole flow-control window in flight), timed from
  // the Ctrl-C until the console has acknowledged the last char the program wrote: what was in
  // flight when the operator typed, drawn after they typed.
  const ctrlC: BenchCase = {
    name: CTRL_C,
    unit: 'ms',
    better: 'lower',
    async run() {
      const { path } = data(megabytes);
      return catIntoConsole(path, async ({ host, s }) => {
        host.ptys.input(s.id, 'bench', '\r');
        while (host.ptys.get(s.id).outputChars < Math.min(30e6, megabytes * 0.3e6)) await new Promise((r) => setTimeout(r, 2));
        // The worst moment: reading has just paused, the console the whole window behind.
        while (!host.ptys.get(s.id).paused) {
          if (host.ptys.get(s.id).state !== 'running') throw new Error('the program finished before reading ever paused');
          await new Promise((r) => setImmediate(r));
        }
        const inFlight = host.ptys.behind(s.id);
        const start = performance.now();
        host.ptys.input(s.id, 'bench', '\x03');
        await host.ptys.exited(s.id);
        while (host.ptys.behind(s.id) > 0) await new Promise((r) => setTimeout(r, 2));
        const ms = performance.now() - start;
        if (process.env.GATEHOUSE_BENCH_PROBE) console.log(`  Ctrl-C: ${(inFlight / 1e6).toFixed(2)} M chars in flight, tail ${ms.toFixed(0)} ms`);
        return ms;
      });
    },
  };

  const xtermOnly: BenchCase = {
    name: XTERM,
    unit: 'MB/s',
    better: 'higher',
    async run() {
      const { path, bytes } = data(megabytes);
      // The same launch as the full path's, so that both run in the same kind of browser.
      const b = await BareChromium.launch(chromium!, CHROMIUM_ARGS);
      // One origin serves the page and xterm.js; nothing else is loaded.
      const xterm = xtermFiles();
      const files: Record<string, { type: string; body: string }> = {
        '/': { type: 'text/html', body: '<!doctype html><link rel="stylesheet" href="/xterm.css"><script src="/xterm.js"></script><div id="t"></div>' },
        '/xterm.js': { type: 'text/javascript', body: readFileSync(xterm.js, 'utf8') },
        '/xterm.css': { type: 'text/css', body: readFileSync(xterm.css, 'utf8') },
      };
      const server = createServer((req, res) => {
        const f = files[new URL(req.url ?? '/', 'http://x').pathname];
        res.writeHead(f ? 200 : 404, { 'Content-Type': f?.type ?? 'text/plain' }).end(f?.body ?? '');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const page = await b.newPage(1280, 800);
        await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        await page.waitFor('typeof Terminal === "function"');
        // The text goes in as the batches the host would send, before the clock starts (in 8 MB
        // pieces: one 100 MB protocol message takes the browser down).
        const text = readFileSync(path, 'utf8');
        const chunk = 64 * 1024;
        const piece = chunk * 128;
        for (let at = 0; at < text.length; at += piece) {
          await page.evaluate(
            ({ part, chunk }) => {
              const w = globalThis as unknown as { batches?: Uint8Array[] };
              w.batches ??= [];
              // As bytes, the form the console hands xterm.js (the UTF-8 of terminals.output).
              const utf8 = new (globalThis as unknown as { TextEncoder: new () => { encode(s: string): Uint8Array } }).TextEncoder();
              for (let i = 0; i < part.length; i += chunk) w.batches.push(utf8.encode(part.slice(i, i + chunk).replaceAll('\n', '\r\n')));
            },
            { part: text.slice(at, at + piece), chunk },
          );
        }
        const ms = await profiled(page, 'xterm', () => page.evaluate(async (options) => {
          // Runs in the page (the bench is compiled without the DOM types).
          const w = globalThis as unknown as { batches: Uint8Array[]; Terminal: new (o: object) => BrowserTerminal; document: { getElementById(id: string): unknown } };
          const term = new w.Terminal(options);
          term.open(w.document.getElementById('t'));
          const batches = w.batches;
          const start = performance.now();
          // xterm.js throws past 50 MB pending; 8–16 MB queued keeps it busy without a gap.
          await new Promise<void>((done) => {
            let next = 0;
            let queued = 0;
            const fill = () => {
              while (queued < 16e6 && next < batches.length) {
                const b = batches[next++]!;
                queued += b.length;
                term.write(b, () => {
                  queued -= b.length;
                  if (next === batches.length && queued === 0) done();
                  else if (queued < 8e6) fill();
                });
              }
            };
            fill();
          });
          const elapsed = performance.now() - start;
          term.dispose();
          w.batches = [];
          return elapsed;
        }, CONSOLE_TERMINAL), b);
        return mbPerSecond(bytes, ms);
      } finally {
        server.close();
        await b.close();
      }
    },
  };

  return browser && chromium ? [full, xtermOnly, ctrlC, hostOnly, baseline] : [hostOnly, baseline];
}
