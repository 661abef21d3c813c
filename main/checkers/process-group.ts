// Process groups: every checker process leads its own, so that one signal reaches everything it
// started. Whether a group still has members needs care: an orphaned member that was killed stays
// a zombie until whoever inherited it reaps it, and in some containers PID 1 never does; such a
// zombie holds no resources and must not count as a leak.
import { readdirSync, readFileSync } from 'node:fs';

/** Sends a signal to every process of the group; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether any process of the group is still alive (zombies excepted where /proc can tell). */
export function groupHasLiveMembers(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue; // gone while we looked
    }
    // "pid (comm) state ppid pgrp …": comm may contain spaces and parentheses, so read after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 4);
    if (rest[0] !== 'Z' && Number(rest[2]) === pgid) return true;
  }
  return false;
}
