// The one /proc reader (main/core/proc-scan.ts), used by the runner, the checkers, the terminals
// and the host lock. A zombie is a dead process whose parent has not reaped it yet: every caller
// must see it as gone. Before there was one reader, the host lock and the PTY leader watch asked
// kill(pid, 0), which answers "alive" for a zombie, so a host that died leaving a zombie (its
// parent not reaping) kept its data folder locked.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { forkCount, isAlive, listProcesses, listProcessesSince, readStat } from '../../../main/core/proc-scan.js';
import { acquireHostLock } from '../../../main/host/host-lock.js';
import { tempDir } from '../../support/temp.js';

const linux = process.platform === 'linux';
let parent: ChildProcess | undefined;

afterEach(() => {
  parent?.kill('SIGKILL');
  parent = undefined;
});

/** A real zombie: a child of a perl process that never waits for it. Resolves with its pid once it is one. */
async function zombie(): Promise<number> {
  // The child exits at once; the parent prints its pid and sleeps without reaping it (a shell
  // might reap it first, whenever it checks its jobs).
  parent = spawn('perl', ['-e', 'my $p = fork(); exit 0 unless $p; $| = 1; print "$p\\n"; sleep 60;'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve, reject) => {
    parent!.stdout!.once('data', (b: Buffer) => resolve(Number(String(b).trim())));
    parent!.once('error', reject);
  });
  await vi.waitFor(() => expect(readStat(pid)?.state).toBe('Z'), { timeout: 10_000, interval: 5 });
  return pid;
}

describe.runIf(linux)('proc-scan', () => {
  it('reads pid, parent, group, session and state of a real process', async () => {
    const me = readStat(process.pid)!;
    expect(me).toMatchObject({ pid: process.pid, ppid: process.ppid, state: expect.stringMatching(/^[RS]$/) });
    expect(listProcesses().some((p) => p.pid === process.pid)).toBe(true);
    // Our own group and session may be 0 when the session leader lives outside this pid namespace
    // (as in a CI container), so group and session are checked on a child that starts its own.
    parent = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    const pid = parent.pid!;
    await vi.waitFor(() => expect(readStat(pid)?.session).toBe(pid), { timeout: 10_000, interval: 5 });
    expect(readStat(pid)).toMatchObject({ pid, ppid: process.pid, pgid: pid, session: pid });
  });

  it('the processes forked since a pid: a child started after it and its own child are found; with no fork count, or pid_max forks since, every process is', async () => {
    const forksBefore = forkCount();
    expect(forksBefore).toEqual(expect.any(Number));
    // A session leader that forks a child of its own, as a shell leaves a job behind.
    parent = spawn('perl', ['-e', '$| = 1; my $p = fork(); if (!$p) { sleep 60; exit 0 } print "$p\\n"; sleep 60;'], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    const leader = parent.pid!;
    const grandchild = await new Promise<number>((resolve) => parent!.stdout!.once('data', (b: Buffer) => resolve(Number(String(b).trim()))));
    const since = listProcessesSince(leader, forksBefore).map((p) => p.pid);
    expect(since).toEqual(expect.arrayContaining([leader, grandchild]));
    // Pid numbers may have wrapped since: then nothing may be skipped. Our own process is older
    // than the leader; it is read when the count is unknown or shows a full cycle of pids.
    for (const before of [null, forksBefore! - 10 ** 9]) {
      expect(listProcessesSince(leader, before).map((p) => p.pid)).toEqual(expect.arrayContaining([process.pid, leader, grandchild]));
    }
    process.kill(-leader, 'SIGKILL');
  });

  it('a zombie is not alive, although kill(pid, 0) still finds it', async () => {
    const z = await zombie();
    expect(() => process.kill(z, 0)).not.toThrow();
    expect(isAlive(z)).toBe(false);
    expect(isAlive(parent!.pid!)).toBe(true);
  });

  it('the host lock is taken over from a host that is now a zombie', async () => {
    const z = await zombie();
    const home = tempDir('gatehouse-lock-');
    writeFileSync(join(home, 'host.lock'), String(z));
    const lock = acquireHostLock(home);
    expect(readFileSync(join(home, 'host.lock'), 'utf8')).toBe(String(process.pid));
    lock.release();
  });
});
