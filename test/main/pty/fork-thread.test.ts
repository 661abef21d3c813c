// Where node-pty forks terminals' programs itself (starter: false; by default the host opens the
// terminal and its spawner starts the program, own-terminal.test.ts), on the fork thread, not on
// the event loop's (main/pty/fork-thread.ts):
// node-pty's fork copies the whole host's page tables, which with a host-sized heap is tens of
// milliseconds the loop would otherwise stand still. No timing is measured here (a loaded machine
// makes any threshold flaky): what is checked is which thread forked, that everything node-pty did
// still works on a terminal forked there, and the fallback.
import { spawn as spawnChild } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { entryFile } from '../../../main/core/entry-file.js';
import { threadId } from 'node:worker_threads';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ForkThread, ForkThreadUnavailable } from '../../../main/pty/fork-thread.js';
import { createNodePtySpawn, type NodePtyProcess } from '../../../main/pty/node-pty-spawn.js';
import { PtyManager } from '../../../main/pty/pty-manager.js';
import type { PtyAuditEvent } from '../../../main/pty/types.js';
import { tempDir } from '../../support/temp.js';
import { terminalOutput } from '../../support/terminal-output.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8', TERM: 'xterm-256color' };
const opts = { cwd: '/', env, cols: 80, rows: 24 };

function run(p: NodePtyProcess): Promise<{ text: string; exitCode: number; signal?: number }> {
  let text = '';
  p.onData((d) => (text += typeof d === 'string' ? d : Buffer.from(d).toString()));
  return new Promise((resolve) => p.onExit((e) => resolve({ text, ...e })));
}

