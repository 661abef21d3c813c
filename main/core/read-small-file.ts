// The start of a small regular file (a configuration the judge reads per call), or null.
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';

/**
 * At most `max` bytes of a regular file as text, or null when there is none or it cannot be read.
 * Non-blocking and checked: a FIFO put at the path must not hold the host's thread.
 */
export function readSmallFile(file: string, max: number): string | null {
  let fd: number | null = null;
  try {
    // Most of the files asked for do not exist (the system's and the user's Git configs): a thrown
    // ENOENT costs more than the look-up itself.
    if (!lstatSync(file, { throwIfNoEntry: false })) return null;
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    // Its size, not the most it may be: a 1 MiB buffer zeroed for each of five small config files was a look-up's whole cost.
    const buf = Buffer.alloc(Math.min(max, st.size));
    return buf.toString('utf8', 0, readSync(fd, buf, 0, buf.length, 0));
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
