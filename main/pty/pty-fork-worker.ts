// The thread that forks PTY programs (main/pty/fork-thread.ts starts it and says why). It calls
// node-pty's native fork with the very arguments node-pty's UnixTerminal would have passed on the
// main thread, and posts back the master fd, the pid and the slave's name; fds and pids belong
// to the whole process, so the main thread reads, writes, resizes and signals the terminal
// itself. The native exit callback (node-pty's waitpid thread) fires here and is relayed. It also
// answers which processes a session left when its program exited (fork-thread.ts says why).
import { parentPort, threadId, workerData } from 'node:worker_threads';
import * as nodePty from 'node-pty';
import type { ForkReply, ForkRequest, NativePty, ScanRequest, SpawnRequest } from './fork-thread.js';
import { sessionProcesses } from './process-tree.js';
import { startChild, type ChildIo } from './child-io.js';

const port = parentPort;
if (!port) throw new Error('pty-fork-worker runs as a worker thread');
/** Terminals forked here whose exit node-pty has not reported yet (ForkThread's onProcessExit waits on it). */
const live = (workerData as { live?: SharedArrayBuffer } | null)?.live ? new Int32Array((workerData as { live: SharedArrayBuffer }).live) : null;

const native = (nodePty as unknown as { native: NativePty | null }).native;
if (!native) {
  // node-pty has no native fork here (Windows): the main thread spawns itself.
  port.postMessage({ type: 'failed', message: 'node-pty has no native fork on this platform' } satisfies ForkReply);
} else {
  port.postMessage({ type: 'ready', threadId } satisfies ForkReply);
  /** One-shot processes started here and not yet closed (their pipes are this thread's handles). */
  const children = new Map<number, ChildIo>();
  port.on('message', (r: ForkRequest | ScanRequest | SpawnRequest) => {
    if (r.type === 'spawn') {
      const id = r.id;
      let ended = false;
      // Copied, not moved: a small output sits in Buffer's shared pool, which must stay here.
      const io = startChild(r.req, (event) => {
        if (event.type === 'failed' || event.type === 'close') {
          ended = true;
          children.delete(id);
        }
        port.postMessage({ type: 'child', id, event } satisfies ForkReply);
      });
      if (!ended) children.set(id, io);
      return;
    }
    if (r.type === 'let-go') {
      children.get(r.id)?.letGo();
      return;
    }
    if (r.type === 'release') {
      children.get(r.id)?.release(r.input);
      return;
    }
    if (r.type === 'scan') {
      let pids: number[] | null = null;
      try {
        pids = sessionProcesses(r.leader, new Set(), r.forksBefore);
      } catch {
        // The host reads them itself.
      }
      port.postMessage({ type: 'scanned', id: r.id, pids } satisfies ForkReply);
      return;
    }
    let term;
    try {
      term = native.fork(...r.args, (exitCode: number, signal: number) => {
        port.postMessage({ type: 'exit', id: r.id, exitCode, signal } satisfies ForkReply);
        if (live) {
          Atomics.sub(live, 0, 1);
          Atomics.notify(live, 0);
        }
      });
      if (live) Atomics.add(live, 0, 1);
    } catch (err) {
      port.postMessage({ type: 'error', id: r.id, message: (err as Error).message } satisfies ForkReply);
      return;
    }
    port.postMessage({ type: 'forked', id: r.id, fd: term.fd, pid: term.pid, pty: term.pty, threadId } satisfies ForkReply);
  });
}
