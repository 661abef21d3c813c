// A batch's chained rows on their way from the store (host thread) to the transaction that inserts
// them (the writer thread, or the in-memory log's LocalWriter): packed into two buffers that are
// moved, not copied, to the thread, and inserted many rows per statement.
//
// Why packed: a batch posted as an array of 7-value tuples was structured-cloned value by value on
// the host's thread (the thread that chains every event) and rebuilt as 8192 arrays and ~57k
// strings on the writer's; and the batch's strings, kept until it was sent, lived through the
// host's minor GCs. Encoded as each event is appended, they die young, and posting costs nothing.
//
// Why derived: a batch's rows are consecutive links of the chain (the store appends them in order
// onto the head named by the batch's base), so each row's seq is the one before plus one and its
// prev_hash is the hash of the row before, the base's for the first. Neither is sent; the writer
// computes both, exactly as the store did when it chained the row.
//
// Why many rows per statement: a statement run per row cost better-sqlite3's call, binding, reset
// and result object per row; one INSERT of ROWS_PER_STATEMENT rows costs them once.
//
// Why bound as bytes: a field decoded into a string was copied three more times on its way into
// the row (UTF-8 to the string, the string back to UTF-8 for binding, SQLite's own copy), on the
// writer thread, which sets the pace of a burst. Bound as a view of the packed bytes and CAST to
// TEXT in the statement, SQLite stores those very bytes as text (CAST reads a blob as text in the
// database's encoding, UTF-8 here): one copy, and the same row.
import type { Database, Statement } from 'better-sqlite3';

/** Where a batch's rows continue the chain: the seq and hash of the row before its first one. */
export interface ChainBase {
  seq: number;
  hash: string;
}

/** A batch's rows as packed by RowPacker: what the store posts to the writer thread. */
export interface PackedRows {
  count: number;
  /** Per row, FIELDS numbers: ts, then the UTF-8 byte lengths of type, actor, payload JSON and hash in `bytes`. */
  nums: Float64Array<ArrayBuffer>;
  /** Per row: type, actor, payload JSON and hash in UTF-8, one after the other (`size` bytes used). */
  bytes: Uint8Array<ArrayBuffer>;
  size: number;
}

const FIELDS = 5;

/** Bytes of row text a batch holds at most before it is full whatever its count (bounds a batch of large events). */
export const MAX_BATCH_BYTES = 64 * 1024 * 1024;

/**
 * Gathers a batch's rows, in chain order, encoded as they come: the strings of an event die young
 * instead of living, with the rest of the batch, through the host's minor GCs until it is sent
 * (the host thread's GC was the largest cost of a burst of appends after the hashing).
 * UTF-8 is what SQLite stores anyway: a string binds as its UTF-8, so the bytes stored are the same.
 */
export class RowPacker {
  count = 0;
  size = 0;
  private nums: Float64Array<ArrayBuffer>;
  private bytes: Buffer<ArrayBuffer>;

  /** Room for `count` rows of `bytes` in all to start with (growing a buffer copies it). */
  constructor(count = 0, bytes = 0) {
    this.nums = new Float64Array(FIELDS * Math.max(8, count + (count >> 2)));
    // A quarter more: a batch like the last one would otherwise outgrow it just before it is full.
    this.bytes = Buffer.allocUnsafeSlow(Math.max(1024, Math.min(bytes + (bytes >> 2), MAX_BATCH_BYTES)));
  }

  add(ts: number, type: string, actor: string, payloadJson: string, hash: string): void {
    // At most 3 bytes per UTF-16 unit (a surrogate pair, two units, is 4).
    const most = 3 * (type.length + actor.length + payloadJson.length + hash.length);
    if (this.size + most > this.bytes.length) this.bytes = grown(this.bytes, this.size, this.size + most);
    const n = this.count * FIELDS;
    if (n + FIELDS > this.nums.length) {
      const more = new Float64Array(this.nums.length * 2);
      more.set(this.nums);
      this.nums = more;
    }
    // One write per row (each Buffer#write costs more than a short string's bytes). In the usual
    // all-ASCII row its byte length is its length, and so is each field's; otherwise the fields are
    // written again one by one, each counted (joined, a lone surrogate ending one and another
    // starting the next would be encoded as a pair). A lone surrogate is written as U+FFFD, what
    // String#toWellFormed makes of it: the store hashes its fields in that form (appendNow), so
    // what is stored is what was hashed.
    const b = this.bytes;
    const nums = this.nums;
    let at = this.size;
    const wrote = b.write(type + actor + payloadJson + hash, at, 'utf8');
    nums[n] = ts;
    if (wrote === type.length + actor.length + payloadJson.length + hash.length) {
      nums[n + 1] = type.length;
      nums[n + 2] = actor.length;
      nums[n + 3] = payloadJson.length;
      nums[n + 4] = hash.length;
      at += wrote;
    } else {
      at = this.field(type, at, n + 1);
      at = this.field(actor, at, n + 2);
      at = this.field(payloadJson, at, n + 3);
      at = this.field(hash, at, n + 4);
    }
    this.size = at;
    this.count++;
  }

