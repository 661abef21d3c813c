// Warm starts (main/runner/warm-starts.ts): a one-shot call takes the process started for it during
// the call before, sandbox and all, and the tool's code runs only once the call releases it. Real
// bwrap, real processes, the host's fork thread; every wait is on an event seen in /proc.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { entryFile } from '../../../main/core/entry-file.js';
import { listProcesses } from '../../../main/core/proc-scan.js';
import { runOneShot, scrubEnv, type OneShotSpec } from '../../../main/runner/one-shot.js';
import { detectPidsCgroup } from '../../../main/runner/limits.js';
import { containWrap, detectSandbox, profileFromManifest } from '../../../main/runner/sandbox.js';
import { WarmStarts } from '../../../main/runner/warm-starts.js';
import { liveInGroup } from '../../support/processes.js';

const detection = detectSandbox();
const why = detection.kind === 'bwrap' ? null : detection.reason;
if (why) console.log(`warm-starts: no bwrap here (${why}); the sandboxed warm starts are not checked`);

/** A tool that notes each run in `seen` (a folder it may write), then answers with its input. */
function tool(): { dir: string; seen: string; command: string } {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-warm-'));
  const dir = join(root, 'tool');
  const seen = join(root, 'seen');
  mkdirSync(dir);
  mkdirSync(seen);
  const command = join(dir, 'run.sh');
  writeFileSync(command, `#!/bin/sh\ninput=$(cat)\necho run >> ${seen}/runs\nprintf '{"received": %s}\\n' "$input"\n`);
  chmodSync(command, 0o755);
  return { dir, seen, command };
}

function runs(seen: string): number {
  return existsSync(join(seen, 'runs')) ? readFileSync(join(seen, 'runs'), 'utf8').split('\n').filter(Boolean).length : 0;
}

function specOf(t: ReturnType<typeof tool>, warm: WarmStarts, write: string[] = [t.seen], more: Partial<OneShotSpec> = {}): OneShotSpec {
  if (detection.kind !== 'bwrap') throw new Error('no bwrap');
  const profile = profileFromManifest({ permissions: { read: [], write, hosts: [], env: [] } }, t.dir);
  return { plugin: 'warm', command: t.command, args: [], cwd: t.dir, input: { n: 1 }, timeoutMs: 10_000, env: scrubEnv(process.env, []), wrap: containWrap({ detection, profile }, { timeoutMs: 10_000 }), warm, ...more };
}

/** Waits for an event seen in /proc: until `test` holds, polling once a loop turn, failing after `ms`. */
async function until<T>(what: string, test: () => T | null | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = test();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

/** The gate shell of the spare whose group is `pgid`, once it waits for its line on stdin (a socket or a pipe). */
function gateWaiting(pgid: number): number | null {
  for (const p of listProcesses()) {
    if (p.pgid !== pgid || p.state !== 'S') continue;
    try {
      const argv = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
      const wchan = readFileSync(`/proc/${p.pid}/wchan`, 'utf8');
      if (argv[3] === 'gatehouse-gate' && /read/.test(wchan)) return p.pid;
    } catch {
      // It went meanwhile.
    }
  }
  return null;
}

const pools: WarmStarts[] = [];
const pool = () => {
  const w = new WarmStarts();
  pools.push(w);
  return w;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((w) => w.close()));
});

