// Append-only audit log in SQLite with a SHA-256 hash chain and group commit.
//
// Producers call append(); the event gets its seq and hash at once (the chain order is the
// call order) and goes into the transaction holding everything else appended in the same
// tick, committed as one transaction. `durable` resolves when that transaction is on disk.
//
// Durability without stalling the host: the commit itself does not fsync (WAL with
// synchronous=NORMAL); the store then fsyncs the WAL file on libuv's thread pool and resolves
// `durable` when that returns. A synchronous FULL commit fsynced on the event loop, which cost
// every tool call several milliseconds on a busy disk (bench/gateway.ts). fsync makes the file's
// written pages durable whichever descriptor asks, so this gives FULL's guarantee for each batch
// whose `durable` has resolved. Checkpoints still fsync the database synchronously (rarely).
import { closeSync, existsSync, fsync, fsyncSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { ChainVerifier, GENESIS_HASH, HISTORY_MISSING_EVENT, PRUNED_EVENT, canonicalJson, chainHash, type Checkpoint, type StoredRow, type VerifyFailure } from './chain.js';
import { migrate } from './migrations.js';
import { ensureOwnerOnlyFile } from '../home.js';
import { SearchIndexer } from './audit-index.js';
import { verifySearchIndex, type IndexVerifyResult } from './index-verify.js';
import type { Chunked } from '../chunked.js';
import { AuditFileGuard, AuditFileLost, assertWritable } from './audit-file-guard.js';
import { HeadFileWriter, missingHistory, readHeadFile } from './audit-head.js';

// The clock lives in core/; re-exported because the audit store's callers pass one in.
import { systemClock, type Clock } from '../core/clock.js';

export { systemClock, type Clock };

/** Events written per transaction at most; a larger tick is split (bounds memory and latency). */
export const DEFAULT_MAX_BATCH = 8192;

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
  /** The search index checked against the verified rows (a full verify only; see index-verify.ts). */
  index?: IndexVerifyResult;
}

export interface RetentionPolicy {
  /** Delete events older than this many days (0 or absent: no age limit). */
  maxAgeDays?: number;
  /** Keep at most this many events (0 or absent: no size limit). */
  maxEvents?: number;
}

export interface PruneResult {
  /** Rows deleted (0 when nothing was old enough; no event is written then). */
  pruned: number;
  checkpoint: Checkpoint | null;
  /** Seq of the `audit.pruned` event, when one was written. */
  seq: number | null;
  durable: Promise<void>;
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
  /** Adds what every event of a kind carries before it is chained (the host: an operator action's console). */
  decorate?: (input: AuditEventInput) => AuditEventInput;
  /**
   * Writes failed (a sentence saying why, e.g. the disk is full) or, with null, resumed. The host
   * shows it on every console and denies calls meanwhile: nothing is decided that is not recorded.
   */
  onWriteState?: (failure: string | null) => void;
  log?: (msg: string, err?: unknown) => void;
  /**
   * The chain head kept beside the database (audit-head.ts): compared with the log at open (a gap
   * is recorded as audit.history-missing) and rewritten after each batch is on disk.
   */
  headFile?: string;
  /** This open starts a new chain on purpose (audit recover): the head file is not compared. */
  newChain?: boolean;
}

/** The event written when appends work again after a write failure, saying what was lost. */
export const WRITE_RESUMED_EVENT = 'audit.write-resumed';

