// Process groups: every checker process leads its own, so that one signal reaches everything it
// started. Whether a group still has members needs care: an orphaned member that was killed stays
// a zombie until whoever inherited it reaps it, and in some containers PID 1 never does; such a
// zombie holds no resources and must not count as a leak.
import { groupIsEmpty } from '../core/proc-scan.js';

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
  return !groupIsEmpty(pgid);
}