describe.skipIf(why !== null)('warm starts of one-shot calls', () => {
  it('the next call takes the process started during this one; its tool ran only once the call released it', async () => {
    const t = tool();
    const warm = pool();
    const first = await runOneShot(specOf(t, warm));
    expect(first.ok, first.ok ? '' : first.message).toBe(true);
    expect(runs(t.seen)).toBe(1);
    const [spare] = warm.pids();
    const pgid = await until('the spare to start', () => warm.pids()[0] ?? null);
    // The spare is in its sandbox, at its gate, and has run nothing.
    const gate = await until('the spare to wait at its gate', () => gateWaiting(pgid));
    expect(readlinkSync(`/proc/${gate}/ns/mnt`)).not.toBe(readlinkSync('/proc/self/ns/mnt'));
    expect(runs(t.seen)).toBe(1);
    const second = await runOneShot(specOf(t, warm, [t.seen], { input: { n: 2 } }));
    expect(second.ok, second.ok ? '' : second.message).toBe(true);
    expect(second.ok && second.output).toEqual({ received: { n: 2 } });
    expect(second.pid).toBe(spare ?? pgid);
    expect(second.sandboxed).toBe(true);
    expect(runs(t.seen)).toBe(2);
    // And it started one for the call after.
    expect(warm.pids()).toHaveLength(1);
    expect(warm.pids()[0]).not.toBe(pgid);
  });

  it('calls at once: one takes a spare not started yet (still queued for the fork thread), and each runs once', async () => {
    const t = tool();
    const warm = pool();
    const answers = await Promise.all([1, 2, 3, 4].map((n) => runOneShot(specOf(t, warm, [t.seen], { input: { n } }))));
    for (const [i, r] of answers.entries()) expect(r.ok && r.output, r.ok ? '' : r.message).toEqual({ received: { n: i + 1 } });
    expect(runs(t.seen)).toBe(4);
  });

  it('a folder replaced at the same path after the spare was built (a rebuilt copy, a swapped read path) is not what the call sees: it starts cold', async () => {
    const t = tool();
    const warm = pool();
    expect((await runOneShot(specOf(t, warm))).ok).toBe(true);
    const stale = await until('the spare to start', () => warm.pids()[0] ?? null);
    await until('the spare to wait at its gate', () => gateWaiting(stale));
    // The same path, another folder: what a cold start would bind now.
    renameSync(t.dir, `${t.dir}.old`);
    mkdirSync(t.dir);
    writeFileSync(t.command, '#!/bin/sh\ncat > /dev/null\necho \'{"folder": "new"}\'\n', { mode: 0o755 });
    const r = await runOneShot(specOf(t, warm));
    expect(r.ok && r.output, r.ok ? '' : r.message).toEqual({ folder: 'new' });
    expect(r.pid).not.toBe(stale);
    await until('the stale spare to end', () => liveInGroup(stale).length === 0);
  });

  it('after a call fails, no process is started ahead for the next until one succeeds', async () => {
    const t = tool();
    const warm = pool();
    const breaks = join(t.seen, 'fail');
    writeFileSync(t.command, `#!/bin/sh\ncat > /dev/null\n[ -e ${breaks} ] && exit 3\necho '{}'\n`, { mode: 0o755 });
    writeFileSync(breaks, '');
    const failed = await runOneShot(specOf(t, warm));
    expect(failed).toMatchObject({ ok: false, failure: 'crash' });
    expect(warm.pids()).toEqual([]);
    rmSync(breaks);
    expect((await runOneShot(specOf(t, warm))).ok).toBe(true);
    expect((await runOneShot(specOf(t, warm))).ok).toBe(true);
    expect(warm.pids()).toHaveLength(1);
  });

  it('a spare let go ends having run nothing, and its cgroup goes with it', async () => {
    const t = tool();
    const warm = pool();
    expect((await runOneShot(specOf(t, warm))).ok).toBe(true);
    const pgid = await until('the spare to start', () => warm.pids()[0] ?? null);
    await until('the spare to wait at its gate', () => gateWaiting(pgid));
    const cgroups = listCgroupsOf(pgid);
    if (detectPidsCgroup().available) expect(cgroups).toHaveLength(1);
    // Closing waits until it is gone, cgroup and all: a host that exits right after leaves nothing.
    await warm.close();
    expect(liveInGroup(pgid)).toEqual([]);
    expect(runs(t.seen)).toBe(1);
    expect(cgroups.filter((c) => existsSync(c))).toEqual([]);
    expect(warm.pids()).toEqual([]);
  });

  it('a call whose sandbox differs (another write grant) starts cold; the stale spare is let go unused', async () => {
    const t = tool();
    const warm = pool();
    expect((await runOneShot(specOf(t, warm))).ok).toBe(true);
    const stale = await until('the spare to start', () => warm.pids()[0] ?? null);
    await until('the spare to wait at its gate', () => gateWaiting(stale));
    const other = mkdtempSync(join(tmpdir(), 'gatehouse-warm-other-'));
    const r = await runOneShot(specOf(t, warm, [t.seen, other]));
    expect(r.ok, r.ok ? '' : r.message).toBe(true);
    expect(r.pid).not.toBe(stale);
    await until('the stale spare to end', () => liveInGroup(stale).length === 0);
    expect(runs(t.seen)).toBe(2);
  });

  it('a call whose environment a shell reads before the gate (BASH_ENV) is never started warm', async () => {
    const t = tool();
    const warm = pool();
    const r = await runOneShot(specOf(t, warm, [t.seen], { env: { ...scrubEnv(process.env, []), BASH_ENV: join(t.seen, 'rc') } }));
    expect(r.ok, r.ok ? '' : r.message).toBe(true);
    expect(warm.pids()).toEqual([]);
  });

  it('a process holding a spare exits by itself: the spare keeps nothing running and goes with it', async () => {
    const t = tool();
    // A bundle of its own, as the CLI's: under node_modules (its packages resolve), with the fork
    // thread's worker where a bundle looks for it (entry-file.ts).
    const root = mkdtempSync(join(fileURLToPath(new URL('../../../node_modules/.cache/', import.meta.url)), 'gatehouse-warm-exit-'));
    mkdirSync(join(root, 'main'));
    const forkThreadSource = fileURLToPath(new URL('../../../main/pty/fork-thread.ts', import.meta.url));
    copyFileSync(entryFile({ name: 'pty-fork-worker', ext: '.cjs', callerUrl: pathToFileURL(forkThreadSource).href, what: 'the fork thread', packagesExternal: true }), join(root, 'main', 'pty-fork-worker.cjs'));
    const src = fileURLToPath(new URL('../../../main/', import.meta.url));
    writeFileSync(
      join(root, 'holder.ts'),
      `import { runOneShot, scrubEnv } from '${src}runner/one-shot.ts';
import { containWrap, detectSandbox, profileFromManifest } from '${src}runner/sandbox.ts';
import { WarmStarts } from '${src}runner/warm-starts.ts';
const detection = detectSandbox();
if (detection.kind !== 'bwrap') throw new Error('no bwrap');
const profile = profileFromManifest({ permissions: { read: [], write: [${JSON.stringify(t.seen)}], hosts: [], env: [] } }, ${JSON.stringify(t.dir)});
const warm = new WarmStarts();
const r = await runOneShot({ plugin: 'warm', command: ${JSON.stringify(t.command)}, args: [], cwd: ${JSON.stringify(t.dir)}, input: {}, timeoutMs: 10000, env: scrubEnv(process.env, []), wrap: containWrap({ detection, profile }, { timeoutMs: 10000 }), warm });
for (;;) {
  const [pid] = warm.pids();
  if (pid) {
    console.log(JSON.stringify({ ok: r.ok, spare: pid }));
    break;
  }
  await new Promise((res) => setImmediate(res));
}
`,
    );
    buildSync({ entryPoints: [join(root, 'holder.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile: join(root, 'bin', 'holder.mjs'), logLevel: 'silent' });
    const child = spawn(process.execPath, [join(root, 'bin', 'holder.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    rmSync(root, { recursive: true, force: true });
    expect(code).toBe(0);
    const said = JSON.parse(out) as { ok: boolean; spare: number };
    expect(said.ok).toBe(true);
    await until('the spare to end with its host', () => liveInGroup(said.spare).length === 0);
    expect(runs(t.seen)).toBe(1);
  }, 30_000);
});

/** The cgroup folders holding the group's processes now. */
function listCgroupsOf(pgid: number): string[] {
  const out = new Set<string>();
  for (const pid of liveInGroup(pgid)) {
    try {
      for (const line of readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')) {
        const m = /^\d+:pids:(\/gatehouse-.*)$/.exec(line);
        if (m) out.add(join('/sys/fs/cgroup/pids', m[1]!));
      }
    } catch {
      // Gone.
    }
  }
  return [...out];
}
