// Incident review at scale: a log of 1,000,000 events written through the AuditStore (hash chain,
// FTS5 and facets indexed in each batch's transaction), then searched through AuditQuery as the
// console searches it (first page of 200, newest first, count up to the cap).
//
// The first round builds the 1,000,000-event log in its own database under the temp folder and
// reports that rate; later rounds append another 100,000 to the same log (the rate at ≥1M
// events). Each search round runs QUERIES different queries and reports their p50 or p95. The
// database is removed when the run ends (close()).
//
// The console case copies that log into a home of its own (the rounds above keep appending to
// theirs, and two writers would fork a chain), starts the real host and serve shell on it, and
// opens the console in Chromium: each round loads the page afresh, then times, in the page, from
// the click on Audit to the frame after the first page of rows is in the table.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditStore, type AuditEventInput } from '../main/audit/audit-store.js';
import { AuditQuery } from '../main/audit/audit-query.js';
import { createHost, type Host } from '../main/host/create-host.js';
import { startServeShell } from '../main/shells/serve/serve-shell.js';
import { quantile, type BenchCase } from './harness.js';
import { CHROMIUM_ARGS, defaultStaticDir } from './pty-throughput.js';

const tools = ['Bash', 'Read', 'Write', 'Edit', 'WebFetch', 'Grep'];
const agents = ['claude-code', 'codex', 'mcp-client', 'custom'];
const decisions = ['allow', 'deny', 'ask'];
const words = ['deploy', 'migrate', 'backup', 'restore', 'compile', 'lint', 'format', 'upload', 'download', 'archive', 'rotate', 'purge'];
const QUERIES = 40;

// Run in the page (a string: the bench compiles without the DOM's types). Resolves with the ms
// from the click on Audit to the frame after the first row is in the table.
const TIME_FIRST_PAGE = `new Promise((resolve) => {
  const t0 = performance.now();
  const found = () => document.querySelector('[data-testid="audit-row"]') !== null;
  const done = () => { watch.disconnect(); requestAnimationFrame(() => resolve(performance.now() - t0)); };
  const watch = new MutationObserver(() => { if (found()) done(); });
  watch.observe(document.body, { childList: true, subtree: true });
  document.querySelector('[data-testid="nav-audit"]').click();
  if (found()) done();
})`;

/** Event i of a deterministic log shaped like the host's: call received (with arguments), rule matched, result. */
function event(i: number): AuditEventInput {
  const n = Math.floor(i / 3);
  const call = `c-${n.toString(36)}`;
  const agent = agents[n % agents.length]!;
  const tool = tools[n % tools.length]!;
  switch (i % 3) {
    case 0: {
      const session = `s-${(n >> 6).toString(36)}`;
      const w = words[n % words.length]!;
      const args = tool === 'Bash' ? { command: `${w} --target /srv/app/build-${n % 997} --id job${n % 50_021}` } : { path: `/srv/app/src/${w}/module-${n % 2_111}.ts` };
      return { type: 'call.received', actor: `agent:${agent}`, payload: { call, agent, session, tool, arguments: args, source: 'mcp', cwd: '/srv/app' } };
    }
    case 1:
      return { type: 'rule.matched', actor: `rule:rule-${n % 17}`, payload: { call, rule: `rule-${n % 17}`, decision: decisions[n % decisions.length], severity: n % 5 === 0 ? 'high' : 'low', detail: `${tool} matched rule-${n % 17}` } };
    default:
      return { type: 'call.result', actor: 'host', payload: { call, decision: decisions[n % decisions.length], executed: true, mode: 'live', ok: n % 29 !== 0, exitCode: n % 29 === 0 ? 1 : 0, durationMs: n % 503 } };
  }
}