interface Batch {
  count: number;
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
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  /** Indexes each batch for search in its own transaction, at commit (audit-index.ts). */
  private readonly searchIndex: SearchIndexer;
  private readonly onCommit: ((lastSeq: number, count: number) => void) | undefined;
  private readonly decorate: ((input: AuditEventInput) => AuditEventInput) | undefined;
  private readonly log: (msg: string, err?: unknown) => void;
  /** Head of the chain including events not yet committed. */
  private headSeqValue: number;
  private headHash: string;
  /** Head as last committed: where the chain resumes if a batch fails. */
  private committed: { seq: number; hash: string };
  /** The open transaction holding this tick's events, if any. */
  private batch: Batch | null = null;
  private scheduled = false;
  private closed = false;
  private readonly walPath: string;
  private walFd: number | null = null;
  /** Committed batches whose WAL pages are not yet fsynced. */
  private unsynced: Batch[] = [];
  private syncing = false;
  private readonly path: string;
  private readonly onWriteState: ((failure: string | null) => void) | undefined;
  /** Batches that failed since the store opened: a caller compares before and after its own appends. */
  private failures = 0;
  /** The write failure in force (until a batch commits again), and what it cost. */
  private writeFailure: { message: string; since: number; lostEvents: number; code: string | null } | null = null;
  /** The newest batch's promise: batches commit and fsync in order, so it settles after all earlier ones. */
  private latest: Promise<void> = Promise.resolve();
  /** The database file's identity, checked before each commit (null in memory). */
  private readonly guard: AuditFileGuard | null = null;
  private readonly headFile: string | null;
  private readonly heads: HeadFileWriter | null;
  private readonly nativeBinding: string | undefined;
  private readonly onDisk: boolean;

