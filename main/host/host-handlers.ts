// The host's own methods: who it is (host.info) and the long work it runs (jobs.*).
import type { GatehouseContract } from '../../shared/contract.js';
import type { Handlers } from '../core/handlers.js';
import { operatorName } from '../core/operator.js';
import { version } from '../version.js';
import type { Jobs } from './jobs.js';

type HostMethods = 'host.info' | 'jobs.list' | 'jobs.cancel';
export type HostHandlers = Pick<Handlers<GatehouseContract['methods']>, HostMethods>;

export function hostHandlers(d: { shell: 'electron' | 'serve' | 'cli'; home: string; startedAt: number; jobs: Jobs }): HostHandlers {
  return {
    'host.info': () => ({ version, shell: d.shell, home: d.home, pid: process.pid, startedAt: d.startedAt, operator: operatorName() }),
    'jobs.list': () => ({ jobs: d.jobs.list() }),
    'jobs.cancel': ({ id }) => {
      const job = d.jobs.cancel(id);
      return { cancelled: job !== null && job.cancellable, job };
    },
  };
}
