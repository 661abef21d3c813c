// One fixture for every spec: `console` is a page of the real console, either in an Electron
// window (when an Electron binary is installed) or in Debian's Chromium against a real
// `gatehouse serve` started on a free port with a temporary GATEHOUSE_HOME.
import { test as base, expect, chromium, _electron, type Browser, type Page } from '@playwright/test';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsolePage } from './pages/console-page.ts';
import { ServeHost } from './support/serve-host.ts';
import { seedAuditLog } from './support/seed-audit.ts';
import { chromiumArgs, chromiumPath } from './support/chromium.ts';
import { findElectronBinary } from '../main/cli/electron-binary.ts';
import { changeHello, HELLO_WRITES } from '../test/support/hello-variants.ts';

export type Shell = 'serve' | 'electron';

/** What a spec needs in the home before any host starts (set with `test.use({ homeSetup })`). */
export interface HomeSetup {
  /** Written as GATEHOUSE_HOME/settings.json, e.g. { mode: 'live' }. */
  settings?: Record<string, unknown>;
  /** Example plugins (examples/plugins/<name>) copied into home/plugins and enabled with the CLI. */
  plugins?: string[];
  /**
   * hello (in `plugins`) given a write path before it is enabled: no confined reader, so at
   * autonomy supervised its calls ask, for a spec that needs a plugin call waiting in the inbox.
   */
  helloWrites?: boolean;
  /** A long audit log: this many events appended (chained and indexed) before the host starts. */
  auditEvents?: number;
}

interface TestFixtures {
  /** The running serve host; null in the Electron project. */
  serveHost: ServeHost | null;
  /** The console, opened (not necessarily connected yet). */
  console: ConsolePage;
  /** A page in a fresh browser context, not opened on anything (serve project only). */
  blankPage: Page;
  /** CSP violations and uncaught page errors; every test must end with none. */
  pageProblems: string[];
  /** The GATEHOUSE_HOME of the console under test, in either shell (plugins go in home/plugins). */
  home: string;
  homeSetup: HomeSetup | null;
}
interface WorkerFixtures {
  shell: Shell;
  /** Debian's Chromium, launched once per worker; null in the Electron project. */
  chromiumBrowser: Browser | null;
}

const packageRoot = join(import.meta.dirname, '..');

export const test = base.extend<TestFixtures, WorkerFixtures>({
  shell: ['serve', { option: true, scope: 'worker' }],

  chromiumBrowser: [
    async ({ shell }, use) => {
      if (shell !== 'serve') return use(null);
      const browser = await chromium.launch({ executablePath: chromiumPath(), args: chromiumArgs, headless: true });
      await use(browser);
      await browser.close();
    },
    { scope: 'worker' },
  ],

  pageProblems: [
    async ({}, use) => {
      const problems: string[] = [];
      await use(problems);
      expect(problems, 'CSP violations or page errors during the test').toEqual([]);
    },
    { auto: true },
  ],

  homeSetup: [null, { option: true }],

  home: async ({ homeSetup }, use) => {
    const home = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-'));
    if (homeSetup) prepareHome(home, homeSetup);
    await use(home);
    rmSync(home, { recursive: true, force: true });
  },

  serveHost: async ({ shell, home }, use) => {
    if (shell !== 'serve') return use(null);
    const host = new ServeHost({ home });
    await host.start();
    await use(host);
    await host.stop();
  },

  blankPage: async ({ chromiumBrowser, pageProblems }, use) => {
    if (!chromiumBrowser) throw new Error('blankPage exists only in the serve project');
    const context = await chromiumBrowser.newContext();
    const page = await context.newPage();
    watchProblems(page, pageProblems);
    await use(page);
    await context.close();
  },

  console: async ({ shell, serveHost, chromiumBrowser, pageProblems, home }, use, testInfo) => {
    if (shell === 'serve') {
      const context = await chromiumBrowser!.newContext();
      const page = await context.newPage();
      watchProblems(page, pageProblems);
      await page.goto(await serveHost!.newConsoleUrl());
      await use(new ConsolePage(page));
      await context.close();
      return;
    }
    const electron = findElectronBinary();
    if (!electron.found) {
      // A real precondition is missing, not a failing feature: say so plainly.
      const reason = `no Electron binary here (${electron.reason}); the Electron project runs where npm could download it`;
      console.log(`[electron] skipped "${testInfo.title}": ${reason}`);
      testInfo.skip(true, reason);
      return;
    }
    const app = await _electron.launch({ args: [packageRoot], env: { ...process.env, GATEHOUSE_HOME: home } as Record<string, string> });
    const page = await app.firstWindow();
    watchProblems(page, pageProblems);
    await use(new ConsolePage(page));
    await app.close();
  },
});

function prepareHome(home: string, setup: HomeSetup): void {
  if (setup.settings) writeFileSync(join(home, 'settings.json'), JSON.stringify(setup.settings));
  if (setup.auditEvents) seedAuditLog(home, setup.auditEvents);
  for (const name of setup.plugins ?? []) {
    mkdirSync(join(home, 'plugins'), { recursive: true });
    cpSync(join(packageRoot, 'examples', 'plugins', name), join(home, 'plugins', name), { recursive: true });
    if (name === 'hello' && setup.helloWrites) changeHello(join(home, 'plugins', name), HELLO_WRITES);
    // The operator's own step, as the README gives it: pin the plugin before the host starts.
    execFileSync(process.execPath, [join(packageRoot, 'bin', 'gatehouse.js'), 'plugin', 'enable', name, '--home', home], { stdio: 'pipe' });
  }
}

function watchProblems(page: Page, problems: string[]): void {
  page.on('console', (msg) => {
    const text = msg.text();
    if (msg.type() === 'error' && /Content Security Policy|Refused to (load|execute|apply|connect|create)/.test(text)) problems.push(`CSP: ${text}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
}

export { expect };
