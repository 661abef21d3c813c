// Watches the audit log's hash chain for the consoles: a full verification at start (and on
// request), then the same verifier continued over each committed batch, so "verified (N events)"
// keeps up with the log without re-reading all of it; the write failure (a full disk) shown where
// the chain's state shows; and retention, which prunes only a chain verified intact: the rows
// around a break are the evidence.
import type { ChainState } from '../../shared/contract.js';
import type { Chunked } from '../chunked.js';
import type { Clock } from '../core/clock.js';
import type { AuditStore, RetentionPolicy } from './audit-store.js';
import { ChainVerifier } from './chain.js';

export interface ChainMonitorDeps {
  audit: AuditStore;
  clock: Clock;
  log: (msg: string, err?: unknown) => void;
  /** Every new state, for the consoles (`audit.chain`). */
  changed: (state: ChainState) => void;
  /** The retention in force, read at each run (settings can change it). */
  retention: () => RetentionPolicy;
  /** How long committed batches gather before the live verifier reads them (default 250 ms). */
  followDelayMs?: number;
}

export class ChainMonitor {
  private chain: ChainState = { state: 'checking', checked: 0, head: { seq: 0, hash: '' }, firstBad: null, verifiedAt: null };
  /** The verifier of the last full check that found the chain intact; continued by `committed`. */
  private live: ChainVerifier | null = null;
  private followTimer: NodeJS.Timeout | null = null;
  private retentionTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly deps: ChainMonitorDeps) {}

  /** The state now; the database file's identity is checked first (cheap), so a deleted log shows before the next call. */
  state(): ChainState {
    this.deps.audit.checkFile();
    return { ...this.chain, unwritten: this.deps.audit.unwritten() };
  }

  /** Reads the whole chain now (at start: before the first append, so a break found is reported as found). */
  verify(): ChainState {
    const v = new ChainVerifier();
    const r = this.deps.audit.verify(v);
    this.live = r.ok ? v : null;
    return this.publish(v, r.firstBad);
  }

  /** The same, in chunks with progress and cancel (an operator's `audit.verify` job). */
  async verifyChunked(job: Chunked): Promise<ChainState> {
    const v = new ChainVerifier();
    const r = await this.deps.audit.verifyChunked(job, v);
    this.live = r.ok ? v : null;
    return this.publish(v, r.firstBad);
  }

  /** A batch was committed: the live verifier reads it soon (throttled: one read per burst). */
  committed(): void {
    if (this.followTimer || !this.live || this.closed) return;
    this.followTimer = setTimeout(() => {
      this.followTimer = null;
      const live = this.live;
      if (!live || this.closed) return;
      try {
        this.deps.audit.verifyMore(live);
      } catch (err) {
        // The log cannot be read (its write-ahead log cut under the host): said as the chain's
        // state, not thrown from a timer, which ended the host.
        this.live = null;
        this.publish(live, { seq: live.head.seq + 1, reason: `the audit log could not be read past row ${live.head.seq}: ${(err as Error).message}` });
        return;
      }
      if (live.failure) {
        this.live = null;
        this.publish(live, live.failure);
      } else if (live.head.seq !== this.chain.head.seq) this.publish(live, null);
    }, this.deps.followDelayMs ?? 250);
  }

  /** The log could not be written (or writes resumed): every console shows it with the chain's state. */
  writeState(failure: string | null): void {
    this.chain = { ...this.chain, writeError: failure };
    this.deps.changed(this.chain);
    if (failure) this.deps.log(failure);
  }

  /** Prunes by the retention in force; never a chain not verified intact. */
  retain(): void {
    if (this.closed || this.chain.state !== 'verified') return;
    const policy = this.deps.retention();
    if (!policy.maxAgeDays && !policy.maxEvents) return;
    try {
      if (this.deps.audit.prune(policy).pruned > 0) this.verify();
    } catch (err) {
      this.deps.log('audit retention failed', err);
    }
  }

  /** Retention now and every `intervalMs` (default hourly). */
  startRetention(intervalMs = 3_600_000): void {
    this.retain();
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    this.retentionTimer = setInterval(() => this.retain(), intervalMs);
    this.retentionTimer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.followTimer) clearTimeout(this.followTimer);
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    this.followTimer = this.retentionTimer = null;
  }

  private publish(v: ChainVerifier, firstBad: ChainState['firstBad']): ChainState {
    this.chain = { state: firstBad ? 'broken' : 'verified', checked: v.checked, head: v.head, firstBad, verifiedAt: Math.trunc(this.deps.clock.now()), writeError: this.deps.audit.writeError() };
    this.deps.changed(this.chain);
    return this.chain;
  }
}
