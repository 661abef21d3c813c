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
import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How many nice levels below the host its tool processes run (up to 19, the lowest). */
export const TOOL_NICE_STEP = 10;

/** The nice value the tools of a host at `hostNice` run at. */
export function toolNice(hostNice: number): number {
  return Math.min(19, hostNice + TOOL_NICE_STEP);
}

/**
 * Lowers the calling thread to the tools' priority: `process` for a process of its own (the
 * spawner), `thread` for a thread of the host (the fork thread: Linux only, see the top of the
 * file). Returns the nice value it now has, or null when it left it alone (not supported, refused).
 */
export function lowerForTools(scope: 'process' | 'thread'): number | null {
  if (process.platform === 'win32') return null;
  if (scope === 'thread' && process.platform !== 'linux') return null;
  try {
    const nice = toolNice(getPriority(0));
    setPriority(0, nice);
    const now = getPriority(0);
    // The spawner leads a session of its own: that session is lowered too (see the top of the
    // file). A thread of the host shares the host's session, which must keep its priority.
    if (scope === 'process' && process.platform === 'linux' && leadsOwnSession()) lowerSession(process.pid, () => false, now);
    return now;
  } catch {
    // A scheduling preference, not a limit: the tools then run at the host's priority.
    return null;
  }
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

/** Does this process lead its own session (it was started detached)? Field 6 of /proc/self/stat. */
function leadsOwnSession(): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[3]) === process.pid;
  } catch {
    return false;
  }
}
