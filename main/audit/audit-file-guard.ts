// The audit database's identity, checked before every batch commits. SQLite writes through the
// descriptor it opened, so a log deleted, replaced (another file renamed over it) or truncated
// while the host runs went unnoticed: appends kept "succeeding" into an unlinked inode, calls were
// allowed, and at stop the acknowledged record was gone. One fstat of our own descriptor on the
// same inode (its link count and size) and one stat of the path (which inode is there now) per
// batch see all three; the store then fails closed (audit-store.ts). The same for the write-ahead
// log beside it (audit.db-wal), where every event stays until a checkpoint copies it into the
// database: deleted under the host, SQLite went on writing the unlinked file, calls were allowed,
// and after a crash the whole run (the events before the deletion too) was gone.
import { closeSync, fstatSync, openSync, statSync, accessSync, constants, existsSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

/** What happened to the file, as the sentence every denied call and console shows. */
export class AuditFileLost extends Error {
  readonly code = 'AUDIT_FILE_LOST';
}

/**
 * The writer's journal_size_limit: after a checkpoint SQLite cuts a longer write-ahead log back to
 * exactly this, and otherwise never shortens it while the database is open (audit-writer-worker.ts).
 */
export const WAL_SIZE_LIMIT = 8 * 1024 * 1024;

const AFTER = 'Gatehouse denies every call until it restarts: what it decides now would not be on record. Keep the data folder as it is for investigation and restart Gatehouse; the restart reports the missing history (gatehouse audit verify and gatehouse doctor show it too).';

export class AuditFileGuard {
  private fd: number | null;
  private readonly dev: number;
  private readonly ino: number;
  /** The largest size seen: SQLite never shrinks this file (no auto_vacuum), so smaller means truncated. */
  private size: number;
  private lost: string | null = null;
  /** Our own descriptor on the write-ahead log SQLite has open (taken when first seen), and its inode. */
  private wal: { fd: number; dev: number; ino: number; size: number } | null = null;

  /**
   * `stillHolds`: asked when the write-ahead log is shorter than it was and not by SQLite's own cut
   * to the limit. A checkpoint that truncates it (`PRAGMA wal_checkpoint(TRUNCATE)`, run by another
   * program) first copies every frame into the database, so the log still reads back whole; an
   * emptied file does not (a short read, or rows missing). True when everything committed is there.
   */
  constructor(
    private readonly path: string,
    private readonly stillHolds: () => boolean = () => false,
  ) {
    // Our own descriptor on the inode SQLite opened (opened right after it, before anyone could swap it).
    this.fd = openSync(path, 'r');
    const st = fstatSync(this.fd);
    this.dev = st.dev;
    this.ino = st.ino;
    this.size = st.size;
    this.checkWal();
  }

  /** Null while the file at the path is the one opened, whole; else why not (and so from then on). */
  check(): string | null {
    if (this.lost || this.fd === null) return this.lost;
    const own = fstatSync(this.fd);
    let atPath: Stats | null;
    try {
      atPath = statSync(this.path);
    } catch {
      atPath = null;
    }
    if (own.nlink === 0 || atPath === null) {
      this.lost = atPath === null
        ? `the audit log ${this.path} was deleted while Gatehouse ran: the events recorded in it since it was opened are gone with it. ${AFTER}`
        : `the audit log ${this.path} was deleted while Gatehouse ran and another file now has its name (inode ${atPath.ino}, not ${this.ino}): the events recorded in it are gone. ${AFTER}`;
    } else if (atPath.ino !== this.ino || atPath.dev !== this.dev) {
      this.lost = `the audit log ${this.path} was replaced by another file while Gatehouse ran (inode ${atPath.ino}, not ${this.ino}): the events Gatehouse recorded are no longer at that path. ${AFTER}`;
    } else if (own.size < this.size) {
      this.lost = `the audit log ${this.path} was truncated while Gatehouse ran (${own.size} bytes, it had ${this.size}): events Gatehouse recorded were cut off. ${AFTER}`;
    } else {
      this.size = own.size;
      this.lost = this.checkWal();
    }
    return this.lost;
  }

  /**
   * Null while the write-ahead log at `<path>-wal` is the one first seen there (SQLite keeps it
   * while any connection is open: it truncates it, never deletes or replaces it); else why not.
   * Its size is not watched: SQLite itself resets it after a checkpoint.
   */
  private checkWal(): string | null {
    const walPath = `${this.path}-wal`;
    let atPath: Stats | null;
    try {
      atPath = statSync(walPath);
    } catch {
      atPath = null;
    }
    if (!this.wal) {
      // Not made yet (no write since the database was opened in WAL mode): nothing to lose.
      if (!atPath) return null;
      const fd = openSync(walPath, 'r');
      const st = fstatSync(fd);
      this.wal = { fd, dev: st.dev, ino: st.ino, size: st.size };
      return null;
    }
    const own = fstatSync(this.wal.fd);
    if (own.nlink === 0 || atPath === null) return `the audit log's write-ahead log ${walPath} was deleted while Gatehouse ran: the events recorded since the last checkpoint are only in a deleted file, and gone if Gatehouse stops without copying them. ${AFTER}`;
    if (atPath.ino !== this.wal.ino || atPath.dev !== this.wal.dev) return `the audit log's write-ahead log ${walPath} was replaced by another file while Gatehouse ran (inode ${atPath.ino}, not ${this.wal.ino}): SQLite no longer writes the file at that path. ${AFTER}`;
    // Shorter than it was, and not SQLite's own cut back to the limit: emptied or cut in place (a
    // review truncated it: the events since the last checkpoint were gone, and the database malformed).
    if (own.size < this.wal.size && !(own.size === WAL_SIZE_LIMIT && this.wal.size > WAL_SIZE_LIMIT) && !this.stillHolds()) {
      return `the audit log's write-ahead log ${walPath} was truncated while Gatehouse ran (${own.size} bytes, it had ${this.wal.size}): the events recorded since the last checkpoint were cut off. ${AFTER}`;
    }
    this.wal.size = own.size;
    return null;
  }

  close(): void {
    if (this.wal) closeSync(this.wal.fd);
    this.wal = null;
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * Refuses, with a sentence, a log SQLite could not write safely: in WAL mode it maps `-shm` into
 * memory, and a side file or folder it cannot write ended in a SIGBUS or an opaque SQLITE_READONLY
 * instead of a message naming the file.
 */
export function assertWritable(path: string): void {
  const targets = [dirname(path), path, `${path}-wal`, `${path}-shm`].filter((p, i) => i === 0 || existsSync(p));
  for (const p of targets) {
    try {
      accessSync(p, constants.R_OK | constants.W_OK);
    } catch (err) {
      const what = p === dirname(path) ? `the data folder ${p}` : p;
      throw new Error(`The audit log cannot be opened for writing: ${what} is not readable and writable by this account (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}). SQLite needs ${path} and its -wal and -shm files beside it writable (it maps -shm into memory). Fix the permissions or ownership (or the read-only mount), then start Gatehouse again.`, { cause: err });
    }
  }
}
