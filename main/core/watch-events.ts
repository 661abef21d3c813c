// Every file-system watch on a thread's event loop shares one inotify queue (libuv opens one per
// loop), and the kernel's queue is bounded (fs.inotify.max_queued_events, 16384 by default). When
// it fills, the kernel drops every later event and queues IN_Q_OVERFLOW, which libuv discards
// without telling anyone. The judge trusts watches to prove that a folder has not changed
// (extract/folder-watch.ts), so a lost event would be an answer kept past the change it missed.
//
// A full queue is drained in one go (libuv reads the inotify descriptor until it is empty, calling
// every handle's callback before the loop moves on), so an overflow shows as a burst of thousands of
// events with no loop turn between them. Each watcher on the loop counts its events here; a burst
// of BURST_LIMIT, far below the queue's size, moves the epoch, and every answer a watch proved is
// asked again. That holds only if every watcher counts: the architecture test checks that each
// module that watches files calls countWatchEvent.

/** Events in one burst (no loop turn between them) that count as a possible overflow. */
export const BURST_LIMIT = 1024;

let burst = 0;
let epoch = 0;
let resetScheduled = false;

/** Called by every file-system watcher of this thread for each event it receives. */
export function countWatchEvent(): void {
  if (++burst === BURST_LIMIT) epoch++;
  if (!resetScheduled) {
    resetScheduled = true;
    // The check phase runs after the poll phase has delivered everything it read.
    setImmediate(() => {
      burst = 0;
      resetScheduled = false;
    });
  }
}

/** Moves when a burst may have overflowed the queue: answers proven before it are proven no longer. */
export function watchEventEpoch(): number {
  return epoch;
}
