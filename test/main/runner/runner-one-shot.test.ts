// The hostile one-shot plugin suite: real processes that misbehave in every way the contract
// allows, run bare, with limits, and inside bwrap. Each case must end with its documented
// failure kind and message, leave no live process in its process group (read from /proc), and
// leave the runner answering: a normal call succeeds right after.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { ConcurrencyLimiter, QueueFullError } from '../../../main/runner/concurrency.js';
import { detectPidsCgroup, type ResourceLimits } from '../../../main/runner/limits.js';
import { parseOutput, runOneShot, scrubEnv, type OneShotResult, type WrapFn } from '../../../main/runner/one-shot.js';
import { detectSandbox, processLimitSupport, sandboxWrap, unsandboxedWrap } from '../../../main/runner/sandbox.js';
import { liveInGroup, liveWithArgv, ourCgroups } from '../../support/processes.js';
import { tempDir } from '../../support/temp.js';

const HOSTILE = fileURLToPath(new URL('../../fixtures/hostile/', import.meta.url));
const sandbox = detectSandbox();
const cgroup = detectPidsCgroup();

interface Mode {
  name: 'bare' | 'bare, forked on the main thread' | 'limits' | 'bwrap';
  /** false: forked on the calling thread (the fallback when the host's fork thread is gone). */
  forkThread?: false;
  /** Why this mode cannot run here, or null. */
  missing: string | null;
  sandboxed: boolean;
  wrap(timeoutMs: number, limits?: Partial<ResourceLimits>, write?: string[]): WrapFn | undefined;
}

const modes: Mode[] = [
  { name: 'bare', missing: null, sandboxed: false, wrap: () => undefined },
  { name: 'bare, forked on the main thread', missing: null, sandboxed: false, forkThread: false, wrap: () => undefined },
  { name: 'limits', missing: null, sandboxed: false, wrap: (timeoutMs, limits) => unsandboxedWrap({ timeoutMs, ...(limits ? { limits } : {}) }) },
  {
    name: 'bwrap',
    missing: sandbox.kind === 'bwrap' ? null : `bubblewrap is not usable here: ${sandbox.reason}`,
    sandboxed: true,
    wrap: (timeoutMs, limits, write = []) => sandboxWrap({ pluginDir: HOSTILE, read: [], write, hosts: [] }, { timeoutMs, ...(limits ? { limits } : {}) }),
  },
];

interface RunOpts {
  input?: unknown;
  timeoutMs?: number;
  env?: Record<string, string>;
  limits?: Partial<ResourceLimits>;
  write?: string[];
  onSpawn?: (pid: number) => void;
}

function run(mode: Mode, fixture: string, o: RunOpts = {}): Promise<OneShotResult> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const wrap = mode.wrap(timeoutMs, o.limits, o.write);
  return runOneShot({
    plugin: fixture.replace(/\.\w+$/, ''),
    command: join(HOSTILE, fixture),
    args: [],
    cwd: HOSTILE,
    input: o.input ?? {},
    timeoutMs,
    env: { ...scrubEnv(process.env, []), ...o.env },
    ...(wrap ? { wrap } : {}),
    ...(o.onSpawn ? { onSpawn: o.onSpawn } : {}),
    ...(mode.forkThread === false ? { forkThread: false as const } : {}),
  });
}