  constructor(opts: AuditStoreOptions) {
    this.path = opts.path;
    this.onWriteState = opts.onWriteState;
    this.clock = opts.clock ?? systemClock;
    this.maxBatch = opts.maxBatch ?? DEFAULT_MAX_BATCH;
    this.onCommit = opts.onCommit;
    this.decorate = opts.decorate;
    this.log = opts.log ?? ((m, e) => console.error(m, e ?? ''));
    const onDisk = (this.onDisk = opts.path !== ':memory:' && opts.path !== '' && !opts.path.startsWith('file:'));
    this.nativeBinding = opts.nativeBinding;
    this.headFile = onDisk ? (opts.headFile ?? null) : null;
    this.heads = this.headFile ? new HeadFileWriter(this.headFile, this.log) : null;
    // Read before the database is opened (which creates a missing one): a missing log is then told apart from a new one.
    const existed = onDisk && existsSync(opts.path);
    const recordedHead = this.headFile && !opts.newChain ? readHeadFile(this.headFile) : null;
    // A folder or side file SQLite cannot write ended in a SIGBUS or an opaque error: refused here, by name.
    if (onDisk) assertWritable(opts.path);
    // SECURITY: the log holds every call agents made and what the operator decided. SQLite
    // creates the file with the umask's mode (often 0644) and the -wal/-shm files with the
    // database's own mode: create it 0600 first, so all three are owner-only, and tighten a
    // log made before this.
    if (onDisk) ensureOwnerOnlyFile(opts.path, { create: true });
    this.db = new Database(opts.path, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
    this.db.pragma('journal_mode = WAL');
    if (onDisk) for (const side of ['-wal', '-shm']) ensureOwnerOnlyFile(opts.path + side, { create: false });
    // NORMAL: a commit survives a crash of this process at once, and power loss once the WAL is
    // fsynced, which this store does off the event loop (see the top of the file).
    this.db.pragma('synchronous = NORMAL');
    this.walPath = `${opts.path}-wal`;
    this.db.pragma('busy_timeout = 5000');
    migrate(this.db, undefined, (m) => this.log(`audit log: upgrading ${opts.path} to schema ${m.version} (${m.name}); this can take a while on a large log`));
    this.insert = this.db.prepare('INSERT INTO events (seq, ts, type, actor, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.setHead = this.db.prepare('INSERT INTO chain_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash');
    // IMMEDIATE: take the write lock when the batch opens, so a commit cannot fail on a lock.
    this.begin = this.db.prepare('BEGIN IMMEDIATE');
    this.commit = this.db.prepare('COMMIT');
    this.rollback = this.db.prepare('ROLLBACK');
    this.searchIndex = new SearchIndexer(this.db);
    const last = this.db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
    this.headSeqValue = last?.seq ?? 0;
    this.headHash = last?.hash ?? GENESIS_HASH;
    this.committed = { seq: this.headSeqValue, hash: this.headHash };
    if (onDisk) this.guard = new AuditFileGuard(opts.path);
    const gap = this.headFile ? missingHistory(opts.path, existed ? this.db : null, recordedHead, this.headFile) : null;
    if (gap) {
      // In the chain itself, so every verifier reports it until an operator starts a new chain on purpose.
      this.log(gap);
      this.append({ type: HISTORY_MISSING_EVENT, actor: 'host', payload: { reason: gap, expected: recordedHead, found: last ? { seq: last.seq, hash: last.hash } : null, headFile: this.headFile } });
      this.flush();
    }
  }

  /**
   * Chains the event and inserts it into this tick's open transaction at once; the commit
   * (one fsync for the whole batch) happens when the tick ends or the batch is full.
   * Inserting now rather than at commit keeps no row objects alive between the two, which
   * is most of what made the chain cost more than a plain insert (bench/audit-append.ts).
   */
  append(input: AuditEventInput): Appended {
    if (this.closed) throw new Error('the audit store is closed');
    if (this.decorate) input = this.decorate(input);
    const payloadJson = canonicalJson(input.payload ?? null);
    const seq = this.headSeqValue + 1;
    const ts = Math.trunc(this.clock.now());
    const prevHash = this.headHash;
    const hash = chainHash(prevHash, { seq, ts, type: input.type, actor: input.actor, payloadJson });
    let batch = this.batch;
    try {
      if (!batch) {
        batch = newBatch();
        this.latest = batch.promise;
        this.begin.run();
        this.batch = batch;
      }
      this.insert.run(seq, ts, input.type, input.actor, payloadJson, prevHash, hash);
    } catch (err) {
      // Nothing of this batch will be written: fail it whole and resume from the committed head.
      batch!.count++;
      this.abort(batch!, err);
      return { seq, hash, durable: batch!.promise };
    }
    this.headSeqValue = seq;
    this.headHash = hash;
    batch.count++;
    if (batch.count >= this.maxBatch) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    return { seq, hash, durable: batch.promise };
  }

  /** Commits everything pending now, in one transaction. */
  flush(): void {
    const batch = this.batch;
    if (!batch) return;
    // SECURITY: a log deleted, replaced or truncated under the host would take this batch (and the
    // ones before) with it; without this check calls went on being allowed with nothing on record.
    const lost = this.guard?.check() ?? null;
    if (lost) {
      this.abort(batch, new AuditFileLost(lost));
      return;
    }
    try {
      this.searchIndex.indexAfter(this.committed.seq);
      this.setHead.run(this.headSeqValue, this.headHash);
      this.commit.run();
    } catch (err) {
      this.abort(batch, err);
      return;
    }
    this.batch = null;
    this.committed = { seq: this.headSeqValue, hash: this.headHash };
    this.unsynced.push(batch);
    this.syncSoon();
    try {
      this.onCommit?.(this.committed.seq, batch.count);
    } catch (err) {
      this.log('audit onCommit listener failed', err);
    }
    if (this.writeFailure) this.resumed();
  }

  /** One fsync of the WAL at a time; batches committed meanwhile share the next one. */
  private syncSoon(): void {
    if (this.syncing || this.unsynced.length === 0 || this.closed) return;
    const fd = this.wal();
    const batches = this.unsynced;
    this.unsynced = [];
    // The head file follows what is on disk, never what is only committed (it must not lead the log).
    const upTo = { ...this.committed };
    if (fd === null) {
      this.heads?.update(upTo);
      for (const b of batches) b.resolve();
      return;
    }
    this.syncing = true;
    fsync(fd, (err) => {
      this.syncing = false;
      // Not fsynced: after a power loss the file may hold an older head, which is never flagged.
      if (!err) this.heads?.update(upTo);
      for (const b of batches) {
        if (err) {
          this.log('audit fsync failed', err);
          this.failed(err, b.count);
          b.reject(err);
        } else b.resolve();
      }
      if (this.closed) this.closeWal();
      else this.syncSoon();
    });
  }

  /**
   * Checks now that the database file is still the one opened, whole (also done before every
   * commit); once it is not, appends fail with why and every call is denied until a restart.
   */
  checkFile(): string | null {
    if (!this.guard || this.closed) return null;
    const lost = this.guard.check();
    if (lost && this.writeFailure?.message !== lost) this.failed(new AuditFileLost(lost), 0);
    return lost;
  }

  private wal(): number | null {
    if (this.walFd === null) {
      try {
        this.walFd = openSync(this.walPath, 'r');
      } catch {
        // No WAL file means nothing uncheckpointed: the commit reached the database file itself.
        return null;
      }
    }
    return this.walFd;
  }

  private closeWal(): void {
    if (this.walFd === null) return;
    closeSync(this.walFd);
    this.walFd = null;
  }

  /** Rolls back the open batch, rejects its producers and rewinds the head to the last commit. */
  private abort(batch: Batch, err: unknown): void {
    this.log('audit batch failed to commit', err);
    this.batch = null;
    try {
      if (this.db.inTransaction) this.rollback.run();
    } catch (rollbackErr) {
      this.log('audit batch rollback failed', rollbackErr);
    }
    this.headSeqValue = this.committed.seq;
    this.headHash = this.committed.hash;
    this.failed(err, batch.count);
    batch.reject(err instanceof Error ? err : new Error(String(err)));
  }

  /** A batch was lost: remember why (for callers' answers and the consoles) until one commits again. */
  private failed(err: unknown, lost: number): void {
    this.failures++;
    const code = (err as { code?: unknown } | null)?.code;
    const codeText = typeof code === 'string' ? code : null;
    const message = describeWriteFailure(this.path, err);
    const first = this.writeFailure === null || this.writeFailure.message !== message;
    this.writeFailure = { message, since: this.writeFailure?.since ?? Math.trunc(this.clock.now()), lostEvents: (this.writeFailure?.lostEvents ?? 0) + lost, code: codeText };
    if (first) this.notifyWriteState(message);
  }

  /** A batch committed after a failure: record the gap in the chain itself, then tell the consoles. */
  private resumed(): void {
    const f = this.writeFailure!;
    this.writeFailure = null;
    this.append({ type: WRITE_RESUMED_EVENT, actor: 'host', payload: { failedSince: f.since, lostEvents: f.lostEvents, code: f.code, error: f.message } });
    // Committed now, not next tick: flush()'s callers (close, prune, tail) expect no open batch after it.
    this.flush();
    if (!this.writeFailure) this.notifyWriteState(null);
  }

  private notifyWriteState(failure: string | null): void {
    try {
      this.onWriteState?.(failure);
    } catch (err) {
      this.log('audit onWriteState listener failed', err);
    }
  }

  /** Why appends fail now (a sentence for an agent's deny and the consoles), or null while they work. */
  writeError(): string | null {
    return this.writeFailure?.message ?? null;
  }

  /** A mark for whenDurable(): how many batches have failed so far. */
  mark(): number {
    return this.failures;
  }

  /**
   * Resolves once everything appended so far is on disk; rejects, with the sentence of
   * writeError(), when any batch failed since `mark` (a caller's own events may be among them).
   * An agent's answer waits for this, so an answer is never sent for a decision the log lost.
   */
  async whenDurable(mark: number): Promise<void> {
    // No flush here: the batch commits with its tick, so calls answered together share one fsync.
    await this.latest.catch(() => {});
    if (this.failures !== mark) throw new AuditWriteError(this.writeFailure?.message ?? describeWriteFailure(this.path, new Error('a batch of events could not be written')));
  }

  /** The head of the chain, including events accepted but not yet committed. */
  get headSeq(): number {
    return this.headSeqValue;
  }

  tail(limit: number): AuditRow[] {
    this.flush();
    const rows = this.db.prepare('SELECT seq, ts, type, actor, payload, hash FROM events ORDER BY seq DESC LIMIT ?').all(limit) as (Omit<AuditRow, 'payload'> & { payload: string })[];
    return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as unknown }));
  }

  /** The checkpoint retention left, or null when nothing was ever pruned. */
  checkpoint(): Checkpoint | null {
    return readCheckpoint(this.db);
  }

  /**
   * Deletes the oldest events by age and/or count, as a prefix of the chain, and records where the
   * chain now resumes: the checkpoint row and an `audit.pruned` event are written in the same
   * transaction as the deletion, so a crash leaves either all of it or none. Rows other tables
   * keep about the deleted events (search indexes and the like) are deleted with them.
   */
  prune(policy: RetentionPolicy, actor = 'host'): PruneResult {
    if (this.closed) throw new Error('the audit store is closed');
    this.flush();
    const head = this.headSeqValue;
    const first = (this.db.prepare('SELECT MIN(seq) AS s FROM events').get() as { s: number | null }).s;
    let cut = 0;
    if (policy.maxEvents && policy.maxEvents > 0) cut = Math.max(cut, head - policy.maxEvents);
    let cutoffTs: number | null = null;
    if (policy.maxAgeDays && policy.maxAgeDays > 0) {
      cutoffTs = Math.trunc(this.clock.now() - policy.maxAgeDays * 86_400_000);
      // A prefix only: the first event young enough stops the cut, even if older ones follow it.
      const young = (this.db.prepare('SELECT MIN(seq) AS s FROM events WHERE ts >= ?').get(cutoffTs) as { s: number | null }).s;
      cut = Math.max(cut, young === null ? head : young - 1);
    }
    if (first === null || cut < first) return { pruned: 0, checkpoint: this.checkpoint(), seq: null, durable: Promise.resolve() };
    const last = this.db.prepare('SELECT seq, hash FROM events WHERE seq = ?').get(cut) as Checkpoint | undefined;
    if (!last) throw new Error(`audit retention: row ${cut} is missing, so the log is not pruned (run gatehouse audit verify)`);
    const checkpoint = { seq: last.seq, hash: last.hash };
    const count = (this.db.prepare('SELECT COUNT(*) AS n FROM events WHERE seq <= ?').get(cut) as { n: number }).n;
    const previous = this.checkpoint();
    // Deletion, checkpoint and event in one transaction: the batch is opened here and the event joins it.
    const batch = newBatch();
    try {
      this.begin.run();
      this.batch = batch;
      for (const sql of sideTableDeletes(this.db)) this.db.prepare(sql).run(cut);
      this.db.prepare('DELETE FROM events WHERE seq <= ?').run(cut);
      this.db.prepare('INSERT INTO chain_checkpoint (id, seq, hash, pruned_at) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, pruned_at = excluded.pruned_at').run(checkpoint.seq, checkpoint.hash, Math.trunc(this.clock.now()));
      for (const sql of sideTableRebuilds(this.db)) this.db.prepare(sql).run();
    } catch (err) {
      this.abort(batch, err);
      throw err;
    }
    const appended = this.append({
      type: PRUNED_EVENT,
      actor,
      payload: { pruned: count, fromSeq: first, toSeq: cut, checkpoint, previousCheckpoint: previous, maxAgeDays: policy.maxAgeDays ?? 0, maxEvents: policy.maxEvents ?? 0, cutoffTs },
    });
    this.flush();
    // A failed insert or commit rolled the deletion back with it and rewound the head.
    if (this.committed.seq < appended.seq) throw new Error('audit retention: the prune could not be committed; nothing was deleted');
    return { pruned: count, checkpoint, seq: appended.seq, durable: appended.durable };
  }

  verify(v?: ChainVerifier): VerifyResult {
    this.flush();
    return verifyDatabase(this.db, v);
  }

  /**
   * verify() a chunk at a time, for a job (see verifyDatabaseChunked), reading the file through a
   * connection of its own: the host's connection serves pages from its cache, so a byte changed in
   * the file while the host ran passed the console's verify while `gatehouse audit verify` found it.
   */
  async verifyChunked(job: Chunked, v?: ChainVerifier): Promise<VerifyResult> {
    const lost = this.checkFile();
    if (lost) throw new AuditWriteError(lost);
    this.flush();
    const reader = this.onDisk ? openForVerify(this.path, this.nativeBinding) : null;
    try {
      // The index check commits the open batch before each chunk: a row appended but not committed
      // yet is not indexed yet either, and must not read as missing from the index.
      return await verifyDatabaseChunked(reader ?? this.db, job, v, undefined, { index: true, flush: () => this.flush() });
    } finally {
      reader?.close();
    }
  }

  /** Continues a verifier over rows committed since it last ran (see continueVerify). */
  verifyMore(v: ChainVerifier): void {
    continueVerify(this.db, v);
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    // What is still unsynced is made durable now, before SQLite checkpoints and lets go.
    const fd = this.wal();
    if (this.unsynced.length > 0) {
      if (fd !== null) fsyncSync(fd);
      for (const b of this.unsynced.splice(0)) b.resolve();
    }
    if (!this.syncing) this.closeWal();
    this.guard?.close();
    this.db.close();
    // After the close's checkpoint: everything committed is in the database file, on disk.
    this.heads?.close(this.committed);
  }
}

