// The processes Gatehouse starts for agents (one-shot plugin processes, the programs of terminals)
// run a few nice levels below the host. They are the agents' work; the host deciding on and
// recording every agent's calls is what each of those agents waits on. On a loaded machine at equal
// priority the host waited its turn behind them. Under 40 agents on 2 cores (npm run soak, 2 min,
// no faults, runs alternated): the host's event-loop lag p99 122-138 ms at equal priority, 103-108
// with the tools 5 below it; a hook's round trip p50 85-90 → 71-72 ms, p99 423 → 322-330 ms.
// Why 10, not 5: at 5 a tool still weighs a third of the host with the kernel's scheduler, and in
// that soak the short-lived tool processes (sandboxes, shells, commands) take ~60% of the CPU, so
// the host still queued behind them. At 10 (a ninth; also `nice`'s own default), six runs of each
// alternated (1.5 min): lag p99 median 108 → 89 ms and lower in each of the six pairs, a hook's
// round trip p50 63 → 44 ms, p99 336 → 319 ms, the same throughput. On an idle machine nice
// changes nothing: a tool still gets every core it can use.
//
// Where: the two threads that start those processes lower their own priority once, and every
// process they fork inherits it from its first instruction (no window in which a tool, or what it
// forks at once, runs at the host's priority, as renicing each one after its start would leave).
// - The spawner process (spawner-process.ts), a process of its own: on any system.
// - The fork thread (pty-fork-worker.ts), a thread of the host: only on Linux, where a nice value
//   belongs to a thread (setpriority(2), NOTES). Elsewhere it belongs to the whole process, and
//   lowering it there would lower the host; those processes keep the host's priority.
// Not here: the checkers (they decide calls, so they keep the host's priority) and a module
// plugin's child or the WebAssembly host process, which the host starts from its own thread.
//
// Sessions, and why a nice value alone was not enough. Every tool starts a session of its own (a
// one-shot process is detached, a terminal's program gets its terminal with setsid), and where
// the kernel groups tasks by session (CONFIG_SCHED_AUTOGROUP, on by default in most
// distributions' kernels, and on here) the scheduler first shares the CPU between sessions, each
// at its session's own nice value (0 when made), and only then between the tasks of one session.
// A tool alone in its session at nice 10 still weighed as much as the host's whole session, and
// so did the spawner (a session of its own too). So each new session is given the nice value of
// the thread that started it (lowerSession, from child-io.ts, the one place every tool process
// is started) and the spawner its own. The soak above, same 40 agents, 1.5 min, three alternated
// pairs: lag p99 103-139 ms → 21-23 ms, a hook's round trip p50 63-89 → 14-16 ms, p99 329-522 →
// 94-117 ms, 45-56 → 57-60 calls/s. (With the kernel's session grouping switched off instead,
// which is what this restores, one run read lag p99 21 ms, hook p50 15.5 ms.) Limits, since this
// is a preference and not a limit: a program that calls setsid itself starts a session at nice 0
// again, and a user other than root may change a session's nice value at most ten times a second
// across the whole machine (the kernel answers EAGAIN, and it is asked again for a few seconds
// while the tool lives). Where tasks are in a cgroup of their own with the cpu controller,
// sessions do not group them and the nice values above are what counts.
//
// One cpu group for all of them. Lowered one by one, each tool's session still weighs a ninth of
// the host's session, so twenty tools at once weigh twice the host. Where the host may make a
// cgroup in the v1 cpu hierarchy (root, typically), its tools share one (toolsCpuGroup) with the
// weight of a nice-10 task: all of them together weigh a ninth of the host, however many run. The
// spawner joins it before it starts anything (everything it forks inherits it, from its first
// instruction); the fork thread, a thread of the host that must stay out of it, moves each tool it
// starts (lowerTool). In a cgroup of its own a tool is not grouped by session, so sessions are
// then left alone. The same soak, 1.5 min, three runs each: lag p99 21.8-30.9 ms → 15.0-16.5 ms, a
// hook's round trip p50 12.7-17.8 → 9.3-10.9 ms, p99 88-130 → 52-79 ms. Not under cgroup v2: there
// our own cgroup holds the host, and a cgroup holding processes cannot give the cpu controller to
// cgroups below it; the sessions are lowered instead.
import { closeSync, constants, mkdirSync, openSync, readFileSync, rmdirSync, writeFileSync, writeSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { ownCgroupDirs, staleCgroups } from '../core/cgroup-dirs.js';
import { readStat } from '../core/proc-scan.js';

/** How many nice levels below the host its tool processes run (up to 19, the lowest). */
export const TOOL_NICE_STEP = 10;

/** The nice value the tools of a host at `hostNice` run at. */
export function toolNice(hostNice: number): number {
  return Math.min(19, hostNice + TOOL_NICE_STEP);
}

/** The tools' cpu group this process joined (the spawner): what it starts is in it too. */
let joined: string | null = null;
/** The tools' cpu group each tool this thread starts is moved into (the fork thread). */
let moveInto: string | null = null;

/**
 * Lowers the calling thread to the tools' priority: `process` for a process of its own (the
 * spawner), `thread` for a thread of the host (the fork thread: Linux only, see the top of the
 * file). With `cpuGroup` (the host's toolsCpuGroup), the tools it starts go there: the spawner
 * joins it, so that everything it forks is in it from its first instruction; the fork thread,
 * a thread of the host that must stay out of it, moves each tool it starts (lowerTool). Returns
 * the nice value it now has, or null when it left it alone (not supported, refused).
 */
export function lowerForTools(scope: 'process' | 'thread', cpuGroup: string | null = null): number | null {
  if (process.platform === 'win32') return null;
  if (scope === 'thread' && process.platform !== 'linux') return null;
  if (cpuGroup !== null) {
    if (scope === 'process') joined = joinCpuGroup(cpuGroup, process.pid) ? cpuGroup : null;
    else moveInto = cpuGroup;
  }
  try {
    const nice = toolNice(getPriority(0));
    setPriority(0, nice);
    const now = getPriority(0);
    // The spawner leads a session of its own: that session is lowered too, unless it is in the
    // tools' cpu group, where sessions do not count (see the top of the file). A thread of the
    // host shares the host's session, which must keep its priority.
    if (scope === 'process' && joined === null && process.platform === 'linux' && leadsOwnSession()) lowerSession(process.pid, () => false, now);
    return now;
  } catch {
    // A scheduling preference, not a limit: the tools then run at the host's priority.
    return null;
  }
}

/**
 * Called once for each tool process the calling thread started (child-io.ts, and node-pty's
 * forkpty on the fork thread): it weighs what the tools' share allows. In the tools' cpu group
 * when there is one (nothing to do when it was started inside it); otherwise its session gets the
 * thread's nice value (lowerSession).
 */
export function lowerTool(pid: number, ended: () => boolean): void {
  if (joined !== null) return;
  if (moveInto !== null && joinCpuGroup(moveInto, pid)) return;
  lowerSession(pid, ended);
}

/** Waits between asking again: for a terminal's program to have called setsid (util-linux setsid does, after its exec), and after the kernel's EAGAIN to users other than root. */
const SESSION_WAIT_MS = 2;
const SESSION_WAITS = 50;
const RATE_WAIT_MS = 110;
const RATE_WAITS = 30;

let starterGroup: string | null | undefined;

/**
 * Gives the session `pid` leads (its autogroup) the nice value `nice` (default: the calling
 * thread's own, which is the tools' on the spawner and the fork thread, the host's on the host's
 * own thread), when it is lower in priority than the session has: never raised. Best effort and
 * asynchronous: where the kernel keeps no sessions' nice values, or refuses, nothing changes.
 *
 * Only once `pid` is in a session other than the caller's: before the setsid of a terminal's
 * program, writing its autogroup would lower the caller's own session (the host's, from the fork
 * thread). A process never goes back to an earlier session, so once its group differs it stays
 * another group than the caller's.
 */
export function lowerSession(pid: number, ended: () => boolean, nice: number = getPriority(0)): void {
  if (process.platform !== 'linux') return;
  if (starterGroup === undefined) starterGroup = autogroupOf('self')?.name ?? null;
  const self = pid === process.pid;
  let waits = 0;
  const attempt = (): void => {
    if (ended()) return;
    const group = autogroupOf(pid);
    // No autogroup file (a kernel without them) or the process is gone.
    if (group === undefined) return;
    if (!self && (group === null ? null : group.name) === starterGroup) {
      if (++waits <= SESSION_WAITS) setTimeout(attempt, SESSION_WAIT_MS).unref();
      return;
    }
    if (group === null || group.nice >= nice) return;
    const answer = setAutogroupNice(pid, nice);
    if (answer === 'EAGAIN' && ++waits <= RATE_WAITS) setTimeout(attempt, RATE_WAIT_MS).unref();
  };
  attempt();
}

/** A process's autogroup ("/autogroup-17 nice 0"): null when it is in none (the kernel's first), undefined when it cannot be read. */
function autogroupOf(pid: number | 'self'): { name: string; nice: number } | null | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/autogroup`, 'latin1');
  } catch {
    return undefined;
  }
  const m = /^(\S+) nice (-?\d+)/.exec(text);
  return m ? { name: m[1]!, nice: Number(m[2]) } : null;
}

function setAutogroupNice(pid: number, nice: number): 'ok' | 'EAGAIN' | 'refused' {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/autogroup`, constants.O_WRONLY);
  } catch {
    return 'refused';
  }
  try {
    writeSync(fd, String(nice));
    return 'ok';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EAGAIN' ? 'EAGAIN' : 'refused';
  } finally {
    closeSync(fd);
  }
}

