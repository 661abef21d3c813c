// Reconnect delays: 250 ms doubling to a 3 s ceiling, reset after a connection succeeds.
// Quick enough that a restarted host is picked up within seconds, slow enough not to spin.
export const BACKOFF_FIRST_MS = 250;
export const BACKOFF_MAX_MS = 3000;

export class Backoff {
  private attempt = 0;
  constructor(
    private readonly first = BACKOFF_FIRST_MS,
    private readonly max = BACKOFF_MAX_MS,
  ) {}

  /** The delay before the next attempt; each call doubles the following one. */
  next(): number {
    const delay = Math.min(this.max, this.first * 2 ** this.attempt);
    if (delay < this.max) this.attempt += 1;
    return delay;
  }

  reset(): void {
    this.attempt = 0;
  }
}
