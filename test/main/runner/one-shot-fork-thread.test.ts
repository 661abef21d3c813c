// One-shot plugin processes are forked on the host's fork thread (main/pty/fork-thread.ts with
// main/pty/child-io.ts) when the host has no spawner process (main/pty/spawner.ts), not on the event loop's thread, where each fork of a host-sized
// process stood the loop still for tens of milliseconds. No timing is measured here (the bench
// does: "event-loop stall, one-shot calls"): what is checked is which thread forked, that the
// call reads the same, and what happens when the thread is gone, before a call and during one.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { entryFile } from '../../../main/core/entry-file.js';
import { ForkThread } from '../../../main/pty/fork-thread.js';
import { killSession } from '../../../main/pty/process-tree.js';
import { runOneShot, scrubEnv, type OneShotSpec } from '../../../main/runner/one-shot.js';
import { liveInGroup } from '../../support/processes.js';

const HOSTILE = fileURLToPath(new URL('../../fixtures/hostile/', import.meta.url));
const forkThreadSource = fileURLToPath(new URL('../../../main/pty/fork-thread.ts', import.meta.url));
const workerFile = () => entryFile({ name: 'pty-fork-worker', ext: '.cjs', callerUrl: pathToFileURL(forkThreadSource).href, what: 'the fork thread', packagesExternal: true });

function spec(fixture: string, more: Partial<OneShotSpec> = {}): OneShotSpec {
  return { plugin: fixture.replace(/\.\w+$/, ''), command: join(HOSTILE, fixture), args: [], cwd: HOSTILE, input: { hello: 'world' }, timeoutMs: 10_000, env: scrubEnv(process.env, []), ...more };
}

/** Waits (polling /proc, no fixed sleep) until the group has no live process, or fails after `ms`. */
async function groupGone(pid: number, ms = 10_000): Promise<number[]> {
  const end = Date.now() + ms;
  let left = liveInGroup(pid);
  while (left.length > 0 && Date.now() < end) {
    await new Promise((r) => setImmediate(r));
    left = liveInGroup(pid);
  }
  return left;
}

describe('one-shot processes and the fork thread', () => {
  it('a given fork thread forks them on that thread; forkThread: false forks on the calling thread', async () => {
    const thread = new ForkThread(killSession, workerFile());
    for (const forkThread of [thread, false] as const) {
      let forkedOn: number | null = null;
      let forkedBy: number | null = null;
      const r = await runOneShot(spec('ok.sh', { onSpawn: (_pid, t, by) => ((forkedOn = t), (forkedBy = by)), forkThread }));
      expect(r.ok, r.ok ? '' : r.message).toBe(true);
      // In this process either way (by default they are started by the spawner process: one-shot-spawner.test.ts).
      expect(forkedBy).toBe(process.pid);
      if (forkThread === false) expect(forkedOn).toBe(threadId);
      else {
        expect(forkedOn).not.toBeNull();
        expect(forkedOn).not.toBe(threadId);
      }
    }
  });

  it('the same failures read the same from the thread: a missing command, a crash with its stderr, output over the cap', async () => {
    const thread = new ForkThread(killSession, workerFile());
    const missing = await runOneShot({ ...spec('ok.sh'), command: join(HOSTILE, 'no-such-tool.sh'), forkThread: thread });
    expect(missing).toMatchObject({ ok: false, failure: 'spawn' });
    const crash = await runOneShot(spec('crash.sh', { forkThread: thread }));
    const crashHere = await runOneShot(spec('crash.sh', { forkThread: false }));
    expect(crash).toMatchObject({ ok: false, failure: 'crash' });
    expect(crash.ok ? '' : crash.message).toBe(crashHere.ok ? 'x' : crashHere.message);
    const flood = await runOneShot(spec('stdout-flood.sh', { forkThread: thread, maxStdout: 4096 }));
    expect(flood).toMatchObject({ ok: false, failure: 'limit', limit: 'stdout' });
    expect(flood.stdout.length).toBeLessThanOrEqual(4096);
  });

  it('a thread gone before the call: the call is forked on the calling thread and answers', async () => {
    const thread = new ForkThread(killSession, workerFile());
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    let forkedOn: number | null = null;
    const r = await runOneShot(spec('ok.sh', { forkThread: thread, onSpawn: (_pid, t) => (forkedOn = t) }));
    expect(r.ok, r.ok ? '' : r.message).toBe(true);
    expect(forkedOn).toBe(threadId);
  });

  it('a thread that dies during the call: the call fails closed, naming why, and its process is killed', async () => {
    const thread = new ForkThread(killSession, workerFile());
    let pid: number | null = null;
    let spawned!: () => void;
    const started = new Promise<void>((r) => (spawned = r));
    const call = runOneShot(spec('endless-loop.sh', { forkThread: thread, timeoutMs: 60_000, onSpawn: (p) => ((pid = p), spawned()) }));
    await started;
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    const r = await call;
    expect(r).toMatchObject({ ok: false, failure: 'crash' });
    expect(r.ok ? '' : r.message).toMatch(/endless-loop was stopped: the fork thread \(which starts terminals and plugin processes\) stopped/);
    expect(await groupGone(pid!)).toEqual([]);
  });
});
