// Long work on the host (verifying a long chain, exporting, replaying a policy over a time range,
// scanning many plugins) runs as a job: it reports how far it is, can be cancelled, and gives
// the event loop back between chunks so agents' calls and other consoles are served meanwhile.
//
// The caller names the job (a console makes up an id and passes it with the request), so it can
// follow the `jobs.progress` events of its own request and cancel it with `jobs.cancel` while the
// request is still open. A cancelled job's request fails with reason "cancelled"; work that
// changes state applies nothing until its last chunk, so a cancel leaves things as they were.
import { randomUUID } from 'node:crypto';
import type { JobView } from '../../shared/contract.js';
import { OperationError } from '../core/operation-error.js';
import type { Chunked } from '../chunked.js';
import type { JobKind, JobRunner, JobSpec } from '../core/job-runner.js';

// The spec lives in core/ so handlers below host/ can ask for a job (core/job-runner.ts).
export type { JobKind, JobSpec };

/** progress() is sent to consoles at most every `throttleMs`, and always at the end; checkpoint() throws JobCancelled. */
export interface JobContext extends Chunked {
  readonly id: string;
  readonly signal: AbortSignal;
}

export interface JobsDeps {
  /** The host's clock, for startedAt and endedAt. */
  now: () => number;
  /** Milliseconds on a steady clock, for throttling (default performance.now). */
  elapsed?: () => number;
  /** Every change worth showing (start, progress, end): the host sends it as `jobs.progress`. */
  emit: (job: JobView) => void;
  /** Fewest milliseconds between two progress events of one job (default 100). */
  throttleMs?: number;
  /** Finished jobs kept for jobs.list (default 20). */
  keep?: number;
}

/** The request failed because an operator cancelled its job. */
export class JobCancelled extends OperationError {
  constructor(message: string) {
    super('cancelled', message);
  }
}

interface Running {
  view: JobView;
  controller: AbortController;
  lastEmit: number;
}

export class Jobs implements JobRunner {
  private readonly running = new Map<string, Running>();
  private finished: JobView[] = [];

  constructor(private readonly deps: JobsDeps) {}

  async run<T>(spec: JobSpec, work: (job: JobContext) => Promise<T>): Promise<T> {
    const id = spec.id ?? `job-${randomUUID()}`;
    if (this.running.has(id)) throw new OperationError('busy', `A job with the id ${id} is already running; use another id.`);
    const now = this.deps.now();
    const r: Running = {
      view: { id, kind: spec.kind, title: spec.title, unit: spec.unit, state: 'running', done: 0, total: spec.total ?? null, by: spec.by, cancellable: spec.cancellable ?? true, startedAt: now, endedAt: null, message: null },
      controller: new AbortController(),
      lastEmit: (this.deps.elapsed ?? (() => performance.now()))(),
    };
    this.running.set(id, r);
    this.deps.emit({ ...r.view });
    const throttle = this.deps.throttleMs ?? 100;
    const elapsed = this.deps.elapsed ?? (() => performance.now());
    const signal = r.controller.signal;
    const ctx: JobContext = {
      id,
      signal,
      progress: (done, total) => {
        // The size once known and the first chunk done are always sent: a console learns at once
        // how big the work is, and that it moves.
        const news = (total !== undefined && total !== null && r.view.total === null) || (done > 0 && r.view.done === 0);
        r.view.done = done;
        if (total !== undefined) r.view.total = total;
        const t = elapsed();
        if (!news && t - r.lastEmit < throttle) return;
        r.lastEmit = t;
        this.deps.emit({ ...r.view });
      },
      checkpoint: async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (signal.aborted) throw this.cancelled(r.view);
      },
    };
    try {
      // Started work sees a cancel that arrived before its first chunk.
      if (signal.aborted) throw this.cancelled(r.view);
      const result = await work(ctx);
      this.end(r, 'done', null);
      return result;
    } catch (err) {
      const cancelled = err instanceof JobCancelled || signal.aborted;
      const e = cancelled && !(err instanceof JobCancelled) ? this.cancelled(r.view) : err;
      this.end(r, cancelled ? 'cancelled' : 'failed', e instanceof Error ? e.message : String(e));
      throw e;
    }
  }

  /** Asks a running job to stop at its next checkpoint; null when no such job is running. */
  cancel(id: string): JobView | null {
    const r = this.running.get(id);
    if (!r) return null;
    if (r.view.cancellable) r.controller.abort();
    return { ...r.view };
  }

  /** Running jobs first, then the most recent finished ones. */
  list(): JobView[] {
    return [...[...this.running.values()].map((r) => ({ ...r.view })), ...this.finished.map((v) => ({ ...v }))];
  }

  /** Cancels every running job (host shutdown). */
  cancelAll(): void {
    for (const r of this.running.values()) r.controller.abort();
  }

  private cancelled(v: JobView): JobCancelled {
    const of = v.total !== null ? ` of ${v.total.toLocaleString('en-US')}` : '';
    return new JobCancelled(`${v.title} was cancelled after ${v.done.toLocaleString('en-US')}${of} ${v.unit}; nothing was changed.`);
  }

  private end(r: Running, state: JobView['state'], message: string | null): void {
    this.running.delete(r.view.id);
    r.view.state = state;
    r.view.endedAt = this.deps.now();
    r.view.message = message;
    this.finished = [{ ...r.view }, ...this.finished].slice(0, this.deps.keep ?? 20);
    this.deps.emit({ ...r.view });
  }
}