/** The audit log could not record events: every call is denied until it can. */
export class AuditWriteError extends Error {}

/** "the audit log cannot be written: disk full …": names the cause, the file and what to do. */
export function describeWriteFailure(path: string, err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const text = err instanceof Error ? err.message : String(err);
  // Already the whole sentence: what happened to the file and what to do.
  if (err instanceof AuditFileLost) return err.message;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    return `the audit log cannot be written: disk full (${text}; ${path}). Gatehouse denies every call until it can record them again; free space on that disk and calls are answered again, without a restart.`;
  }
  return `the audit log cannot be written (${typeof code === 'string' ? `${code}: ` : ''}${text}; ${path}). Gatehouse denies every call until it can record them again; check the disk and the file's permissions.`;
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
  return { count: 0, promise, resolve, reject };
}

/** Verifies the chain of an open database; used by the store and by `gatehouse audit verify`. */
export function verifyDatabase(db: Db, v = new ChainVerifier()): VerifyResult {
  continueVerify(db, v);
  const head = db.prepare('SELECT seq, hash FROM chain_head WHERE id = 1').get() as { seq: number; hash: string } | undefined;
  const firstBad = v.finish(head ?? null);
  return { ok: firstBad === null, checked: v.checked, head: v.head, firstBad };
}

/**
 * Feeds a verifier the rows after the last one it accepted. The host keeps one verifier alive
 * after a full check and continues it as batches commit, so "verified" keeps up with the log
 * at the cost of the new rows only.
 */
