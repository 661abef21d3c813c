// Ships this host's chained audit events to the team database, in seq order, in batches, at least
// once: a row is keyed (member, seq) and inserted with ON CONFLICT DO NOTHING, so a batch sent
// again after an outage changes nothing. Where to resume is read from PostgreSQL itself on every
// (re)connect, never remembered locally: what the team database holds is what counts.
//
// It never blocks or fails a local decision: it reads only committed rows from the host's own log
// (which queues everything while the link is down), runs beside the call path, and turns every
// error into a link state, a backoff and a retry. Changing that (awaiting it from the call path,
// letting an error escape) would let a PostgreSQL outage deny or stall agents' calls.
//
// A row offered at a seq the team database already holds with another hash is a fork (two hosts
// under one member name, or a log replaced by an old copy): it is recorded in team_forks and
// shipping stops, since every later row would be on a chain the team trail does not continue.
import type { Pool, PoolClient } from 'pg';
import type { Clock } from '../core/clock.js';
import type { StoredRow } from '../audit/chain.js';
import type { ChainSource } from './chain-source.js';
import { requireTeamSchema } from './migrations/migrate.js';
import { eventFacets, pgTextArray } from './search-facets.js';
import { parsePayload, searchTextOf } from './search-text.js';
import { describePgError, pgBigintArrayBinary, pgTextArrayBinary } from './team-db.js';

/** The channel a committed batch is announced on (payload: {"member":…,"seq":…}). */
export const SHIPPED_CHANNEL = 'gatehouse_team_shipped';

export type LinkState = 'connecting' | 'up' | 'down' | 'forked' | 'closed';

export interface TeamLinkStatus {
  member: string;
  link: LinkState;
  /** The last seq the team database holds for this member (null: not known yet). */
  shippedSeq: number | null;
  /** The newest committed seq of the local log. */
  localHead: number;
  /** Committed events not shipped yet. */
  lag: number;
  /** Age of the oldest event not shipped yet (0: none waiting). */
  lagMs: number;
  /** Why the link is down or forked. */
  lastError: string | null;
  /** When the link entered its state. */
  since: number;
  /** When a link that is down tries again. */
  nextRetryAt: number | null;
  /** Events shipped by this run. */
  shipped: number;
}

/** A link transition, for the host to record in its own chain (so an outage is in the log). */
export interface LinkChange {
  state: 'up' | 'down' | 'forked';
  member: string;
  shippedSeq: number | null;
  lag: number;
  error?: string;
}

export interface TeamShipperDeps {
  source: ChainSource;
  pool: Pick<Pool, 'connect'>;
  clock: Clock;
  member: string;
  version: string;
  /** Rows per transaction at most. */
  batchSize?: number;
  /** Backoff after an error: doubles from minMs up to maxMs. */
  backoff?: { minMs: number; maxMs: number };
  /** How often the member's heartbeat (last seen, local head) is written while idle, and new rows looked for without a nudge. */
  idleMs?: number;
  log?: (msg: string, err?: unknown) => void;
  /** Told of each transition: up after down (or first up), down, forked. */
  linkChanged?: (change: LinkChange) => void;
  /** Told after each attempt to ship (a batch, a retry, an idle look): the status may have moved (lag, link). */
  settled?: () => void;
}

export const DEFAULT_BATCH = 2000;
const DEFAULT_BACKOFF = { minMs: 250, maxMs: 5_000 };
const DEFAULT_IDLE_MS = 1_000;
const HEARTBEAT_MS = 5_000;

class ForkError extends Error {}

/** One batch of rows, with the insert's parameters made ready (the words, the facets and the arrays' bytes are the costly part). */
interface Batch {
  rows: StoredRow[];
  last: StoredRow;
  params: unknown[];
}

