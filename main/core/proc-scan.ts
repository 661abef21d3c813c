// The one /proc scanner: which processes exist, in which group and session, and which are alive.
// The runner and the checkers ask whether a process group is empty, the PTY manager which
// processes belong to a terminal's session. `kill(-pgid, 0)` alone is not enough: it succeeds for
// zombies, and an orphaned zombie stays until init reaps it (lazily, on some hosts), so a group
// that is really empty would look alive. On Linux we read /proc and count only members that are
// not zombies.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** Session id: the pid of the session leader (a PTY's shell calls setsid). */
  session: number;
  /** One letter: R running, S sleeping, D disk wait, Z zombie, T stopped, … */
  state: string;
  comm: string;
  /**
   * When it started, in clock ticks since boot (field 22): with its pid, what tells it from a
   * later process given the same pid.
   */
  start: string;
}

/**
 * Every process in /proc (only pids >= minPid when given); empty off Linux. Processes that
 * vanish while we read are skipped.
 */
export function listProcesses(minPid = 0): ProcInfo[] {
  return scanProcesses(minPid) ?? [];
}

/** As listProcesses, but null when /proc cannot be read (not Linux, or hidden by a sandbox). */
function scanProcesses(minPid: number): ProcInfo[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const out: ProcInfo[] = [];
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(name);
    if (pid < minPid) continue;
    const info = readStat(pid);
    if (info) out.push(info);
  }
  return out;
}

function lastPid(): number | null {
  try {
    return Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
  } catch {
    return null;
  }
}

export function readStat(pid: number): ProcInfo | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // comm is in parentheses and may itself contain spaces or ")": split after the last ")".
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const comm = text.slice(text.indexOf('(') + 1, close);
  const rest = text.slice(close + 2).split(' ');
  return { pid, comm, state: rest[0] ?? '?', ppid: Number(rest[1]), pgid: Number(rest[2]), session: Number(rest[3]), start: rest[19] ?? '' };
}

/** When a live (not zombie) process started (ProcInfo.start); null when it is not running or /proc cannot be read. */
export function startTime(pid: number): string | null {
  const s = readStat(pid);
  return s && s.start && !isDeadState(s.state) ? s.start : null;
}

/** The program a process runs (/proc/PID/exe), or null when it cannot be read. */
export function readExe(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

export const isDeadState = (state: string) => state === 'Z' || state === 'X' || state === 'x';

/**
 * The lowest pid worth reading for the processes forked after `pid`: `pid` itself, or 0 when pid
 * numbers wrapped around since (ns_last_pid below it) or cannot be told. See liveGroupMembers.
 */
function forkedSince(pid: number): number {
  const last = lastPid();
  return last !== null && last >= pid ? pid : 0;
}

/** How many processes the kernel has forked since boot (/proc/stat "processes"), or null. */
export function forkCount(): number | null {
  try {
    const m = /^processes (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

let pidMaxCache: number | null | undefined;
function pidMax(): number | null {
  if (pidMaxCache === undefined) {
    try {
      pidMaxCache = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) || null;
    } catch {
      pidMaxCache = null;
    }
  }
  return pidMaxCache;
}

/**
 * The processes that may have been forked after `pid` (and `pid` itself), where `forksBefore` is
 * forkCount() taken before `pid` was forked. A session's or group's members and their descendants
 * all were, so finding them needs only the pids from `pid` up, not all of /proc (the host asks at
 * every terminal's exit; each /proc/PID/stat is a file read on the event loop). Every process is
 * read instead when pid numbers may have come round below `pid`: when ns_last_pid is below it
 * (wrapped), or when pid_max forks have happened since (wrapped and climbed past it again: with
 * pid_max 32768, a busy machine does that in minutes), or when either cannot be read. Missing one
 * would leave a process of an ended terminal running.
 */
export function listProcessesSince(pid: number, forksBefore: number | null): ProcInfo[] {
  const max = pidMax();
  const forks = forksBefore === null ? null : forkCount();
  // Half of pid_max: pids below 300 are skipped when the kernel wraps, and the count is system-wide.
  const noFullCycle = forksBefore !== null && forks !== null && max !== null && forks - forksBefore < max / 2;
  return scanProcesses(noFullCycle ? forkedSince(pid) : 0) ?? [];
}

/**
 * Live (non-zombie) members of a process group. Linux only; elsewhere returns null.
 *
 * Reading every /proc/PID/stat costs ~15 µs a process, so only pids from the group leader's
 * up are read: every member was forked after the leader, so has a higher pid — unless pid
 * numbers wrapped around since, which ns_last_pid below the leader's pid shows; then all are
 * read. (Wrapping all the way past the leader's pid again within one call — tens of thousands
 * of forks — would go unseen here; the pids cgroup and the PID namespace still catch those.)
 */
export function liveGroupMembers(pgid: number): number[] | null {
  if (process.platform !== 'linux') return null;
  // Unreadable /proc: unknown, which callers must not take for "empty".
  return scanProcesses(forkedSince(pgid))
    ?.filter((p) => p.pgid === pgid && !isDeadState(p.state))
    .map((p) => p.pid) ?? null;
}

/**
 * True when no live process is left in the group. Cheap when the group is gone (one kill(2));
 * reads /proc only when something (perhaps just a zombie) is still there.
 */
export function groupIsEmpty(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    // EPERM means a member exists that we may not signal: not empty.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const live = liveGroupMembers(pgid);
  // Off Linux, or /proc unreadable: kill(2) said something is there, so it is not empty.
  return live !== null && live.length === 0;
}

/** Whether a pid is a live (non-zombie) process. */
export function isAlive(pid: number): boolean {
  if (process.platform === 'linux') {
    const s = readStat(pid);
    return s !== null && !isDeadState(s.state);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
