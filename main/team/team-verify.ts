// `gatehouse audit verify --team`: every member's chain recomputed from the rows in PostgreSQL with
// the hash function the local verify uses (ChainVerifier), checked against the head the member's
// shipper recorded with its last batch; the forks the shippers ran into; and the members that
// stopped shipping (not seen for a while with events they had not shipped).
import type { Pool } from 'pg';
import { ChainVerifier, type StoredRow } from '../audit/chain.js';
import { listMembers, type TeamMember } from './team-members.js';

export interface MemberVerdict {
  member: string;
  ok: boolean;
  checked: number;
  head: { seq: number; hash: string };
  /** The first problem in the member's chain, as a sentence naming the row. */
  failure: string | null;
  forks: { seq: number; storedHash: string; offeredHash: string }[];
  /** Not seen for longer than the limit: how long, and how many events it had not shipped then. */
  stopped: { seenAgoMs: number; lag: number } | null;
}

const PAGE = 10_000;

async function verifyMember(pool: Pick<Pool, 'query'>, m: TeamMember, staleMs: number): Promise<MemberVerdict> {
  const v = new ChainVerifier();
  let failure: string | null = null;
  let after = 0;
  /** Reads the member's rows after `after`, pushing them into the verifier; false when there were none. */
  const readRows = async (): Promise<boolean> => {
    let any = false;
    for (;;) {
      const r = await pool.query<{ seq: string; ts: string; type: string; actor: string; payload: string; prev_hash: string; hash: string }>(
        'SELECT seq, ts, type, actor, payload, prev_hash, hash FROM team_events WHERE member = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        [m.name, after, PAGE],
      );
      for (const row of r.rows) {
        any = true;
        const stored: StoredRow = { seq: Number(row.seq), ts: Number(row.ts), type: row.type, actor: row.actor, payloadJson: row.payload, prevHash: row.prev_hash, hash: row.hash };
        if (after === 0 && stored.seq !== 1 && v.isFresh) {
          failure = `rows 1-${stored.seq - 1} are not in the team database: the first row shipped is ${stored.seq} (they were deleted there, or pruned on the member before it joined)`;
          break;
        }
        if (!v.push(stored)) break;
        after = stored.seq;
      }
      if (failure || v.failure || r.rows.length < PAGE) return any;
    }
  };
  await readRows();
  let head = m;
  if (!failure && !v.failure) {
    // The member's shipper writes its rows and its head in one transaction, so the head is read
    // after the rows: a batch that committed meanwhile moved it past what was read (its rows are
    // read then), while rows past a head read later were not written by the shipper. Read before
    // the rows, a batch committed in between looked like rows added behind Gatehouse's back.
    head = (await listMembers(pool, m.name))[0] ?? m;
    while (!failure && !v.failure && head.shippedSeq > after && (await readRows())) head = (await listMembers(pool, m.name))[0] ?? head;
  }
  if (!failure) {
    const bad = v.finish(head.shippedHash === null ? null : { seq: head.shippedSeq, hash: head.shippedHash });
    failure = bad?.reason ?? null;
  }
  const forks = (await pool.query<{ seq: string; stored_hash: string; offered_hash: string }>('SELECT seq, stored_hash, offered_hash FROM team_forks WHERE member = $1 ORDER BY seq', [m.name])).rows.map((f) => ({ seq: Number(f.seq), storedHash: f.stored_hash, offeredHash: f.offered_hash }));
  const stopped = m.seenAgoMs > staleMs ? { seenAgoMs: m.seenAgoMs, lag: m.lag } : null;
  return { member: m.name, ok: failure === null && forks.length === 0 && !(stopped && stopped.lag > 0), checked: v.checked, head: v.head, failure, forks, stopped };
}

/** Verifies every member (or one); members are checked one after another, each in pages. */
export async function verifyTeam(pool: Pick<Pool, 'query'>, opts: { staleMs: number; member?: string }): Promise<MemberVerdict[]> {
  const out: MemberVerdict[] = [];
  for (const m of await listMembers(pool, opts.member)) out.push(await verifyMember(pool, m, opts.staleMs));
  return out;
}
