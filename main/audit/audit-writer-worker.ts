// The audit log's writer thread (audit-writer.ts starts it; built as out/main/audit-writer-worker.cjs).
//
// Why a thread: a commit waits for SQLite's write lock and for the disk. On the host's event loop
// another process holding the lock (a sqlite3 shell, a backup tool) froze the whole host, console,
// MCP and hooks alike, for as long as it held it (busy_timeout). Here only the calls that wait for
// their events to be durable wait; everything else the host does goes on.
//
// It holds its own connection and does exactly what the store asks, in order: one transaction per
// batch (side writes, the chained rows, the search index, the head), then an fsync of the WAL, then
// one reply per batch, in the order the batches came. The chain itself (seq, hash) is computed by
// the store on the main thread, so the order of events is the order of append() calls whatever
// happens here.
//
// Why the sync may overlap the next batch: in a burst the store sends full batches without waiting
// (audit-store.ts), and each one's fdatasync (the disk's wait, 5-10 ms for a batch of 8192 events
// here) held up the next one's transaction. When another batch is already waiting, the sync runs
// on the thread pool while this thread writes that batch; a batch is still answered only after a
// sync that started after its commit returned, so `durable` means what it meant. A lone batch (the
// usual case, an agent's call) is synced right here, with no hop to the pool.
import { closeSync, fdatasync, fdatasyncSync, openSync } from "node:fs";
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import Database from "better-sqlite3";
import type { Statement } from "better-sqlite3";
import { WAL_SIZE_LIMIT } from "./audit-file-guard.js";
import { SearchIndexer } from "./audit-index.js";
import { RowInserter, type ChainBase } from "./audit-rows.js";
import type { WriterReply, WriterRequest, WriterStart } from "./audit-writer.js";

const start = workerData as WriterStart;
const replies: MessagePort = start.port;
const signal = new Int32Array(start.signal);

const db = new Database(
  start.path,
  start.nativeBinding ? { nativeBinding: start.nativeBinding } : {},
);
// The store opened (and migrated) the file first; WAL is a property of the file and stays.
db.pragma("synchronous = NORMAL");
// How long a batch waits for another process's lock before it fails with SQLITE_BUSY, which the
// store turns into "the audit log is locked by another process" for every call waiting on it.
db.pragma(`busy_timeout = ${start.busyTimeoutMs}`);
const insert = new RowInserter(db);
const setHead = db.prepare(
  "INSERT INTO chain_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
);
/*
 * Checkpoints (copying the WAL into the database file, then syncing that file) are off the answer
 * path. SQLite runs one inside the commit that takes the WAL past wal_autocheckpoint pages, so with
 * its default (1000 pages) one batch in every ~4 MB of log waited for it before it could be
 * answered: ~13 ms of copying plus the database file's sync, and in a burst of appends a fifth of
 * the time (bench/audit-append.ts). Here a checkpoint runs once the thread has been quiet for
 * CHECKPOINT_QUIET_MS with enough committed since the last one; SQLite's own inline checkpoint is
 * kept, further out (CHECKPOINT_CAP_PAGES), for a flood that never goes quiet, so the log stays
 * bounded. journal_size_limit gives the file back after such a flood. Durability does not depend on
 * checkpoints: a batch is answered after the WAL's sync, as before.
 */
const CHECKPOINT_CAP_PAGES = 16_384;
const CHECKPOINT_QUIET_MS = 25;
/** Bytes of rows committed since the last checkpoint before a quiet thread runs one (~1000 WAL pages with the search index). */
const CHECKPOINT_AFTER_BYTES = 2 * 1024 * 1024;
/**
 * Commits since the last checkpoint before a quiet thread runs one, whatever their rows weigh. A
 * commit writes whole pages (the events table's, its indexes', the search index's, the head's):
 * ~9 WAL frames (37 KB) for one small event. Counted by rows alone, a host answering one call at
 * a time reached the 2 MB only after thousands of commits: in bench/gateway.ts its WAL grew to
 * the cap (64 MB), every commit lengthened the file, whose fdatasync then also journals the new
 * size (40 KB and its fdatasync, idle: 0.75-0.91 ms appended, 0.60 written over old frames), and
 * SQLite's checkpoint at the cap ran inside an answer's commit after all. 64 commits are ~2.4 MB.
 */
