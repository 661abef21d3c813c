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
