// The store's side of the audit writer thread (audit-writer-worker.ts): sends it one batch at a
// time and hands each reply back, either as it arrives (the host's event loop never waits for the
// disk or a lock) or synchronously for the few callers that must read what they just wrote
// (close, retention, a CLI command), which block only while the thread works and never past a cap.
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { entryFile } from '../core/entry-file.js';
import type { ChainBase, PackedRows } from './audit-rows.js';

/** A write that is not an event (inbox state, retention's deletes), made in a batch's transaction. */
export interface SideWrite {
  sql: string;
  params: unknown[];
  /** Made again with the next batch when its own batch fails (idempotent upserts of state). */
  retry: boolean;
}

export type WriterRequest = { op: 'write'; id: number; base: ChainBase; sql: Array<{ sql: string; params: unknown[] }>; rows: PackedRows } | { op: 'close'; id: number };

export interface WriterReply {
  id: number;
  ok: boolean;
  /** The transaction committed (false on ok for a close). With ok false: only the fsync failed. */
  committed: boolean;
  code: string | null;
  message: string;
}

export interface WriterStart {
  path: string;
  nativeBinding?: string;
  busyTimeoutMs: number;
  port: MessagePort;
  signal: SharedArrayBuffer;
}

/** An error the writer thread reported, with SQLite's code kept for describeWriteFailure. */
export class WriterError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

export class AuditWriter {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  private nextId = 1;
  private dead: string | null = null;
  /** Batches sent and not answered yet: failed at once if the thread dies. */
  private readonly open = new Set<number>();

  constructor(
    opts: { path: string; nativeBinding?: string; busyTimeoutMs: number },
    private readonly onReply: (r: WriterReply) => void,
  ) {
    const { port1, port2 } = new MessageChannel();
    const shared = new SharedArrayBuffer(4);
    this.signal = new Int32Array(shared);
    this.port = port1;
    const data: WriterStart = { path: opts.path, busyTimeoutMs: opts.busyTimeoutMs, port: port2, signal: shared, ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}) };
    this.worker = new Worker(writerFile(), { workerData: data, transferList: [port2] });
    this.port.on('message', (r: WriterReply) => this.handle(r));
    // Idle, the thread keeps no process alive; while a batch is out, its reply port does (see send):
    // a CLI command awaiting an event's `durable` would otherwise exit (code 13) before the answer.
    this.port.unref();
    this.worker.unref();
    this.worker.on('error', (err) => this.died(`the audit writer thread failed: ${err.message}`));
    this.worker.on('exit', (code) => this.died(`the audit writer thread stopped (exit code ${code})`));
  }

  /** Why the thread is gone, or null while it runs. */
  get failure(): string | null {
    return this.dead;
  }

  /**
   * Sends a batch; its reply comes to onReply with this id. Several may be out at once: the thread
   * writes them in order and refuses one whose `base` is not the head it last committed (see
   * audit-writer-worker.ts), so a batch sent after one that failed is never written.
   */
  send(sql: SideWrite[], rows: PackedRows, base: ChainBase): number {
    const id = this.nextId++;
    if (this.dead) {
      // At once, not later: a synchronous flush() waiting on this batch would otherwise sit out its cap.
      this.onReply({ id, ok: false, committed: false, code: 'AUDIT_WRITER_GONE', message: this.dead });
      return id;
    }
    if (this.open.size === 0) this.port.ref();
    this.open.add(id);
    // The rows' buffers are moved, not copied (see audit-rows.ts); the store does not read it again.
    this.worker.postMessage({ op: 'write', id, base, sql: sql.map(({ sql: s, params }) => ({ sql: s, params })), rows } satisfies WriterRequest, [rows.nums.buffer, rows.bytes.buffer]);
    return id;
  }

  /**
   * Blocks until at least one reply has been handed to onReply, or `maxMs` passed; true if one was.
   * Atomics.wait sleeps on the counter the thread bumps after each reply; the reply itself is taken
   * off the port synchronously, so it is handled before this returns.
   */
  waitForReply(maxMs: number): boolean {
    const deadline = Date.now() + maxMs;
    for (;;) {
      const seen = Atomics.load(this.signal, 0);
      if (this.drain()) return true;
      const left = deadline - Date.now();
      if (left <= 0 || this.dead) return false;
      Atomics.wait(this.signal, 0, seen, left);
    }
  }

  /** Closes the thread's connection and waits (up to a cap) until it has. */
  close(): void {
    if (this.dead) return;
    const id = this.nextId++;
    this.worker.postMessage({ op: 'close', id } satisfies WriterRequest);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const seen = Atomics.load(this.signal, 0);
      const m = receiveMessageOnPort(this.port);
      if (m) {
        const r = m.message as WriterReply;
        if (r.id === id) break;
        this.handle(r);
        continue;
      }
      Atomics.wait(this.signal, 0, seen, 100);
    }
    this.dead = 'the audit log is closed';
    this.port.close();
    void this.worker.terminate();
  }

  private drain(): boolean {
    let any = false;
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
      any = true;
      this.handle(m.message as WriterReply);
    }
    return any;
  }

  private handle(r: WriterReply): void {
    this.open.delete(r.id);
    if (this.open.size === 0) this.port.unref();
    this.onReply(r);
  }

  private died(why: string): void {
    if (this.dead) return;
    this.dead = why;
    for (const id of [...this.open]) this.handle({ id, ok: false, committed: false, code: 'AUDIT_WRITER_GONE', message: why });
  }
}

function writerFile(): string {
  return entryFile({ name: 'audit-writer-worker', ext: '.cjs', callerUrl: import.meta.url, what: 'the audit writer thread', packagesExternal: true });
}