const CHECKPOINT_AFTER_COMMITS = 64;
db.pragma(`wal_autocheckpoint = ${CHECKPOINT_CAP_PAGES}`);
db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
let sinceCheckpoint = 0;
let commitsSinceCheckpoint = 0;
let checkpointTimer: NodeJS.Timeout | null = null;
// IMMEDIATE: the write lock is taken when the batch opens, so the commit itself cannot fail on a lock.
const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");
const rollback = db.prepare("ROLLBACK");
const index = new SearchIndexer(db);
const prepared = new Map<string, Statement>();
let indexedUpTo = (
  db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM events").get() as {
    seq: number;
  }
).seq;
let walFd: number | null = null;
/**
 * The chain head as this thread last committed it (null until the first batch, which names it).
 * SECURITY: the store sends full batches without waiting for the one before to be answered; a batch
 * chained onto one that failed must not be written, or the log holds rows whose previous row is
 * missing (a broken chain, and events of calls the store already answered as lost).
 */
let head: ChainBase | null = null;

function statement(sql: string): Statement {
  let s = prepared.get(sql);
  if (!s) prepared.set(sql, (s = db.prepare(sql)));
  return s;
}

/**
 * The WAL file to sync, or null when there is none (nothing is uncheckpointed: the commit reached
 * the database file itself). fdatasync: it flushes the data and whatever metadata reading it back
 * needs (the size, when the WAL grew), which is what durability asks; fsync also wrote the inode's
 * times, one more journal commit per batch that an agent's answer waited for.
 */
function walFile(): number | null {
  if (walFd === null) {
    try {
      walFd = openSync(`${start.path}-wal`, "r");
    } catch {
      return null;
    }
  }
  return walFd;
}

/** A reply waiting its turn: in batch order, and a committed batch's only once a sync covers it. */
interface Answer {
  reply: WriterReply;
  /** Sent once true: set at once for a batch that did not commit, after its sync for one that did. */
  ready: boolean;
}

/** Replies not sent yet, oldest first. */
const answers: Answer[] = [];
/** Requests taken off the port and not handled yet, oldest first (see take()). */
const requests: WriterRequest[] = [];
/** A sync is running on the thread pool (never two at once: a failed one must not go unseen). */
let syncing = false;
let stepping = false;

