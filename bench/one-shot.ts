// One-shot tool call overhead: runOneShot of a trivial shell plugin against a bare
// child_process.spawn of the same script with the same stdin, measured in the same run.
// The sandbox's cost is reported separately (limits only, and bwrap with limits).
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOneShot, scrubEnv } from '../main/runner/one-shot.js';
import { PluginRegistry } from '../main/registry/plugin-registry.js';
import { TrustStore } from '../main/registry/trust-store.js';
import { ToolRunner } from '../main/runner/tool-runner.js';
import { BreakerBoard } from '../main/runner/breaker-board.js';
import { PluginMetrics } from '../main/runner/metrics.js';
import { containWrap, detectSandbox, profileFromManifest } from '../main/runner/sandbox.js';
import { WarmStarts } from '../main/runner/warm-starts.js';
import { sharedForkThread } from '../main/pty/fork-thread.js';
import type { ChildStarter } from '../main/pty/spawn-service.js';
import { median, medianOfCalls, type BenchCase } from './harness.js';

const SCRIPT = '#!/bin/sh\ninput=$(cat)\nprintf \'{"received": %s}\\n\' "$input"\n';
const INPUT = { message: 'hello', n: 42 };

function bareSpawn(command: string, cwd: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`exit ${code}`));
      JSON.parse(out);
      resolve();
    });
    child.stdin.end(JSON.stringify(INPUT));
  });
}

/**
 * The same script as an enabled plugin called through the ToolRunner, unsandboxed: the run-time
 * check of its files after the slot is taken, and the run from its verified per-digest copy.
 */
async function runnerCall(): Promise<() => Promise<unknown>> {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-bench-runner-'));
  const plugins = join(root, 'plugins');
  mkdirSync(join(plugins, 'echo'), { recursive: true });
  mkdirSync(join(root, 'home'));
  writeFileSync(join(plugins, 'echo', 'tool.toml'), 'name = "echo"\ndescription = "Echoes its input."\ncommand = "run.sh"\ntimeout_secs = 10\n');
  writeFileSync(join(plugins, 'echo', 'run.sh'), SCRIPT, { mode: 0o755 });
  const registry = new PluginRegistry({ sources: [{ dir: plugins, origin: 'cli' }], trust: new TrustStore(join(root, 'home')) });
  await registry.refreshAll();
  await registry.enable('echo', 'bench');
  const runner = new ToolRunner({
    registry,
    breakers: new BreakerBoard({ clock: { now: () => Date.now() } }),
    metrics: new PluginMetrics(),
    runCache: join(root, 'home', 'run-cache'),
    sandboxFor: () => ({ wrap: (command, args) => ({ command, args, sandboxed: false }), sandboxed: false, warning: null }),
    record: () => {},
  });
  return async () => {
    const r = await runner.call('echo', undefined, INPUT, { actor: 'bench' });
    if (!r.ok) throw new Error(`runner bench call failed: ${r.error}`);
  };
}

