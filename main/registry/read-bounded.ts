// One file's bytes for the registry (the folder digest, the scan), read through one descriptor:
// opened without following a link and without blocking (a FIFO swapped in after the folder was
// listed would block the host's event loop until someone wrote to it), then checked by fstat on
// that very descriptor to be a regular file of at most `max` bytes before anything is read.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export type Bounded = Buffer | { refused: 'not-a-file' } | { refused: 'too-large'; size: number };

/**
 * The file's bytes, or why they were not read. Throws when it cannot be opened (a link: ELOOP) or
 * read, or when `before` throws: it sees the descriptor's stat (a regular file within `max`)
 * before anything is read, so a caller can refuse on it (a folder's total) or keep its mode.
 */
export function readBounded(path: string, max: number, before?: (st: Stats) => void): Bounded {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { refused: 'not-a-file' };
    if (st.size > max) return { refused: 'too-large', size: st.size };
    before?.(st);
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