  /** One field of a row that is not all ASCII, at `at`; returns where the next goes. */
  private field(s: string, at: number, slot: number): number {
    const wrote = this.bytes.write(s, at, 'utf8');
    this.nums[slot] = wrote;
    return at + wrote;
  }

  /** The rows to post (their buffers are transferred: add nothing after). */
  pack(): PackedRows {
    return { count: this.count, nums: this.nums, bytes: new Uint8Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length), size: this.size };
  }
}

/** A buffer of its own (transferable, not a slice of Node's pool) of at least `need` bytes, holding the first `used`. */
function grown(old: Buffer, used: number, need: number): Buffer<ArrayBuffer> {
  const b = Buffer.allocUnsafeSlow(Math.max(need, old.length * 2));
  old.copy(b, 0, 0, used);
  return b;
}

/** Rows per multi-row INSERT: 7 parameters each, well under SQLite's 32766. */
const ROWS_PER_STATEMENT = 256;
const COLUMNS = 7;
const INSERT = 'INSERT INTO events (seq, ts, type, actor, payload, prev_hash, hash) VALUES ';
/** The text columns come as UTF-8 bytes (the base's hash, a string, is text already). */
const ROW_VALUES = '(?, ?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT))';
/** For a database in UTF-16, where CAST would read the bytes as UTF-16: fields are decoded to strings. */
const ROW_VALUES_STRINGS = '(?, ?, ?, ?, ?, ?, ?)';

/** Inserts packed rows into `events` on a connection; call inside the batch's transaction. */
export class RowInserter {
  private readonly one: Statement;
  private readonly many: Statement;
  /** The parameters of one `many` run, reused (one array per connection). */
  private readonly args: unknown[] = new Array<unknown>(ROWS_PER_STATEMENT * COLUMNS);
  private readonly row: unknown[] = new Array<unknown>(COLUMNS);

  /** Fields bound as views of the packed bytes (a UTF-8 database), or decoded to strings. */
  private readonly views: boolean;

  constructor(db: Database) {
    this.views = db.pragma('encoding', { simple: true }) === 'UTF-8';
    const values = this.views ? ROW_VALUES : ROW_VALUES_STRINGS;
    this.one = db.prepare(INSERT + values);
    this.many = db.prepare(INSERT + new Array<string>(ROWS_PER_STATEMENT).fill(values).join(', '));
  }

  /** Inserts the rows chained onto `base`; returns the head after the last (base itself for none). */
  insert(rows: PackedRows, base: ChainBase): ChainBase {
    const { nums, count } = rows;
    const buffer = rows.bytes.buffer;
    const offset = rows.bytes.byteOffset;
    const bytes = Buffer.from(buffer, offset, rows.size);
    const views = this.views;
    const bulk = count - (count % ROWS_PER_STATEMENT);
    let seq = base.seq;
    let prev: string | Uint8Array = base.hash;
    let at = 0;
    let k = 0;
    const field = (len: number): string | Uint8Array => {
      const from = at;
      at += len;
      if (!views) return bytes.toString('utf8', from, at);
      // An empty field as a string: a blob of no bytes can bind as NULL (no data pointer), which NOT NULL refuses.
      return len === 0 ? '' : new Uint8Array(buffer, offset + from, len);
    };
    for (let i = 0; i < count; i++) {
      const n = i * FIELDS;
      const type = field(nums[n + 1]!);
      const actor = field(nums[n + 2]!);
      const payload = field(nums[n + 3]!);
      const hash = field(nums[n + 4]!);
      seq++;
      const a = i < bulk ? this.args : this.row;
      if (i >= bulk) k = 0;
      a[k++] = seq;
      a[k++] = nums[n];
      a[k++] = type;
      a[k++] = actor;
      a[k++] = payload;
      a[k++] = prev;
      a[k++] = hash;
      if (i >= bulk) this.one.run(a);
      else if (k === a.length) {
        this.many.run(a);
        k = 0;
      }
      prev = hash;
    }
    // The parameters let go of the batch's buffer (it is not needed once its rows are in).
    this.args.fill(undefined);
    this.row.fill(undefined);
    if (at !== rows.size) throw new Error(`a batch's packed rows do not add up (${at} of ${rows.size} bytes read)`);
    return { seq, hash: typeof prev === 'string' ? prev : Buffer.from(prev.buffer, prev.byteOffset, prev.length).toString('utf8') };
  }
}