function reply(r: WriterReply): void {
  replies.postMessage(r);
  // Wakes a store waiting synchronously (flush) as well as its port listener.
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

function failure(err: unknown): { code: string | null; message: string } {
  const code = (err as { code?: unknown } | null)?.code;
  return {
    code: typeof code === "string" ? code : null,
    message: err instanceof Error ? err.message : String(err),
  };
}

/** Sends every reply whose turn has come. */
function answer(): void {
  while (answers.length > 0 && answers[0]!.ready) reply(answers.shift()!.reply);
}

/** Queues a reply that needs no sync (a batch that did not commit). */
function refuse(r: WriterReply): void {
  answers.push({ reply: r, ready: true });
  answer();
}

/** The sync of `covered` (committed before it started) returned: they are durable, or failed with it. */
function synced(covered: Answer[], err: unknown): void {
  for (const a of covered) {
    // Committed but not known to be on disk: the store reports it and does not rewind the chain.
    if (err) a.reply = { id: a.reply.id, ok: false, committed: true, ...failure(err) };
    a.ready = true;
  }
  answer();
}

/**
 * Syncs the WAL for the committed batches not answered yet: here and now when no other batch
 * waits, else on the thread pool while the next batch is written (see the top of the file).
 */
function sync(): void {
  if (syncing) return; // its end syncs what committed meanwhile
  const covered = answers.filter((a) => !a.ready);
  if (covered.length === 0) return;
  if (requests.length === 0) take();
  const fd = walFile();
  if (fd === null) return synced(covered, null);
  if (requests.length === 0) {
    let err: unknown = null;
    try {
      fdatasyncSync(fd);
    } catch (e) {
      err = e;
    }
    return synced(covered, err);
  }
  syncing = true;
  fdatasync(fd, (err) => {
    syncing = false;
    synced(covered, err);
    sync();
    // A close waits for the last sync (see step()).
    schedule();
    if (requests.length === 0 && !stepping) whenQuiet();
  });
}

/**
 * Takes a request waiting on the port, if any, so sync() can tell whether a batch waits. Every
 * request, taken here or delivered by the port's event, joins `requests` in the order the port
 * held them, and is handled from there in that order.
 */
function take(): void {
  const m = receiveMessageOnPort(parentPort!);
  if (m) requests.push(m.message as WriterRequest);
}

function schedule(): void {
  if (stepping || requests.length === 0) return;
  stepping = true;
  // A turn of this thread's loop between batches: a sync that returned meanwhile is answered first.
  setImmediate(step);
}

/** Runs a checkpoint once this thread has been quiet a while (see CHECKPOINT_QUIET_MS). */
function whenQuiet(): void {
  if (checkpointTimer !== null) {
    clearTimeout(checkpointTimer);
    checkpointTimer = null;
  }
  if (sinceCheckpoint < CHECKPOINT_AFTER_BYTES && commitsSinceCheckpoint < CHECKPOINT_AFTER_COMMITS) return;
  checkpointTimer = setTimeout(checkpoint, CHECKPOINT_QUIET_MS);
  // A thread with nothing else to do does not stay up for it (the close checkpoints anyway).
  checkpointTimer.unref();
}

function checkpoint(): void {
  checkpointTimer = null;
  take();
  // A batch came, or is still being answered: it goes first, and the quiet starts again after it.
  if (requests.length > 0 || syncing || stepping || answers.length > 0) return schedule();
  try {
    // PASSIVE: never waits for another connection's readers or writer; copies what it can.
    db.pragma("wal_checkpoint(PASSIVE)");
    sinceCheckpoint = 0;
    commitsSinceCheckpoint = 0;
  } catch {
    // Left to the next quiet spell, or to SQLite's inline checkpoint at the cap: nothing is lost.
  }
  schedule();
}

function step(): void {
  stepping = false;
  const req = requests[0];
  if (!req) return whenQuiet();
  if (req.op === "close") {
    // After every batch's reply: the last sync may still be running.
    if (syncing) return;
    requests.shift();
    return close(req);
  }
  requests.shift();
  write(req);
  sync();
  schedule();
  if (requests.length === 0 && !stepping) whenQuiet();
}

function close(req: Extract<WriterRequest, { op: "close" }>): void {
  if (checkpointTimer !== null) clearTimeout(checkpointTimer);
  if (walFd !== null) closeSync(walFd);
  db.close();
  reply({ id: req.id, ok: true, committed: false, code: null, message: "" });
  replies.close();
  parentPort!.close();
}

function write(req: Extract<WriterRequest, { op: "write" }>): void {
  head ??= req.base;
  if (req.base.seq !== head.seq || req.base.hash !== head.hash) {
    refuse({
      id: req.id,
      ok: false,
      committed: false,
      code: "AUDIT_EARLIER_BATCH_LOST",
      message: `an earlier batch of events was not written, and this one continues it (it starts after row ${req.base.seq}; the log ends at row ${head.seq})`,
    });
    return;
  }
  // The head after this batch's rows (null: a batch of side writes only).
  let last: ChainBase | null = null;
  try {
    begin.run();
    // A PRAGMA sets this connection (the fault tests limit its pages to cause a real SQLITE_FULL).
    for (const w of req.sql)
      if (w.params.length === 0 && /^\s*PRAGMA\b/i.test(w.sql)) db.exec(w.sql);
      else statement(w.sql).run(...w.params);
    if (req.rows.count > 0) {
      last = insert.insert(req.rows, req.base);
      index.indexAfter(indexedUpTo);
      setHead.run(last.seq, last.hash);
    }
    commit.run();
  } catch (err) {
    try {
      if (db.inTransaction) rollback.run();
    } catch {
      // The reply below carries the error that matters; a failed rollback leaves nothing committed.
    }
    refuse({ id: req.id, ok: false, committed: false, ...failure(err) });
    return;
  }
  if (last) {
    indexedUpTo = last.seq;
    head = last;
  }
  sinceCheckpoint += req.rows.size;
  commitsSinceCheckpoint++;
  // Answered once the WAL is synced past this commit (sync()).
  answers.push({ reply: { id: req.id, ok: true, committed: true, code: null, message: "" }, ready: false });
}

parentPort!.on("message", (req: WriterRequest) => {
  requests.push(req);
  // An idle thread (nothing queued, no sync on the pool to answer first) writes the batch now: the
  // turn of the loop schedule() waits for lets nothing through first here, and a lone batch (an
  // agent's call.result, which its answer waits for) paid it (a few tens of µs, more on a busy machine).
  if (requests.length === 1 && !stepping && !syncing) step();
  else schedule();
});
