// Tools run below the host's priority (main/pty/tool-priority.ts): every way a tool process is
// started is asked, with real processes, what nice value the tool runs at (coreutils' `nice`
// prints it), and the host's own thread is checked to have kept its own.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { getPriority } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { ChildEvent, ChildRequest } from '../../../main/pty/child-io.js';
import { entryFile } from '../../../main/core/entry-file.js';
import { ForkThread } from '../../../main/pty/fork-thread.js';
import { createNodePtySpawn, type NodePtyProcess } from '../../../main/pty/node-pty-spawn.js';
import { killSession } from '../../../main/pty/process-tree.js';
import { isAlive } from '../../../main/core/proc-scan.js';
import { sharedChildStarter, Spawner, startSpawnerProcess } from '../../../main/pty/spawner.js';
import { removeStaleToolsGroups, toolNice, TOOL_NICE_STEP, TOOLS_CPU_SHARES, toolsCpuGroup, toolsCpuGroupWhy } from '../../../main/pty/tool-priority.js';
import { runOneShot, scrubEnv, type OneShotSpec } from '../../../main/runner/one-shot.js';
import { terminalOutput } from '../../support/terminal-output.js';

const forkThreadSource = fileURLToPath(new URL('../../../main/pty/fork-thread.ts', import.meta.url));
const workerFile = () => entryFile({ name: 'pty-fork-worker', ext: '.cjs', callerUrl: pathToFileURL(forkThreadSource).href, what: 'the fork thread', packagesExternal: true });

const NICE = ['/usr/bin/nice', '/bin/nice'].find((p) => existsSync(p));
if (!NICE) console.log('tool-priority.test.ts: no coreutils nice here to print a process’s nice value, so these cases are skipped');
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8', TERM: 'xterm-256color' };
const terminal = { cwd: '/', env, cols: 80, rows: 24 };
const PRINT_NICE = ['-c', `echo "nice=$(${NICE})"`];

/** A one-shot tool that answers with the nice value it runs at. */
function niceTool(more: Partial<OneShotSpec>): OneShotSpec {
  return { plugin: 'nice-probe', command: '/bin/sh', args: ['-c', `echo "{\\"nice\\": $(${NICE})}"`], cwd: '/', input: {}, timeoutMs: 10_000, env: scrubEnv(process.env, []), ...more };
}

async function niceOf(spec: OneShotSpec): Promise<number> {
  const r = await runOneShot(spec);
  if (!r.ok) throw new Error(`the probe tool failed: ${r.message}`);
  return (r.output as { nice: number }).nice;
}

/** A terminal's program: its output once it exited. */
function terminalText(p: NodePtyProcess): Promise<string> {
  const out = terminalOutput(p);
  return new Promise((resolve) => p.onExit(() => resolve(out.text())));
}

describe.runIf(process.platform === 'linux' && NICE !== undefined)('tool processes run below the host', () => {
  it(`a one-shot process started by the spawner process, and a terminal's program, run ${TOOL_NICE_STEP} nice levels below the host; the host's thread keeps its own`, async () => {
    const host = getPriority(0);
    const expected = toolNice(host);
    // The premise: there is a level below the host (one already at the lowest has none).
    expect(expected).toBeGreaterThan(host);

    expect(sharedChildStarter()).toBeInstanceOf(Spawner);
    expect(await niceOf(niceTool({}))).toBe(expected);
    // A terminal the host opened itself, its program started by the spawner (the default).
    expect(await terminalText(await createNodePtySpawn()('/bin/sh', PRINT_NICE, terminal))).toContain(`nice=${expected}`);

    expect(getPriority(0)).toBe(host);
    expect(getPriority(process.pid)).toBe(host);
  });

  it('without a spawner: a one-shot process and a terminal forked by the fork thread run below the host too, and only that thread was lowered', async () => {
    const host = getPriority(0);
    const thread = new ForkThread(killSession, workerFile());
    expect(await niceOf(niceTool({ forkThread: thread }))).toBe(toolNice(host));
    // node-pty's own fork of a terminal, on that thread.
    const p = await createNodePtySpawn({ forkThread: thread, starter: false })('/bin/sh', PRINT_NICE, terminal);
    expect(p.forkedOnThread).not.toBe(0);
    expect(await terminalText(p)).toContain(`nice=${toolNice(host)}`);
    // What the host forks on its own thread (forkThread: false, which only tests use) keeps its priority.
    expect(await niceOf(niceTool({ forkThread: false }))).toBe(host);
    expect(getPriority(0)).toBe(host);
  });

  it('the step stops at the lowest priority', () => {
    expect(toolNice(0)).toBe(TOOL_NICE_STEP);
    expect(toolNice(17)).toBe(19);
    expect(toolNice(19)).toBe(19);
  });
});

