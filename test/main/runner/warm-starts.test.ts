// Warm starts (main/runner/warm-starts.ts): a one-shot call takes the process started for it during
// the call before, sandbox and all, and the tool's code runs only once the call releases it. Real
// bwrap, real processes, the host's fork thread; every wait is on an event seen in /proc.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

/** A tool called once, and the spare started for its next call, waiting at its gate. */
async function spareAtGate(): Promise<{ t: ReturnType<typeof tool>; warm: WarmStarts; pgid: number }> {
  const t = tool();
  const warm = pool();
  const first = await runOneShot(specOf(t, warm));
  expect(first.ok, first.ok ? '' : first.message).toBe(true);
  const pgid = await until('the spare to start', () => warm.pids()[0] ?? null);
  await until('the spare to wait at its gate', () => gateWaiting(pgid));
  return { t, warm, pgid };
}

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

  it('calls at once: each runs once (a spare still queued for the fork thread, or still being set up, is not taken: its box cannot be looked at yet)', async () => {
    const t = tool();
    const warm = pool();
    const answers = await Promise.all([1, 2, 3, 4].map((n) => runOneShot(specOf(t, warm, [t.seen], { input: { n } }))));
    for (const [i, r] of answers.entries()) expect(r.ok && r.output, r.ok ? '' : r.message).toEqual({ received: { n: i + 1 } });
    expect(runs(t.seen)).toBe(4);
  });

  it('a folder replaced at the same path after the spare was built (a rebuilt copy, a swapped read path) is not what the call sees: it starts cold', async () => {
    const { t, warm, pgid: stale } = await spareAtGate();
    // The same path, another folder: what a cold start would bind now.
    renameSync(t.dir, `${t.dir}.old`);
    mkdirSync(t.dir);
    writeFileSync(t.command, '#!/bin/sh\ncat > /dev/null\necho \'{"folder": "new"}\'\n', { mode: 0o755 });
    const r = await runOneShot(specOf(t, warm));
    expect(r.ok && r.output, r.ok ? '' : r.message).toEqual({ folder: 'new' });
    expect(r.pid).not.toBe(stale);
    await until('the stale spare to end', () => liveInGroup(stale).length === 0);
  });

  it('a read path swapped for another folder while bwrap built the spare, and swapped back since, is not what the call sees: it starts cold', async () => {
    const t = tool();
    const warm = pool();
    const root = dirname(t.dir);
    const data = join(root, 'data');
    const other = join(root, 'other');
    for (const [dir, which] of [[data, 'granted'], [other, 'elsewhere']] as const) {
      mkdirSync(dir);
      writeFileSync(join(dir, 'which'), which);
    }
    writeFileSync(t.command, `#!/bin/sh\ncat > /dev/null\nprintf '{"which": "%s"}\\n' "$(cat ${data}/which)"\n`, { mode: 0o755 });
    const spec = () => ({ ...specOf(t, warm), wrap: containWrap({ detection: detection as Extract<typeof detection, { kind: 'bwrap' }>, profile: profileFromManifest({ permissions: { read: [data], write: [t.seen], hosts: [], env: [] } }, t.dir) }, { timeoutMs: 10_000 }) });
    // The call works out its key now, with `data` the granted folder; its spare is started on the
    // fork thread after this turn, so bwrap builds the spare's box with `data` the other one.
    const first = runOneShot(spec());
    renameSync(data, `${data}.granted`);
    renameSync(other, data);
    expect((await first).ok).toBe(true);
    const pgid = await until('the spare to start', () => warm.pids()[0] ?? null);
    const gate = await until('the spare to wait at its gate', () => gateWaiting(pgid));
    expect(readFileSync(`/proc/${gate}/root${data}/which`, 'utf8')).toBe('elsewhere');
    // Swapped back: the path is what it was when the key was made.
    renameSync(data, other);
    renameSync(`${data}.granted`, data);
    const r = await runOneShot(spec());
    expect(r.ok && r.output, r.ok ? '' : r.message).toEqual({ which: 'granted' });
    expect(r.pid).not.toBe(pgid);
    await until('the stale spare to end', () => liveInGroup(pgid).length === 0);
  });

  it('what a tool started warm writes on stderr comes back as it wrote it, without the gate\'s own line', async () => {
    const { t, warm, pgid } = await spareAtGate();
    writeFileSync(t.command, '#!/bin/sh\ncat > /dev/null\nprintf "disk on fire\\n" >&2\necho \'{"ok": 1}\'\n', { mode: 0o755 });
    const r = await runOneShot(specOf(t, warm));
    expect(r.ok && r.output, r.ok ? '' : r.message).toEqual({ ok: 1 });
    expect(r.pid).toBe(pgid);
    expect(r.stderr).toBe('disk on fire\n');
  });

  it('a spare stuck in its set-up is waited for only briefly: the call starts cold', async () => {
    const t = tool();
    const warm = new WarmStarts({ readyMs: 100 });
    pools.push(warm);
    // Its set-up never ends (the spare's launcher sleeps before it gets to the gate); a cold start's does.
    const wrap: OneShotSpec['wrap'] = Object.assign(
      (command: string, args: string[]) => (args[2] === 'gatehouse-gate' ? { command: '/bin/sh', args: ['-c', 'sleep 60; exec "$@"', 'stuck', command, ...args], sameBox: () => true } : { command, args, sameBox: () => true }),
      { warmKey: () => 'stuck' },
    );
    const first = await runOneShot(specOf(t, warm, [t.seen], { wrap }));
    expect(first.ok, first.ok ? '' : first.message).toBe(true);
    const stuck = await until('the spare to start', () => warm.pids()[0] ?? null);
    const r = await runOneShot(specOf(t, warm, [t.seen], { wrap, input: { n: 2 } }));
    expect(r.ok && r.output, r.ok ? '' : r.message).toEqual({ received: { n: 2 } });
    expect(r.pid).not.toBe(stuck);
    await until('the stuck spare to be let go', () => liveInGroup(stuck).length === 0);
  });

  it('a wrap that could not contain the spare as planned (no cgroup made) keeps no spare', async () => {
    const t = tool();
    const warm = pool();
    const wrap: OneShotSpec['wrap'] = Object.assign((command: string, args: string[]) => ({ command, args, degraded: true }), { warmKey: () => 'degraded' });
    const r = await runOneShot(specOf(t, warm, [t.seen], { wrap }));
    expect(r.ok, r.ok ? '' : r.message).toBe(true);
    expect(warm.pids()).toEqual([]);
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

  // The host runs each tool of a plugin with its own GATEHOUSE_TOOL, so two tools of one plugin
  // have two keys. Only one shape per plugin was kept: each call let the other tool's spare go,
  // and calls alternating between two tools (or made at once) all started cold, each also
  // starting a sandbox for nothing.
  it('two tools of one plugin called in turn each take the spare started for them', async () => {
    const t = tool();
    const warm = pool();
    const env = (tool: string) => ({ ...scrubEnv(process.env, []), GATEHOUSE_TOOL: tool });
    const call = (tool: string) => runOneShot(specOf(t, warm, [t.seen], { env: env(tool) }));
    expect((await call('a')).ok).toBe(true);
    expect((await call('b')).ok).toBe(true);
    expect(warm.pids()).toHaveLength(2);
    const spares = await until('both spares to start', () => (warm.pids().every((p) => p !== null) ? (warm.pids() as number[]) : null));
    for (const p of spares) await until('the spare to wait at its gate', () => gateWaiting(p));
    const [a, b] = [await call('a'), await call('b')];
    expect([a.pid, b.pid]).toEqual(spares);
    expect(runs(t.seen)).toBe(4);
  });

  // Its exit comes back from the fork thread a moment after the kernel has it dead: a call in
  // between took it, and failed as the plugin "killed by SIGKILL" though nothing of it had run.
  it.each([
    ['its whole group', (pgid: number) => process.kill(-pgid, 'SIGKILL')],
    ['its gate alone', (_pgid: number, gate: number) => process.kill(gate, 'SIGKILL')],
  ])('a spare killed while it waits (%s: an operator, the OOM killer) is not taken: the call starts cold and is answered', async (_what, kill) => {
    const t = tool();
    const warm = pool();
    expect((await runOneShot(specOf(t, warm))).ok).toBe(true);
    const pgid = await until('the spare to start', () => warm.pids()[0] ?? null);
    const gate = await until('the spare to wait at its gate', () => gateWaiting(pgid));
    kill(pgid, gate);
    await until('the spare to be gone', () => liveInGroup(pgid).length === 0);
    const r = await runOneShot(specOf(t, warm, [t.seen], { input: { n: 2 } }));
    expect(r.ok && r.output, r.ok ? '' : r.message).toEqual({ received: { n: 2 } });
    expect(r.pid).not.toBe(pgid);
  });

  // The gate is a shell, and a shell sets variables of its own that its exec passes on (dash:
  // PWD, to the folder it finds itself in). bwrap sets PWD to its --chdir folder too, so cold and
  // warm agree; checked here with the host's /bin/sh (bash as sh would also pass on a SHLVL).
  it.each([
    ['as the call gives it', {}],
    ['with a PWD and SHLVL of its own', { PWD: '/somewhere/else', SHLVL: '7' }],
  ])('the tool started warm gets exactly the environment it gets cold (%s)', async (_how, extra) => {
    const t = tool();
    writeFileSync(t.command, `#!/bin/sh\ncat >/dev/null\nprintf '{"env": "%s"}\\n' "$(env | LC_ALL=C sort | tr '\\n' ' ')"\n`);
    const warm = pool();
    const env = { ...scrubEnv(process.env, []), ...extra };
    const cold = await runOneShot(specOf(t, warm, [t.seen], { env }));
    expect(cold.ok, cold.ok ? '' : cold.message).toBe(true);
    const pgid = await until('the spare to start', () => warm.pids()[0] ?? null);
    await until('the spare to wait at its gate', () => gateWaiting(pgid));
    const warmed = await runOneShot(specOf(t, warm, [t.seen], { env }));
    expect(warmed.pid).toBe(pgid);
    expect(warmed.ok && warmed.output).toEqual(cold.ok && cold.output);
  });

  it('a spare let go ends having run nothing, and its cgroup goes with it', async () => {
    const { t, warm, pgid } = await spareAtGate();
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
    const { t, warm, pgid: stale } = await spareAtGate();
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

  it('an adopted spare that runs past its timeout is stopped with everything it started, its cgroup too', async () => {
    const { t, warm, pgid } = await spareAtGate();
    const cgroups = listCgroupsOf(pgid);
    // Now it hangs, with a child that left the group (setsid) and one that stayed.
    writeFileSync(t.command, `#!/bin/sh\ncat >/dev/null\necho run >> ${t.seen}/runs\nsetsid sleep 1000 &\nsleep 1000 &\nwait\n`);
    const r = await runOneShot(specOf(t, warm, [t.seen], { timeoutMs: 300, killGraceMs: 50 }));
    expect(r.pid).toBe(pgid);
    expect(!r.ok && r.failure, r.ok ? '' : r.message).toBe('timeout');
    expect(runs(t.seen)).toBe(2);
    expect(liveInGroup(pgid)).toEqual([]);
    expect(cgroups.filter((c) => existsSync(c))).toEqual([]);
  });

  // bwrap binds a granted path as it finds it when the spare starts; the key names the path. A
  // path that now leads elsewhere (a link pointed at another folder, a folder replaced by another)
  // must not be served by the spare that still holds the old one: a call after the change reads
  // what a cold start would, the folder the path leads to now.
  it.each([
    {
      how: 'a link pointed at another folder',
      make: (path: string, a: string) => symlinkSync(a, path),
      change: (path: string, b: string) => {
        rmSync(path);
        symlinkSync(b, path);
      },
    },
    {
      how: 'a folder made since (bwrap skipped it)',
      before: '',
      make: () => {},
      change: (path: string, b: string) => renameSync(b, path),
    },
    {
      how: 'a folder replaced by another',
      make: (path: string, a: string) => renameSync(a, path),
      change: (path: string, b: string) => {
        renameSync(path, `${path}.old`);
        renameSync(b, path);
      },
    },
  ])('a granted path changed since the spare started ($how): the call sees what it leads to now', async ({ before = 'a', make, change }: { before?: string; make: (path: string, a: string) => void; change: (path: string, b: string) => void }) => {
    if (detection.kind !== 'bwrap') throw new Error('no bwrap');
    const t = tool();
    const root = join(t.dir, '..');
    const [a, b] = ['a', 'b'].map((n) => {
      const d = join(root, n);
      mkdirSync(d);
      writeFileSync(join(d, 'file'), n);
      return d;
    }) as [string, string];
    const path = join(root, 'granted');
    make(path, a);
    writeFileSync(t.command, `#!/bin/sh\ncat >/dev/null\nprintf '{"read": "%s"}\\n' "$(cat ${path}/file 2>/dev/null)"\n`);
    const warm = pool();
    const profile = () => profileFromManifest({ permissions: { read: [path], write: [], hosts: [], env: [] } }, t.dir);
    const spec = () => ({ ...specOf(t, warm), wrap: containWrap({ detection, profile: profile() }, { timeoutMs: 10_000 }) });
    const first = await runOneShot(spec());
    expect(first.ok && first.output, first.ok ? '' : first.message).toEqual({ read: before });
    const pgid = await until('the spare to start', () => warm.pids()[0] ?? null);
    await until('the spare to wait at its gate', () => gateWaiting(pgid));
    change(path, b);
    const second = await runOneShot(spec());
    expect(second.ok && second.output, second.ok ? '' : second.message).toEqual({ read: 'b' });
    expect(second.pid).not.toBe(pgid);
  });

  // A tool whose interpreter is not in its sandbox (a #! into a folder it is not given) cannot be
  // exec'd. Cold, bwrap says so ("bwrap: execvp …"): a spawn failure. Warm, the gate's `exec` said
  // it in the shell's words and exited 127, and the call came back as the plugin's crash (which
  // the breaker and the metrics count as its fault). Here the tool's file is changed in place
  // after a call that worked (a plugin run from its own folder): the key holds its folder, not
  // its contents, so the spare is taken, as it should be.
  it('a tool that cannot be exec\'d in its sandbox fails as a spawn failure, warm as cold', async () => {
    const { t, warm, pgid } = await spareAtGate();
    writeFileSync(t.command, '#!/nonexistent/interpreter\n');
    const warmed = await runOneShot(specOf(t, warm));
    expect(warmed.pid).toBe(pgid);
    expect(!warmed.ok && warmed.failure, warmed.ok ? '' : warmed.message).toBe('spawn');
    expect(!warmed.ok && warmed.message).toMatch(/^warm could not be started in its sandbox: .*\/run\.sh/);
    // As cold (no spare after a failure).
    expect(warm.pids()).toEqual([]);
    const cold = await runOneShot(specOf(t, warm));
    expect(!cold.ok && cold.failure, cold.ok ? '' : cold.message).toBe('spawn');
  });

  // A host exits with a spare waiting, by itself or right after closing (the serve and Electron
  // shells call process.exit / app.exit as soon as host.close() resolves). Its processes go with
  // it either way. Its pids cgroup was left behind by every host that stopped (its removal waited
  // for the spare's close event, which came after the exit), for the next start's sweep
  // (limits.ts cleanStale): close() resolves once it is gone, and an exit removes what is left.
  it.each([
    ['exits by itself', ''],
    ['closes its warm starts and exits at once', 'await warm.close();\nprocess.exit(0);'],
    ['lets its spare go and exits at once', 'void warm.close();\nprocess.exit(0);'],
  ])('a process holding a spare %s: the spare keeps nothing running and goes with it, its cgroup too', async (_how, end) => {
    const t = tool();
    // A bundle of its own, as the CLI's: under node_modules (its packages resolve), with the fork
    // thread's worker where a bundle looks for it (entry-file.ts).
    const root = mkdtempSync(join(fileURLToPath(new URL('../../../node_modules/.cache/', import.meta.url)), 'gatehouse-warm-exit-'));
    mkdirSync(join(root, 'main'));
    const forkThreadSource = fileURLToPath(new URL('../../../main/pty/fork-thread.ts', import.meta.url));
    copyFileSync(entryFile({ name: 'pty-fork-worker', ext: '.cjs', callerUrl: pathToFileURL(forkThreadSource).href, what: 'the fork thread', packagesExternal: true }), join(root, 'main', 'pty-fork-worker.cjs'));
    // And the spawner process's, which starts the host's plugin processes (the spare's among them).
    const spawnerSource = fileURLToPath(new URL('../../../main/pty/spawner.ts', import.meta.url));
    copyFileSync(entryFile({ name: 'spawner-process', ext: '.cjs', callerUrl: pathToFileURL(spawnerSource).href, what: 'the spawner process', packagesExternal: true }), join(root, 'main', 'spawner-process.cjs'));
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
    // Its cgroup, once its launcher has joined one (the folder under the pids hierarchy).
    const { readFileSync } = await import('node:fs');
    let cgroups: string[] = [];
    for (;;) {
      try {
        cgroups = readFileSync('/proc/' + pid + '/cgroup', 'utf8').split('\\n').flatMap((l) => /^\\d+:(?:pids)?:.*\\/(gatehouse-\\d+-\\d+)$/.exec(l)?.[1] ?? []);
      } catch {
        cgroups = [];
      }
      if (cgroups.length > 0) break;
      await new Promise((res) => setImmediate(res));
    }
    console.log(JSON.stringify({ ok: r.ok, spare: pid, cgroups }));
    break;
  }
  await new Promise((res) => setImmediate(res));
}
${end}
`,
    );
    buildSync({ entryPoints: [join(root, 'holder.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile: join(root, 'bin', 'holder.mjs'), logLevel: 'silent' });
    const child = spawn(process.execPath, [join(root, 'bin', 'holder.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const cg = detectPidsCgroup();
    // Looked at the moment the host is gone (nothing of its own can remove them after that).
    const [code, left] = await new Promise<[number | null, string[]]>((resolve) =>
      child.on('exit', (c) => {
        const named = (JSON.parse(out || '{}') as { cgroups?: string[] }).cgroups ?? [];
        resolve([c, cg.available ? named.filter((n) => existsSync(join(cg.base, n))) : []]);
      }),
    );
    rmSync(root, { recursive: true, force: true });
    expect(code).toBe(0);
    const said = JSON.parse(out) as { ok: boolean; spare: number; cgroups: string[] };
    expect(said.ok).toBe(true);
    await until('the spare to end with its host', () => liveInGroup(said.spare).length === 0);
    expect(runs(t.seen)).toBe(1);
    // Nobody is left to remove them once the host is gone: they must be gone when it is.
    expect(said.cgroups.length > 0 || !cg.available).toBe(true);
    expect(left, 'cgroups left behind by the host').toEqual([]);
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