/** Does this process lead its own session (it was started detached)? */
function leadsOwnSession(): boolean {
  return readStat(process.pid)?.session === process.pid;
}

// --- The tools' cpu group -------------------------------------------------------------------

/**
 * The cpu.shares of the tools' group, against the 1024 of a group at nice 0 (the host's session):
 * the kernel's weight for a nice value TOOL_NICE_STEP levels lower (each level is a factor 1.25).
 */
export const TOOLS_CPU_SHARES = Math.round(1024 / 1.25 ** TOOL_NICE_STEP);

const GROUP_PREFIX = 'gatehouse-tools-';
let hostGroup: { dir: string | null; why: string } | undefined;

/**
 * The host's tools' cpu group, made on first use: a cgroup of the v1 `cpu` hierarchy next to our
 * own, named for this process, with TOOLS_CPU_SHARES. Null where there can be none (not Linux, no
 * v1 cpu hierarchy, not allowed to make one, GATEHOUSE_NO_CGROUP=1): toolsCpuGroupWhy() says why.
 * Groups left by hosts that are gone are removed when one is made.
 */
export function toolsCpuGroup(): string | null {
  hostGroup ??= makeToolsCpuGroup();
  return hostGroup.dir;
}

/** Why there is no tools' cpu group, or where it is. */
export function toolsCpuGroupWhy(): string {
  hostGroup ??= makeToolsCpuGroup();
  return hostGroup.why;
}

