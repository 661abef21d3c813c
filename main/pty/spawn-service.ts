// The one handler of SpawnRequests (start a one-shot plugin process, let go of its pipes, release
// a warm start), wherever it runs: on the host's fork thread (pty-fork-worker.ts, over its
// parentPort) or in the spawner process (spawner-process.ts, over its IPC channel). Each process
// is started by child-io.ts's startChild, and its events go back to `send` in order, tagged with
// the request's id. The pipes are handles of the thread that started the process, so they are
// read here, and only the events travel.
import { startChild, type ChildEvent, type ChildIo } from './child-io.js';
import { killSession } from './process-tree.js';

/** A one-shot plugin process to start (child-io.ts), letting go of its pipes, and releasing a warm start. */
export type SpawnRequest = { type: 'spawn'; id: number; req: import('./child-io.js').ChildRequest } | { type: 'let-go'; id: number } | { type: 'release'; id: number; input: string };

/** An event of the process started for request `id`. */
export interface ChildReply {
  type: 'child';
  id: number;
  event: ChildEvent;
}

export interface SpawnService {
  handle(r: SpawnRequest): void;
  /**
   * Kills, synchronously, every process started here that has not closed, with what its session
   * left (a spawner whose host is gone: nothing it started may run on unsupervised).
   */
  killAll(): void;
}

export function serveSpawns(send: (r: ChildReply) => void): SpawnService {
  /** Started here and not yet closed (their pipes are this thread's handles). */
  const children = new Map<number, { io: ChildIo; pid: number | null }>();
  return {
    handle(r) {
      if (r.type === 'spawn') {
        const id = r.id;
        let ended = false;
        let pid: number | null = null;
        // Copied, not moved: a small output sits in Buffer's shared pool, which must stay here.
        const io = startChild(r.req, (event) => {
          if (event.type === 'spawned') {
            pid = event.pid;
            const known = children.get(id);
            if (known) known.pid = pid;
          }
          if (event.type === 'failed' || event.type === 'close') {
            ended = true;
            children.delete(id);
          }
          send({ type: 'child', id, event });
        });
        if (!ended) children.set(id, { io, pid });
        return;
      }
      if (r.type === 'let-go') children.get(r.id)?.io.letGo();
      else children.get(r.id)?.io.release(r.input);
    },
    killAll() {
      for (const { pid } of children.values()) if (pid !== null) killSession(pid);
    },
  };
}

/**
 * What starts one-shot processes for the host (one-shot.ts): the spawner process (spawner.ts) or
 * the fork thread (fork-thread.ts). startChild rejects with ForkThreadUnavailable only when it is
 * already gone (nothing was started: the caller may start the process elsewhere); if it goes
 * later, `emit` gets `lost` and the process is killed, never started again.
 */
export interface ChildStarter {
  /** Why it is gone, or null while it runs. */
  readonly failed: string | null;
  startChild(req: import('./child-io.js').ChildRequest, emit: (e: ChildEvent) => void): Promise<ChildIo>;
}
