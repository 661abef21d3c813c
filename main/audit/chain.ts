// The hash chain: each row's hash covers the previous row's hash and the canonical JSON
// (RFC 8785) of the row itself, so any edit, deletion or reorder shows.
import { hash } from 'node:crypto';

export { canonicalJson } from '../core/canonical-json.js';

export const GENESIS_HASH = '0'.repeat(64);

export interface ChainedFields {
  seq: number;
  ts: number;
  type: string;
  actor: string;
  /** The payload already in canonical JSON form, as stored. */
  payloadJson: string;
}

/**
 * Canonical JSON of the whole event. The outer keys are fixed and already in RFC 8785 order
 * (actor, payload, seq, ts, type), so the object is assembled around the canonical payload
 * instead of canonicalizing it a second time; JSON.stringify of a string is RFC 8785's form.
 */
export function canonicalEvent(e: ChainedFields): string {
  return `{"actor":${JSON.stringify(e.actor)},"payload":${e.payloadJson},"seq":${e.seq},"ts":${e.ts},"type":${JSON.stringify(e.type)}}`;
}

export function chainHash(prevHash: string, e: ChainedFields): string {
  // The one-shot crypto.hash (Node >= 20.12) costs half of a Hash object per row, and hashing
  // is most of the chain's overhead at audit-append rates. Same digest as createHash.
  return hash('sha256', prevHash + canonicalEvent(e), 'hex');
}

export interface StoredRow extends ChainedFields {
  prevHash: string;
  hash: string;
}

export interface VerifyFailure {
  seq: number;
  reason: string;
}

/** Where a pruned log's chain resumes: the seq and hash of the last row retention deleted. */
export interface Checkpoint {
  seq: number;
  hash: string;
}

/** The event retention appends, in the same transaction as the deletion, naming the checkpoint. */
export const PRUNED_EVENT = 'audit.pruned';

/**
 * Recorded when a host starts over a log holding less history than the chain head kept beside it
 * (audit-head.ts). The row is intact, but the chain it starts is not the whole record: verification
 * fails at it, with its sentence, until an operator starts a new chain on purpose (audit recover).
 */
export const HISTORY_MISSING_EVENT = 'audit.history-missing';

/**
 * Walks rows in seq order and names the first row that is not what was written.
 * Returns null when the chain is intact. `expectedHead` (kept in the same database) catches
 * a truncated tail, which the chain alone cannot see.
 */
export class ChainVerifier {
  private prevHash = GENESIS_HASH;
  private prevSeq = 0;
  /** The checkpoint this verifier started from (null: the genesis hash). */
  private start: Checkpoint | null = null;
  /** The checkpoint named by the last `audit.pruned` row seen. */
  private recorded: { checkpoint: Checkpoint; seq: number } | null = null;
  private started = false;
  checked = 0;
  failure: VerifyFailure | null = null;

  /**
   * A log pruned by retention starts after its checkpoint instead of at genesis. Only before the
   * first row; the checkpoint is itself checked against the `audit.pruned` event that recorded it
   * (see finish), so editing it to hide deleted rows shows.
   */
  constructor(checkpoint?: Checkpoint | null) {
    if (checkpoint) this.startFrom(checkpoint);
  }

  startFrom(checkpoint: Checkpoint): void {
    if (this.started) throw new Error('a verifier can start from a checkpoint only before its first row');
    this.start = { seq: checkpoint.seq, hash: checkpoint.hash };
    this.prevSeq = checkpoint.seq;
    this.prevHash = checkpoint.hash;
  }

  get isFresh(): boolean {
    return !this.started && this.start === null;
  }

  /** Feeds one row; returns false once a failure is found (stop feeding). */
  push(row: StoredRow): boolean {
    if (this.failure) return false;
    const first = !this.started;
    this.started = true;
    const expectedSeq = this.prevSeq + 1;
    if (first && this.start && row.seq !== expectedSeq) {
      // The first row after a checkpoint is where pruned and kept rows meet: name both.
      this.failure = row.seq > expectedSeq
        ? { seq: expectedSeq, reason: `${row.seq - 1 === expectedSeq ? `row ${expectedSeq} is` : `rows ${expectedSeq}-${row.seq - 1} are`} missing: the checkpoint is at row ${this.start.seq} but the first row kept is ${row.seq} (the checkpoint was altered or rows after it were deleted)` }
        : { seq: row.seq, reason: `row ${row.seq} is at or before the checkpoint (row ${this.start.seq}): the checkpoint was altered` };
      return false;
    }
    if (first && this.start && row.prevHash !== this.prevHash) {
      const selfConsistent = chainHash(row.prevHash, row) === row.hash;
      this.failure = selfConsistent
        // Row k is intact and chains to the hash the pruned row k-1 had: the checkpoint was edited.
        ? { seq: this.start.seq, reason: `the checkpoint (row ${this.start.seq}) was altered: its hash ${this.start.hash.slice(0, 12)}… is not the one row ${row.seq} chains to (${row.prevHash.slice(0, 12)}…)` }
        : { seq: row.seq, reason: `row ${row.seq} does not chain to the checkpoint (row ${this.start.seq}, hash ${this.start.hash.slice(0, 12)}…): row ${row.seq} was altered` };
      return false;
    }
    if (row.seq !== expectedSeq) {
      const missing = row.seq - 1 === expectedSeq ? `row ${expectedSeq} is` : `rows ${expectedSeq}-${row.seq - 1} are`;
      this.failure = row.seq > expectedSeq
        ? { seq: expectedSeq, reason: `${missing} missing (deleted); row ${row.seq} follows row ${this.prevSeq}` }
        : { seq: row.seq, reason: `row ${row.seq} is out of order after row ${this.prevSeq}` };
      return false;
    }
    const computed = chainHash(row.prevHash, row);
    if (row.prevHash !== this.prevHash) {
      const recomputed = computed === row.hash && row.seq > 1;
      // The bad row is the previous one, which was counted as verified: uncount it.
      if (recomputed) this.checked--;
      this.failure = recomputed
        // Row k is consistent with itself but chains to a hash row k-1 no longer has:
        // row k-1 was edited and its hash recomputed to hide it.
        ? { seq: row.seq - 1, reason: `row ${row.seq - 1} was altered: its hash was recomputed, but row ${row.seq} still chains to the original (${row.prevHash.slice(0, 12)}…)` }
        : { seq: row.seq, reason: `row ${row.seq} does not chain to row ${this.prevSeq} (prev_hash ${row.prevHash.slice(0, 12)}…, expected ${this.prevHash.slice(0, 12)}…)` };
      return false;
    }
    if (computed !== row.hash) {
      this.failure = { seq: row.seq, reason: `row ${row.seq} was altered: its contents no longer match its hash` };
      return false;
    }
    if (row.type === HISTORY_MISSING_EVENT) {
      this.failure = { seq: row.seq, reason: historyMissingReason(row) };
      return false;
    }
    if (row.type === PRUNED_EVENT) this.noteCheckpoint(row);
    this.prevHash = row.hash;
    this.prevSeq = row.seq;
    this.checked++;
    return true;
  }

