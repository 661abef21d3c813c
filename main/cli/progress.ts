// Long work on the command line: progress on stderr (stdout stays the command's output, so
// `gatehouse audit export > file` still works) and Ctrl-C to cancel. On a terminal one line is
// redrawn in place; in a log or a pipe a line is written at the start and at each tenth.
//
// The same Jobs class runs the work as on the host, so a cancel reads the same everywhere:
// "Verifying the audit chain was cancelled after 120,000 of 1,000,000 events; …" (exit 130).
import type { JobView, RequestOf, ResponseOf } from '../../shared/contract.js';
import type { HostCaller, JobMethod } from './host-client.js';
import { jobAmount, jobPercent } from '../../shared/job-format.js';
import { Jobs, type JobContext, type JobSpec } from '../host/jobs.js';
import { operatorName } from '../core/operator.js';
import { displayText } from '../../shared/display-text.js';

/** Exit code of a command an operator cancelled (128 + SIGINT, as shells report it). */
export const CANCELLED_EXIT = 130;

export type ProgressPrinter = ((j: JobView) => void) & { clear(): void };

export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): ProgressPrinter {
  const tty = stream.isTTY === true;
  let lastTenth = -1;
  let drawn = false;
  // The command prints the outcome; the progress line makes room for it.
  const clear = () => {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
  return Object.assign((j: JobView) => {
    if (j.state !== 'running') return clear();
    const hint = j.cancellable ? ' (Ctrl-C cancels)' : '';
    // A job's title can name a plugin or a file: its escape codes must not drive the terminal.
    const title = displayText(j.title);
    if (tty) {
      stream.write(`\r\x1b[2K${title}: ${jobAmount(j)}${hint}`);
      drawn = true;
      return;
    }
    if (j.total === null) return;
    const tenth = Math.floor(jobPercent(j) / 10);
    if (tenth <= lastTenth) return;
    lastTenth = tenth;
    stream.write(`${title}: ${jobAmount(j)}${lastTenth === 0 ? hint : ''}\n`);
  }, { clear });
}

/**
 * Ctrl-C asks `cancel` to stop the work between chunks; a second Ctrl-C leaves at once. Returns
 * the function that puts the default handling back.
 */
export function onInterrupt(cancel: () => void): () => void {
  let asked = false;
  const handler = () => {
    if (asked) process.exit(CANCELLED_EXIT);
    asked = true;
    cancel();
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

/** Runs work in this process as a job: progress on stderr, Ctrl-C cancels (JobCancelled). */
export async function runCliJob<T>(spec: Omit<JobSpec, 'by'>, work: (job: JobContext) => Promise<T>, stream?: NodeJS.WriteStream): Promise<T> {
  const jobs = new Jobs({ now: () => Date.now(), emit: progressPrinter(stream) });
  const restore = onInterrupt(() => jobs.cancelAll());
  try {
    return await jobs.run({ ...spec, by: `operator:${operatorName()}` }, work);
  } finally {
    restore();
  }
}

/** Follows a job on the host (running, or started here): progress on stderr, Ctrl-C asks the host to cancel it. */
export async function followHostJob<M extends JobMethod>(host: HostCaller, method: M, params: RequestOf<M>, stream?: NodeJS.WriteStream): Promise<ResponseOf<M>> {
  const print = progressPrinter(stream);
  const { result, cancel } = host.callJob(method, params, print);
  const restore = onInterrupt(cancel);
  try {
    return await result;
  } finally {
    restore();
    // A remote job's end is not polled for once its result is in.
    print.clear();
  }
}
