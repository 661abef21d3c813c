import { vi } from 'vitest';

/**
 * Waits, without giving the event loop a turn, until `done` holds or `maxMs` passed: only what
 * another thread does on its own (a writer thread, a child process) can make it hold, since
 * nothing this thread would handle (an answer, a timer) runs meanwhile.
 */
export function holdsWithoutATurn(done: () => boolean, maxMs: number): boolean {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + maxMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    Atomics.wait(nap, 0, 0, 5);
  }
  return true;
}

/**
 * vi.waitFor with a bound that only a hang reaches: Vitest's default gives up after 1 s, which
 * makes a wait for an event a timed test on a loaded two-core machine (CI saw a host take longer
 * than that to file four asks). The test's own timeout still ends a real hang.
 */
export function eventually<T>(assertion: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(assertion, { timeout: 15_000, interval: 10 });
}
