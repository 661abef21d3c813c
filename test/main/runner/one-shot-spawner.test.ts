// One-shot plugin processes are started by the host's spawner process (main/pty/spawner.ts), so
// the host never forks. Real processes throughout: what is checked is that the plugin's parent is
// the spawner, what a call sees when the spawner dies during it (it fails closed, and the next
// call starts a new spawner), that nothing outlives a host that exits or is killed, and the
// fallback to the fork thread when there is no Node to run the spawner.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { entryFile } from '../../../main/core/entry-file.js';
import { isAlive } from '../../../main/core/proc-scan.js';
import { ForkThread } from '../../../main/pty/fork-thread.js';
import { killSession } from '../../../main/pty/process-tree.js';
import { ChildStarters, Spawner, sharedChildStarter, startSpawnerProcess } from '../../../main/pty/spawner.js';
import { runOneShot, scrubEnv, type OneShotSpec } from '../../../main/runner/one-shot.js';
import { liveInGroup } from '../../support/processes.js';

const BWRAP = '/usr/bin/bwrap';
const HOSTILE = fileURLToPath(new URL('../../fixtures/hostile/', import.meta.url));
const source = (name: string) => fileURLToPath(new URL(`../../../main/pty/${name}.ts`, import.meta.url));
const spawnerFile = () => entryFile({ name: 'spawner-process', ext: '.cjs', callerUrl: pathToFileURL(source('spawner')).href, what: 'the spawner process', packagesExternal: true });
const workerFile = () => entryFile({ name: 'pty-fork-worker', ext: '.cjs', callerUrl: pathToFileURL(source('fork-thread')).href, what: 'the fork thread', packagesExternal: true });

function spec(more: Partial<OneShotSpec>): OneShotSpec {
  return { plugin: 'probe', command: join(HOSTILE, 'ok.sh'), args: [], cwd: HOSTILE, input: { hello: 'world' }, timeoutMs: 10_000, env: scrubEnv(process.env, []), ...more };
}

/** A tool that answers with its parent's pid, as the shell saw it when it started. */
const PARENT = { command: '/bin/sh', args: ['-c', 'echo "{\\"ppid\\": $PPID}"'] };

/** Waits for `cond` on every turn of the loop (no fixed sleep), failing after `ms`. */
async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

