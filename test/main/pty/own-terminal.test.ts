// Terminals the host opens itself (node-pty-spawn.ts startOnOwnTerminal): the master is sealed
// (core/sealed-fds.ts) and the program is started by the spawner process, so no process the host
// starts holds a terminal's master (node-pty's is not close-on-exec: a plugin could type into an
// operator's shell), and the program still runs as under node-pty's own forkpty.
import { execFile, spawnSync } from 'node:child_process';
import { closeSync, existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import * as nodePty from 'node-pty';
import { describe, expect, it, onTestFinished } from 'vitest';
import { guardSpawns, sealedFds, sealFd, unsealFd } from '../../../main/core/sealed-fds.js';
import type { ChildEvent } from '../../../main/pty/child-io.js';
import { sharedForkThread } from '../../../main/pty/fork-thread.js';
import { createNodePtySpawn, type NodePtyProcess } from '../../../main/pty/node-pty-spawn.js';
import type { ChildStarter } from '../../../main/pty/spawn-service.js';
import { sharedChildStarter, Spawner } from '../../../main/pty/spawner.js';
import { gone } from '../../support/processes.js';
import { terminalOutput } from '../../support/terminal-output.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8', TERM: 'xterm-256color' };
const opts = { cwd: '/', env, cols: 80, rows: 24 };
const hasTools = ['setsid', 'stty'].every((t) => existsSync(`/usr/bin/${t}`) || existsSync(`/bin/${t}`));
if (!hasTools) console.log('own-terminal.test.ts: no setsid or stty here, so terminals are forked by node-pty; the own-terminal cases are skipped');

function run(p: NodePtyProcess): Promise<{ text: string; exitCode: number; signal?: number }> {
  let text = '';
  p.onData((d) => (text += typeof d === 'string' ? d : Buffer.from(d).toString()));
  return new Promise((resolve) => p.onExit((e) => resolve({ text, ...e })));
}

/** A program that lists its open descriptors that are terminal masters (/dev/ptmx). */
const LIST_MASTERS = ['-c', 'for f in /proc/$$/fd/*; do [ "$(readlink "$f")" = /dev/ptmx ] && echo "master ${f##*/}"; done; echo listed'];

/** A terminal kept open for the test: its master is what nothing else may hold. */
async function openTerminal(): Promise<NodePtyProcess> {
  const p = await createNodePtySpawn()('/bin/sleep', ['600'], opts);
  onTestFinished(async () => {
    // Its master is unsealed when node-pty's socket closes, after the kill: waited for, or the next
    // test found that number still sealed when a descriptor of its own reused it.
    const socket = (p as unknown as { _socket?: { closed?: boolean; once(event: 'close', l: () => void): void } })._socket;
    const closed = socket && !socket.closed ? new Promise<void>((resolve) => socket.once('close', resolve)) : Promise.resolve();
    try {
      p.kill('SIGKILL');
    } catch {
      // Gone.
    }
    await closed;
  });
  return p;
}

/** A one-shot process started by `by` (the spawner, or the fork thread): its stdout. */
function oneShot(by: ChildStarter, command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const emit = (e: ChildEvent) => {
      if (e.type === 'close') resolve(Buffer.from(e.stdout).toString());
      if (e.type === 'failed' || e.type === 'lost') reject(new Error(e.message));
    };
    by.startChild({ command, args, cwd: '/', env, input: '', maxStdout: 1 << 20, stderrTail: 1000 }, emit).catch(reject);
  });
}

