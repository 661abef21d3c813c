// A real small disk for the full-disk tests: a tmpfs mounted in a mount namespace of its own
// (unprivileged: a user namespace owns it, as bwrap does), in which the command runs. The test
// reaches the files on it through /proc/PID/root, so it can fill and free the disk from outside.
import { spawnSync } from 'node:child_process';

/**
 * The command line that runs a program with `mountpoint` as a tmpfs of `size` (e.g. "16m"): the
 * program and its arguments are appended. Or `why` it cannot be done here, worded for a skip message.
 */
export function smallDiskCommand(mountpoint: string, size: string): { argv: string[] } | { why: string } {
  if (process.platform !== 'linux') return { why: 'tmpfs in a mount namespace is Linux only' };
  const unshare = process.getuid?.() === 0 ? ['unshare', '--mount'] : ['unshare', '--user', '--map-root-user', '--mount'];
  const probe = spawnSync(unshare[0]!, [...unshare.slice(1), 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs "$0"', mountpoint], { timeout: 10_000 });
  if (probe.error || probe.status !== 0) return { why: `${unshare.join(' ')} with mount -t tmpfs failed: ${String(probe.stderr ?? '').trim() || probe.error?.message || `exit ${probe.status}`}` };
  return { argv: [...unshare, 'sh', '-c', `mount -t tmpfs -o size=${size} tmpfs "$0" && exec "$@"`, mountpoint] };
}

/** The command line that runs a program in `pid`'s namespaces, where the small disk is (SQLite opens it there, not through /proc). */
export function inside(pid: number): string[] {
  return ['nsenter', '--target', String(pid), ...(process.getuid?.() === 0 ? [] : ['--user', '--preserve-credentials']), '--mount'];
}

/** Where a process's view of `path` (inside its mount namespace) is reachable from outside. */
export function seenBy(pid: number, path: string): string {
  return `/proc/${pid}/root${path}`;
}