export class TeamShipper {
  private readonly batch: number;
  private readonly backoff: { minMs: number; maxMs: number };
  private readonly idleMs: number;
  private shippedSeq: number | null = null;
  /** Where to resume is read from PostgreSQL first: at start and after every error. */
  private needResume = true;
  private link: LinkState = 'connecting';
  private since: number;
  private lastError: string | null = null;
  private failures = 0;
  private nextRetryAt: number | null = null;
  private shippedCount = 0;
  private lastHeartbeat = 0;
  private pumping: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly deps: TeamShipperDeps) {
    this.batch = deps.batchSize ?? DEFAULT_BATCH;
    this.backoff = deps.backoff ?? DEFAULT_BACKOFF;
    this.idleMs = deps.idleMs ?? DEFAULT_IDLE_MS;
    this.since = deps.clock.now();
  }

  /** Starts shipping (and keeps at it until close). */
  start(): void {
    this.nudge();
  }

  /** New rows were committed: ship them now rather than at the next idle tick. Cheap to call often. */
  nudge(): void {
    this.run(false);
  }

  private run(retry: boolean): void {
    if (this.closed || this.link === 'forked') return;
    // A link that is down waits for its backoff timer (armed whenever a pump fails): a burst of
    // commits must not hammer a dead server. The timer itself always runs, never compared with
    // the clock: a timer that fired a millisecond early would otherwise end shipping for good.
    if (this.link === 'down' && !retry) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.clearTimer();
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
      if (this.closed) return;
      this.deps.settled?.();
      if (this.again && this.link === 'up') {
        this.again = false;
        this.run(false);
      } else {
        this.again = false;
        this.arm(this.link === 'down' ? this.retryDelay() : this.idleMs);
      }
    });
  }

  status(): TeamLinkStatus {
    const localHead = this.safe(() => this.deps.source.headSeq(), 0);
    const shipped = this.shippedSeq;
    const next = shipped === null ? null : this.safe(() => this.deps.source.rowsAfter(shipped, 1)[0] ?? null, null);
    return {
      member: this.deps.member,
      link: this.link,
      shippedSeq: shipped,
      localHead,
      lag: shipped === null ? localHead : Math.max(0, localHead - shipped),
      lagMs: next ? Math.max(0, this.deps.clock.now() - next.ts) : 0,
      lastError: this.lastError,
      since: this.since,
      nextRetryAt: this.link === 'down' ? this.nextRetryAt : null,
      shipped: this.shippedCount,
    };
  }

  /** Stops after the batch in flight (if any) is settled. */
  async close(): Promise<void> {
    this.closed = true;
    this.clearTimer();
    await this.pumping;
    this.link = 'closed';
  }

  private safe<T>(fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch {
      return fallback;
    }
  }

  private arm(ms: number): void {
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run(true);
    }, ms);
    // The shipper never keeps a process alive by itself.
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private retryDelay(): number {
    return Math.min(this.backoff.maxMs, this.backoff.minMs * 2 ** Math.max(0, this.failures - 1));
  }

  private async pump(): Promise<void> {
    try {
      if (this.needResume) await this.resume();
      let batch = this.prepare(this.shippedSeq!);
      if (!batch && this.deps.clock.now() - this.lastHeartbeat >= HEARTBEAT_MS) await this.heartbeat();
      while (batch && !this.closed) {
        // Pipelined: the next batch is read and made ready while PostgreSQL inserts this one. If
        // this one fails, the next is dropped and shipping resumes from what was committed.
        let next: Batch | null = null;
        const after = batch.last.seq;
        await this.ship(batch, () => (next = this.prepare(after)));
        batch = next as Batch | null;
        // The event loop serves calls between batches.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (this.closed) return;
      this.up();
    } catch (err) {
      if (err instanceof ForkError) this.forked(err.message);
      else this.down(err);
    }
  }

  /** Reads where the team database's copy of this member ends, and checks it is this log's. */
  private async resume(): Promise<void> {
    await this.withClient(async (c) => {
      await requireTeamSchema(c);
      const head = this.deps.source.headSeq();
      await c.query(
        `INSERT INTO team_members (name, version, local_head_seq) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET last_seen_at = now(), version = excluded.version, local_head_seq = excluded.local_head_seq`,
        [this.deps.member, this.deps.version, head],
      );
      const last = (await c.query<{ seq: string; hash: string }>('SELECT seq, hash FROM team_events WHERE member = $1 ORDER BY seq DESC LIMIT 1', [this.deps.member])).rows[0];
      if (!last) {
        this.shippedSeq = 0;
        this.needResume = false;
        return;
      }
      const seq = Number(last.seq);
      const local = this.deps.source.hashAt(seq);
      if (local !== null && local !== last.hash) {
        await c.query('INSERT INTO team_forks (member, seq, stored_hash, offered_hash) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [this.deps.member, seq, last.hash, local]);
        throw new ForkError(`the team database holds another row ${seq} for member ${this.deps.member} (hash ${last.hash.slice(0, 12)}…, this log has ${local.slice(0, 12)}…): another host ships under this name, or this log is not the one that shipped; give this host its own --team-member name`);
      }
      if (local === null && seq > head) {
        // Recorded like any other fork: without it this log (an older copy restored, or a second host
        // with a shorter log under this name) stopped shipping with nothing in the team database to
        // say so, and `audit verify --team` called the member intact. It offers no row at `seq`.
        await c.query('INSERT INTO team_forks (member, seq, stored_hash, offered_hash) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [this.deps.member, seq, last.hash, '']);
        throw new ForkError(`the team database holds rows up to ${seq} for member ${this.deps.member}, but this log ends at row ${head}: another host ships under this name, or this log was replaced; give this host its own --team-member name`);
      }
      // local === null with seq <= head: retention pruned that row here; the chain continues after it.
      this.shippedSeq = seq;
      this.needResume = false;
    });
  }

  /** The rows after `seq` (one batch at most) with the insert's parameters, or null when there are none. */
  private prepare(seq: number): Batch | null {
    const rows = this.deps.source.rowsAfter(seq, this.batch);
    if (rows.length === 0) return null;
    // Each payload parsed once, for its words and its facets.
    const texts: string[] = [];
    const facets: string[] = [];
    for (const r of rows) {
      const payload = parsePayload(r.payloadJson);
      texts.push(searchTextOf(r.type, r.actor, payload));
      facets.push(pgTextArray(eventFacets(this.deps.member, r.type, r.actor, r.payloadJson, payload)));
    }
    // Each column goes as a binary array, made here while the batch before is inserted. Given JS
    // arrays, the driver made array literals as it sent the insert, while PostgreSQL waited (17-22
    // ms of a 2,000-row batch's 70-100 ms here), and PostgreSQL then parsed them (array_in,
    // unescaping every quote of every payload); a binary array is read element by element as is.
    const params = [
      this.deps.member,
      pgBigintArrayBinary(rows.map((r) => r.seq)),
      pgBigintArrayBinary(rows.map((r) => r.ts)),
      pgTextArrayBinary(rows.map((r) => r.type)),
      pgTextArrayBinary(rows.map((r) => r.actor)),
      pgTextArrayBinary(rows.map((r) => r.payloadJson)),
      pgTextArrayBinary(rows.map((r) => r.prevHash)),
      pgTextArrayBinary(rows.map((r) => r.hash)),
      pgTextArrayBinary(texts),
      pgTextArrayBinary(facets),
    ];
    return { rows, last: rows[rows.length - 1]!, params };
  }

  /** Ships one batch in one transaction; `meanwhile` runs once its insert is on the wire. */
  private async ship(batch: Batch, meanwhile?: () => void): Promise<void> {
    const { rows, last } = batch;
    await this.withClient(async (c) => {
      await c.query('BEGIN');
      try {
        const insert = c.query<{ seq: string }>(
          `INSERT INTO team_events (member, seq, ts, type, actor, payload, prev_hash, hash, search)
           SELECT $1, u.seq, u.ts, u.type, u.actor, u.payload, u.prev_hash, u.hash, to_tsvector('simple', u.text) || array_to_tsvector(u.facets::text[])
           FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]) AS u(seq, ts, type, actor, payload, prev_hash, hash, text, facets)
           ON CONFLICT (member, seq) DO NOTHING RETURNING seq`,
          batch.params,
        );
        // A failure here fails only the next batch, which is then read again: never this one's insert.
        try {
          meanwhile?.();
        } catch {
          // The next pump reads it again.
        }
        const inserted = await insert;
        if (inserted.rowCount !== rows.length) await this.checkDuplicates(c, rows, new Set(inserted.rows.map((r) => Number(r.seq))));
        await c.query(
          `UPDATE team_members SET shipped_hash = CASE WHEN $2 >= shipped_seq THEN $3 ELSE shipped_hash END, shipped_seq = GREATEST(shipped_seq, $2),
             shipped_at = now(), last_seen_at = now(), local_head_seq = GREATEST($4, $2) WHERE name = $1`,
          [this.deps.member, last.seq, last.hash, this.deps.source.headSeq()],
        );
        await c.query('SELECT pg_notify($1, $2)', [SHIPPED_CHANNEL, JSON.stringify({ member: this.deps.member, seq: last.seq })]);
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        throw err;
      }
    });
    this.shippedSeq = last.seq;
    this.shippedCount += rows.length;
    this.lastHeartbeat = this.deps.clock.now();
  }

  /** Rows the database already held: the same row sent again is fine; another row at that seq is a fork. */
  private async checkDuplicates(c: PoolClient, rows: StoredRow[], inserted: Set<number>): Promise<void> {
    const again = rows.filter((r) => !inserted.has(r.seq));
    const stored = new Map((await c.query<{ seq: string; hash: string }>('SELECT seq, hash FROM team_events WHERE member = $1 AND seq = ANY($2::bigint[])', [this.deps.member, again.map((r) => r.seq)])).rows.map((r) => [Number(r.seq), r.hash]));
    const forks = again.filter((r) => stored.get(r.seq) !== r.hash);
    if (forks.length === 0) return;
    // The forks are kept even though the batch is not: recorded, then the batch rolled back.
    await c.query('ROLLBACK');
    await c.query('BEGIN');
    for (const r of forks) await c.query('INSERT INTO team_forks (member, seq, stored_hash, offered_hash) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [this.deps.member, r.seq, stored.get(r.seq) ?? '', r.hash]);
    await c.query('COMMIT');
    const first = forks[0]!;
    throw new ForkError(`the team database holds another row ${first.seq} for member ${this.deps.member} (${forks.length} ${forks.length === 1 ? 'row differs' : 'rows differ'}): another host ships under this name, or this log is not the one that shipped; give this host its own --team-member name`);
  }

  private async heartbeat(): Promise<void> {
    await this.withClient((c) => c.query('UPDATE team_members SET last_seen_at = now(), local_head_seq = $2 WHERE name = $1', [this.deps.member, this.deps.source.headSeq()]));
    this.lastHeartbeat = this.deps.clock.now();
  }

  private async withClient<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    const c = (await this.deps.pool.connect()) as PoolClient;
    let broken: Error | undefined;
    // A checked-out client has no listener of the pool's: a server that goes away between two
    // queries of a batch (PostgreSQL stopped) would be an unhandled 'error' event, which ends the
    // whole host. Kept as the reason the connection is dropped instead.
    const dropped = (err: Error) => (broken ??= err);
    c.on('error', dropped);
    try {
      return await fn(c);
    } catch (err) {
      broken ??= err as Error;
      throw err;
    } finally {
      c.removeListener('error', dropped);
      // A connection that failed mid-query is dropped, not handed to the next batch.
      c.release(broken);
    }
  }

  private up(): void {
    if (this.link === 'up') return;
    this.link = 'up';
    this.since = this.deps.clock.now();
    this.lastError = null;
    this.failures = 0;
    this.nextRetryAt = null;
    this.deps.linkChanged?.({ state: 'up', member: this.deps.member, shippedSeq: this.shippedSeq, lag: this.status().lag });
  }

  private down(err: unknown): void {
    const message = describePgError(err);
    this.failures++;
    this.nextRetryAt = this.deps.clock.now() + this.retryDelay();
    // Where to resume is read again from PostgreSQL on reconnect: a batch may have committed
    // although its answer was lost.
    this.needResume = true;
    this.lastError = message;
    if (this.link === 'down') return;
    this.link = 'down';
    this.since = this.deps.clock.now();
    this.deps.log?.(`team: shipping to the team database stopped, retrying (${message})`);
    this.deps.linkChanged?.({ state: 'down', member: this.deps.member, shippedSeq: this.shippedSeq, lag: this.status().lag, error: message });
  }

  private forked(message: string): void {
    this.link = 'forked';
    this.since = this.deps.clock.now();
    this.lastError = message;
    this.deps.log?.(`team: shipping stopped: ${message}`);
    this.deps.linkChanged?.({ state: 'forked', member: this.deps.member, shippedSeq: this.shippedSeq, lag: this.status().lag, error: message });
  }
}
