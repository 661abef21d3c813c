// What long work needs from whoever runs it (a host job, main/host/jobs.ts, or a CLI command,
// main/cli/progress.ts): a way to say how far it is, and a place between chunks to stop.

export interface Chunked {
  progress(done: number, total?: number | null): void;
  /** Gives the event loop back; throws when the work was cancelled. */
  checkpoint(): Promise<void>;
}

/** For callers with nowhere to report to: no progress, never cancelled. */
export const unattended: Chunked = {
  progress() {},
  checkpoint: () => Promise.resolve(),
};