// Sessions (tool-priority.ts, "Sessions"): each tool leads a session of its own, and where the
// kernel groups tasks by session the session's own nice value is what the scheduler weighs
// first. Asked of real processes through /proc/<pid>/autogroup. Only as root: to other users the
// kernel grants ten changes a second across the machine, which parallel test files would share.
const autogroup = (pid: number | 'self'): { name: string; nice: number } | null => {
  try {
    const m = /^(\S+) nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'latin1'));
    return m ? { name: m[1]!, nice: Number(m[2]) } : null;
  } catch {
    return null;
  }
};
const sessionsGrouped = process.platform === 'linux' && autogroup('self') !== null;
const asRoot = process.getuid?.() === 0;
if (process.platform === 'linux' && !sessionsGrouped) console.log('tool-priority.test.ts: this kernel keeps no per-session groups (/proc/self/autogroup), so the session cases are skipped');
else if (process.platform === 'linux' && !asRoot) console.log('tool-priority.test.ts: not root, so the session cases are skipped (the kernel rate-limits other users’ changes machine-wide)');

/** A held one-shot process (it waits on stdin): its pid and how it was started, until `end`. */
async function heldChild(starter: { startChild(req: ChildRequest, emit: (e: ChildEvent) => void): Promise<{ release(input: string): void }> }) {
  let spawned!: (e: { pid: number; by: number }) => void;
  const started = new Promise<{ pid: number; by: number }>((resolve) => (spawned = resolve));
  let closed!: () => void;
  const done = new Promise<void>((resolve) => (closed = resolve));
  const io = await starter.startChild({ command: '/bin/sh', args: ['-c', 'read x'], cwd: '/', env, input: null, maxStdout: 1000, stderrTail: 100 }, (e) => {
    if (e.type === 'spawned') spawned(e);
    if (e.type === 'close' || e.type === 'failed' || e.type === 'lost') closed();
  });
  const { pid, by } = await started;
  return { pid, by, end: async () => (io.release('\n'), await done) };
}

describe.runIf(sessionsGrouped && asRoot)("tools' sessions run below the host's", () => {
  it("a one-shot process's session and a terminal program's session, started by the spawner, and the spawner's own session are at the tools' nice value; the host's session keeps its own", async () => {
    const host = autogroup('self')!;
    const expected = toolNice(getPriority(0));
    // Without the tools' cpu group, where sessions are what the scheduler weighs (the group's own cases are below).
    const starter = new Spawner(killSession, () => startSpawnerProcess(undefined, undefined, null));

    const held = await heldChild(starter);
    expect(autogroup(held.pid)?.name).not.toBe(host.name);
    await vi.waitFor(() => expect(autogroup(held.pid)?.nice).toBe(expected), { timeout: 5000 });
    // The spawner leads a session of its own, lowered when it started.
    expect(held.by).not.toBe(process.pid);
    expect(autogroup(held.by)?.nice).toBe(expected);
    await held.end();

    // A terminal's program gets its session from util-linux setsid after its exec: lowered once it has it.
    const p = await createNodePtySpawn({ starter })('/bin/sh', ['-c', 'read x'], terminal);
    await vi.waitFor(() => expect(autogroup(p.pid)?.nice).toBe(expected), { timeout: 5000 });
    expect(autogroup(p.pid)?.name).not.toBe(host.name);
    const exited = new Promise<void>((resolve) => p.onExit(() => resolve()));
    p.write('\r');
    await exited;

    expect(autogroup('self')).toEqual(host);
  });

  it("on the fork thread (a thread of the host): the tools' sessions are lowered, the host's own session is not", async () => {
    const host = autogroup('self')!;
    const thread = new ForkThread(killSession, workerFile(), null);
    const held = await heldChild(thread);
    await vi.waitFor(() => expect(autogroup(held.pid)?.nice).toBe(toolNice(getPriority(0))), { timeout: 5000 });
    await held.end();
    // A terminal forked by the thread, its program started there too.
    const p = await createNodePtySpawn({ forkThread: thread, starter: false })('/bin/sh', ['-c', 'read x'], terminal);
    await vi.waitFor(() => expect(autogroup(p.pid)?.nice).toBe(toolNice(getPriority(0))), { timeout: 5000 });
    const exited = new Promise<void>((resolve) => p.onExit(() => resolve()));
    p.write('\r');
    await exited;
    expect(autogroup('self')).toEqual(host);
  });
});

