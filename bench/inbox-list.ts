// The inbox on a busy day, in headless Chromium against a real host: 1,000 Claude Code hook calls
// (the HTTP form, hookAsk "inbox") wait for an operator, and the console is timed
//
// - first rows: from opening the Approvals view (the sidebar button, the list already loaded by
//   the console's live sync) to the first rows painted: the sort by risk, the virtual list and the
//   detail pane of the first call, until the next animation frame;
// - one row: from a `j` keydown to the DOM showing the selection (and the detail pane) moved, the
//   median of 30 moves (15 down, 15 up) in a round. This is the work the move costs (event, sort
//   lookups, React render and commit); the paint follows on the next frame.
//
// Targets: 100 ms and 16 ms (one frame at 60 Hz).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../main/host/create-host.js';
import { listenForConsolesAndAgents } from '../main/shells/serve/run-serve.js';
import { median, type BenchCase } from './harness.js';
import { CHROMIUM_ARGS, defaultStaticDir } from './pty-throughput.js';
import { HOOK_DEADLINE_HEADER_NAME, MAX_HOOK_TIMEOUT_S } from '../shared/claude-config.js';

const CALLS = 1000;
const FIRST = 'inbox: 1,000 waiting calls, open → first rows (Chromium)';
const MOVE = 'inbox: 1,000 waiting calls, j → selection moved one row (Chromium)';

type Browser = Awaited<ReturnType<(typeof import('playwright-core'))['chromium']['launch']>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

interface Setup {
  page: Page;
  host: ReturnType<typeof createHost>;
  close(): Promise<void>;
}

const commands = (i: number): string => (i % 10 === 3 ? `rm -rf build/part-${i}` : i % 10 === 5 ? `curl -s https://93.184.215.14/${i}` : `npm test -- --shard=${i}`);

async function setup(chromium: string, staticDir: string): Promise<Setup> {
  const { chromium: pw } = await import('playwright-core');
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-bench-inbox-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox', approvalExpiryMinutes: MAX_HOOK_TIMEOUT_S / 60 }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: project, watch: false });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir });
  const waiting: ClientRequest[] = [];
  for (let i = 0; i < CALLS; i++) {
    const body = JSON.stringify({ session_id: `s${i % 8}`, transcript_path: join(project, 't.jsonl'), cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: commands(i), description: `step ${i}` }, tool_use_id: `tu-${i}` });
    // Sent with node:http, not fetch: fetch gives up on an answer after 5 minutes (undici's
    // headersTimeout) and closes the connection, which withdraws the call from the inbox, so a
    // run on a slow machine found none left by its last round and waited for a row forever. And
    // with the longest deadline the host takes (Claude Code's default is 10 minutes).
    const req = request(net.hookUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${net.agentToken}`, [HOOK_DEADLINE_HEADER_NAME]: String(MAX_HOOK_TIMEOUT_S * 1000) } });
    req.on('error', () => {});
    req.end(body);
    waiting.push(req);
  }
  while (host.approvals.pendingSize() < CALLS) await new Promise((r) => setTimeout(r, 20));
  const b = await pw.launch({ executablePath: chromium, args: CHROMIUM_ARGS, headless: true });
  const page = await b.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(net.shell.newConsoleUrl());
  await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor();
  // The console has the list (the sidebar badge counts it) before the view is opened.
  await page.locator(`[data-testid="nav-count-approvals"]`).filter({ hasText: String(CALLS) }).waitFor();
  return {
    page,
    host,
    async close() {
      await b.close();
      for (const req of waiting) req.destroy();
      await net.shell.close();
      await host.close('bench done');
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The two cases over one host and one browser, set up on first use; `close` ends both after the run. */
export function inboxListCases(opts: { chromiumPath?: string; staticDir?: string } = {}): { cases: BenchCase[]; close: () => Promise<void> } {
  const chromium = opts.chromiumPath ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  if (!chromium) return { cases: [], close: async () => {} };
  const staticDir = opts.staticDir ?? defaultStaticDir();
  let shared: Promise<Setup> | null = null;
  const ready = () => (shared ??= setup(chromium, staticDir));

  // Every round needs all of the calls still waiting; say so rather than wait for rows that are gone.
  const stillWaiting = (host: Setup['host']) => {
    const n = host.approvals.pendingSize();
    if (n < CALLS) throw new Error(`inbox bench: only ${n} of ${CALLS} calls are still waiting (they expire ${MAX_HOOK_TIMEOUT_S / 60} min after setup, or were withdrawn when their connection closed)`);
  };

  const first: BenchCase = {
    name: FIRST,
    unit: 'ms',
    better: 'lower',
    target: { median: 100 },
    async run() {
      const { page, host } = await ready();
      stillWaiting(host);
      // Start from another view, so opening the inbox renders it from nothing.
      await page.getByTestId('nav-audit').click();
      await page.getByTestId('view-audit').waitFor();
      return page.evaluate(
        () =>
          new Promise<number>((resolve, reject) => {
            const start = performance.now();
            (document.querySelector('[data-testid="nav-approvals"]') as HTMLElement).click();
            const check = () => {
              if (document.querySelector('[data-testid="approval-item"]') && document.querySelector('[data-testid="approval-detail"]')) {
                requestAnimationFrame(() => resolve(performance.now() - start));
              } else if (performance.now() - start > 30_000) reject(new Error('inbox bench: no row and detail pane 30 s after opening the inbox'));
              else requestAnimationFrame(check);
            };
            check();
          }),
      );
    },
  };

  const move: BenchCase = {
    name: MOVE,
    unit: 'ms',
    better: 'lower',
    target: { median: 16 },
    async run() {
      const { page, host } = await ready();
      stillWaiting(host);
      await page.getByTestId('nav-approvals').click();
      await page.locator('[data-testid="approval-item"]').first().waitFor();
      const times = await page.evaluate(async () => {
        const out: number[] = [];
        const active = () => document.querySelector('[data-testid="approval-item"][data-active="true"]')?.getAttribute('data-id') ?? null;
        for (let i = 0; i < 30; i++) {
          const before = active();
          const key = i < 15 ? 'j' : 'k';
          const start = performance.now();
          // Timed to the DOM change (React's commit, seen by a MutationObserver), not to the next
          // frame: headless Chromium's frames come every 16.7 ms, so a frame-based clock reads 16.7
          // or 33.3 whatever the work took.
          await new Promise<void>((resolve) => {
            const done = () => {
              const pane = document.querySelector('[data-testid="approval-detail"]')?.getAttribute('data-id');
              return active() !== before && pane === active();
            };
            const list = document.querySelector('[data-testid="view-approvals"]')!;
            const observer = new MutationObserver(() => {
              if (!done()) return;
              observer.disconnect();
              out.push(performance.now() - start);
              resolve();
            });
            observer.observe(list, { subtree: true, attributes: true, childList: true });
            window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
          });
          // Let the frame paint before the next key.
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        }
        return out;
      });
      return median(times);
    },
  };

  return {
    cases: [first, move],
    close: async () => {
      if (shared) await (await shared).close();
    },
  };
}
