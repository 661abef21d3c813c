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
import { containmentCases } from './containment.js';
import { wasmCases } from './wasm.js';
import { moduleCases } from './module.js';
import { catalogCases } from './catalog.js';
import { adapterCases } from './adapters.js';
import { teamCases } from './team.js';
import { formatTable, runBench, type BenchCase, type BenchResult } from './harness.js';

const { values, positionals } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '1' },
    events: { type: 'string', default: '100000' },
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

/**
 * The cases in groups that share what they set up (a host, a browser, a database). Each group is
 * set up, run (its rounds interleaved case by case, so a case and its baseline see the same
 * moments) and closed before the next one starts: a group left open in the background (a host's
 * timers, a browser, a PostgreSQL cluster, a large heap) took CPU from every case run beside it,
 * and on two cores that weighed on a two-thread case (the audit store) more than on its
 * one-thread baseline.
 */
interface Group {
  cases: BenchCase[];
  close?: () => void | Promise<void>;
  note?: () => string | null;
}
const events = count('events', values.events, 1);
const searchEvents = count('search-events', values['search-events'], 1000);
const groups: (() => Group | Promise<Group>)[] = [
  () => ({ cases: auditAppendCases({ events }) }),
  // The incident-review log: its own database in the temp folder, removed when the group closes.
  () => auditSearchCases({ events: searchEvents }),
  () => ({ cases: registryCases({ plugins: 200 }) }),
  async () => ({ cases: await oneShotCases() }),
  () => ({ cases: checkerPoolCases() }),
  () => ({ cases: ptyThroughputCases({ megabytes: 100 }) }),
  async () => ({ cases: await decisionLatencyCases() }),
  // A live host on loopback.
  () => gatewayCases(),
  // Containment: a Claude Code Bash call with the boxed command against the same call uncontained.
  () => containmentCases(),
  // WebAssembly plugins: warm call vs a one-shot process tool, metered vs unmetered.
  () => wasmCases(),
  // Module plugins (mod.ts): a warm call vs a one-shot process tool.
  () => moduleCases(),
  // The signed catalog: refresh + install from a local catalog of 500 plugins, and search.
  () => catalogCases({ plugins: 500 }),
  // Terminal adapters: classify over a full screen, and the op budget's cost.
  () => adapterCases(),
  // Team mode on a throwaway PostgreSQL cluster: cross-machine approval, shipping, search.
  () => teamCases(),
  // The inbox with 1,000 waiting calls in Chromium.
  () => inboxListCases(),
];

function selected(all: BenchCase[], filters: string[]): BenchCase[] {
  if (filters.length === 0) return all;
  const keep = new Set(all.filter((c) => filters.some((f) => c.name.includes(f))).map((c) => c.name));
  for (const c of all) if (keep.has(c.name) && c.baseline) keep.add(c.baseline);
  return all.filter((c) => keep.has(c.name));
}

const gc = (globalThis as { gc?: () => void }).gc;
const rounds = count('rounds', values.rounds, 1);
const warmup = count('warmup', values.warmup, 0);
console.log(`Gatehouse benchmarks: ${rounds} rounds (+${warmup} warm-up) per case, node ${process.version}${gc ? '' : ' (run with --expose-gc for steadier numbers)'}.`);
const results: BenchResult[] = [];
const notes: string[] = [];
const names: string[] = [];
for (const open of groups) {
  const group = await open();
  try {
    names.push(...group.cases.map((c) => c.name));
    const run = selected(group.cases, positionals);
    if (run.length === 0) continue;
    results.push(
      ...(await runBench(run, {
        rounds,
        warmup,
        ...(gc ? { betweenRounds: gc } : {}),
        onProgress: (msg) => process.stderr.write(`  ${msg}\n`),
      })),
    );
    const note = group.note?.();
    if (note) notes.push(note);
  } finally {
    await group.close?.();
  }
}
if (results.length === 0) {
  console.error(`bench: no case matches ${positionals.join(', ')}. Cases: ${names.join('; ')}.`);
  process.exit(2);
}
console.log();
console.log(formatTable(results));
for (const note of notes) console.log(`\n${note}`);
const missed = results.filter((r) => r.pass === false);
if (missed.length > 0) {
  console.log(`\nMissed target: ${missed.map((r) => r.name).join('; ')}.`);
  process.exitCode = 1;
}