export async function oneShotCases(opts: { calls?: number } = {}): Promise<BenchCase[]> {
  const calls = opts.calls ?? 30;
  const dir = join(mkdtempSync(join(tmpdir(), 'gatehouse-bench-oneshot-')), 'echo');
  mkdirSync(dir);
  const command = join(dir, 'run.sh');
  writeFileSync(command, SCRIPT);
  chmodSync(command, 0o755);
  const env = scrubEnv(process.env, []);
  const base = { plugin: 'echo', command, args: [], cwd: dir, input: INPUT, timeoutMs: 10_000, env };
  const viaRunner = await runnerCall();
  const check = (r: { ok: boolean; message?: string }) => {
    if (!r.ok) throw new Error(`one-shot bench call failed: ${r.message}`);
  };
  const cases: BenchCase[] = [
    { name: 'bare spawn of a shell tool', unit: 'ms', better: 'lower', run: () => medianOfCalls(calls, () => bareSpawn(command, dir, env)) },
    {
      name: 'one-shot call, no sandbox',
      unit: 'ms',
      better: 'lower',
      baseline: 'bare spawn of a shell tool',
      target: { ratio: 1.15 },
      run: () => medianOfCalls(calls, async () => check(await runOneShot(base))),
    },
    {
      // Reported, no target: the runner's own steps (slot, breaker, metrics, environment) come on
      // top of runOneShot; the file check and the verified copy are ~0.1 ms of it.
      name: 'tool runner call (verified copy), no sandbox',
      unit: 'ms',
      better: 'lower',
      baseline: 'bare spawn of a shell tool',
      run: () => medianOfCalls(calls, viaRunner),
    },
    {
      name: 'one-shot call, limits only',
      unit: 'ms',
      better: 'lower',
      baseline: 'bare spawn of a shell tool',
      run: () => medianOfCalls(calls, async () => check(await runOneShot({ ...base, wrap: containWrap(null, { timeoutMs: 10_000 }) }))),
    },
  ];
  // How long the event loop stands still during one call: the longest gap between two runs of a
  // 1 ms timer chain, minus the period, per call, median over the calls. (Not libuv's histogram,
  // monitorEventLoopDelay: it records a delay when its timer next runs, which for a stall at the
  // end of a call is after the next call's reset.) A fork of this process on the loop's own thread blocks it for the
  // whole fork (the copy of its page tables, the wait for the child's exec); on the fork thread
  // only the kernel's lock on the address space during the copy reaches it; started by the
  // spawner process (the default, main/pty/spawner.ts), this process does not fork at all.
  const stall = (forkThread: () => ChildStarter | false | undefined) => async () => {
    let last = performance.now();
    let longest = 0;
    let ticking = true;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (ticking) setTimeout(tick, 1);
    };
    setTimeout(tick, 1);
    const per: number[] = [];
    try {
      for (let i = 0; i < calls; i++) {
        longest = 0;
        last = performance.now();
        const by = forkThread();
        check(await runOneShot({ ...base, ...(by !== undefined ? { forkThread: by } : {}) }));
        per.push(Math.max(0, longest - 1));
      }
    } finally {
      ticking = false;
    }
    return median(per);
  };
  cases.push(
    { name: 'longest event-loop stall per one-shot call, forked on the main thread', unit: 'ms', better: 'lower', run: stall(() => false) },
    {
      // Issue #29 (event-loop lag): the fork of every plugin call off the loop.
      name: 'longest event-loop stall per one-shot call, forked on the fork thread',
      unit: 'ms',
      better: 'lower',
      baseline: 'longest event-loop stall per one-shot call, forked on the main thread',
      target: { ratio: 0.5 },
      run: stall(() => sharedForkThread() ?? false),
    },
    {
      // Issue #29 (performance): the host never forks for a plugin call; its spawner does.
      name: 'longest event-loop stall per one-shot call, started by the spawner process',
      unit: 'ms',
      better: 'lower',
      baseline: 'longest event-loop stall per one-shot call, forked on the main thread',
      run: stall(() => undefined),
    },
  );
  const detection = detectSandbox();
  if (detection.kind === 'bwrap') {
    const profile = profileFromManifest({ permissions: { read: [], write: [], hosts: [], env: [] } }, dir);
    const wrap = containWrap({ detection, profile }, { timeoutMs: 10_000 });
    const warm = new WarmStarts();
    process.once('exit', () => warm.close());
    cases.push({
      // Issue #29: within 1.8× of the bare spawn. Nearly all of the gap is process creation
      // (the launcher shell that joins the pids cgroup and sets the rlimits, bwrap, and the
      // PID namespace's init forking the tool), not the binds or the host side.
      // Both sides fork this process, and a fork costs more the larger it is: with every other
      // case's setup alive beside it (`npm run bench`) the bare spawn took ~31 ms and this ~50;
      // from a process holding only this group, ~18 and ~37 (ratio 2.06). The ratio is only
      // comparable between runs of the same runner.
      name: 'one-shot call, bwrap sandbox + limits',
      unit: 'ms',
      better: 'lower',
      baseline: 'bare spawn of a shell tool',
      target: { ratio: 1.8 },
      // As the host runs it: each call takes the process started for it during the one before (warm-starts.ts).
      run: () => medianOfCalls(calls, async () => check(await runOneShot({ ...base, wrap, warm }))),
    });
  } else {
    console.log(`(no bwrap here: ${detection.reason}; the sandboxed one-shot case is not measured)`);
  }
  return cases;
}
