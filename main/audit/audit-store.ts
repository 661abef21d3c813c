// Append-only audit log in SQLite with a SHA-256 hash chain and group commit.
//
// Producers call append(); the event gets its seq and hash at once (the chain order is the
// call order) and goes into the transaction holding everything else appended in the same
// tick, committed as one transaction. `durable` resolves when that transaction is on disk.
//
// Durability without stalling the host: batches are written by a thread of their own
// (audit-writer-worker.ts) with its own connection, one batch at a time, so what is appended
// while one commits gathers into the next (group commit). A full batch cannot gather more and goes
// at once, behind the ones the thread is writing: a burst of appends keeps the thread busy instead
// of waiting, batch after batch, for the event loop to hear each answer and send the next. The commit does not fsync (WAL with
// synchronous=NORMAL); the thread fsyncs the WAL file before it answers, which gives FULL's
// guarantee for each batch whose `durable` has resolved. A commit on the event loop froze the
// whole host while another process held the write lock, and a synchronous FULL commit cost every
// tool call several milliseconds on a busy disk (bench/gateway.ts).
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { ChainVerifier, GENESIS_HASH, HISTORY_MISSING_EVENT, PRUNED_EVENT, canonicalJson, chainHash, type Checkpoint, type StoredRow, type VerifyFailure } from './chain.js';
import { migrate } from './migrations/migrate.js';
import { ensureOwnerOnlyFile } from '../home.js';
import { SearchIndexer } from './audit-index.js';
import { verifySearchIndex, type IndexVerifyResult } from './index-verify.js';
import type { Chunked } from '../chunked.js';
import { AuditFileGuard, AuditFileLost, assertWritable } from './audit-file-guard.js';
import { HeadFileWriter, missingHistory, readHeadFile } from './audit-head.js';
import { AuditWriter, WriterError, type SideWrite, type WriterReply } from './audit-writer.js';
import { MAX_BATCH_BYTES, RowInserter, RowPacker, type ChainBase, type PackedRows } from './audit-rows.js';

// The clock lives in core/; re-exported because the audit store's callers pass one in.
import { systemClock, type Clock } from '../core/clock.js';
import { toWellFormed } from '../core/well-formed.js';

export { systemClock, type Clock };

/** Events written per transaction at most; a larger tick is split (bounds memory and latency). */
export const DEFAULT_MAX_BATCH = 8192;

/**
 * A burst's first batch is full (and goes to the writer) at this many events, each next one at
 * twice the one before, up to maxBatch. The host chains events about three times as fast as the
 * writer thread writes them, so each next batch is full before the thread is done with the one
 * before: the thread starts after 1024 events instead of 8192 and does not wait again. A tick of
 * up to this many events is one batch, as before.
 */
export const FIRST_BURST_BATCH = 1024;

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

/** How long a batch waits for another process's write lock before its calls are denied. */
export const WRITE_LOCK_WAIT_MS = 5000;

/**
 * How long a console read waits for what was appended to commit before it reads what is committed:
 * long enough for a busy disk, short enough that a lock held elsewhere never freezes the console.
 */
export const READ_SETTLE_MS = 1000;

