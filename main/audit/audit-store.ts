// Append-only audit log in SQLite with a SHA-256 hash chain and group commit.
//
// Producers call append(); the event gets its seq and hash at once (the chain order is the
// call order) and is written with everything else appended in the same tick, in one
// transaction with one fsync. `durable` resolves when that transaction has committed.
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { ChainVerifier, GENESIS_HASH, canonicalJson, chainHash, type StoredRow, type VerifyFailure } from './chain.js';
import { migrate } from './migrations.js';

export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

export interface AuditEventInput {
  type: string;
  actor: string;
  payload?: unknown;
}

export interface Appended {
  seq: number;
  hash: string;
  /** Resolves once the event is committed to disk; rejects if its batch could not be written. */
  durable: Promise<void>;
}

export interface AuditRow {
  seq: number;
  ts: number;
  type: string;
  actor: string;
  payload: unknown;
  hash: string;
}

export interface VerifyResult {
  ok: boolean;
  checked: number;
  head: { seq: number; hash: string };
  firstBad: VerifyFailure | null;
}

export interface AuditStoreOptions {
  path: string;
  clock?: Clock;
  /** Flush at once when this many events are pending, instead of waiting for the tick. */
  maxBatch?: number;
  /** A better-sqlite3 addon built for another ABI (the Electron shell passes its own). */
  nativeBinding?: string;
  /** Called after each committed batch (the host turns it into an `audit.appended` event). */
  onCommit?: (lastSeq: number, count: number) => void;
  log?: (msg: string, err?: unknown) => void;
}

interface Batch {
  rows: StoredRow[];
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class AuditStore {
  readonly db: Db;
  private readonly clock: Clock;
  private readonly maxBatch: number;
  private readonly insert: Statement;
  private readonly setHead: Statement;
  private readonly writeBatch: (rows: StoredRow[]) => void;
  private readonly onCommit: ((lastSeq: number, count: number) => void) | undefined;
  private readonly log: (msg: string, err?: unknown) => void;
  /** Head of the chain including events not yet committed. */
  private head: { seq: number; hash: string };
  /** Head as last committed: where the chain resumes if a batch fails. */
  private committed: { seq: number; hash: string };
  private batch: Batch | null = null;
  private scheduled = false;
  private closed = false;

  constructor(opts: AuditStoreOptions) {
    this.clock = opts.clock ?? systemClock;
    this.maxBatch = opts.maxBatch ?? 8192;
    this.onCommit = opts.onCommit;
    this.log = opts.log ?? ((m, e) => console.error(m, e ?? ''));
    this.db = new Database(opts.path, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
    this.db.pragma('journal_mode = WAL');
    // FULL: a commit is fsynced, so "durable" means it survives a crash or power loss.
    // Group commit keeps that affordable: one fsync per batch, not per event.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    migrate(this.db);
    this.insert = this.db.prepare('INSERT INTO events (seq, ts, type, actor, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.setHead = this.db.prepare('INSERT INTO chain_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash');
    this.writeBatch = this.db.transaction((rows: StoredRow[]) => {
      for (const r of rows) this.insert.run(r.seq, r.ts, r.type, r.actor, r.payloadJson, r.prevHash, r.hash);
      const last = rows[rows.length - 1]!;
      this.setHead.run(last.seq, last.hash);
    });
    const last = this.db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
    this.head = last ? { seq: last.seq, hash: last.hash } : { seq: 0, hash: GENESIS_HASH };
    this.committed = { ...this.head };
  }

  append(input: AuditEventInput): Appended {
    if (this.closed) throw new Error('the audit store is closed');
    const payloadJson = canonicalJson(input.payload ?? null);
    const row: StoredRow = {
      seq: this.head.seq + 1,
      ts: Math.trunc(this.clock.now()),
      type: input.type,
      actor: input.actor,
      payloadJson,
      prevHash: this.head.hash,
      hash: '',
    };
    row.hash = chainHash(row.prevHash, row);
    this.head = { seq: row.seq, hash: row.hash };
    const batch = (this.batch ??= newBatch());
    batch.rows.push(row);
    if (batch.rows.length >= this.maxBatch) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    return { seq: row.seq, hash: row.hash, durable: batch.promise };
  }

  /** Writes everything pending now, in one transaction. */
  flush(): void {
    const batch = this.batch;
    if (!batch || batch.rows.length === 0) return;
    this.batch = null;
    try {
      this.writeBatch(batch.rows);
      const last = batch.rows[batch.rows.length - 1]!;
      this.committed = { seq: last.seq, hash: last.hash };
      batch.resolve();
      this.onCommit?.(last.seq, batch.rows.length);
    } catch (err) {
      // Nothing of this batch was written. Later appends in the same tick went into a new
      // batch chained onto these rows, so rewind to the committed head and fail them too.
      this.log('audit batch failed to commit', err);
      const error = err instanceof Error ? err : new Error(String(err));
      batch.reject(error);
      const later = this.batch as Batch | null;
      if (later) {
        later.reject(error);
        this.batch = null;
      }
      this.head = { ...this.committed };
    }
  }

  /** The head of the chain, including events accepted but not yet committed. */
  get headSeq(): number {
    return this.head.seq;
  }

  tail(limit: number): AuditRow[] {
    this.flush();
    const rows = this.db.prepare('SELECT seq, ts, type, actor, payload, hash FROM events ORDER BY seq DESC LIMIT ?').all(limit) as (Omit<AuditRow, 'payload'> & { payload: string })[];
    return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as unknown }));
  }

  verify(): VerifyResult {
    this.flush();
    return verifyDatabase(this.db);
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.db.close();
  }
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A producer that ignores `durable` must not cause an unhandled rejection.
  promise.catch(() => {});
  return { rows: [], promise, resolve, reject };
}

/** Verifies the chain of an open database; used by the store and by `gatehouse audit verify`. */
export function verifyDatabase(db: Db): VerifyResult {
  const v = new ChainVerifier();
  const it = db.prepare('SELECT seq, ts, type, actor, payload AS payloadJson, prev_hash AS prevHash, hash FROM events ORDER BY seq').iterate() as IterableIterator<StoredRow>;
  for (const row of it) {
    if (!v.push(row)) break;
  }
  const head = db.prepare('SELECT seq, hash FROM chain_head WHERE id = 1').get() as { seq: number; hash: string } | undefined;
  const firstBad = v.finish(head ?? null);
  return { ok: firstBad === null, checked: v.checked, head: v.head, firstBad };
}

/** Opens an audit database read-only for verification without creating or migrating it. */
export function openForVerify(path: string, nativeBinding?: string): Db {
  return new Database(path, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
}
