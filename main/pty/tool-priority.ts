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
    return getPriority(0);
  } catch {
    // A scheduling preference, not a limit: the tools then run at the host's priority.
    return null;
  }
}
