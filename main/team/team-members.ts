// The members of a team as the team database knows them: how far each has shipped, how far its own
// log had got at its last contact, and when that was. `team status` shows them; `audit verify
// --team` names those that stopped shipping.
import type { Pool } from 'pg';

export interface TeamMember {
  name: string;
  joinedAt: number;
  lastSeenAt: number;
  /** Milliseconds since the last contact, by the database's clock (members' clocks may differ). */
  seenAgoMs: number;
  shippedSeq: number;
  shippedHash: string | null;
  shippedAt: number | null;
  /** The member's own log head at its last contact. */
  localHeadSeq: number;
  /** Events the member had and had not shipped at its last contact. */
  lag: number;
  version: string | null;
  /** The team policy version the member applies (null: none yet, or it has not said). */
  policyVersion: number | null;
}

export async function listMembers(pool: Pick<Pool, 'query'>, only?: string): Promise<TeamMember[]> {
  const r = await pool.query<{ name: string; joined_at: Date; last_seen_at: Date; seen_ago_ms: string; shipped_seq: string; shipped_hash: string | null; shipped_at: Date | null; local_head_seq: string; version: string | null; policy_version: number | null }>(
    `SELECT name, joined_at, last_seen_at, (extract(epoch FROM now() - last_seen_at) * 1000)::bigint AS seen_ago_ms,
            shipped_seq, shipped_hash, shipped_at, local_head_seq, version, policy_version
     FROM team_members ${only !== undefined ? 'WHERE name = $1' : ''} ORDER BY name`,
    only !== undefined ? [only] : [],
  );
  return r.rows.map((m) => ({
    name: m.name,
    joinedAt: m.joined_at.getTime(),
    lastSeenAt: m.last_seen_at.getTime(),
    seenAgoMs: Number(m.seen_ago_ms),
    shippedSeq: Number(m.shipped_seq),
    shippedHash: m.shipped_hash,
    shippedAt: m.shipped_at?.getTime() ?? null,
    localHeadSeq: Number(m.local_head_seq),
    lag: Math.max(0, Number(m.local_head_seq) - Number(m.shipped_seq)),
    version: m.version,
    policyVersion: m.policy_version,
  }));
}