  private noteCheckpoint(row: StoredRow): void {
    try {
      const cp = (JSON.parse(row.payloadJson) as { checkpoint?: Checkpoint }).checkpoint;
      if (cp && typeof cp.seq === 'number' && typeof cp.hash === 'string') this.recorded = { checkpoint: { seq: cp.seq, hash: cp.hash }, seq: row.seq };
    } catch {
      // The row's hash matched, so this is what Gatehouse wrote; a payload without a checkpoint records none.
    }
  }

  /** Call after the last row with the head the store recorded at its last commit. */
  finish(expectedHead: { seq: number; hash: string } | null): VerifyFailure | null {
    if (this.failure) return this.failure;
    if (this.start) {
      // Retention records each checkpoint in the chain itself (after the rows it keeps): a checkpoint
      // moved forward over deleted rows, or one written without pruning, differs from that record.
      const r = this.recorded?.checkpoint;
      if (!r) {
        this.failure = { seq: this.start.seq, reason: `the checkpoint (row ${this.start.seq}) is not recorded by any ${PRUNED_EVENT} event after it: it was written outside Gatehouse` };
        return this.failure;
      }
      if (r.seq !== this.start.seq || r.hash !== this.start.hash) {
        this.checked = 0;
        this.failure = { seq: Math.min(r.seq, this.start.seq) + 1, reason: `the checkpoint (row ${this.start.seq}, ${this.start.hash.slice(0, 12)}…) differs from the one row ${this.recorded!.seq} recorded (row ${r.seq}, ${r.hash.slice(0, 12)}…): the checkpoint was altered` };
        return this.failure;
      }
    }
    if (!expectedHead) {
      // The store writes the head with every commit, so rows without one mean it was deleted,
      // and with it the only way to see that rows after the last one were removed.
      if (this.prevSeq > 0 || this.start) this.failure = { seq: this.prevSeq + 1, reason: `the chain head record is missing, so rows after row ${this.prevSeq} may have been removed unseen` };
      return this.failure;
    }
    if (expectedHead.seq > this.prevSeq) {
      this.failure = { seq: this.prevSeq + 1, reason: `rows ${this.prevSeq + 1}-${expectedHead.seq} are missing: the log was truncated after row ${this.prevSeq}` };
    } else if (expectedHead.seq < this.prevSeq) {
      // A chain can be extended by anyone who can write the file; only the head says where
      // Gatehouse's own writes ended.
      this.checked = expectedHead.seq;
      this.failure = { seq: expectedHead.seq + 1, reason: `rows ${expectedHead.seq + 1}-${this.prevSeq} follow the recorded head (row ${expectedHead.seq}): they were not written by Gatehouse` };
    } else if (expectedHead.seq === this.prevSeq && expectedHead.hash !== this.prevHash && this.prevSeq > 0) {
      this.failure = { seq: this.prevSeq, reason: `row ${this.prevSeq} was altered: the recorded head hash differs from the row's hash` };
    }
    return this.failure;
  }

  get head(): { seq: number; hash: string } {
    return { seq: this.prevSeq, hash: this.prevHash };
  }
}

/** The sentence an `audit.history-missing` row recorded, for every verifier that reaches it. */
function historyMissingReason(row: StoredRow): string {
  let reason: unknown = null;
  try {
    reason = (JSON.parse(row.payloadJson) as { reason?: unknown }).reason;
  } catch {
    // The row's hash matched: what Gatehouse wrote; a payload without a reason still names the row.
  }
  return `history is missing before row ${row.seq}: ${typeof reason === 'string' ? reason : 'the log held less than the chain head kept beside it recorded'}`;
}