describe('one-shot processes and the spawner process', () => {
  it('are started by the spawner by default: the plugin’s parent is the spawner, not the host', async () => {
    for (let i = 0; i < 2; i++) {
      let forkedBy: number | null = null;
      const r = await runOneShot(spec({ ...PARENT, onSpawn: (_pid, _thread, by) => (forkedBy = by) }));
      expect(r.ok, r.ok ? '' : r.message).toBe(true);
      const spawner = sharedChildStarter();
      expect(spawner).toBeInstanceOf(Spawner);
      const pid = (spawner as Spawner).pid;
      expect(pid).not.toBeNull();
      expect(pid).not.toBe(process.pid);
      expect(forkedBy).toBe(pid);
      expect(r.ok && r.output).toEqual({ ppid: pid });
    }
  });

  it('the same failures read the same from the spawner: a missing command, a crash with its stderr, output over the cap (bytes intact)', async () => {
    const spawner = new Spawner(killSession, () => startSpawnerProcess(spawnerFile()));
    const missing = await runOneShot(spec({ command: join(HOSTILE, 'no-such-tool.sh'), forkThread: spawner }));
    const missingHere = await runOneShot(spec({ command: join(HOSTILE, 'no-such-tool.sh'), forkThread: false }));
    expect(missing).toMatchObject({ ok: false, failure: 'spawn' });
    expect(missing.ok ? '' : missing.message).toBe(missingHere.ok ? 'x' : missingHere.message);
    const crash = await runOneShot(spec({ command: join(HOSTILE, 'crash.sh'), forkThread: spawner }));
    const crashHere = await runOneShot(spec({ command: join(HOSTILE, 'crash.sh'), forkThread: false }));
    expect(crash).toMatchObject({ ok: false, failure: 'crash' });
    expect(crash.ok ? '' : crash.message).toBe(crashHere.ok ? 'x' : crashHere.message);
    const flood = await runOneShot(spec({ command: join(HOSTILE, 'stdout-flood.sh'), forkThread: spawner, maxStdout: 4096 }));
    expect(flood).toMatchObject({ ok: false, failure: 'limit', limit: 'stdout' });
    // Multi-byte UTF-8 across the channel: stdout travels as bytes.
    const text = await runOneShot(spec({ command: '/bin/sh', args: ['-c', 'printf \'{"s": "h\\303\\251 \\342\\202\\254"}\''], forkThread: spawner }));
    expect(text.ok && text.output).toEqual({ s: 'hé €' });
  });

  it('a spawner killed during a call: the call fails closed, naming why, its process is killed, and the next call starts a new spawner', async () => {
    const first = sharedChildStarter() as Spawner;
    await runOneShot(spec({}));
    const firstPid = first.pid!;
    let pid: number | null = null;
    const r = await runOneShot(
      spec({
        command: '/bin/sh',
        args: ['-c', 'sleep 600 & sleep 600'],
        timeoutMs: 60_000,
        onSpawn: (p) => {
          pid = p;
          process.kill(firstPid, 'SIGKILL');
        },
      }),
    );
    expect(r).toMatchObject({ ok: false, failure: 'crash' });
    expect(r.ok ? '' : r.message).toMatch(/^probe was stopped: the spawner process \(which starts plugin processes\) stopped \(killed by SIGKILL\), which was watching it\.$/);
    expect(liveInGroup(pid!)).toEqual([]);
    // The next call: a new spawner, and it answers.
    let forkedBy: number | null = null;
    const next = await runOneShot(spec({ ...PARENT, onSpawn: (_p, _t, by) => (forkedBy = by) }));
    expect(next.ok, next.ok ? '' : next.message).toBe(true);
    const second = sharedChildStarter() as Spawner;
    expect(second).not.toBe(first);
    expect(forkedBy).toBe(second.pid);
    expect(second.pid).not.toBe(firstPid);
  });

  it('no Node to run the spawner (the desktop app without one on the PATH): calls are started on the fork thread, and that is said once', async () => {
    const said: string[] = [];
    const thread = new ForkThread(killSession, workerFile());
    const noNode = { electron: '39.0.0', execPath: '/opt/Gatehouse/gatehouse', path: '/nonexistent', platform: process.platform };
    const starters = new ChildStarters(() => new Spawner(killSession, () => startSpawnerProcess(spawnerFile(), noNode)), () => thread, (m) => said.push(m));
    for (let i = 0; i < 2; i++) {
      const starter = starters.current();
      expect(starter).toBe(thread);
      let forkedOn: number | null = null;
      let forkedBy: number | null = null;
      const r = await runOneShot(spec({ ...PARENT, forkThread: starter!, onSpawn: (_p, t, by) => ((forkedOn = t), (forkedBy = by)) }));
      expect(r.ok && r.output).toEqual({ ppid: process.pid });
      expect(forkedBy).toBe(process.pid);
      expect(forkedOn).toBeGreaterThan(0);
    }
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^gatehouse: plugin processes are started on the fork thread: the spawner process \(which starts plugin processes\) was not started: no Node\.js .* was found on the PATH/);
  });

  it('a spawner that dies before it is ready: calls go to the fork thread from then on', async () => {
    const said: string[] = [];
    const thread = new ForkThread(killSession, workerFile());
    // A real Node that exits at once instead of serving.
    const dud = () => spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const starters = new ChildStarters(() => new Spawner(killSession, dud), () => thread, (m) => said.push(m));
    const first = starters.current();
    expect(first).toBeInstanceOf(Spawner);
    const r = await runOneShot(spec({ forkThread: first! }));
    // Given explicitly, a starter gone before it started anything leaves the call to this thread.
    expect(r.ok, r.ok ? '' : r.message).toBe(true);
    expect(starters.current()).toBe(thread);
    expect(said[0]).toMatch(/stopped \(exit code 3\)/);
  });

  // A host that goes, by exiting or killed outright: what its spawner started goes with it, and the spawner too.
  // The last: neither the host nor the spawner can clean up; bwrap's --die-with-parent (its parent
  // is the spawner now) takes the sandbox, PID namespace and all, with them.
  it.each([
    ['exits', 'process.exit(0);', false],
    ['is killed by SIGKILL', 'process.kill(process.pid, "SIGKILL");', false],
    ['is killed by SIGKILL at once with its spawner, the plugin in bwrap', 'process.kill(spawner.pid, "SIGKILL"); process.kill(process.pid, "SIGKILL");', true],
  ])('a host that %s: its plugin processes and its spawner are gone', async (_how, end, boxed) => {
    if (boxed && !existsSync(BWRAP)) {
      console.log(`skipped: no bubblewrap at ${BWRAP}`);
      return;
    }
    const root = mkdtempSync(join(fileURLToPath(new URL('../../../node_modules/.cache/', import.meta.url)), 'gatehouse-spawner-exit-'));
    const src = fileURLToPath(new URL('../../../main/', import.meta.url));
    buildSync({
      stdin: {
        contents: `import { readdirSync, readFileSync } from 'node:fs';
import { runOneShot, scrubEnv } from '${src}runner/one-shot.ts';
import { Spawner, startSpawnerProcess } from '${src}pty/spawner.ts';
import { killSession } from '${src}pty/process-tree.ts';
const spawner = new Spawner(killSession, () => startSpawnerProcess(${JSON.stringify(spawnerFile())}));
const wrap = ${boxed} ? (command: string, args: string[]) => ({ command: ${JSON.stringify(BWRAP)}, args: ['--die-with-parent', '--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', command, ...args], sandboxed: true }) : undefined;
void runOneShot({ plugin: 'held', command: '/bin/sh', args: ['-c', 'sleep 600 & sleep 600'], cwd: '/', input: {}, timeoutMs: 60000, env: scrubEnv(process.env, []), forkThread: spawner, ...(wrap ? { wrap } : {}),
  onSpawn: async (pid) => {
    // Its processes, once all are there (the shell's two sleeps: its own and one in the background).
    const group = () => readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).filter((p) => { try { const st = readFileSync('/proc/' + p + '/stat', 'utf8'); return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[2]) === pid; } catch { return false; } });
    const sleeps = () => group().filter((p) => { try { return readFileSync('/proc/' + p + '/comm', 'utf8') === 'sleep\\n'; } catch { return false; } }).length;
    while (sleeps() < 2) await new Promise((r) => setImmediate(r));
    console.log(JSON.stringify({ pid, spawner: spawner.pid, inGroup: group().length }));
    ${end}
  } });
`,
        resolveDir: root,
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile: join(root, 'host.mjs'),
      logLevel: 'silent',
    });
    const host = spawn(process.execPath, [join(root, 'host.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    host.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    await new Promise<void>((resolve) => host.on('exit', () => resolve()));
    rmSync(root, { recursive: true, force: true });
    const said = JSON.parse(out) as { pid: number; spawner: number; inGroup: number };
    expect(said.spawner).toBeGreaterThan(0);
    // The plugin was running (bwrap, its namespace's init, the shell and its two sleeps; or the shell and the sleeps).
    expect(said.inGroup).toBeGreaterThanOrEqual(boxed ? 4 : 2);
    await until('the plugin’s group to be gone', () => liveInGroup(said.pid).length === 0);
    await until('the spawner to exit', () => !isAlive(said.spawner));
  });
});
