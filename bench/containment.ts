// Containment's cost (issue #24): a Claude Code Bash call as the agent experiences it — the hook's
// round trip to a real host on loopback, then the answered command run the way Claude Code runs
// it (`bash -c`) — with containment on (the boxed command) against the same call with it off (the
// command as sent). The command is a small project script under Node, the shape of an agent's
// usual test or build call. Target: at most 1.5× the uncontained call.
// Reported beside it, without a target: the box on a command that does nothing (`true`), where
// bubblewrap's own start-up is all there is, against bash alone.
// And the walk every contained call makes of its project on the host's thread (namedPlaces: the
// secret files to hide, the settings and hooks to pin), over 2,000 entries in 200 folders,
// against a bare readdir walk of the same tree: what the matching adds. Target: at most 2.5×.
// Timed as calls in one project make it (each settled folder's share found again for a stat),
// and beside it, without a target, with nothing kept (every folder listed and matched).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../main/host/create-host.js';
import { builtinRules } from '../main/policy/rules/builtin.js';
import { boxedCommandLine, boxPlan, namedPlaces } from '../main/runner/box.js';
import { detectSandbox } from '../main/runner/sandbox.js';
import { listenForConsolesAndAgents } from '../main/shells/serve/run-serve.js';
import { median, type BenchCase } from './harness.js';

export async function containmentCases(opts: { calls?: number } = {}): Promise<{ cases: BenchCase[]; close: () => Promise<void> }> {
  const sandbox = detectSandbox();
  if (sandbox.kind !== 'bwrap') {
    console.log(`bench: containment cases skipped: ${sandbox.reason}`);
    return { cases: [], close: async () => {} };
  }
  const calls = opts.calls ?? 20;
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-bench-box-'));
  const home = join(root, 'gatehouse');
  const project = join(root, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(project, '.env'), 'API_KEY=bench\n');
  writeFileSync(join(project, 'package.json'), '{"name":"bench","scripts":{"test":"node test.js"}}\n');
  writeFileSync(join(project, 'test.js'), "const assert = require('node:assert');\nassert.equal(1 + 1, 2);\nconsole.log('ok');\n");
  for (let i = 0; i < 200; i++) writeFileSync(join(project, `src-${i}.js`), `export const n${i} = ${i};\n`);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full', hookAutonomyAllow: 'defer' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: project, watch: false });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: home });

  const command = 'node test.js';
  const input = JSON.stringify({ session_id: 'bench-box', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'run the tests' } });
  const bash = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn('/bin/bash', ['-c', line], { cwd: project, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${line.slice(0, 80)}… exited ${code}: ${out}`))));
    });
  /** One Bash call: the hook's answer, then what it says to run. */
  const call = async (contained: boolean) => {
    const res = await fetch(net.hookUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${net.agentToken}` }, body: input });
    const body = (await res.json()) as { continue?: boolean; hookSpecificOutput?: { updatedInput?: { command?: string } } };
    const boxed = body.hookSpecificOutput?.updatedInput?.command;
    if (contained !== (boxed !== undefined)) throw new Error(`the hook answered ${JSON.stringify(body).slice(0, 300)} (containment ${contained ? 'on' : 'off'})`);
    await bash(boxed ?? command);
  };
  const setContainment = (on: boolean) => host.settings.update({ containment: on ? ['full', 'grants'] : [] }, 'operator:bench');
  const time = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  // Alternating in blocks, so a change in the machine's load touches both alike; both medians come from one round.
  let last = { contained: 0, uncontained: 0 };
  const round = async () => {
    const on: number[] = [];
    const off: number[] = [];
    for (let i = 0; i < calls; i += 5) {
      setContainment(false);
      for (let j = 0; j < 5; j++) off.push(await time(() => call(false)));
      setContainment(true);
      for (let j = 0; j < 5; j++) on.push(await time(() => call(true)));
    }
    last = { contained: median(on), uncontained: median(off) };
  };
  const plan = boxPlan({ home: join(root, 'nobody-home'), rules: [], tmpDirs: [tmpdir()] }, project);
  const boxedTrue = boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, 'true');
  const medianOf = async (n: number, fn: () => Promise<unknown>) => {
    const t: number[] = [];
    for (let i = 0; i < n; i++) t.push(await time(fn));
    return median(t);
  };

  // A project of 2,000 entries for the walk: 20 packages × 10 folders × 9 files, a .env per package, a Git folder.
  const tree = join(root, 'tree');
  mkdirSync(join(tree, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(tree, '.git', 'config'), '');
  for (let p = 0; p < 20; p++) {
    writeFileSync(join(tree, `pkg-${p}.env`), '');
    for (let d = 0; d < 10; d++) {
      const dir = join(tree, `pkg-${p}`, `dir-${d}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 9; f++) writeFileSync(join(dir, f === 0 && d === 0 ? '.env' : `file-${f}.ts`), '');
    }
  }
  const rules = builtinRules({ home: root, gatehouseHome: home, caseInsensitive: false });
  const walks = 50;
  const timedWalks = (fn: () => unknown) => {
    const t: number[] = [];
    for (let i = 0; i < walks; i++) {
      const t0 = performance.now();
      fn();
      t.push(performance.now() - t0);
    }
    return median(t);
  };
  const bareWalk = (dir: string): number => {
    let n = 0;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      n++;
      if (e.isDirectory()) n += bareWalk(join(dir, e.name));
    }
    return n;
  };

  const cases: BenchCase[] = [
    {
      name: 'Bash call uncontained: hook + `node test.js` (p50)',
      unit: 'ms',
      better: 'lower',
      async run() {
        await round();
        return last.uncontained;
      },
    },
    {
      name: 'Bash call contained: hook + the boxed `node test.js` (p50)',
      unit: 'ms',
      better: 'lower',
      baseline: 'Bash call uncontained: hook + `node test.js` (p50)',
      target: { ratio: 1.5 },
      // Measured in the uncontained case's round.
      run: () => last.contained,
    },
    {
      name: 'bash -c true',
      unit: 'ms',
      better: 'lower',
      run: () => medianOf(calls, () => bash('true')),
    },
    {
      name: 'bash -c true in the box (bubblewrap start-up alone)',
      unit: 'ms',
      better: 'lower',
      baseline: 'bash -c true',
      run: () => medianOf(calls, () => bash(boxedTrue)),
    },
    { name: 'readdir walk of a 2,000-entry project', unit: 'ms', better: 'lower', run: () => timedWalks(() => bareWalk(tree)) },
    {
      // Calls in one project: each settled folder's share is found again for one stat (box.ts, FolderShare).
      name: "contained call's project walk (secrets, settings, hooks), same project",
      unit: 'ms',
      better: 'lower',
      baseline: 'readdir walk of a 2,000-entry project',
      target: { ratio: 2.5 },
      run: () =>
        timedWalks(() => {
          const found = namedPlaces(tree, rules);
          if (found.secret.length !== 20 || !found.complete) throw new Error(`the walk found ${found.secret.length} secret files, not 20`);
        }),
    },
    {
      // The first call in a project, or one whose every folder changed since: every folder listed and matched.
      name: "contained call's project walk, nothing kept (every folder listed)",
      unit: 'ms',
      better: 'lower',
      baseline: 'readdir walk of a 2,000-entry project',
      run: () =>
        timedWalks(() => {
          const found = namedPlaces(tree, rules, undefined, { fresh: true });
          if (found.secret.length !== 20 || !found.complete) throw new Error(`the walk found ${found.secret.length} secret files, not 20`);
        }),
    },
  ];
  return {
    cases,
    async close() {
      await net.shell.close();
      await host.close('bench done');
    },
  };
}