function makeToolsCpuGroup(): { dir: string | null; why: string } {
  if (process.platform !== 'linux') return { dir: null, why: `cgroups are Linux-only (this is ${process.platform})` };
  if (process.env.GATEHOUSE_NO_CGROUP === '1') return { dir: null, why: 'GATEHOUSE_NO_CGROUP=1 is set' };
  // v1 only: under v2 our own cgroup holds processes (the host), and a cgroup that holds
  // processes cannot hand the cpu controller to cgroups below it.
  const base = ownCgroupDirs('cpu').find((c) => c.version === 1)?.base;
  if (base === undefined) return { dir: null, why: 'no v1 cpu cgroup hierarchy is mounted' };
  removeStaleToolsGroups(base);
  const dir = join(base, `${GROUP_PREFIX}${process.pid}`);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return { dir: null, why: `cannot make a cgroup in ${base} (${(err as NodeJS.ErrnoException).code})` };
  }
  try {
    writeFileSync(join(dir, 'cpu.shares'), String(TOOLS_CPU_SHARES));
  } catch (err) {
    try {
      rmdirSync(dir);
    } catch {
      // Left empty: removed as stale by a later host.
    }
    return { dir: null, why: `cannot set cpu.shares in ${dir} (${(err as NodeJS.ErrnoException).code})` };
  }
  return { dir, why: dir };
}

/** How long a spawner that is going waits for what it killed to leave the group before it removes it. */
const LEAVE_WAIT_MS = 200;

/**
 * The spawner, going (its host is gone), after it killed what it started: leaves the tools' cpu
 * group and removes it once the killed processes have left it, waiting at most LEAVE_WAIT_MS.
 * Best effort: a group still holding a process stays, and the next host removes it.
 */
export function leaveToolsGroup(): void {
  if (joined === null) return;
  const group = joined;
  joined = null;
  if (!joinCpuGroup(dirname(group), process.pid)) return;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = performance.now() + LEAVE_WAIT_MS;
  for (;;) {
    try {
      rmdirSync(group);
      return;
    } catch (err) {
      // EBUSY: a killed process has not finished exiting yet.
      if ((err as NodeJS.ErrnoException).code !== 'EBUSY' || performance.now() > deadline) return;
    }
    Atomics.wait(pause, 0, 0, 2);
  }
}

/** Moves process `pid` (all its threads) into the cpu group `dir`; false when refused or gone. */
function joinCpuGroup(dir: string, pid: number): boolean {
  try {
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
    return true;
  } catch {
    return false;
  }
}

/** Removes the tools' groups of hosts that are gone; one still holding a process stays (rmdir refuses). */
export function removeStaleToolsGroups(base: string): void {
  for (const dir of staleCgroups(base, /^gatehouse-tools-(\d+)$/)) {
    try {
      rmdirSync(dir);
    } catch {
      // Still holds a process, or already removed.
    }
  }
}