// The tools' cpu group (tool-priority.ts, "The tools' cpu group"): every tool of a host in one
// cgroup of the v1 cpu hierarchy with a low cpu.shares, so that all of them together weigh a
// ninth of the host's session rather than each one doing so. Asked of real processes through
// /proc/<pid>/cgroup. Where none can be made (not root, cgroup v2 only), skipped with the reason.
const group = process.platform === 'linux' ? toolsCpuGroup() : null;
if (process.platform === 'linux' && group === null) console.log(`tool-priority.test.ts: no tools' cpu group can be made here (${toolsCpuGroupWhy()}), so its cases are skipped`);
/** A process's cgroup in the v1 cpu hierarchy ("/gatehouse-tools-123"). */
const cpuCgroup = (pid: number | string): string | undefined => /^\d+:(?:[^:]*,)?cpu(?:,[^:]*)?:(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1];

describe.runIf(group !== null)("the tools' cpu group", () => {
  it("the spawner is in the host's tools' cpu group, and so is every process it starts, one-shot or a terminal's program; the host is not", async () => {
    const own = cpuCgroup('self');
    expect(basename(group!)).toBe(`gatehouse-tools-${process.pid}`);
    expect(readFileSync(join(group!, 'cpu.shares'), 'utf8').trim()).toBe(String(TOOLS_CPU_SHARES));
    expect(TOOLS_CPU_SHARES).toBe(110);
    const inGroup = cpuCgroup('self')!.replace(/\/$/, '') + `/gatehouse-tools-${process.pid}`;

    const starter = sharedChildStarter();
    expect(starter).toBeInstanceOf(Spawner);
    const held = await heldChild(starter!);
    expect(held.by).not.toBe(process.pid);
    expect(cpuCgroup(held.by)).toBe(inGroup);
    expect(cpuCgroup(held.pid)).toBe(inGroup);
    await held.end();

    const p = await createNodePtySpawn()('/bin/sh', ['-c', 'read x'], terminal);
    expect(cpuCgroup(p.pid)).toBe(inGroup);
    const exited = new Promise<void>((resolve) => p.onExit(() => resolve()));
    p.write('\r');
    await exited;

    expect(cpuCgroup('self')).toBe(own);
  });

  it("on the fork thread (a thread of the host): each tool it starts is moved into the group, the host stays out", async () => {
    const own = cpuCgroup('self');
    const inGroup = own!.replace(/\/$/, '') + `/gatehouse-tools-${process.pid}`;
    const thread = new ForkThread(killSession, workerFile());
    const held = await heldChild(thread);
    expect(cpuCgroup(held.pid)).toBe(inGroup);
    await held.end();
    const p = await createNodePtySpawn({ forkThread: thread, starter: false })('/bin/sh', ['-c', 'read x'], terminal);
    expect(cpuCgroup(p.pid)).toBe(inGroup);
    const exited = new Promise<void>((resolve) => p.onExit(() => resolve()));
    p.write('\r');
    await exited;
    expect(cpuCgroup('self')).toBe(own);
    // Every thread of the host, the fork thread among them (a v1 cgroup holds threads one by one).
    for (const task of readdirSync('/proc/self/task')) expect(cpuCgroup(`self/task/${task}`)).toBe(own);
  });

  it('a spawner whose host is gone kills what it started, leaves the group and removes it', async () => {
    const dir = join(dirname(group!), `gatehouse-tools-${process.pid}-leave`);
    mkdirSync(dir);
    try {
      let child!: ChildProcess;
      const spawner = new Spawner(killSession, () => (child = startSpawnerProcess(undefined, undefined, dir)));
      const held = await heldChild(spawner);
      const inDir = cpuCgroup('self')!.replace(/\/$/, '') + `/${basename(dir)}`;
      expect(cpuCgroup(held.by)).toBe(inDir);
      expect(cpuCgroup(held.pid)).toBe(inDir);
      // As when its host exits or crashes: its channel closes.
      child.disconnect();
      await vi.waitFor(() => expect(existsSync(dir)).toBe(false), { timeout: 5000 });
      expect(isAlive(held.pid)).toBe(false);
    } finally {
      if (existsSync(dir)) rmdirSync(dir);
    }
  });

  it("a group left by a host that is gone is removed when a host makes its own; a live host's stays", () => {
    const base = dirname(group!);
    const gone = spawnSync('/bin/true').pid!;
    mkdirSync(join(base, `gatehouse-tools-${gone}`));
    // A live process that is not this one: the test runner that started this worker.
    const live = join(base, `gatehouse-tools-${process.ppid}`);
    const madeLive = !existsSync(live);
    if (madeLive) mkdirSync(live);
    try {
      removeStaleToolsGroups(base);
      expect(existsSync(join(base, `gatehouse-tools-${gone}`))).toBe(false);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(group!)).toBe(true);
    } finally {
      if (madeLive) rmdirSync(live);
    }
  });
});
