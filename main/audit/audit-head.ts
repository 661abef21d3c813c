// The chain head kept beside the database (`audit.head`: last seq and hash). The head row inside
// the database catches a truncated tail, but not a database deleted or swapped for an older copy
// (a backup, another folder's log): a new chain over a missing log verified as intact with no sign
// that history had existed. This file outlives such a swap; at start the host compares it with
// the database and records a gap (audit.history-missing) that `audit verify` and doctor report
// until an operator starts a new chain on purpose (gatehouse audit recover).
//
// Written after a batch's fsync returned, never before: the file may lag the database (a crash
// between the two) but never leads it, so a clean log is never flagged.
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Database as Db } from 'better-sqlite3';

export interface HeadRecord {
  seq: number;
  hash: string;
}

/** `audit.db` → `audit.head` beside it (outside an `audit.db*` glob, which would take it too). */
export function headFileFor(dbPath: string): string {
  const name = basename(dbPath);
  return join(dirname(dbPath), name.endsWith('.db') ? `${name.slice(0, -3)}.head` : `${name}.head`);
}

/** The recorded head, null when there is no file; an unreadable file is an error naming it. */
export function readHeadFile(path: string): HeadRecord | null {
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    v = null;
  }
  const r = v as Partial<HeadRecord> | null;
  if (!r || typeof r.seq !== 'number' || !Number.isInteger(r.seq) || r.seq < 0 || typeof r.hash !== 'string') {
    throw new Error(`The audit chain head file ${path} is not what Gatehouse writes ({"seq":N,"hash":"…"}); it was edited or damaged. Keep it for investigation; move it away to start without the check.`);
  }
  return { seq: r.seq, hash: r.hash };
}

/** Replaces the file whole (temporary file, then rename): a reader never sees half of it. */
export function writeHeadFile(path: string, head: HeadRecord): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, headText(head));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

const headText = (head: HeadRecord) => JSON.stringify({ seq: head.seq, hash: head.hash }) + '\n';

/**
 * Keeps the head file up to date without costing a batch anything: creating and writing the
 * temporary file took ~1 ms on a busy disk, so it is written off the event loop, at most once per
 * `intervalMs`, and renamed into place (a few µs) on the loop, where close() cannot race it. The
 * file then lags the log by up to that interval, which only narrows what a start can notice; close()
 * writes the final head.
 */
export class HeadFileWriter {
  private pending: HeadRecord | null = null;
  private timer: NodeJS.Timeout | null = null;
  private writing = false;
  private closed = false;
  private failed = false;

  constructor(
    private readonly path: string,
    private readonly log: (msg: string, err?: unknown) => void,
    private readonly intervalMs = 1000,
  ) {}

  /** The log is on disk up to `head`. */
  update(head: HeadRecord): void {
    if (this.closed) return;
    this.pending = head;
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => void this.writeNow(), this.intervalMs);
    this.timer.unref();
  }

  private async writeNow(): Promise<void> {
    this.timer = null;
    const head = this.pending;
    if (!head || this.closed) return;
    this.pending = null;
    this.writing = true;
    const tmp = `${this.path}.pending`;
    try {
      await writeFile(tmp, headText(head), { mode: 0o600 });
      // close() wrote the final head meanwhile: this older one is dropped, not renamed over it.
      if (this.closed) rmSync(tmp, { force: true });
      else renameSync(tmp, this.path);
      this.failed = false;
    } catch (err) {
      this.fail(err);
    } finally {
      this.writing = false;
    }
    if (this.pending) this.update(this.pending);
  }

  /** The final head, written now (the log is closed and on disk). */
  close(head: HeadRecord): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      writeHeadFile(this.path, head);
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    // The log itself is intact; a start over a swapped log would go unflagged, so say so once.
    if (!this.failed) this.log(`the audit chain head file ${this.path} could not be written; a missing log would not be noticed at the next start`, err);
    this.failed = true;
  }
}

/**
 * Why the log at `dbPath` (open as `db`, or null when the file is missing) holds less than the head
 * file recorded, as one sentence; null when it holds at least that history.
 */
export function missingHistory(dbPath: string, db: Db | null, head: HeadRecord | null, headPath: string): string | null {
  if (!head || head.seq === 0) return null;
  const expected = `row ${head.seq} (${head.hash.slice(0, 16)}…)`;
  const where = `the chain head kept beside it (${headPath}) records that Gatehouse wrote up to ${expected}`;
  const what = 'The log was deleted, truncated or replaced by another or older file, and the events it held are not in this log.';
  const todo = `Restore ${basename(dbPath)} from a backup if you have one; to go on with a new chain on purpose, run gatehouse audit recover (it keeps this file aside and records the break).`;
  if (!db) return `The audit log ${dbPath} is missing, but ${where}. ${what} Restore ${basename(dbPath)} from a backup if you have one; to go on with a new chain on purpose, start Gatehouse (it records the gap in the new log) and then run gatehouse audit recover.`;
  const last = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get() as HeadRecord | undefined;
  if (!last || last.seq < head.seq) return `The audit log ${dbPath} ends at row ${last?.seq ?? 0}, but ${where}. ${what} ${todo}`;
  const row = db.prepare('SELECT hash FROM events WHERE seq = ?').get(head.seq) as { hash: string } | undefined;
  // A pruned row cannot be compared; the chain from the checkpoint on is verified on its own.
  if (row && row.hash !== head.hash) return `The audit log ${dbPath} is not the log Gatehouse wrote: its row ${head.seq} has hash ${row.hash.slice(0, 16)}…, but ${where}. ${what} ${todo}`;
  return null;
}

/** The head file beside `dbPath` compared with the log (`db` open on it, or null when missing): `audit verify` and doctor. */
export function checkHeadFile(dbPath: string, db: Db | null): string | null {
  const headPath = headFileFor(dbPath);
  return missingHistory(dbPath, db, readHeadFile(headPath), headPath);
}
