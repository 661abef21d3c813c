// What is still running, read from /proc: the hostile-plugin tests check that a call leaves
// nothing behind. Zombies do not count (they are dead; init reaps them when it gets to it).
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isAlive, isDeadState, listProcesses } from '../../main/core/proc-scan.js';
import { cgroupSparesOf } from '../../main/runner/limits.js';

const alive = (state: string) => !isDeadState(state);

/** Live members of a process group. */
export function liveInGroup(pgid: number): number[] {
  return listProcesses()
    .filter((p) => p.pgid === pgid && alive(p.state))
    .map((p) => p.pid);
}

/** Live processes whose command line is exactly `argv`. */
export function liveWithArgv(argv: string[]): number[] {
  const want = argv.join('\0');
  const out: number[] = [];
  for (const p of listProcesses()) {
    if (!alive(p.state)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').replace(/\0$/, '');
    } catch {
      continue;
    }
    if (cmdline === want) out.push(p.pid);
  }
  return out;
}

/** The entries in a folder that look like gatehouse call cgroups of this process (its spares, made ahead of calls, are not). */
export function ourCgroups(base: string): string[] {
  const spares = new Set(cgroupSparesOf(base)?.folders().map((f) => basename(f)));
  try {
    return readdirSync(base).filter((n) => n.startsWith(`gatehouse-${process.pid}-`) && !spares.has(n));
  } catch {
    return [];
  }
}

/** A process that is gone or a zombie (dead, waiting for a parent that may never reap it). */
export function gone(pid: number): boolean {
  if (!isAlive(pid)) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