export function continueVerify(db: Db, v: ChainVerifier): void {
  // A fresh verifier starts where retention left the chain, not at the genesis hash.
  if (v.isFresh) {
    const cp = readCheckpoint(db);
    if (cp) v.startFrom(cp);
  }
  const it = db.prepare('SELECT seq, ts, type, actor, payload AS payloadJson, prev_hash AS prevHash, hash FROM events WHERE seq > ? ORDER BY seq').iterate(v.head.seq) as IterableIterator<StoredRow>;
  for (const row of it) {
    if (!v.push(row)) break;
  }
}

/**
 * verifyDatabase a chunk of rows at a time, for a long chain: between chunks the event loop
 * serves others (appends go on; the rows they add are checked too) and a cancel takes effect.
 * Pages by seq rather than holding an iterator open, which would keep the connection busy.
 */
export async function verifyDatabaseChunked(db: Db, job: Chunked, v = new ChainVerifier(), chunk = 20_000, opts: { index?: boolean; flush?: () => void } = { index: true }): Promise<VerifyResult> {
  if (v.isFresh) {
    const cp = readCheckpoint(db);
    if (cp) v.startFrom(cp);
  }
  const headRow = () => db.prepare('SELECT seq, hash FROM chain_head WHERE id = 1').get() as { seq: number; hash: string } | undefined;
  const startSeq = v.head.seq;
  const page = db.prepare('SELECT seq, ts, type, actor, payload AS payloadJson, prev_hash AS prevHash, hash FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
  job.progress(0, Math.max(0, (headRow()?.seq ?? 0) - startSeq));
  for (;;) {
    const rows = page.all(v.head.seq, chunk) as StoredRow[];
    for (const row of rows) if (!v.push(row)) break;
    if (v.failure || rows.length < chunk) break;
    job.progress(v.head.seq - startSeq, Math.max(v.head.seq, headRow()?.seq ?? 0) - startSeq);
    await job.checkpoint();
  }
  // The head is read after the last page: appends made while verifying moved both together.
  const head = headRow();
  const firstBad = v.finish(head ?? null);
  job.progress(v.head.seq - startSeq, Math.max(v.head.seq, head?.seq ?? 0) - startSeq);
  if (firstBad || !opts.index) return { ok: firstBad === null, checked: v.checked, head: v.head, firstBad };
  // The search index is not chained: recomputed from the rows just verified, it must match them,
  // or a search or filter (decision, agent, …) would show a log other than the chained one.
  opts.flush?.();
  // The index pass reports no progress of its own (the bar is in chained events and stays full);
  // it keeps the job's checkpoints, so a cancel still stops it between chunks.
  const index = await verifySearchIndex(db, { progress() {}, checkpoint: () => job.checkpoint() }, { fromSeq: startSeq, toSeq: v.head.seq, ...(opts.flush ? { flush: opts.flush } : {}) });
  const first = index.mismatches[0];
  const indexBad = first ? { seq: first.seq, reason: `${first.reason} (${first.field}${index.total > 1 ? `; ${index.total - 1} more index ${index.total === 2 ? 'mismatch' : 'mismatches'}` : ''})` } : null;
  return { ok: indexBad === null, checked: v.checked, head: v.head, firstBad: indexBad, index };
}

/** The retention checkpoint of an open database (null if never pruned or not migrated yet). */
export function readCheckpoint(db: Db): Checkpoint | null {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chain_checkpoint'").get();
  if (!table) return null;
  const cp = db.prepare('SELECT seq, hash FROM chain_checkpoint WHERE id = 1').get() as Checkpoint | undefined;
  return cp ? { seq: cp.seq, hash: cp.hash } : null;
}

const OWN_TABLES = new Set(['events', 'chain_head', 'chain_checkpoint']);

interface TableInfo {
  name: string;
  sql: string | null;
}

/** Tables other modules keep beside the log (search indexes, facets), found at run time. */
function sideTables(db: Db): TableInfo[] {
  const all = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as TableInfo[];
  const fts = all.filter((t) => /CREATE\s+VIRTUAL\s+TABLE/i.test(t.sql ?? '')).map((t) => t.name);
  // An FTS5 table's shadow tables (<name>_data, _idx, _content, _docsize, _config) are its own business.
  const shadow = (name: string) => fts.some((f) => name.startsWith(`${f}_`));
  return all.filter((t) => !OWN_TABLES.has(t.name) && !shadow(t.name));
}

function isFts(t: TableInfo): boolean {
  return /USING\s+fts5/i.test(t.sql ?? '');
}

/** External-content FTS over `events`: its rows are the events' rows, kept in step by triggers or a rebuild. */
function isEventsContent(t: TableInfo): boolean {
  return isFts(t) && /content\s*=\s*['"]?events['"]?/i.test(t.sql ?? '');
}

/** Whether a delete trigger on events already keeps `table` in step (it names the table in its body). */
function deleteTriggerCovers(db: Db, table: string): boolean {
  const triggers = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'").all() as { sql: string }[];
  return triggers.some((t) => {
    const [head = '', body = ''] = t.sql.split(/\bBEGIN\b/i);
    return /\bDELETE\b/i.test(head) && body.includes(table);
  });
}

/**
 * DELETE statements (one parameter: the last pruned seq) for rows other tables hold about pruned
 * events: a table with a `seq` column by that column; a self-contained FTS5 table by rowid (the
 * search index keys its rows by seq). Run before the events are deleted, so foreign keys hold.
 */
function sideTableDeletes(db: Db): string[] {
  const out: string[] = [];
  for (const t of sideTables(db)) {
    const q = `"${t.name.replace(/"/g, '""')}"`;
    if (isFts(t)) {
      if (!isEventsContent(t) && !/content\s*=\s*''/i.test(t.sql ?? '')) out.push(`DELETE FROM ${q} WHERE rowid <= ?`);
      continue;
    }
    const cols = db.prepare(`PRAGMA table_info(${q})`).all() as { name: string }[];
    if (cols.some((c) => c.name === 'seq')) out.push(`DELETE FROM ${q} WHERE seq <= ?`);
  }
  return out;
}

/** An external-content FTS over events with no delete trigger would keep the pruned rows' terms: rebuild it. */
function sideTableRebuilds(db: Db): string[] {
  return sideTables(db).filter((t) => isEventsContent(t) && !deleteTriggerCovers(db, t.name)).map((t) => `INSERT INTO "${t.name.replace(/"/g, '""')}"("${t.name.replace(/"/g, '""')}") VALUES ('rebuild')`);
}

/** Opens an audit database read-only for verification without creating or migrating it. */
export function openForVerify(path: string, nativeBinding?: string): Db {
  return new Database(path, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
}