interface Batch {
  /** The writer's id for it once sent (0 before). */
  id: number;
  /** The chain head before its first row: the writer refuses it unless that is the head it committed last. */
  base: ChainBase;
  /** Its events' rows, chained onto base (rows.count: how many). */
  rows: RowPacker;
  /** Events it gathers at most: maxBatch, or fewer for a burst's first batches (FIRST_BURST_BATCH). */
  limit: number;
  sql: SideWrite[];
  /** The chain head after this batch's last row (base while it has none); two fields, not an object per event. */
  headSeq: number;
  headHash: string;
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class AuditStore {
  /** The host's own connection: reads, and the schema at open. Writes go through the writer thread. */
  readonly db: Db;
  private readonly clock: Clock;
  private readonly maxBatch: number;
  private readonly onCommit: ((lastSeq: number, count: number) => void) | undefined;
  private readonly decorate: ((input: AuditEventInput) => AuditEventInput) | undefined;
  private readonly log: (msg: string, err?: unknown) => void;
  /** Head of the chain including events not yet committed. */
  private headSeqValue: number;
  private headHash: string;
  /** Head as last committed: where the chain resumes if a batch fails. */
  private committed: { seq: number; hash: string };
  /** Batches gathered and not sent yet, oldest first; each holds at most maxBatch events. */
  private queue: Batch[] = [];
  /**
   * Batches the writer thread has and has not answered yet, oldest first. One that can still grow
   * waits while any is out, so it gathers a tick's worth (group commit); full ones go at once.
   */
  private inflight: Batch[] = [];
  private scheduled = false;
  /** The size of the batch sent last: the next one starts with room for as much (a burst's batches are alike). */
  private lastBatch = { count: 0, bytes: 0 };
  private closed = false;
  /** The writer thread (audit-writer-worker.ts); null for an in-memory log, written here. */
  private readonly writer: AuditWriter | null;
  /** For an in-memory log only (tests, benchmarks): the same transaction, on this connection. */
  private readonly local: LocalWriter | null;
  private readonly path: string;
  private readonly onWriteState: ((failure: string | null) => void) | undefined;
  /** Batches that failed since the store opened: a caller compares before and after its own appends. */
  private failures = 0;
  /** The write failure in force (until a batch commits again), and what it cost. */
  private writeFailure: { message: string; since: number; lostEvents: number; code: string | null } | null = null;
  /** The sentence of the newest failure, kept after writes resume: a waiter learns of its loss only later. */
  private lastFailure: string | null = null;
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
    // fsynced, which the writer thread does before it answers (see the top of the file).
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma(`busy_timeout = ${WRITE_LOCK_WAIT_MS}`);
    migrate(this.db, undefined, (m) => this.log(`audit log: upgrading ${opts.path} to schema ${m.version} (${m.name}); this can take a while on a large log`));
    const last = this.db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
    this.headSeqValue = last?.seq ?? 0;
    this.headHash = last?.hash ?? GENESIS_HASH;
    this.committed = { seq: this.headSeqValue, hash: this.headHash };
    if (onDisk) this.guard = new AuditFileGuard(opts.path, () => this.holdsCommitted());
    const onReply = (r: WriterReply) => this.settled(r);
    this.writer = onDisk ? new AuditWriter({ path: opts.path, busyTimeoutMs: WRITE_LOCK_WAIT_MS, ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}) }, onReply) : null;
    this.local = onDisk ? null : new LocalWriter(this.db, onReply);
    const gap = this.headFile ? missingHistory(opts.path, existed ? this.db : null, recordedHead, this.headFile) : null;
    if (gap) {
      // In the chain itself, so every verifier reports it until an operator starts a new chain on purpose.
      this.log(gap);
      this.append({ type: HISTORY_MISSING_EVENT, actor: 'host', payload: { reason: gap, expected: recordedHead, found: last ? { seq: last.seq, hash: last.hash } : null, headFile: this.headFile } });
      this.flush();
    }
  }

  /**
   * Chains the event at once (the chain order is the call order) and adds it to the batch being
   * gathered; the batch goes to the writer thread when the tick ends or it is full, and
   * `durable` resolves when the thread has committed and fsynced it.
   */
  append(input: AuditEventInput): Appended {
    return this.gate ? this.gate(input) : this.appendNow(input);
  }

  /**
   * Puts one gate in front of append(): every producer holding the store then appends through it.
   * `gate` becomes the append everyone calls; the store's own append is returned to the gate alone. The call trails
   * (call-trails.ts) are that gate: no producer can write half a call's trail past them. One gate
   * only; a second is a programming error.
   */
  gateAppends(gate: (input: AuditEventInput) => Appended): (input: AuditEventInput) => Appended {
    if (this.gate) throw new Error('the audit store already has an append gate');
    this.gate = gate;
    return (input) => this.appendNow(input);
  }

  private gate: ((input: AuditEventInput) => Appended) | null = null;

  private appendNow(input: AuditEventInput): Appended {
    if (this.closed) throw new Error('the audit store is closed');
    if (this.decorate) input = this.decorate(input);
    const payloadJson = canonicalJson(input.payload ?? null);
    const seq = this.headSeqValue + 1;
    const ts = Math.trunc(this.clock.now());
    const prevHash = this.headHash;
    // Stored as TEXT, which cannot hold a lone surrogate: hashed as it will read back, or the
    // chain would fail to verify at this row. (The payload's JSON escapes them already.)
    const type = toWellFormed(input.type);
    const actor = toWellFormed(input.actor);
    const hash = chainHash(prevHash, { seq, ts, type, actor, payloadJson });
    const batch = this.gathering();
    // whenDurable() waits for the newest batch holding an event (batches settle in order).
    this.latest = batch.promise;
    batch.rows.add(ts, type, actor, payloadJson, hash);
    batch.headSeq = seq;
    batch.headHash = hash;
    this.headSeqValue = seq;
    this.headHash = hash;
    // A full batch goes at once (if the writer is free); a larger tick is split (bounds memory and latency).
    if (this.isFull(batch)) this.send();
    else this.schedule();
    return { seq, hash, durable: batch.promise };
  }

  /**
   * A write of state kept beside the log (the inbox's tables), made in the next batch's
   * transaction by the writer thread, so a lock on the file never blocks the host for it either.
   */
  queueWrite(sql: string, params: unknown[]): void {
    if (this.closed) return;
    this.gathering().sql.push({ sql, params, retry: true });
    this.schedule();
  }

  /**
   * Sends what is gathered and waits, up to `maxWaitMs`, until everything appended so far is
   * committed (or failed). Returns whether it is. Readers of `db` call it to see their own events;
   * the host's request paths pass a short cap (or 0), so a lock held elsewhere never freezes it.
   */
  flush(maxWaitMs = WRITE_LOCK_WAIT_MS * 2): boolean {
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      this.send();
      if (this.inflight.length === 0) return true;
      const left = deadline - Date.now();
      if (left <= 0 || !this.writer) return false;
      this.writer.waitForReply(left);
    }
  }

  /**
   * A caller is about to wait for its events (an agent's answer, a tool's start): what is gathered
   * goes to an idle writer now rather than at the end of the loop turn, which let the rest of the
   * turn's work (a child's exit, other sockets) run first while the writer sat idle (0.2-0.4 ms of
   * every answer). Group commit is kept: while a batch is out, nothing partial is sent, and what
   * gathers meanwhile goes together with its reply, under one fsync.
   */
  sendNow(): void {
    this.send();
  }

  /** flush() without blocking: resolves when everything appended so far is settled, or after `maxWaitMs`. */
  async settle(maxWaitMs = READ_SETTLE_MS): Promise<void> {
    this.send();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.latest.catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, maxWaitMs)))]);
    clearTimeout(timer);
  }

  private gathering(): Batch {
    let batch = this.queue.at(-1);
    if (!batch || this.isFull(batch)) {
      // Nothing gathered or out: a burst (or a tick) starts. Otherwise it goes on: twice the last.
      const before = batch ?? this.inflight.at(-1);
      const limit = Math.min(this.maxBatch, before ? before.limit * 2 : FIRST_BURST_BATCH);
      this.queue.push((batch = newBatch({ seq: this.headSeqValue, hash: this.headHash }, this.lastBatch, limit)));
    }
    return batch;
  }

  /** A full batch gathers no more events: its limit, or (large events) MAX_BATCH_BYTES of row text. */
  private isFull(batch: Batch): boolean {
    return batch.rows.count >= batch.limit || batch.rows.size >= MAX_BATCH_BYTES;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  /**
   * Hands the writer every full batch gathered, and the one still gathering if the writer is idle
   * (otherwise the reply of the one being written sends it, grown by what came meanwhile).
   */
  private send(): void {
    for (let batch = this.queue[0]; batch && !this.closed; batch = this.queue[0]) {
      if (this.inflight.length > 0 && !this.isFull(batch)) return;
      // SECURITY: a log deleted, replaced or truncated under the host would take this batch (and the
      // ones before) with it; without this check calls went on being allowed with nothing on record.
      const lost = this.guard?.check() ?? null;
      this.queue.shift();
      if (lost) {
        this.lose(batch, new AuditFileLost(lost));
        return;
      }
      this.inflight.push(batch);
      this.lastBatch = { count: batch.rows.count, bytes: batch.rows.size };
      if (this.writer) batch.id = this.writer.send(batch.sql, batch.rows.pack(), batch.base);
      else this.local!.write(batch.sql, batch.rows.pack(), batch.base);
    }
  }

  /** The writer's answer for a batch it was sent (the in-memory writer answers before send() returns). */
  private settled(r: WriterReply): void {
    // A reply for a batch already given up (sent after one that failed: lose() settled it) is dropped.
    // Id 0: the answer came inside send() (a writer that is gone answers at once), before the id was kept.
    const batch = this.inflight[0];
    if (!batch || (this.writer && batch.id !== 0 && batch.id !== r.id)) return;
    this.inflight.shift();
    const count = batch.rows.count;
    if (r.committed && count > 0) this.committed = { seq: batch.headSeq, hash: batch.headHash };
    if (r.ok) {
      // The head file follows what is on disk, never what is only committed (it must not lead the log).
      if (count > 0) this.heads?.update(this.committed);
      batch.resolve();
      try {
        if (count > 0) this.onCommit?.(this.committed.seq, count);
      } catch (err) {
        this.log('audit onCommit listener failed', err);
      }
      // Only events committed prove the log writable again (a batch of state writes alone does not).
      if (this.writeFailure && count > 0) this.resumed();
    } else {
      const err = new WriterError(r.message, r.code);
      if (r.committed) {
        // Committed but not fsynced: after a power loss the file may hold an older head, which is never flagged.
        this.log('audit fsync failed', err);
        this.failed(err, count);
        batch.reject(err);
      } else {
        // Answers come in order: every batch still out was sent after this one.
        this.lose(batch, err, this.inflight.splice(0));
      }
    }
    // The next batch goes now: it has gathered while this one was written.
    if (this.queue.length > 0) this.send();
  }

  /**
   * A batch will not be written: its producers are told, and so are those of every batch sent or
   * gathered after it, whose rows are chained onto it (the writer refuses those already sent). The
   * chain resumes where the lost batch began; state writes (the inbox's) go again with the next batch.
   */
  private lose(batch: Batch, err: Error, sentAfter: Batch[] = []): void {
    // Once per spell of the same failure, with its stack: the rest of the spell is counted and
    // summed up when a batch commits again (resumed()). A full disk failed thousands of batches
    // in a few seconds, each printed whole, burying the log.
    if (this.writeFailure?.message !== describeWriteFailure(this.path, err)) this.log('audit batch failed to commit', err);
    const after = [...sentAfter, ...this.queue];
    this.queue = [];
    this.headSeqValue = batch.base.seq;
    this.headHash = batch.base.hash;
    this.failed(err, after.reduce((n, b) => n + b.rows.count, batch.rows.count));
    batch.reject(err);
    for (const b of after) b.reject(err);
    const again = [batch, ...after].flatMap((b) => b.sql).filter((w) => w.retry);
    if (again.length > 0) {
      this.gathering().sql.push(...again);
      // Not at once: a lock or a full disk would just fail them again in a loop.
      setTimeout(() => this.schedule(), 1000).unref();
    }
  }

  /** The log reads back everything committed: its last row is the committed head (a read that fails is no). */
  private holdsCommitted(): boolean {
    try {
      const last = this.db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
      // Later rows may be committed whose answer has not come back yet.
      const seq = last?.seq ?? 0;
      return seq > this.committed.seq || (seq === this.committed.seq && (last?.hash ?? GENESIS_HASH) === this.committed.hash);
    } catch {
      return false;
    }
  }

  /**
   * Checks now that the database file is still the one opened, whole (also done before every
   * commit); once it is not, appends fail with why and every call is denied until a restart.
   */
  checkFile(): string | null {
    if (!this.guard || this.closed) return null;
    const lost = this.guard.check();
    // Not a failed batch (nothing was lost by this look): marks stay, so a read that noticed is answered.
    if (lost && this.writeFailure?.message !== lost) this.failed(new AuditFileLost(lost), 0, false);
    return lost;
  }

  /** A batch was lost: remember why (for callers' answers and the consoles) until one commits again. */
  private failed(err: unknown, lost: number, batchFailed = true): void {
    if (batchFailed) this.failures++;
    const code = (err as { code?: unknown } | null)?.code;
    const codeText = typeof code === 'string' ? code : null;
    const message = describeWriteFailure(this.path, err);
    this.lastFailure = message;
    const first = this.writeFailure === null || this.writeFailure.message !== message;
    this.writeFailure = { message, since: this.writeFailure?.since ?? Math.trunc(this.clock.now()), lostEvents: (this.writeFailure?.lostEvents ?? 0) + lost, code: codeText };
    if (first) this.notifyWriteState(message);
  }

  /** A batch committed after a failure: record the gap in the chain itself, then tell the consoles. */
  private resumed(): void {
    const f = this.writeFailure!;
    this.writeFailure = null;
    this.log(`audit log written again: ${f.lostEvents} event${f.lostEvents === 1 ? '' : 's'} could not be recorded since ${new Date(f.since).toISOString()} (${f.message})`);
    // Goes with the next batch (a flush() in progress sends it before it returns); should that
    // batch fail, failed() tells the consoles again.
    this.append({ type: WRITE_RESUMED_EVENT, actor: 'host', payload: { failedSince: f.since, lostEvents: f.lostEvents, code: f.code, error: f.message } });
    this.notifyWriteState(null);
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

  /** The newest write failure's sentence, kept after writes resumed (null if none ever failed). */
  lastWriteError(): string | null {
    return this.writeFailure?.message ?? this.lastFailure;
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
    if (this.failures !== mark) throw new AuditWriteError(this.lastWriteError() ?? describeWriteFailure(this.path, new Error('a batch of events could not be written')));
  }

  /** Events appended and not yet committed: the writer's backlog. */
  unwritten(): number {
    return this.headSeqValue - this.committed.seq;
  }

  /** The head of the chain, including events accepted but not yet committed. */
  get headSeq(): number {
    return this.headSeqValue;
  }

  /**
   * The newest events. `maxWaitMs`: how long to wait for what was appended to commit first; a
   * console passes a short cap (it must not freeze while another process holds the lock).
   */
  tail(limit: number, maxWaitMs = WRITE_LOCK_WAIT_MS * 2): AuditRow[] {
    this.flush(maxWaitMs);
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
    // Deletion, checkpoint and event in one transaction: the writer makes a batch's side writes
    // and its rows together, so they join the (empty, after the flush above) batch being gathered.
    const writes: SideWrite[] = [
      ...sideTableDeletes(this.db).map((sql) => ({ sql, params: [cut], retry: false })),
      { sql: 'DELETE FROM events WHERE seq <= ?', params: [cut], retry: false },
      { sql: 'INSERT INTO chain_checkpoint (id, seq, hash, pruned_at) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, pruned_at = excluded.pruned_at', params: [checkpoint.seq, checkpoint.hash, Math.trunc(this.clock.now())], retry: false },
      ...sideTableRebuilds(this.db).map((sql) => ({ sql, params: [], retry: false })),
    ];
    this.gathering().sql.push(...writes);
    const appended = this.append({
      type: PRUNED_EVENT,
      actor,
      payload: { pruned: count, fromSeq: first, toSeq: cut, checkpoint, previousCheckpoint: previous, maxAgeDays: policy.maxAgeDays ?? 0, maxEvents: policy.maxEvents ?? 0, cutoffTs },
    });
    this.flush();
    // A failed commit rolled the deletion back with it and rewound the head.
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
    // Everything appended is committed and fsynced by the writer before it lets go.
    if (!this.flush()) this.log('audit log: closing with a batch the writer did not finish (it is lost; the next start reports the gap)');
    this.closed = true;
    this.writer?.close();
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
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY_'))) {
    return `the audit log is locked by another process (${path}; it held the write lock for more than ${WRITE_LOCK_WAIT_MS / 1000} s). Gatehouse denies every call until it can record them again; close the program that holds the file open for writing (a sqlite3 shell, a backup or sync tool) and calls are answered again, without a restart.`;
  }
  return `the audit log cannot be written (${typeof code === 'string' ? `${code}: ` : ''}${text}; ${path}). Gatehouse denies every call until it can record them again; check the disk and the file's permissions.`;
}

function newBatch(head: { seq: number; hash: string }, room: { count: number; bytes: number }, limit: number): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A producer that ignores `durable` must not cause an unhandled rejection.
  promise.catch(() => {});
  // Room for one like the last sent, but no more than this one can hold (a burst's first after a full one).
  const count = Math.min(room.count, limit);
  const bytes = room.count > count ? Math.ceil((room.bytes * count) / room.count) : room.bytes;
  return { id: 0, base: head, rows: new RowPacker(count, bytes), limit, sql: [], headSeq: head.seq, headHash: head.hash, promise, resolve, reject };
}