describe('the fork thread', () => {
  it('forks a terminal’s program on a thread of its own', async () => {
    const spawn = createNodePtySpawn({ starter: false });
    // The first spawn also starts the thread; the second is forked by the running thread.
    for (let i = 0; i < 2; i++) {
      const p = await spawn('/bin/sh', ['-c', 'printf "%s" "$0:$PWD:$TERM"; exit 7', 'forked'], opts);
      // The threadId of the thread where node-pty's native fork ran, as that thread reports it.
      expect(p.forkedOnThread).not.toBe(threadId);
      expect(p.forkedOnThread).toBeGreaterThan(0);
      // The environment UnixTerminal gives it, and the exit relayed from the thread.
      expect(await run(p)).toMatchObject({ text: 'forked:/:xterm-256color', exitCode: 7 });
    }
  });

  it('reports the program’s end before node-pty does, and finds what its session left, from the thread', async () => {
    // The session then neither polls /proc for its leader nor reads it on the loop at the exit (pty-session.ts).
    const pidFile = join(tempDir(), 'pid');
    const p = await createNodePtySpawn({ starter: false })('/bin/sh', ['-c', `trap '' HUP; (trap '' HUP; exec sleep 1000) & echo $! > ${pidFile}; echo bye`], opts);
    expect(p.forkedOnThread).not.toBe(threadId);
    const order: string[] = [];
    p.onLeaderExit!(() => {
      order.push('leader');
      p.release?.();
    });
    const exit = run(p).then(() => order.push('exit'));
    await exit;
    const left = Number(readFileSync(pidFile, 'utf8'));
    onTestFinished(() => {
      try {
        process.kill(left, 'SIGKILL');
      } catch {
        // Gone.
      }
    });
    expect(order).toEqual(['leader', 'exit']);
    // The sleep ignored SIGHUP and is still in the leader's session.
    expect(await p.sessionProcesses!(null)).toEqual([left]);
  });

  it('keeps what node-pty does with the terminal: input, resize, signals, pause and resume', async () => {
    const p = await createNodePtySpawn({ starter: false })('/bin/sh', ['-c', 'stty size; read line; echo "got $line"; stty size; kill -TERM $$'], opts);
    expect(p.forkedOnThread).not.toBe(threadId);
    const { text, shows } = terminalOutput(p);
    const exit = new Promise<{ exitCode: number; signal?: number }>((resolve) => p.onExit(resolve));
    await shows('24 80');
    p.pause();
    p.resize(100, 30);
    p.write('hello\r');
    p.resume();
    await shows('30 100');
    expect(text()).toContain('got hello');
    expect(await exit).toMatchObject({ signal: 15 });
  });

  it('reports a program that could not be run as node-pty does, and SIGKILL when it is killed', async () => {
    const spawn = createNodePtySpawn({ starter: false });
    const missingCwd = await spawn('/bin/true', [], { ...opts, cwd: '/no/such/folder' });
    expect(await run(missingCwd)).toMatchObject({ exitCode: 1 });
    const sleeper = await spawn('/bin/sleep', ['1000'], opts);
    const done = run(sleeper);
    sleeper.kill('SIGKILL');
    expect(await done).toMatchObject({ signal: 9 });
  });

  it('forks on the calling thread when the fork thread cannot start, and says why', async () => {
    const dir = tempDir();
    const broken = join(dir, 'broken-worker.cjs');
    writeFileSync(broken, "throw new Error('no node-pty here');\n");
    const thread = new ForkThread(() => {}, broken);
    await expect(thread.fork(['/bin/true', [], [], '/', 80, 24, -1, -1, true, ''])).rejects.toBeInstanceOf(ForkThreadUnavailable);
    expect(thread.failed).toMatch(/no node-pty here/);
    const p = await createNodePtySpawn({ forkThread: thread, starter: false })('/bin/sh', ['-c', 'echo in-thread'], opts);
    expect(p.forkedOnThread).toBe(threadId);
    expect(await run(p)).toMatchObject({ exitCode: 0 });
  });

  it('lets a manager closing while a program is forked end it, and refuses that start', async () => {
    const audit: PtyAuditEvent[] = [];
    const mgr = new PtyManager({ record: (e) => audit.push(e), events: { output: () => {}, changed: () => {} }, baseEnv: env, log: () => {} });
    const starting = mgr.start({ command: '/bin/sleep', args: ['1000'], env, origin: { actor: 'operator:tester', tool: 'shell' } });
    const closing = mgr.close();
    await expect(starting).rejects.toThrow(/host is stopping/);
    await closing;
    const [session] = mgr.list();
    expect(session).toMatchObject({ state: 'exited', signal: 'SIGKILL', killedBy: 'host' });
    expect(audit.map((e) => e.type)).toEqual(['pty.started', 'pty.killed', 'pty.exited']);
  });

  it('a host that exits with a terminal still running (process.exit, an uncaught exception) exits at once, and its program is killed', async () => {
    const dir = tempDir();
    const forkThread = fileURLToPath(new URL('../../../main/pty/fork-thread.ts', import.meta.url));
    // The thread's worker, built from the sources as the host finds it there.
    const worker = entryFile({ name: 'pty-fork-worker', ext: '.cjs', callerUrl: pathToFileURL(forkThread).href, what: 'the fork thread', packagesExternal: true });
    const entry = join(dir, 'host.ts');
    writeFileSync(
      entry,
      `import { ForkThread } from ${JSON.stringify(forkThread)};
import { createNodePtySpawn } from ${JSON.stringify(forkThread.replace(/fork-thread\.ts$/, 'node-pty-spawn.ts'))};
import { killSession } from ${JSON.stringify(forkThread.replace(/fork-thread\.ts$/, 'process-tree.ts'))};
const thread = new ForkThread((pid) => killSession(pid), ${JSON.stringify(worker)});
const p = await createNodePtySpawn({ forkThread: thread, starter: false })('/bin/sleep', ['600'], { cwd: '/', env: { PATH: '/usr/bin:/bin' }, cols: 80, rows: 24 });
process.stdout.write(JSON.stringify({ pid: p.pid, thread: p.forkedOnThread }) + '\\n');
if (process.argv[2] === 'exit') process.exit(3);
setImmediate(() => { throw new Error('the host failed'); });
`,
    );
    // Bundled beside the repo's node_modules, so node-pty resolves as it does for the host.
    const bundle = join(fileURLToPath(new URL('../../../node_modules/.cache/', import.meta.url)), `fork-exit-${process.pid}-${Date.now()}.mjs`);
    await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: bundle, logLevel: 'silent' });
    onTestFinished(() => rmSync(bundle, { force: true }));
    // Ten times each: about one exit in ten aborted (SIGABRT) when node-pty reported a killed
    // terminal's exit while Node tore the thread down, before the host waited for those reports.
    for (const how of Array.from({ length: 10 }, () => ['exit', 'throw']).flat()) {
      const child = spawnChild(process.execPath, [bundle, how], { stdio: ['ignore', 'pipe', 'pipe'] });
      // A failing run leaves a hung host and its `sleep`: both go with the test.
      onTestFinished(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      // Before the fix the process hung here until `sleep 600` ended (the test's timeout fails it).
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      const started = JSON.parse(out.split('\n')[0]!) as { pid: number; thread: number };
      expect(started.thread).toBeGreaterThan(0);
      expect(code).toBe(how === 'exit' ? 3 : 1);
      // The program did not outlive its host.
      expect(existsSync(`/proc/${started.pid}`)).toBe(false);
    }
  });
});
