// `npm run bench`: runs every benchmark case and prints one table. Later benchmarks add their
// cases to the list below; a case with a target fails the run (exit 1) when it misses it.
//
// Options: --rounds N (default 7), --warmup N (default 1), --events N (audit events per round,
// default 100000), --search-events N (the audit search log, default
// 1000000), and any other word filters cases by name (a kept case's baseline is kept too).
import { parseArgs } from 'node:util';
import { auditAppendCases } from './audit-append.js';
import { auditSearchCases } from './audit-search.js';
import { registryCases } from './registry-discovery.js';
import { checkerPoolCases } from './checker-pool.js';
import { oneShotCases } from './one-shot.js';
import { ptyThroughputCases } from './pty-throughput.js';
import { inboxListCases } from './inbox-list.js';
import { decisionLatencyCases } from './decision-latency.js';
import { gatewayCases } from './gateway.js';
import { toolLookupCases } from './tool-lookup.js';
import { containmentCases } from './containment.js';
import { wasmCases } from './wasm.js';
import { moduleCases } from './module.js';
import { catalogCases } from './catalog.js';
import { adapterCases } from './adapters.js';
import { teamCases } from './team.js';
import { formatTable, runBench, type BenchCase } from './harness.js';

const { values, positionals } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '1' },
    events: { type: 'string', default: '100000' },
    // The incident-review log: its own database in the temp folder, removed after the run.
    'search-events': { type: 'string', default: '1000000' },
  },
  allowPositionals: true,
});

function count(name: string, v: string, min: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`bench: --${name} must be a whole number ≥ ${min}, not "${v}".`);
    process.exit(2);
  }
  return n;
}

const auditSearch = auditSearchCases({ events: count('search-events', values['search-events'], 1000) });
const cases: BenchCase[] = [
  ...auditAppendCases({ events: count('events', values.events, 1) }),
  ...auditSearch.cases,
  ...registryCases({ plugins: 200 }),
  ...(await oneShotCases()),
  ...checkerPoolCases(),
  ...ptyThroughputCases({ megabytes: 100 }),
  ...(await decisionLatencyCases()),
];
// A live host on loopback; closed after the run so the process can exit.
const gateway = await gatewayCases();
cases.push(...gateway.cases);
// Tool lookup with 200 plugins enabled against one (its two hosts are closed after the run).
const lookup = await toolLookupCases();
cases.push(...lookup.cases);
// Containment: a Claude Code Bash call with the boxed command against the same call uncontained (its host is closed after the run).
const containment = await containmentCases();
cases.push(...containment.cases);
// WebAssembly plugins: warm call vs a one-shot process tool, metered vs unmetered (its workers and
// sandboxed process are closed after the run).
const wasm = await wasmCases();
cases.push(...wasm.cases);
// Module plugins (mod.ts): a warm call vs a one-shot process tool (the module's child is stopped after the run).
const modules = await moduleCases();
cases.push(...modules.cases);
// The signed catalog: refresh + install from a local catalog of 500 plugins, and search (its folder is removed after the run).
const catalog = await catalogCases({ plugins: 500 });
cases.push(...catalog.cases);
// Terminal adapters: classify over a full screen, and the op budget's cost (their Lua workers end after the run).
const adapters = await adapterCases();
cases.push(...adapters.cases);
// Team mode on a throwaway PostgreSQL cluster: cross-machine approval, shipping, search (the cluster and its member host are stopped after the run).
const team = await teamCases();
cases.push(...team.cases);
// The inbox with 1,000 waiting calls in Chromium (its host and browser are closed after the run).
const inbox = inboxListCases();
cases.push(...inbox.cases);

function selected(all: BenchCase[], filters: string[]): BenchCase[] {
  if (filters.length === 0) return all;
  const keep = new Set(all.filter((c) => filters.some((f) => c.name.includes(f))).map((c) => c.name));
  for (const c of all) if (keep.has(c.name) && c.baseline) keep.add(c.baseline);
  return all.filter((c) => keep.has(c.name));
}

const run = selected(cases, positionals);
if (run.length === 0) {
  console.error(`bench: no case matches ${positionals.join(', ')}. Cases: ${cases.map((c) => c.name).join('; ')}.`);
  process.exit(2);
}

const gc = (globalThis as { gc?: () => void }).gc;
const rounds = count('rounds', values.rounds, 1);
const warmup = count('warmup', values.warmup, 0);
gc?.();
// Every case's setup lives in this process, and a fork costs more the larger the forking process
// is (its page tables are copied): the cases that spawn from here pay for it (bench/one-shot.ts).
const mem = process.memoryUsage();
console.log(`Gatehouse benchmarks: ${rounds} rounds (+${warmup} warm-up) per case, node ${process.version}${gc ? '' : ' (run with --expose-gc for steadier numbers)'}; this process holds ${Math.round(mem.rss / 1e6)} MB (heap ${Math.round(mem.heapUsed / 1e6)} MB, outside the heap ${Math.round((mem.external + mem.arrayBuffers) / 1e6)} MB) after every case's setup.`);
let results: Awaited<ReturnType<typeof runBench>>;
try {
  results = await runBench(run, {
    rounds,
    warmup,
    ...(gc ? { betweenRounds: gc } : {}),
    onProgress: (msg) => process.stderr.write(`  ${msg} (process ${Math.round(process.memoryUsage().rss / 1e6)} MB)\n`),
  });
} finally {
  // Also when a case throws: the team's member host (a process of its own) and its PostgreSQL
  // cluster outlived a run that ended on an error, and kept running after it.
  const closes: Array<() => unknown> = [() => gateway.close(), () => lookup.close(), () => containment.close(), () => wasm.close(), () => modules.close(), () => inbox.close(), () => catalog.close(), () => adapters.close(), () => auditSearch.close(), () => team.close()];
  for (const close of closes) {
    try {
      await close();
    } catch (err) {
      console.error('bench: a case group did not close:', err);
    }
  }
}
console.log();
console.log(formatTable(results));
const searchNote = auditSearch.note();
if (searchNote) console.log(`\n${searchNote}`);
const teamNote = team.note();
if (teamNote) console.log(`\n${teamNote}`);
const missed = results.filter((r) => r.pass === false);
if (missed.length > 0) {
  console.log(`\nMissed target: ${missed.map((r) => r.name).join('; ')}.`);
  process.exitCode = 1;
}