/**
 * The writer of an in-memory log (tests and benchmarks; no file, so no thread can share it): the
 * same transaction as the writer thread's, on the store's own connection, answered next turn.
 */
class LocalWriter {
  private readonly insert: RowInserter;
  private readonly setHead: Statement;
  private readonly index: SearchIndexer;
  private indexedUpTo: number;

  constructor(
    private readonly db: Db,
    private readonly onReply: (r: WriterReply) => void,
  ) {
    this.insert = new RowInserter(db);
    this.setHead = db.prepare('INSERT INTO chain_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash');
    this.index = new SearchIndexer(db);
    this.indexedUpTo = (db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM events').get() as { seq: number }).seq;
  }

  write(sql: SideWrite[], rows: PackedRows, base: ChainBase): void {
    let reply: WriterReply = { id: 0, ok: true, committed: true, code: null, message: '' };
    try {
      const last = this.db.transaction(() => {
        for (const w of sql) this.db.prepare(w.sql).run(...w.params);
        if (rows.count === 0) return null;
        const head = this.insert.insert(rows, base);
        this.index.indexAfter(this.indexedUpTo);
        this.setHead.run(head.seq, head.hash);
        return head;
      }).immediate();
      if (last) this.indexedUpTo = last.seq;
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      reply = { id: 0, ok: false, committed: false, code: typeof code === 'string' ? code : null, message: err instanceof Error ? err.message : String(err) };
    }
    // Synchronously: flush() on an in-memory log returns with the batch settled, as the thread's does.
    this.onReply(reply);
  }
}

/** Verifies the chain of an open database; used by the store and by `gatehouse audit verify`. */
export function verifyDatabase(db: Db, v = new ChainVerifier()): VerifyResult {
  continueVerify(db, v);
  const head = db.prepare('SELECT seq, hash FROM chain_head WHERE id = 1').get() as { seq: number; hash: string } | undefined;
  const firstBad = v.finish(head ?? null);
  return { ok: firstBad === null, checked: v.checked, head: v.head, firstBad };
}

/**
 * The statement continueVerify reads with, prepared once per connection: the host continues its
 * verifier every 250 ms under load, and preparing reads the schema each time (measured under the
 * soak: more of the event loop than reading and hashing the new rows).
 */
const rowsAfterStatements = new WeakMap<Db, Statement>();
function rowsAfter(db: Db): Statement {
  let st = rowsAfterStatements.get(db);
  if (!st) {
    st = db.prepare('SELECT seq, ts, type, actor, payload AS payloadJson, prev_hash AS prevHash, hash FROM events WHERE seq > ? ORDER BY seq');
    rowsAfterStatements.set(db, st);
  }
  return st;
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
  const it = rowsAfter(db).iterate(v.head.seq) as IterableIterator<StoredRow>;
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
