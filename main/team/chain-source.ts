// What the shipper reads from the host's own log: committed rows only (the host's connection sees
// a batch once the writer thread has committed it), in seq order, exactly as chained.
import type { Database, Statement } from 'better-sqlite3';
import type { StoredRow } from '../audit/chain.js';

export interface ChainSource {
  /** Committed rows after `seq`, oldest first, at most `limit`. */
  rowsAfter(seq: number, limit: number): StoredRow[];
  /** The hash of committed row `seq`, or null (pruned by retention, or not written yet). */
  hashAt(seq: number): string | null;
  /** The newest committed seq (0: an empty log). */
  headSeq(): number;
}

/** A ChainSource over an audit database (the host's AuditStore.db). */
export function auditDbSource(db: Database): ChainSource {
  let page: Statement | null = null;
  let one: Statement | null = null;
  let head: Statement | null = null;
  return {
    rowsAfter(seq, limit) {
      page ??= db.prepare('SELECT seq, ts, type, actor, payload AS payloadJson, prev_hash AS prevHash, hash FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
      return page.all(seq, limit) as StoredRow[];
    },
    hashAt(seq) {
      one ??= db.prepare('SELECT hash FROM events WHERE seq = ?');
      return (one.get(seq) as { hash: string } | undefined)?.hash ?? null;
    },
    headSeq() {
      head ??= db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM events');
      return (head.get() as { seq: number }).seq;
    },
  };
}