function failed(r: OneShotResult): Extract<OneShotResult, { ok: false }> {
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.output).slice(0, 200)}`);
  return r;
}

/** Nothing of the call is left: its process group is empty, and so are our cgroups. */
function expectNothingLeft(r: OneShotResult): void {
  expect(r.pid, 'the call started a process').not.toBeNull();
  const left = liveInGroup(r.pid!);
  expect(left, `live processes left in group ${r.pid}: ${left.map((p) => { try { return readFileSync(`/proc/${p}/stat`, 'utf8'); } catch { return `${p} gone`; } }).join(' | ')}`).toEqual([]);
  if (cgroup.available) expect(ourCgroups(cgroup.base), 'call cgroups left behind').toEqual([]);
}

/** The runner still answers: a normal call right after succeeds. */
async function expectStillAnswering(mode: Mode): Promise<void> {
  const r = await run(mode, 'ok.sh', { input: { after: 'hostile' } });
  expect(r.ok, r.ok ? '' : r.message).toBe(true);
  if (r.ok) expect(r.output).toEqual({ ok: true, input: { after: 'hostile' } });
  expect(r.sandboxed).toBe(mode.sandboxed);
  expectNothingLeft(r);
}

function skipUnless(ctx: TestContext, missing: string | null): void {
  if (missing === null) return;
  console.warn(`skipped "${ctx.task.name}": ${missing}`);
  ctx.skip(missing);
}

/** Whether a call cgroup of ours has refused a fork (pids.events "max" > 0). */
function cgroupLimitHit(): boolean {
  if (!cgroup.available) return false;
  return ourCgroups(cgroup.base).some((name) => {
    try {
      return Number(/^max (\d+)/m.exec(readFileSync(join(cgroup.base, name, 'pids.events'), 'utf8'))?.[1] ?? 0) > 0;
    } catch {
      return false;
    }
  });
}

const marker = () => `${100000 + Math.floor(Math.random() * 100000)}.${Math.floor(Math.random() * 1e6)}`;
const BIG_INPUT = { blob: 'i'.repeat(4 << 20) };

for (const mode of modes) {
  describe(`hostile one-shot plugins (${mode.name})`, () => {
    it('a well-behaved plugin returns its object and reports whether it was sandboxed', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = await run(mode, 'ok.sh', { input: { n: 1, s: 'é' } });
      expect(r.ok, r.ok ? '' : r.message).toBe(true);
      if (r.ok) expect(r.output).toEqual({ ok: true, input: { n: 1, s: 'é' } });
      expect(r.sandboxed).toBe(mode.sandboxed);
      expectNothingLeft(r);
    });

    it('an endless loop times out', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'endless-loop.sh', { timeoutMs: 800 }));
      expect(r.failure).toBe('timeout');
      expect(r.message).toMatch(/^endless-loop did not finish within 800 ms and was stopped\./);
      expect(r.durationMs).toBeGreaterThanOrEqual(790);
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('a stdout flood (yes) is stopped at 1 MiB', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'stdout-flood.sh'));
      expect(r.failure).toBe('limit');
      expect(r.limit).toBe('stdout');
      expect(r.message).toMatch(/^stdout-flood wrote more than 1 MiB to stdout and was stopped/);
      expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(1 << 20);
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('one huge line is stopped at 1 MiB too', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'huge-line.sh'));
      expect(r.failure).toBe('limit');
      expect(r.limit).toBe('stdout');
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('an object just under the cap is accepted', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = await run(mode, 'big-valid.sh');
      expect(r.ok, r.ok ? '' : r.message).toBe(true);
      if (r.ok) expect((r.output.data as string).length).toBe(1_000_000);
      expectNothingLeft(r);
    });

    it('a stderr flood with exit 1 is a crash carrying only the last 500 characters', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'stderr-flood.sh', { timeoutMs: 30_000 }));
      expect(r.failure).toBe('crash');
      expect(r.exitCode).toBe(1);
      expect(r.stderr.length).toBeLessThanOrEqual(500);
      expect(r.stderr).toMatch(/stderr flood line\nthe last words\n$/);
      expect(r.message).toMatch(/^stderr-flood exited with code 1: .*the last words$/s);
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('non-JSON stdout is bad output', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'not-json.sh'));
      expect(r.failure).toBe('bad_output');
      expect(r.message).toMatch(/^not-json must print exactly one JSON object on stdout; it printed text that is not JSON \("hello, this is not JSON/);
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('valid JSON followed by garbage is bad output that says so', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'json-then-garbage.sh'));
      expect(r.failure).toBe('bad_output');
      expect(r.message).toBe('json-then-garbage printed a JSON object followed by more output at byte 17 ("DEBUG: and then some garbage "); a tool must print exactly one JSON object on stdout and nothing else — write logs to stderr.');
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('a JSON array is bad output', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'array.sh'));
      expect(r.failure).toBe('bad_output');
      expect(r.message).toBe('array must print a JSON object on stdout; it printed a JSON array.');
      expectNothingLeft(r);
    });

    it('stdin never read: a 4 MiB input does not block the call', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = await run(mode, 'stdin-never-read.sh', { input: BIG_INPUT });
      expect(r.ok, r.ok ? '' : r.message).toBe(true);
      if (r.ok) expect(r.output).toEqual({ ignored: 'stdin' });
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('exit before reading stdin: EPIPE is harmless, printing nothing is bad output', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'exit-before-stdin.sh', { input: BIG_INPUT }));
      expect(r.failure).toBe('bad_output');
      expect(r.message).toBe('exit-before-stdin printed nothing on stdout; a tool must print exactly one JSON object.');
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('a backgrounded child does not outlive the call', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const m = marker();
      const r = await run(mode, 'backgrounded-child.sh', { env: { GH_MARKER: m } });
      expect(r.ok, r.ok ? '' : r.message).toBe(true);
      expect(liveWithArgv(['sleep', m])).toEqual([]);
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    if (!mode.name.startsWith('bare')) {
      it('a child that leaves the process group (setsid) is still killed', async (ctx) => {
        skipUnless(ctx, mode.missing);
        // Only a pids cgroup or the sandbox's PID namespace can find it (bare runs cannot: docs/sandbox.md).
        skipUnless(ctx, mode.name === 'limits' && !cgroup.available ? `no pids cgroup: ${cgroup.reason}` : null);
        const m = marker();
        const r = await run(mode, 'setsid-child.sh', { env: { GH_MARKER: m } });
        expect(r.ok, r.ok ? '' : r.message).toBe(true);
        expect(liveWithArgv(['sleep', m])).toEqual([]);
        expectNothingLeft(r);
      });
    }

    it('a process that ignores TERM is killed after the grace', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'ignores-term.sh', { timeoutMs: 600 }));
      expect(r.failure).toBe('timeout');
      if (mode.sandboxed) {
        // bwrap itself dies on TERM and takes the whole PID namespace with it: no grace needed.
        expect(r.message).toMatch(/^ignores-term did not finish within 600 ms and was stopped\./);
      } else {
        expect(r.message).toBe('ignores-term did not finish within 600 ms and was stopped. It ignored SIGTERM and was killed after 500 ms.');
        expect(r.signal).toBe('SIGKILL');
        expect(r.durationMs).toBeGreaterThanOrEqual(1090);
      }
      expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('a crash is a tool error naming the plugin, with its stderr', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'crash.sh'));
      expect(r.failure).toBe('crash');
      expect(r.exitCode).toBe(3);
      expect(r.message).toBe('crash exited with code 3: something went wrong: disk on fire');
      expectNothingLeft(r);
    });

    it('a missing command cannot be spawned', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'no-such-plugin.sh'));
      expect(r.failure).toBe('spawn');
      expect(r.message).toMatch(/^no-such-plugin.*(ENOENT|No such file)/);
      if (r.pid !== null) expectNothingLeft(r);
      await expectStillAnswering(mode);
    });

    it('a command that is not executable cannot be spawned', async (ctx) => {
      skipUnless(ctx, mode.missing);
      const r = failed(await run(mode, 'not-executable.sh'));
      expect(r.failure).toBe('spawn');
      expect(r.message).toMatch(/^not-executable.*(EACCES|Permission denied)/);
      if (r.pid !== null) expectNothingLeft(r);
    });

    if (!mode.name.startsWith('bare')) {
      it('a fork bomb is held at the process limit, ends as a limit failure, and leaves nothing', async (ctx) => {
        skipUnless(ctx, mode.missing);
        const support = processLimitSupport(mode.sandboxed);
        // Never run a fork bomb without a process limit: it would take the machine down.
        skipUnless(ctx, support.kind === 'none' ? support.detail : null);
        const LIMIT = 64;
        let pgid = 0;
        let peak = 0;
        let forkedAtPeak: Promise<number | null> | null = null;
        const sampler = setInterval(() => {
          if (!pgid) return;
          const n = liveInGroup(pgid).length;
          peak = Math.max(peak, n);
          // Once the bomb is at its limit, the rest of the machine must still be able to start a process.
          if (!forkedAtPeak && (cgroup.available ? cgroupLimitHit() : n >= LIMIT / 2)) forkedAtPeak = once(spawn('/bin/true'), 'exit').then(([code]) => code as number | null);
        }, 25);
        let r: OneShotResult;
        try {
          r = await run(mode, 'fork-bomb.sh', { timeoutMs: 3000, limits: { processes: LIMIT }, onSpawn: (pid) => (pgid = pid) });
        } finally {
          clearInterval(sampler);
        }
        const f = failed(r);
        if (support.kind === 'cgroup') {
          expect(f.failure).toBe('limit');
          expect(f.limit).toBe('processes');
          expect(f.message).toMatch(/^fork-bomb reached its process limit \(a fork was refused\) and was stopped, with every process it started\. fork-bomb did not finish within 3 s/);
          expect(peak).toBeLessThanOrEqual(LIMIT);
        } else {
          // RLIMIT_NPROC cannot report that it was hit: the bomb is held until the timeout.
          expect(f.failure).toBe('timeout');
        }
        expect(forkedAtPeak, `the bomb never reached its limit (peak ${peak} live processes)`).not.toBeNull();
        expect(await forkedAtPeak).toBe(0);
        expectNothingLeft(r);
        await expectStillAnswering(mode);
      });

      it('a fork bomb whose main process exits at once leaves nothing behind', async (ctx) => {
        skipUnless(ctx, mode.missing);
        const support = processLimitSupport(mode.sandboxed);
        skipUnless(ctx, support.kind === 'none' ? support.detail : null);
        const r = failed(await run(mode, 'fork-bomb-exit.sh', { timeoutMs: 3000, limits: { processes: 64 } }));
        // The main shell exits 0 with no output at once; whether the bomb reached the limit
        // before the group was killed is a race, and both outcomes are documented.
        expect(['bad_output', 'limit']).toContain(r.failure);
        if (r.failure === 'limit') expect(r.limit).toBe('processes');
        expectNothingLeft(r);
        await expectStillAnswering(mode);
      });

      it('CPU seconds are limited (SIGXCPU)', async (ctx) => {
        skipUnless(ctx, mode.missing);
        const r = failed(await run(mode, 'cpu-burn.sh', { timeoutMs: 15_000, limits: { cpuSecs: 1 } }));
        expect(r.failure).toBe('limit');
        expect(r.limit).toBe('cpu');
        expect(r.message).toBe('cpu-burn used up its CPU time limit and was stopped.');
        expect(r.durationMs).toBeLessThan(10_000);
        expectNothingLeft(r);
      });

      it('file size is limited (SIGXFSZ)', async (ctx) => {
        skipUnless(ctx, mode.missing);
        const dir = tempDir();
        const r = failed(await run(mode, 'big-file.sh', { limits: { fileSizeBytes: 1 << 20 }, env: { GH_DIR: dir }, write: [dir] }));
        expect(r.failure).toBe('limit');
        expect(r.limit).toBe('file_size');
        expectNothingLeft(r);
      });
    }
  });
}

describe('bad output messages', () => {
  it.each([
    ['', 'p printed nothing on stdout; a tool must print exactly one JSON object.'],
    ['  \n', 'p printed nothing on stdout; a tool must print exactly one JSON object.'],
    ['{"a":1}{"b":2}', 'p printed a JSON object followed by more output at byte 7 ("{\\"b\\":2}"); a tool must print exactly one JSON object on stdout and nothing else — write logs to stderr.'],
    ['{"s":"}{"} x', 'p printed a JSON object followed by more output at byte 10 ("x"); a tool must print exactly one JSON object on stdout and nothing else — write logs to stderr.'],
    ['[1] 2', 'p printed a JSON array followed by more output at byte 3 ("2"); a tool must print exactly one JSON object on stdout and nothing else — write logs to stderr.'],
    ['42', 'p must print a JSON object on stdout; it printed a JSON number.'],
    ['null', 'p must print a JSON object on stdout; it printed JSON null.'],
  ])('%j', (stdout, message) => {
    const r = parseOutput('p', stdout);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toBe(message);
  });

  it('accepts one object with surrounding whitespace', () => {
    expect(parseOutput('p', '\n {"a":[1,{"b":"}"}]} \n')).toEqual({ ok: true, value: { a: [1, { b: '}' }] } });
  });
});

describe('per-plugin concurrency cap', () => {
  let server: Server;
  let port = 0;
  const held = new Map<string, ServerResponse>();
  const arrivals: string[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '?';
      held.set(id, res);
      arrivals.push(id);
      for (const w of [...waiters]) if (arrivals.length >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const res of held.values()) res.end();
    server.close();
    await once(server, 'close');
  });

  const arrived = (n: number) => (arrivals.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })));
  const releaseCall = (id: string) => {
    held.get(id)!.end('go');
    held.delete(id);
  };

  it('runs at most `limit` calls of a plugin at once; the rest start in FIFO order', async () => {
    arrivals.length = 0;
    const limiter = new ConcurrencyLimiter({ limit: 2, maxQueue: 8 });
    const call = (id: string) =>
      runOneShot({ plugin: 'gate', command: join(HOSTILE, 'gate.mjs'), args: [], cwd: HOSTILE, input: { port, id }, timeoutMs: 15_000, env: scrubEnv(process.env, []), concurrency: limiter });
    const calls = ['a', 'b', 'c', 'd', 'e'].map((id) => call(id));
    await arrived(2);
    expect(limiter.stats('gate')).toEqual({ running: 2, waiting: 3 });
    expect([...arrivals].sort()).toEqual(['a', 'b']);
    // Another plugin is not held up by this one's queue.
    const other = await runOneShot({ plugin: 'ok', command: join(HOSTILE, 'ok.sh'), args: [], cwd: HOSTILE, input: {}, timeoutMs: 5000, env: scrubEnv(process.env, []), concurrency: limiter });
    expect(other.ok).toBe(true);
    releaseCall('a');
    await arrived(3);
    expect(arrivals[2]).toBe('c');
    releaseCall('b');
    await arrived(4);
    expect(arrivals[3]).toBe('d');
    releaseCall('c');
    await arrived(5);
    expect(arrivals[4]).toBe('e');
    releaseCall('d');
    releaseCall('e');
    const results = await Promise.all(calls);
    expect(results.map((r) => (r.ok ? r.output.id : r.message))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(results[4]!.queuedMs).toBeGreaterThan(0);
    expect(limiter.stats('gate')).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a call at once when the queue is full', async () => {
    arrivals.length = 0;
    const limiter = new ConcurrencyLimiter({ limit: 1, maxQueue: 1 });
    const call = (id: string) =>
      runOneShot({ plugin: 'gate', command: join(HOSTILE, 'gate.mjs'), args: [], cwd: HOSTILE, input: { port, id }, timeoutMs: 15_000, env: scrubEnv(process.env, []), concurrency: limiter });
    const first = call('x');
    const second = call('y');
    await arrived(1);
    const third = failed(await call('z'));
    expect(third.failure).toBe('limit');
    expect(third.limit).toBe('queue');
    expect(third.pid).toBeNull();
    expect(third.message).toBe('gate already has 1 calls running and 1 waiting, the most allowed; this call was refused. Try again when earlier calls finish, or raise the plugin\'s concurrency limit.');
    releaseCall('x');
    await arrived(2);
    releaseCall('y');
    expect((await first).ok).toBe(true);
    expect((await second).ok).toBe(true);
  });

  it('the limiter alone: FIFO hand-over, release is idempotent, QueueFullError', async () => {
    const l = new ConcurrencyLimiter({ limit: 1, maxQueue: 2 });
    const order: number[] = [];
    const r1 = await l.acquire('k');
    const p2 = l.acquire('k').then((r) => (order.push(2), r));
    const p3 = l.acquire('k').then((r) => (order.push(3), r));
    await expect(l.acquire('k')).rejects.toBeInstanceOf(QueueFullError);
    r1();
    r1();
    const r2 = await p2;
    expect(l.stats('k')).toEqual({ running: 1, waiting: 1 });
    r2();
    (await p3)();
    expect(order).toEqual([2, 3]);
    expect(l.stats('k')).toEqual({ running: 0, waiting: 0 });
  });
});
