// CLI commands that change state go through the host that owns the data folder: the running
// one (over its loopback API, found through serve.json) or, when none runs, one started in
// this process for the length of the command. Two hosts never write one folder at once.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { MethodName, RequestOf, ResponseOf, Envelope, JobView } from '../../shared/contract.js';
import { JobCancelled } from '../host/jobs.js';
import { operatorName } from '../core/operator.js';
import type { HostOptions } from '../host/create-host.js';
import { runningHost } from './running-host.js';

export interface HostCaller {
  readonly mode: 'remote' | 'local';
  call<M extends MethodName>(method: M, params: RequestOf<M>): Promise<ResponseOf<M>>;
  /**
   * Calls a method that runs as a job on the host, following its progress; cancel() asks the
   * host to stop it (the result then rejects with the host's "cancelled" sentence).
   */
  callJob<M extends JobMethod>(method: M, params: RequestOf<M>, onProgress: (job: JobView) => void): { result: Promise<ResponseOf<M>>; cancel(): void };
  close(): Promise<void>;
}

/** Methods that take a `job` id and run as jobs. */
export type JobMethod = 'audit.verify' | 'audit.export' | 'audit.replay' | 'plugins.rescan';

/** How often a CLI following a job on the running host asks how far it is (it has no event channel). */
const JOB_POLL_MS = 200;

/** The host refused or failed: its sentence is what the operator sees. */
export class HostCallFailed extends Error {}

function unwrap<T>(env: Envelope<T>): T {
  if (!env.ok) {
    // A cancel reads the same whether the work ran here or on the running host.
    if ((env.error.details as { reason?: unknown } | undefined)?.reason === 'cancelled') throw new JobCancelled(env.error.message);
    throw new HostCallFailed(env.error.message);
  }
  return env.result;
}

const jobId = () => `cli-${randomUUID()}`;

/**
 * `onJob` follows the jobs of a host started here, from its first plugin scan on (a command that
 * lists plugins shows how far the scan is); a running host's own start-up is long over.
 */
export async function connectHost(home: string, local: Omit<HostOptions, 'home' | 'shell'> & { onJob?: (job: JobView) => void } = {}): Promise<HostCaller> {
  const running = await runningHost(home);
  if (running.ok) {
    const { info } = running;
    const call = async <M extends MethodName>(method: M, params: RequestOf<M>): Promise<ResponseOf<M>> => {
      const res = await fetch(new URL('/api/call', info.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${info.token}` },
        body: JSON.stringify({ method, params }),
      });
      if (res.status === 401) throw new HostCallFailed(`The running host (pid ${info.pid}) refused the token in serve.json; restart it.`);
      return unwrap((await res.json()) as Envelope<ResponseOf<M>>);
    };
    return {
      mode: 'remote',
      call,
      callJob(method, params, onProgress) {
        const id = jobId();
        let finished = false;
        const result = call(method, { ...params, job: id } as RequestOf<typeof method>).finally(() => (finished = true));
        void (async () => {
          while (!finished) {
            const found = (await call('jobs.list', {})).jobs.find((j) => j.id === id);
            if (found && !finished) onProgress(found);
            await delay(JOB_POLL_MS);
          }
        })().catch(() => {
          // Progress is a courtesy; the call's own result says what happened.
        });
        return { result, cancel: () => void call('jobs.cancel', { id }).catch(() => {}) };
      },
      async close() {},
    };
  }
  const { onJob, ...options } = local;
  // The whole host, loaded only when no running one can be asked (most of the CLI's start-up).
  const { createHost } = await import('../host/create-host.js');
  const host = createHost({ ...options, home, shell: 'cli', watch: false, log: () => {} });
  const offJobs = onJob ? host.bus.subscribe((_name, payload) => onJob(payload as JobView), (name) => name === 'jobs.progress') : null;
  try {
    await host.ready;
  } finally {
    offJobs?.();
  }
  const ctx = { console: 'cli' as const, operator: operatorName() };
  const call = async <M extends MethodName>(method: M, params: RequestOf<M>): Promise<ResponseOf<M>> => unwrap((await host.dispatcher.dispatch(method, params, ctx)) as Envelope<ResponseOf<M>>);
  return {
    mode: 'local',
    call,
    callJob(method, params, onProgress) {
      const id = jobId();
      const off = host.bus.subscribe((_name, payload) => (payload as JobView).id === id && onProgress(payload as JobView), (name) => name === 'jobs.progress');
      const result = call(method, { ...params, job: id } as RequestOf<typeof method>).finally(off);
      return { result, cancel: () => void call('jobs.cancel', { id }).catch(() => {}) };
    },
    close: () => host.close('cli command finished'),
  };
}
