// The worker thread that extracts calls too large to judge on the host's own thread
// (guarded-extract.ts). It has its own tree-sitter runtime: if a parse aborts it or runs past the
// deadline, the host terminates this thread and starts another, and nothing it shared is left
// broken. Built as its own entry (out/main/extract-worker.cjs).
import { parentPort } from 'node:worker_threads';
import { extract, initExtractor, type ExtractOptions } from './extract.js';
import type { ToolCall } from '../types.js';

export interface WorkerJob {
  id: number;
  call: ToolCall;
  opts: ExtractOptions;
}

export type WorkerReply = { id: number; ok: true; extraction: ReturnType<typeof extract> } | { id: number; ok: false; message: string };
/** What the worker posts: `ready` once after start-up (grammar loaded or not), then one reply per job. */
export type WorkerMessage = WorkerReply | { ready: true };

const port = parentPort;
if (port) {
  // The host starts a job's deadline only once this arrives, so loading the grammar (tens of ms,
  // more on a busy machine) does not count against the first call. A failed load is reported by
  // the job that next tries it.
  void initExtractor()
    .catch(() => undefined)
    .then(() => port.postMessage({ ready: true } satisfies WorkerMessage));
  port.on('message', (job: WorkerJob) => {
    void (async () => {
      let reply: WorkerReply;
      try {
        // Loads the grammar on the first job, and again after a parse failure discarded it.
        await initExtractor();
        reply = { id: job.id, ok: true, extraction: extract(job.call, job.opts) };
      } catch (err) {
        reply = { id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) };
      }
      port.postMessage(reply satisfies WorkerMessage);
    })();
  });
}