export function auditSearchCases(opts: { events: number; chunk?: number; chromiumPath?: string }): { cases: BenchCase[]; note: () => string | null; close: () => Promise<void> } {
  const chunk = opts.chunk ?? 100_000;
  let dir: string | null = null;
  let store: AuditStore | null = null;
  let query: AuditQuery | null = null;
  let written = 0;
  let buildRate: number | null = null;

  const append = async (count: number): Promise<number> => {
    const start = performance.now();
    let last: Promise<void> | undefined;
    for (let k = 0; k < count; k++) last = store!.append(event(written + k)).durable;
    await last;
    written += count;
    return count / ((performance.now() - start) / 1000);
  };
  const open = async (): Promise<number | null> => {
    if (store) return null;
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-search-'));
    store = new AuditStore({ path: join(dir, 'audit.db') });
    query = new AuditQuery({ store });
    buildRate = await append(opts.events);
    return buildRate;
  };

  const insert: BenchCase = {
    name: `audit insert ${opts.events.toLocaleString('en-US')} (chain + FTS + facets)`,
    unit: 'events/s',
    better: 'higher',
    async run() {
      return (await open()) ?? append(chunk);
    },
  };

  let round = 0;
  const latencies = (make: (k: number) => Parameters<AuditQuery['search']>[0]) => async (): Promise<number[]> => {
    await open();
    round++;
    const ms: number[] = [];
    for (let k = 0; k < QUERIES; k++) {
      const t = performance.now();
      const r = query!.search(make(round * QUERIES + k));
      ms.push(performance.now() - t);
      if (r.events.length === 0) throw new Error(`audit search bench: query ${JSON.stringify(make(round * QUERIES + k))} found nothing`);
    }
    return ms;
  };
  // A word from arguments (common: 1 in 36 events; with a second, rarer term; a prefix).
  const wordQuery = (k: number) => {
    const w = words[k % words.length]!;
    // A call that exists: n a multiple of 6 is a Bash call, whose command has the word, build and job.
    const n = ((k * 7919) % Math.max(1, Math.floor(opts.events / 18))) * 6;
    const forms = [w, `${words[n % words.length]} AND "build-${n % 997}"`, `job${n % 50_021}`, `${w.slice(0, 4)}*`];
    return { query: forms[k % forms.length]!, limit: 200 };
  };
  // Facets alone and combined: agent, session, decision with a type, severity.
  const facetQuery = (k: number) => {
    const forms = [
      { query: '', agent: agents[k % agents.length]!, limit: 200 },
      { query: '', session: `s-${((k * 131) % Math.max(1, Math.floor(opts.events / 192))).toString(36)}`, limit: 200 },
      { query: '', decision: 'deny', types: ['call.result'], limit: 200 },
      { query: '', agent: agents[k % agents.length]!, decision: 'ask', limit: 200 },
    ];
    return forms[k % forms.length]!;
  };
  const latencyCase = (name: string, q: 'p50' | 'p95', make: (k: number) => Parameters<AuditQuery['search']>[0]): BenchCase => {
    const run = latencies(make);
    return {
      name: `audit search ${name} ${q}`,
      unit: 'ms',
      better: 'lower',
      ...(q === 'p50' ? { target: { median: 50 } } : {}),
      async run() {
        return quantile(await run(), q === 'p50' ? 0.5 : 0.95);
      },
    };
  };

  const chromium = opts.chromiumPath ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  type Console = { home: string; host: Host; shell: Awaited<ReturnType<typeof startServeShell>>; browser: import('playwright-core').Browser; url: () => string };
  let consoleRig: Console | null = null;
  const openConsole = async (): Promise<Console> => {
    if (consoleRig) return consoleRig;
    await open();
    // Everything committed is in the main file after a truncating checkpoint: a plain copy is the log.
    store!.db.pragma('wal_checkpoint(TRUNCATE)');
    const home = mkdtempSync(join(tmpdir(), 'gatehouse-bench-audit-view-'));
    copyFileSync(join(dir!, 'audit.db'), join(home, 'audit.db'));
    const host = createHost({ home, shell: 'serve', watch: false, log: () => {} });
    const token = 'bench-token-0123456789abcdef';
    const shell = await startServeShell({ host, bindHost: '127.0.0.1', port: 0, token, staticDir: defaultStaticDir(), operator: 'bench' });
    const { chromium: pw } = await import('playwright-core');
    const browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS, headless: true });
    consoleRig = { home, host, shell, browser, url: () => shell.newConsoleUrl() };
    return consoleRig;
  };
  const firstPage: BenchCase = {
    name: `audit view first page at ${opts.events.toLocaleString('en-US')} events (Chromium)`,
    unit: 'ms',
    better: 'lower',
    target: { median: 300 },
    async run() {
      const rig = await openConsole();
      const page = await rig.browser.newPage({ viewport: { width: 1440, height: 900 } });
      try {
        // A console link works once: each page gets its own.
        await page.goto(rig.url());
        await page.locator('[data-testid="status-connection"][data-state="connected"]').waitFor();
        // The host verifies the whole chain when it starts; the console is idle once that is done.
        await page.locator('[data-testid="status-chain"][data-state="verified"]').waitFor({ timeout: 120_000 });
        const ms = (await page.evaluate(TIME_FIRST_PAGE)) as number;
        const loaded = Number(await page.getByTestId('audit-table').getAttribute('data-loaded'));
        if (!(loaded > 0)) throw new Error('audit view bench: the table loaded no rows');
        return ms;
      } finally {
        await page.close();
      }
    },
  };

  return {
    cases: [
      insert,
      latencyCase('word (FTS)', 'p50', wordQuery),
      latencyCase('word (FTS)', 'p95', wordQuery),
      latencyCase('facet filter', 'p50', facetQuery),
      latencyCase('facet filter', 'p95', facetQuery),
      ...(chromium ? [firstPage] : []),
    ],
    /** The build of the whole log happens in the first (usually warm-up) round: said after the table. */
    note() {
      return buildRate === null ? null : `Audit search log: ${opts.events.toLocaleString('en-US')} events inserted with chain, FTS5 and facets at ${Math.round(buildRate).toLocaleString('en-US')} events/s (the insert rows after it append 100,000 more per round).`;
    },
    async close() {
      if (consoleRig) {
        await consoleRig.browser.close();
        await consoleRig.shell.close();
        await consoleRig.host.close('bench done');
        rmSync(consoleRig.home, { recursive: true, force: true });
      }
      store?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
