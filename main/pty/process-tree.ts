// Ending a PTY session for good. node-pty's kill() sends SIGHUP to the leader only; a shell
// that runs `yes` with job control puts it in a process group of its own, and a program may
// ignore SIGHUP or start children of its own. So a kill here is SIGKILL to every process of the
// session: those whose session id is the leader's (node-pty's child calls setsid, so the
// leader's pid is the session id), plus their descendants that left it with setsid.
// Repeated until none is left, so a process forking while we kill is caught on the next pass.
import { readdirSync } from 'node:fs';
import { isAlive, isDeadState, listProcessesSince, readStat } from '../core/proc-scan.js';

const procAvailable = (() => {
  try {
    readdirSync('/proc/self');
    return true;
  } catch {
    return false;
  }
})();

/**
 * The live (not zombie) processes of the session led by `leader`, plus `extra` pids, and all
 * their descendants. Without /proc (macOS) only the leader itself can be found. `forksBefore`
 * (forkCount() taken before the leader was forked) lets only pids from the leader's up be read
 * when that is safe (listProcessesSince); null reads every process.
 */
export function sessionProcesses(leader: number, extra: ReadonlySet<number> = new Set(), forksBefore: number | null = null): number[] {
  if (!procAvailable) return isAlive(leader) ? [leader] : [];
  const stats = listProcessesSince(leader, forksBefore).filter((s) => !isDeadState(s.state));
  const found = new Set<number>();
  for (const s of stats) if (s.session === leader || s.pid === leader || extra.has(s.pid)) found.add(s.pid);
  // Descendants that started sessions of their own (setsid, daemons).
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of stats) {
      if (!found.has(s.pid) && found.has(s.ppid)) {
        found.add(s.pid);
        grew = true;
      }
    }
  }
  return [...found];
}

function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // Already gone.
  }
}

/** The host's own process group: never a target, whatever /proc says. */
const ownGroup = procAvailable ? (readStat(process.pid)?.pgid ?? -1) : -1;

/**
 * SIGKILL to the whole session of `leader`; returns how many processes were signalled.
 * Everything is stopped (SIGSTOP) before anything is killed: a killed parent's children are
 * re-parented to init, and a child that left the session could then no longer be told apart.
 */
export function killSession(leader: number): number {
  if (!Number.isInteger(leader) || leader <= 1 || leader === process.pid || leader === ownGroup) return 0;
  if (!procAvailable) {
    signal(-leader, 'SIGKILL');
    signal(leader, 'SIGKILL');
    return 1;
  }
  const known = new Set<number>();
  for (let pass = 0; pass < 50; pass++) {
    const fresh = sessionProcesses(leader, known).filter((pid) => pid !== process.pid && !known.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      known.add(pid);
      signal(pid, 'SIGSTOP');
    }
  }
  for (const pid of known) {
    const st = readStat(pid);
    if (st && st.pgid > 1 && st.pgid !== ownGroup) signal(-st.pgid, 'SIGKILL');
    signal(pid, 'SIGKILL');
  }
  signal(-leader, 'SIGKILL');
  // Anything that slipped through (forked between a scan and its stop): kill on sight.
  for (let pass = 0; pass < 20; pass++) {
    const left = sessionProcesses(leader, known).filter((pid) => pid !== process.pid);
    if (left.length === 0) break;
    for (const pid of left) {
      known.add(pid);
      signal(pid, 'SIGKILL');
    }
  }
  return known.size;
}
