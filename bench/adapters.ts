// Terminal adapters (main/adapters/): the adapter's classify over a full 200×50 screen, through
// its worker as the host calls it (the screen snapshot posted in, the result posted back), and
// what the instruction budget costs: the same Lua loop with the count hook against without it.
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ADAPTER_LIMITS } from '../main/adapters/adapter-manifest.js';
import { LuaSandbox } from '../main/adapters/lua-sandbox.js';
import { grantedHostFunctions } from '../main/adapters/permissions.js';
import { Screen } from '../main/adapters/screen.js';
import type { BenchCase } from './harness.js';

// bench/adapters.ts from the sources, out/bench/run.js once built: the fixture is in the repo's test/ either way.
const FIXTURE = 'test/fixtures/adapters/permission-agent/main.lua';
const fixture = [new URL(`../${FIXTURE}`, import.meta.url), new URL(`../../${FIXTURE}`, import.meta.url)].map((u) => fileURLToPath(u)).find((f) => existsSync(f)) ?? FIXTURE;
const LOOP = 'local M = {} function M.spin(input) local s = 0 for i = 1, input.n do s = s + (i % 7) end return { s = s } end return M';
const LOOP_N = 2_000_000;
const CALLS_PER_ROUND = 200;

export async function adapterCases(): Promise<{ cases: BenchCase[]; close: () => Promise<void> }> {
  const functions = grantedHostFunctions(['input.write', 'matcher.wait', 'screen.read']);
  const limits = { ...DEFAULT_ADAPTER_LIMITS, ops: 1_000_000_000, timeoutMs: 10_000 };
  // The fixture agent's adapter, over a screen filled edge to edge with a question at the bottom.
  const classifier = await LuaSandbox.start({ source: readFileSync(fixture, 'utf8'), chunk: join('permission-agent', 'main.lua'), functions, limits });
  const screen = new Screen(200, 50);
  for (let r = 0; r < 45; r++) screen.write(`${`line ${r} `.padEnd(199, 'x')}\r\n`);
  screen.write('Agent wants to run the command: rm -rf build\r\n  1) Yes, allow\r\n  2) No, deny\r\nAllow? [1/2] ');
  await screen.settled();
  const hooked = await LuaSandbox.start({ source: LOOP, chunk: 'loop.lua', functions, limits });
  const bare = await LuaSandbox.start({ source: LOOP, chunk: 'loop.lua', functions, limits, noHook: true });
  const loopName = `adapters: Lua loop of ${LOOP_N / 1e6}M iterations, no count hook`;
  return {
    close: async () => {
      await Promise.all([classifier.close(), hooked.close(), bare.close()]);
    },
    cases: [
      {
        name: 'adapters: classify over a full 200×50 screen (p50 of one call, worker round trip included)',
        unit: 'ms',
        better: 'lower',
        target: { median: 1 },
        async run() {
          const times: number[] = [];
          for (let i = 0; i < CALLS_PER_ROUND; i++) {
            const t = performance.now();
            const snap = screen.snapshot();
            const { value } = await classifier.call('classify', { screen: snap, text: '', last_intent: 'prompt_submitted' });
            times.push(performance.now() - t);
            if ((value as { state?: string }).state !== 'waiting_for_permission') throw new Error('the fixture adapter should see the question');
          }
          times.sort((a, b) => a - b);
          return times[Math.floor(times.length / 2)]!;
        },
      },
      {
        name: loopName,
        unit: 'ms',
        better: 'lower',
        async run() {
          const t = performance.now();
          await bare.call('spin', { n: LOOP_N });
          return performance.now() - t;
        },
      },
      {
        name: `adapters: the same loop under the op budget (count hook)`,
        unit: 'ms',
        better: 'lower',
        baseline: loopName,
        async run() {
          const t = performance.now();
          await hooked.call('spin', { n: LOOP_N });
          return performance.now() - t;
        },
      },
    ],
  };
}