describe.runIf(process.platform === 'linux' && hasTools)('terminals the host opens itself', () => {
  it('no process the host starts holds a terminal’s master: another terminal’s program, a plugin process, any child', async () => {
    const open = await openTerminal();
    const master = (open as unknown as { fd: number }).fd;
    // The premise: node-pty's master is not close-on-exec (O_CLOEXEC, 02000000, is not in its flags).
    const flags = parseInt(/flags:\s*([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${master}`, 'utf8'))![1]!, 8);
    expect(flags & 0o2000000).toBe(0);
    expect(sealedFds()).toContain(master);

    // Another terminal's program.
    const other = await createNodePtySpawn()('/bin/sh', LIST_MASTERS, opts);
    const listed = await run(other);
    expect(listed.text).toContain('listed');
    expect(listed.text).not.toContain('master');

    // Children of the host, asynchronous and synchronous: child_process as any part of it uses it.
    const asyncOut = (await promisify(execFile)('/bin/sh', LIST_MASTERS)).stdout;
    expect(asyncOut).toBe('listed\n');
    expect(spawnSync('/bin/sh', LIST_MASTERS, { encoding: 'utf8' }).stdout).toBe('listed\n');

    // A plugin process, by the spawner, and by the fork thread (given the sealed list with the request).
    const spawner = sharedChildStarter();
    expect(spawner).toBeInstanceOf(Spawner);
    expect(await oneShot(spawner!, '/bin/sh', LIST_MASTERS)).toBe('listed\n');
    const thread = sharedForkThread();
    expect(thread).not.toBeNull();
    expect(await oneShot(thread!, '/bin/sh', LIST_MASTERS)).toBe('listed\n');

    // The same program, forked by node-pty as before, held it: what the change took away.
    const forked = await createNodePtySpawn({ starter: false })('/bin/sh', LIST_MASTERS, opts);
    expect((await run(forked)).text).toContain(`master ${master}`);
  });

  it('a master whose number was freed and taken again is sealed too, whatever the order, and where a caller put “ignore”', async () => {
    // Two terminals; the first ends, and a third takes its (lower) number: sealed after the
    // second's, which a list in sealing order once skipped (the filler before the higher number
    // looked like the caller's entry).
    const first = await createNodePtySpawn()('/bin/sh', ['-c', 'exit 0'], opts);
    const firstMaster = (first as unknown as { fd: number }).fd;
    const second = await openTerminal();
    const secondMaster = (second as unknown as { fd: number }).fd;
    expect(secondMaster).toBeGreaterThan(firstMaster);
    await run(first);
    await expect.poll(() => sealedFds()).not.toContain(firstMaster);
    const third = await openTerminal();
    const thirdMaster = (third as unknown as { fd: number }).fd;
    expect(thirdMaster).toBeLessThan(secondMaster);
    expect(sealedFds()).toEqual(expect.arrayContaining([secondMaster, thirdMaster]));

    expect((await promisify(execFile)('/bin/sh', LIST_MASTERS)).stdout).toBe('listed\n');
    expect(await oneShot(sharedForkThread()!, '/bin/sh', LIST_MASTERS)).toBe('listed\n');
    // 'ignore' above stdio sets nothing up at that number: the host's descriptor would be there.
    const ignoring = Array.from({ length: secondMaster + 1 }, (_, i) => (i < 3 ? 'pipe' : 'ignore')) as 'pipe'[];
    expect(spawnSync('/bin/sh', LIST_MASTERS, { encoding: 'utf8', stdio: ignoring }).stdout).toBe('listed\n');
  });

  it('a number sealed twice stays sealed until unsealed twice: a new terminal that took it before the old one’s close was told keeps its master hidden', async () => {
    const open = await openTerminal();
    const master = (open as unknown as { fd: number }).fd;
    // node-pty closes a master before its close event, where the old terminal unseals it; a
    // terminal opened in between gets the same number and seals it again.
    sealFd(master);
    unsealFd(master);
    expect(sealedFds()).toContain(master);
    expect((await promisify(execFile)('/bin/sh', LIST_MASTERS)).stdout).toBe('listed\n');
    expect(spawnSync('/bin/sh', LIST_MASTERS, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe', ...Array<'inherit'>(master - 2).fill('inherit')] }).stdout).toBe('listed\n');
  });

  it('a descriptor something else opened without close-on-exec, after the host started, reaches no child (the desktop app’s Chromium does so)', async () => {
    // A terminal opened behind Gatehouse's back: nothing sealed it.
    const raw = (nodePty as unknown as { native: { open(cols: number, rows: number): { master: number; slave: number } } }).native.open(80, 24);
    onTestFinished(() => {
      for (const fd of [raw.master, raw.slave]) closeSync(fd);
    });
    expect(sealedFds()).not.toContain(raw.master);
    guardSpawns();
    expect((await promisify(execFile)('/bin/sh', LIST_MASTERS)).stdout).toBe('listed\n');
    expect(spawnSync('/bin/sh', LIST_MASTERS, { encoding: 'utf8' }).stdout).toBe('listed\n');
    expect(await oneShot(sharedForkThread()!, '/bin/sh', LIST_MASTERS)).toBe('listed\n');
  });

  it('the program runs as under forkpty: its own session led by it, the terminal its controlling one, node-pty’s modes, not forked by the host', async () => {
    const p = await createNodePtySpawn()('/bin/sh', ['-c', 'cat /proc/$$/stat; echo; stty -a; exit 7'], opts);
    const { text, exitCode } = await run(p);
    expect(exitCode).toBe(7);
    // pid (comm) state ppid pgrp session tty_nr tpgid
    const stat = /^(\d+) \([^)]*\) \S+ (\d+) (\d+) (\d+) (\d+) (-?\d+)/m.exec(text)!;
    const [pid, ppid, pgrp, session, ttyNr, tpgid] = stat.slice(1).map(Number);
    expect(pid).toBe(p.pid);
    expect(session).toBe(pid);
    expect(pgrp).toBe(pid);
    expect(ttyNr).not.toBe(0);
    // The foreground process group of its terminal: job control and Ctrl-C reach it.
    expect(tpgid).toBe(pid);
    // Started by the spawner, not by a fork of this process.
    expect(ppid).not.toBe(process.pid);
    expect(ppid).toBe((sharedChildStarter() as Spawner).pid);
    for (const mode of ['ixany', 'imaxbel', 'brkint', 'iutf8', 'icanon', 'echo', 'isig']) expect(text).toMatch(new RegExp(`(^|\\s)${mode}(\\s|$)`, 'm'));
  });

  it('keeps what node-pty does with the terminal: input, resize, signals, the session’s leftovers', async () => {
    const p = await createNodePtySpawn()('/bin/sh', ['-c', 'trap "" HUP; stty size; read line; echo "got $line"; stty size; (trap "" HUP; exec sleep 1000) & echo "left $!"; kill -TERM $$'], opts);
    const { text, shows } = terminalOutput(p);
    let leaderFirst = false;
    const exit = new Promise<{ exitCode: number; signal?: number }>((resolve) => p.onExit(resolve));
    p.onLeaderExit!(() => {
      leaderFirst = true;
      p.release?.();
    });
    await shows('24 80');
    p.resize(100, 30);
    p.write('hello\r');
    await shows('30 100');
    expect(text()).toContain('got hello');
    expect(await exit).toMatchObject({ signal: 15 });
    expect(leaderFirst).toBe(true);
    const left = Number(/left (\d+)/.exec(text())![1]);
    onTestFinished(() => {
      try {
        process.kill(left, 'SIGKILL');
      } catch {
        // Gone.
      }
    });
    expect(await p.sessionProcesses!(null)).toEqual([left]);
  });

  it('a spawner that dies under a running terminal: the program is killed and its end reported, and the next terminal starts', async () => {
    const p = await createNodePtySpawn()('/bin/sleep', ['600'], opts);
    const done = run(p);
    const spawner = sharedChildStarter() as Spawner;
    expect(spawner).toBeInstanceOf(Spawner);
    process.kill(spawner.pid!, 'SIGKILL');
    expect(await done).toMatchObject({ signal: 9 });
    // Its parent gone, nothing may reap it here: dead is what counts.
    expect(gone(p.pid)).toBe(true);
    const next = await createNodePtySpawn()('/bin/sh', ['-c', 'echo again'], opts);
    expect(await run(next)).toMatchObject({ exitCode: 0 });
  });
});
