// A damaged audit database (a bad disk sector, a copy cut short, bytes overwritten): the host will
// not start on it, since it could neither trust its chain nor extend it, and says so with what to
// do. `gatehouse audit recover` then keeps the old file aside, untouched, for investigation, and
// starts a new chain whose first event (audit.chain-restarted) names the old file, its size and
// SHA-256 and why: the break is in the record itself, not only in someone's memory.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import Database from 'better-sqlite3';
import { AuditStore, verifyDatabase, type AuditStoreOptions } from './audit-store.js';
import { headFileFor } from './audit-head.js';

/** The first event of a chain started after the previous database was set aside. */
export const CHAIN_RESTARTED_EVENT = 'audit.chain-restarted';

const CORRUPTION_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CORRUPT_VTAB', 'SQLITE_CORRUPT_SEQUENCE', 'SQLITE_CORRUPT_INDEX']);

/** An error SQLite raises for a file whose pages are not what it wrote. */
export function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (CORRUPTION_CODES.has(code) || code.startsWith('SQLITE_CORRUPT'));
}

/** The host's refusal to start on a damaged log: names the file and what to do. */
export class AuditCorruptError extends Error {
  constructor(
    readonly path: string,
    home: string,
    detail: string,
  ) {
    super(
      `The audit log ${path} is damaged (${detail}), so Gatehouse will not start on it: it could neither trust the chain in it nor extend it. ` +
        `Keep that file for investigation and start a new chain that records the break: gatehouse audit recover --home ${shellWord(home)} ` +
        `(it moves the file aside as ${basename(path)}.corrupt-<time>, untouched); or stop here and restore the file from a backup.`,
    );
  }
}

/** quick_check: every page of the file is read and checked (the host runs it at start). */
export function quickCheck(db: Database.Database): string | null {
  let rows: { quick_check: string }[];
  try {
    rows = db.pragma('quick_check(5)') as { quick_check: string }[];
  } catch (err) {
    // A page too damaged to walk stops the check itself.
    if (isCorruption(err)) return (err as Error).message;
    throw err;
  }
  const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
  return problems.length === 0 ? null : problems.join('; ');
}

/**
 * Opens the log for a host. Every page is read and checked before the log is trusted or
 * extended: a damaged file is refused with what to do (AuditCorruptError), never half-read (a bad
 * page found later would stop the host mid-run).
 */
export function openCheckedAuditStore(opts: AuditStoreOptions, home: string): AuditStore {
  const corrupt = (err: unknown) => (isCorruption(err) ? new AuditCorruptError(opts.path, home, (err as Error).message) : err);
  let store: AuditStore;
  try {
    store = new AuditStore(opts);
  } catch (err) {
    throw corrupt(err);
  }
  let damage: string | null;
  try {
    damage = quickCheck(store.db);
  } catch (err) {
    store.close();
    throw corrupt(err);
  }
  if (damage) {
    store.close();
    throw new AuditCorruptError(opts.path, home, damage);
  }
  return store;
}

export interface RecoverResult {
  movedTo: string;
  size: number;
  sha256: string;
  reason: string;
  /** The first event of the new chain. */
  seq: number;
}

/**
 * What is wrong with the database at `path`, or null when it opens, its pages check out and its
 * chain verifies (then there is nothing to recover).
 */
export function diagnose(path: string, nativeBinding?: string): string | null {
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
    const pages = quickCheck(db);
    if (pages) return `damaged pages: ${pages}`;
    const r = verifyDatabase(db);
    return r.ok ? null : `chain broken at row ${r.firstBad!.seq}: ${r.firstBad!.reason}`;
  } catch (err) {
    return `damaged: ${(err as Error).message}`;
  } finally {
    db?.close();
  }
}

/**
 * Moves the damaged database (and its -wal and -shm) to `<path>.corrupt-<time>` and starts a new
 * one whose first event records the break. The caller holds the host lock: no host writes here.
 */
export function recoverAuditLog(path: string, reason: string, opts: { now?: number; nativeBinding?: string; actor?: string } = {}): RecoverResult {
  if (!existsSync(path)) throw new Error(`There is no audit log at ${path} to recover.`);
  const now = opts.now ?? Date.now();
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const movedTo = `${path}.corrupt-${stamp}`;
  if (existsSync(movedTo)) throw new Error(`${movedTo} already exists; try again in a moment.`);
  const { size, sha256 } = fileDigest(path);
  // The side files belong to the old database: moved with it, so the new one starts clean.
  renameSync(path, movedTo);
  for (const side of ['-wal', '-shm']) if (existsSync(path + side)) renameSync(path + side, movedTo + side);
  // A new chain on purpose: the head file beside it is rewritten to the new chain's head, not compared.
  const store = new AuditStore({ path, headFile: headFileFor(path), newChain: true, clock: { now: () => now }, log: () => {}, ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}) });
  try {
    const first = store.append({ type: CHAIN_RESTARTED_EVENT, actor: opts.actor ?? 'host', payload: { oldFile: movedTo, size, sha256, reason } });
    store.flush();
    return { movedTo, size, sha256, reason, seq: first.seq };
  } finally {
    store.close();
  }
}

function fileDigest(path: string): { size: number; sha256: string } {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return { size: statSync(path).size, sha256: hash.digest('hex') };
}

/** A path as one shell word, so the command in the message can be pasted as it is. */
function shellWord(s: string): string {
  return /^[\w./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
