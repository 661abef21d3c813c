// One job's progress where its work was asked for: what it does, how far it is, and Cancel.
import type { JobView } from '../../../shared/contract.ts';
import { useClient } from '../sync/client-context.ts';
import { jobAmount, useJobsStore } from '../stores/jobs-store.ts';
import { cancelJob } from '../sync/jobs-actions.ts';

/** The job with this id, as its latest event describes it. */
export function useJob(id: string | null | undefined): JobView | undefined {
  return useJobsStore((s) => (id ? s.jobs[id] : undefined));
}

/** The oldest running job of a kind, whoever started it (the host's first plugin scan, another console). */
export function useRunningJob(kind: JobView['kind']): JobView | undefined {
  return useJobsStore((s) => {
    let found: JobView | undefined;
    for (const j of Object.values(s.jobs)) if (j.kind === kind && j.state === 'running' && (!found || j.startedAt < found.startedAt)) found = j;
    return found;
  });
}

export function JobProgress({ job, testId }: { job: JobView | undefined; testId: string }) {
  const client = useClient();
  if (!job || job.state !== 'running') return null;
  return (
    <div className="job-progress" data-testid={testId} data-job={job.id} data-done={job.done} data-total={job.total ?? ''} role="status" aria-live="polite">
      <span className="job-progress-text">
        {job.title}: <span className="mono">{jobAmount(job)}</span>
      </span>
      {/* Without a size yet, an indeterminate bar: it moves, but claims no fraction. */}
      {job.total !== null ? <progress className="job-progress-bar" max={Math.max(1, job.total)} value={job.done} aria-label={job.title} /> : <progress className="job-progress-bar" aria-label={job.title} />}
      {job.cancellable ? (
        <button type="button" className="button button-small" data-testid={`${testId}-cancel`} onClick={() => void cancelJob(client, job.id)} aria-label={`Cancel: ${job.title}`}>
          Cancel
        </button>
      ) : null}
    </div>
  );
}

/**
 * Where long work was asked for: its progress (and Cancel) while it runs, then how far it got
 * when it was cancelled. Test ids: `${testId}-progress`, `${testId}-progress-cancel`, `${testId}-note`.
 */
export function JobStatus({ job, note, testId }: { job: JobView | undefined; note: string | null; testId: string }) {
  return (
    <>
      <JobProgress job={job} testId={`${testId}-progress`} />
      {note ? (
        <p className="job-note" role="status" data-testid={`${testId}-note`}>
          {note}
        </p>
      ) : null}
    </>
  );
}
