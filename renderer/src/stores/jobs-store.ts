// Long work on the host (verify, export, replay, plugin scans), as its jobs.progress events
// describe it: whoever started it, this console or another, or the host itself.
import { create } from 'zustand';
import type { JobView } from '../../../shared/contract.ts';
export { jobAmount, jobPercent } from '../../../shared/job-format.ts';

export interface JobsStore {
  jobs: Record<string, JobView>;
}

export const initialJobsState: JobsStore = { jobs: {} };

export const useJobsStore = create<JobsStore>()(() => ({ ...initialJobsState }));

/** Finished jobs kept, newest first; older ones are dropped so the map stays small. */
const KEEP_FINISHED = 20;

export function applyJobs(views: readonly JobView[]): void {
  const jobs = { ...useJobsStore.getState().jobs };
  for (const v of views) jobs[v.id] = v;
  const finished = Object.values(jobs)
    .filter((j) => j.state !== 'running')
    .sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0));
  for (const old of finished.slice(KEEP_FINISHED)) delete jobs[old.id];
  useJobsStore.setState({ jobs });
}

/** The running jobs, oldest first. */
export function runningJobs(s: JobsStore): JobView[] {
  return Object.values(s.jobs)
    .filter((j) => j.state === 'running')
    .sort((a, b) => a.startedAt - b.startedAt);
}
