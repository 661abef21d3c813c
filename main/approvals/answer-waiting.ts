// Stopping with calls still waiting for an operator: each is denied ("Gatehouse is shutting
// down", call.abandoned, fail closed) and its answer let out before anything else stops, so an
// agent is told rather than left hanging on a connection that closes.
import type { AuditStore } from '../audit/audit-store.js';
import type { ApprovalQueue } from './approval-queue.js';

/** Returns the shutdown step: resolves with how many calls were waiting, once their answers are out. Runs once. */
export function answerWaitingOnStop(approvals: ApprovalQueue, audit: AuditStore): () => Promise<number> {
  let answering: Promise<number> | null = null;
  return () =>
    (answering ??= (async () => {
      const n = approvals.abandonPending('host shut down');
      if (n === 0) return 0;
      // The denials resolve each waiting call: its pipeline records the result in the turns that
      // follow, and its answer is sent once those records are durable. This event is committed
      // after them, so when it is durable every answer has been released; one more turn writes them.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const stopping = audit.append({ type: 'host.stopping', actor: 'host', payload: { waiting: n } });
      // Sent now, not waited for here: the durable promise below is.
      audit.flush(0);
      await stopping.durable.catch(() => {});
      await new Promise<void>((resolve) => setImmediate(resolve));
      return n;
    })());
}
