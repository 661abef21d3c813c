// Ending a whole process group for certain. One SIGKILL is not enough: a member may have been
// between fork and the signal, so the group is killed again until /proc shows no live member
// (zombies excepted, see proc-scan.ts). Used by the one-shot runner, the module children and the
// stdio MCP transports.
import { groupIsEmpty } from './proc-scan.js';

/**
 * Kills the group and polls (1 ms, doubling up to 50 ms) until no live member is left. Bounded:
 * gives up after `timeoutMs` rather than hang on a process in uninterruptible sleep. Resolves true
 * when the group is gone (or cannot be signalled any more), false when members outlived the wait.
 */
export async function killGroupUntilGone(pgid: number, timeoutMs = 2000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  let wait = 1;
  while (!groupIsEmpty(pgid)) {
    if (performance.now() > deadline) return false;
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, 50);
  }
  return true;
}
