// Decision latency: extract + rules + autonomy for one call (no checkers, no DNS), over a
// realistic mix of agent calls: file tools, shell commands (mostly repeats, as agents repeat
// themselves), fetches and MCP tools. Targets: p50 ≤ 8 µs, p99 ≤ 30 µs per call (Rampart's
// 3–8 µs per decision is the mark).
// Baseline: JSON.stringify of the same calls, the least any decision has to touch.
// The judge is built as the host builds it: a path's kept symlink answer is proven by one stat of
// its folder per call (symlink-cache.ts), whose cost the run prints beside it.
// Extraction goes through the guard the host uses (guarded-extract.ts), so its size checks are
// paid here too. One more case times a hostile call: a 200 KB pipeline (`a|a|…`, once 39 s of
// blocked event loop), which must be answered ask or deny within 50 ms, and another a path
// argument of 3.8 MB (over the 4096-character cap), which must be answered ask within 50 ms.
import { lstatSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initExtractor } from '../main/policy/extract/index.js';
import { GuardedExtractor } from '../main/policy/extract/guarded-extract.js';
import type { Extraction } from '../main/policy/types.js';
import { buildRuleSet, evaluatePolicy, compileBuiltinRules, parsePolicyText } from '../main/policy/rules/index.js';
import { Autonomy, decideCall } from '../main/policy/autonomy.js';
import type { ToolCall } from '../main/policy/types.js';
import { quantile, type BenchCase } from './harness.js';

const POLICY = `
rules:
  - { name: allow-work, actions: [read, write], block_paths: ["~/work/**"], block_except: ["~/work/**/*.key"], decision: allow }
  - { name: ask-deploy, actions: [execute], block_paths: ["~/work/deploy/**"], decision: ask }
  - { name: no-pastebin, actions: [network], block_hosts: ["*.pastebin.com", "203.0.113.0/24"] }
  - { name: log-tmp, actions: [write], block_paths: ["/tmp/**"], decision: log }
`;

const SPIN_FLOOR = "a busy wait as long as the decision's p50 (p99): this machine's floor";

export function mix(home: string): ToolCall[] {
  const base = { agent: 'claude-code', session: 's1', cwd: `${home}/work`, source: 'hook' as const, receivedAt: 0 };
  const c = (i: number, tool: string, args: Record<string, unknown>): ToolCall => ({ ...base, id: `c${i}`, tool, arguments: args });
  const shell = ['ls -la', 'git status', 'npm test', 'cat src/index.ts | head -50', 'rg -n TODO src', 'git diff --stat', 'node scripts/build.mjs', 'rm -rf build'];
  const out: ToolCall[] = [];
  for (let i = 0; i < 64; i++) {
    switch (i % 8) {
      case 0: out.push(c(i, 'Read', { file_path: `${home}/work/src/module-${i % 13}.ts` })); break;
      case 1: out.push(c(i, 'Edit', { file_path: `src/module-${i % 13}.ts`, old_string: 'a', new_string: 'b' })); break;
      case 2: out.push(c(i, 'Bash', { command: shell[i % shell.length]! })); break;
      case 3: out.push(c(i, 'Grep', { pattern: 'TODO', path: 'src' })); break;
      case 4: out.push(c(i, 'Bash', { command: shell[(i >> 3) % shell.length]! })); break;
      case 5: out.push(c(i, 'WebFetch', { url: `https://docs.example.com/page-${i}` })); break;
      case 6: out.push(c(i, 'mcp__fs__read_file', { path: `${home}/work/README.md` })); break;
      default: out.push(c(i, 'Write', { file_path: '/tmp/out.txt', content: 'hello' }));
    }
  }
  return out;
}

/** The bench's judge over a fresh home: the calls of the mix and one decision (also used by profiling scripts). */
export async function decisionSetup(): Promise<{ home: string; calls: ToolCall[]; decide: (call: ToolCall) => ReturnType<typeof decideCall> | null; hops: () => number; judge: GuardedExtractor; rules: ReturnType<typeof buildRuleSet>; autonomy: Autonomy }> {
  await initExtractor();
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-bench-decide-'));
  const ctx = { home, caseInsensitive: false };
  const user = parsePolicyText(POLICY, 'policy.yaml', ctx);
  if (user.problems.length) throw new Error(`bench policy has problems: ${JSON.stringify(user.problems)}`);
  const rules = buildRuleSet(compileBuiltinRules({ ...ctx, gatehouseHome: join(home, '.config', 'gatehouse') }), user.compiled);
  const autonomy = new Autonomy({ level: 'supervised', autoApprove: ['mcp__fs__*'], alwaysAsk: [] });
  // As the host's judge is (gateway-services.ts).
  const judge = new GuardedExtractor({ home });
  const calls = mix(home);
  // Steady state is what is timed: each kind of call once first, so that the first run of its code
  // (tens of ms on a busy machine, past the calling thread's deadline) is not a worker hop below.
  for (const call of calls) await judge.extract(call);
  let hops = 0;
  const decide = (call: ToolCall) => {
    const x = judge.extract(call);
    // The mix is small calls, judged on this thread. One that passed the calling thread's deadline
    // (a busy machine preempted it) is answered by the worker: what it cost this thread, up to the
    // hand-off, is what is timed, and the runs say how many there were.
    if (x instanceof Promise) {
      hops++;
      x.catch(() => undefined);
      return null;
    }
    return decideCall({ call, extraction: x, policy: evaluatePolicy(x, call, { rules }), autonomy });
  };
  return { home, calls, decide, hops: () => hops, judge, rules, autonomy };
}

