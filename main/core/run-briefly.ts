// A short run of a program whose exit status is the answer (can bubblewrap build this box here,
// does the compiler build the helper), off the event loop. spawnSync held the host's loop for
// the whole run: the containment probe with the first build of its helper took 0.25 s to a
// second, during which no console, hook or MCP call was answered.
import { execFile, type ExecFileException } from 'node:child_process';

export interface BriefRun {
  /** The exit status; null when it was killed (the timeout) or could not start. */
  status: number | null;
  stderr: string;
  /** Why it did not start or did not finish (not found, timed out), as spawnSync's `error`. */
  error?: Error;
}

export function runBriefly(file: string, args: readonly string[], opts: { timeoutMs: number }): Promise<BriefRun> {
  return new Promise((resolve) => {
    execFile(file, args, { encoding: 'utf8', timeout: opts.timeoutMs, maxBuffer: 1 << 20 }, (err: ExecFileException | null, _stdout, stderr) => {
      if (!err) return resolve({ status: 0, stderr });
      // A number: the exit status. A string (ENOENT, EACCES) or a signal (the timeout's kill): it did not run to its end.
      if (typeof err.code === 'number' && !err.killed) return resolve({ status: err.code, stderr });
      resolve({ status: null, stderr, error: err.killed ? new Error(`${file} did not finish within ${opts.timeoutMs} ms`) : err });
    });
  });
}
