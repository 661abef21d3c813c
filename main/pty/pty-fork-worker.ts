// The thread that forks PTY programs (main/pty/fork-thread.ts starts it and says why). It calls
// node-pty's native fork with the very arguments node-pty's UnixTerminal would have passed on the
// main thread, and posts back the master fd, the pid and the slave's name; fds and pids belong
// to the whole process, so the main thread reads, writes, resizes and signals the terminal
// itself. The native exit callback (node-pty's waitpid thread) fires here and is relayed. It also
// answers which processes a session left when its program exited (fork-thread.ts says why), and
// starts one-shot plugin processes when the host has no spawner process (spawn-service.ts).
import { parentPort, threadId, workerData } from 'node:worker_threads';
import * as nodePty from 'node-pty';
import { attachSealed, sealFd, withSealLock } from '../core/sealed-fds.js';
import type { ForkReply, ForkRequest, NativePty, ScanRequest } from './fork-thread.js';
import { sessionProcesses } from './process-tree.js';
import { serveSpawns, type SpawnRequest } from './spawn-service.js';
import { lowerForTools, lowerTool } from './tool-priority.js';

const port = parentPort;
if (!port) throw new Error('pty-fork-worker runs as a worker thread');
/** Terminals forked here whose exit node-pty has not reported yet (ForkThread's onProcessExit waits on it). */
const live = (workerData as { live?: SharedArrayBuffer } | null)?.live ? new Int32Array((workerData as { live: SharedArrayBuffer }).live) : null;

// Every process this thread starts gets the host's sealed descriptors covered (core/sealed-fds.ts).
const sealed = (workerData as { sealed?: SharedArrayBuffer } | null)?.sealed;
if (sealed) attachSealed(sealed);

// What this thread forks (terminals' programs, one-shot processes without a spawner) runs at the
// tools' priority, in the tools' cpu group when the host has one; on Linux only this thread is
// lowered, not the host (tool-priority.ts).
lowerForTools('thread', (workerData as { cpuGroup?: string | null } | null)?.cpuGroup ?? null);

const native = (nodePty as unknown as { native: NativePty | null }).native;
if (!native) {
  // node-pty has no native fork here (Windows): the main thread spawns itself.
  port.postMessage({ type: 'failed', message: 'node-pty has no native fork on this platform' } satisfies ForkReply);
} else {
  port.postMessage({ type: 'ready', threadId } satisfies ForkReply);
  // One-shot processes (when the host has no spawner process): the same handler as the spawner's.
  const spawns = serveSpawns((reply) => port.postMessage(reply satisfies ForkReply));
  port.on('message', (r: ForkRequest | ScanRequest | SpawnRequest) => {
    if (r.type === 'spawn' || r.type === 'let-go' || r.type === 'release') {
      spawns.handle(r);
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
    let exited = false;
    try {
      // The new master is sealed before any thread of the host can fork again (its program,
      // forked by forkpty, still holds the masters open before it: node-pty-spawn.ts says when
      // this fork is used at all).
      term = withSealLock(() => {
        const t = native.fork(...r.args, (exitCode: number, signal: number) => {
          exited = true;
          port.postMessage({ type: 'exit', id: r.id, exitCode, signal } satisfies ForkReply);
          if (live) {
            Atomics.sub(live, 0, 1);
            Atomics.notify(live, 0);
          }
        });
        sealFd(t.fd);
        return t;
      });
      if (live) Atomics.add(live, 0, 1);
    } catch (err) {
      port.postMessage({ type: 'error', id: r.id, message: (err as Error).message } satisfies ForkReply);
      return;
    }
    // Into the tools' cpu group (before the host hears of it); or forkpty's child calls setsid, and
    // its session is lowered once it has it (tool-priority.ts).
    lowerTool(term.pid, () => exited);
    port.postMessage({ type: 'forked', id: r.id, fd: term.fd, pid: term.pid, pty: term.pty, threadId } satisfies ForkReply);
  });
}