export async function decisionLatencyCases(opts: { calls?: number } = {}): Promise<BenchCase[]> {
  const { home, calls, decide, hops, judge, rules, autonomy } = await decisionSetup();
  const n = opts.calls ?? 20_000;
  const pipeline: ToolCall = { agent: 'claude-code', session: 's1', cwd: `${home}/work`, source: 'hook', receivedAt: 0, id: 'pipe', tool: 'Bash', arguments: { command: Array(100_000).fill('a').join('|') } };
  const hugePath: ToolCall = { ...pipeline, id: 'huge-path', tool: 'Read', arguments: { file_path: '/tmp/' + 'a/'.repeat(1_900_000) } };
  const decideAsync = async (call: ToolCall) => {
    const x: Extraction = await judge.extract(call);
    return decideCall({ call, extraction: x, policy: evaluatePolicy(x, call, { rules }), autonomy });
  };
  const timed = (fn: (call: ToolCall) => unknown): number[] => {
    // An untimed pass first. The harness collects garbage fully between rounds, and for tens of ms
    // after a forced full collection everything runs slower on this kind of machine (measured on
    // the same decisions: p99 9–19 µs without the collection before the round, 33–46 µs with it).
    // That is the collector's cost, paid once per collection, not the decision's per call.
    for (let i = 0; i < n; i++) fn(calls[i % calls.length]!);
    const times = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const call = calls[i % calls.length]!;
      const t0 = process.hrtime.bigint();
      fn(call);
      times[i] = Number(process.hrtime.bigint() - t0) / 1000;
    }
    return times;
  };
  let last: number[] = [];
  const base = (call: ToolCall) => JSON.stringify(call);
  // The floor under a call that names a path: the judge proves a kept symlink answer current with
  // one lstat(2) of its folder (symlink-cache.ts), on every call. Its cost is the machine's, not
  // the judge's (0.3 µs on bare metal, several µs in some virtual machines).
  const statFloor = (): number => {
    const times = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      lstatSync(home, { throwIfNoEntry: false });
      times[i] = Number(process.hrtime.bigint() - t0) / 1000;
    }
    return quantile(times, 0.5);
  };
  // The floor under the p99: a virtual machine's host takes a busy thread off its core for tens of
  // µs, hundreds to thousands of times a second, and none of it shows as steal time (a spin here:
  // ~1,900 gaps a second, a median 24 µs each). A call that lasts the decision's p50 is cut by one
  // often enough to set its p99 (2% of 10 µs calls), whatever the call does. This is that floor:
  // a busy wait as long as the decision's p50, timed as the decisions are.
  const spinFloor = (p50Us: number): number => {
    const times = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      // performance.now() in the wait: it allocates nothing, so no collection is timed that the decisions do not cause.
      const until = performance.now() + p50Us / 1000;
      while (performance.now() < until);
      times[i] = Number(process.hrtime.bigint() - t0) / 1000;
    }
    return quantile(times, 0.99);
  };
  return [
    { name: 'JSON.stringify of the call (p50)', unit: 'µs', better: 'lower', run: () => quantile(timed(base), 0.5) },
    { name: "one lstat(2), the check a path's kept answer costs (p50)", unit: 'µs', better: 'lower', run: statFloor },
    {
      name: 'decision: extract + rules + autonomy (p50)',
      unit: 'µs',
      better: 'lower',
      baseline: 'JSON.stringify of the call (p50)',
      target: { median: 8 },
      run() {
        const before = hops();
        last = timed(decide);
        const n = hops() - before;
        if (n > 0) console.warn(`decision bench: ${n} of ${last.length} calls passed the calling thread's deadline (a busy machine) and were judged in the worker`);
        return quantile(last, 0.5);
      },
    },
    // Reuses the samples of the p50 round just run, so both describe the same calls.
    { name: 'decision: extract + rules + autonomy (p99)', unit: 'µs', better: 'lower', baseline: SPIN_FLOOR, target: { median: 30 }, run: () => quantile(last.length ? last : timed(decide), 0.99) },
    { name: SPIN_FLOOR, unit: 'µs', better: 'lower', run: () => spinFloor(quantile(last.length ? last : timed(decide), 0.5)) },
    {
      name: 'decision for a 200 KB pipeline',
      unit: 'ms',
      better: 'lower',
      target: { median: 50 },
      async run() {
        const t0 = process.hrtime.bigint();
        const d = await decideAsync(pipeline);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (d.decision !== 'deny' && d.decision !== 'ask') throw new Error(`a 200 KB pipeline was answered ${d.decision}, not deny or ask`);
        return ms;
      },
    },
    {
      name: 'decision for a 3.8 MB path argument',
      unit: 'ms',
      better: 'lower',
      target: { median: 50 },
      async run() {
        const t0 = process.hrtime.bigint();
        const d = await decideAsync(hugePath);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (d.decision !== 'ask') throw new Error(`a path argument over the cap was answered ${d.decision}, not ask`);
        return ms;
      },
    },
  ];
}
