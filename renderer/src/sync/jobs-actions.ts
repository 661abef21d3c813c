// The Jobs domain: long work on the host, listed on connect and followed by jobs.progress
// (bindJobs), and starting such work as a job this console can follow and cancel.
import type { MethodName, RequestOf, ResponseOf } from '../../../shared/contract.ts';
import { applyJobs, initialJobsState, useJobsStore } from '../stores/jobs-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { HostCallError } from '../transport/transport-error.ts';
import { bindDomain } from './bind-domain.ts';

export function bindJobs(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    d.on('jobs.progress', (job) => applyJobs([job]));
    return {
      load: () => loadJobs(client),
      reset: () => useJobsStore.setState({ ...initialJobsState }),
    };
  });
}

/** A fresh job id; the console names its jobs so it can follow and cancel them while they run. */
export function newJobId(kind: string): string {
  // getRandomValues works in every context the console runs in (randomUUID needs a secure one).
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `${kind}-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Jobs the host is running (and recent ones), for a console that connects while they run. */
export async function loadJobs(client: GatehouseClient): Promise<void> {
  try {
    const { jobs } = await client.call('jobs.list', {});
    useJobsStore.setState({ jobs: {} });
    applyJobs(jobs);
  } catch {
    // An older host without jobs: progress simply is not shown.
  }
}

/** Asks the host to stop a job; the request that started it then fails as cancelled. */
export async function cancelJob(client: GatehouseClient, id: string): Promise<void> {
  try {
    await client.call('jobs.cancel', { id });
  } catch {
    // The job ended meanwhile, or the host went away: its own request reports what happened.
  }
}

/** The request failed because its job was cancelled (not an error to alarm anyone with). */
export function isCancelled(err: unknown): boolean {
  return err instanceof HostCallError && err.code === 'rejected' && (err.details as { reason?: unknown } | undefined)?.reason === 'cancelled';
}

/** Calls a method that runs as a job, under the given id. */
export function callAsJob<M extends MethodName>(client: GatehouseClient, method: M, params: RequestOf<M>, job: string): Promise<ResponseOf<M>> {
  return client.call(method, { ...params, job } as RequestOf<M>);
}
