// What a handler needs to run long work as a job (host/jobs.ts runs them): handlers live beside
// their services, below host/, so they take this interface rather than the Jobs class.
import type { JobView } from '../../shared/contract.js';
import type { Chunked } from '../chunked.js';

export type JobKind = JobView['kind'];

export interface JobSpec {
  /** The caller's id for the job (a console's, so it can follow and cancel it); generated when absent. */
  id?: string | undefined;
  kind: JobKind;
  /** What is being done, as a sentence fragment: "Verifying the audit chain". */
  title: string;
  /** What `done` and `total` count: "events", "calls", "plugins". */
  unit: string;
  total?: number | null;
  /** Who asked, as the audit log names actors: "operator:alice", "host". */
  by: string;
  /** False for work the host cannot do without (its first plugin scan); default true. */
  cancellable?: boolean;
}

export interface JobRunner {
  /** Runs `work` with progress to every console and a place to stop; a cancelled job fails with reason "cancelled". */
  run<T>(spec: JobSpec, work: (job: Chunked) => Promise<T>): Promise<T>;
}
