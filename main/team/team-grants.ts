// Grants scoped to the team: "don't ask again for `npm test`" (or a folder, or a host) made once by
// an operator for every member, or for one, until a time. Each is a row in team_grants signed with
// the operator's key (`gatehouse team grant add`); each member that it covers holds it as a local
// grant of scope `everyone`, id `team-grant-<id>` (so a restart finds it restored, not twice), and
// drops it when it is revoked, expires, or no longer verifies (its operator's key revoked, too).
//
// SECURITY: a member's database credentials are readable by its agents and may not widen what the
// member lets through, so a grant is held only when a registered operator's signature covers its
// kind, value, member and times exactly. It is judged like any grant: after every deny and ask rule
// (a team grant never reaches what policy protects), on the judge's extraction, and a command
// grant covers only calls that read and run (operations ['execute']), never ones that also write,
// delete or reach the network. Revoking needs no signature: it only takes a permission away.
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { Pool } from 'pg';
import type { Grants } from '../approvals/grants.js';
import type { RecordFn } from '../approvals/types.js';
import { normaliseTarget, type TargetKind } from '../approvals/grant-match.js';
import { signGrant, verifyGrant, type GrantFields } from './decision-signature.js';
import { signerProblem } from './team-decisions.js';
import { singleFlight } from './single-flight.js';
import { normalisePath } from '../policy/extract/paths.js';

export const GRANTS_CHANNEL = 'gatehouse_team_grants';
/** Local grant ids of team grants start with this. */
export const TEAM_GRANT_PREFIX = 'team-grant-';
/** The longest a team grant may last. */
export const TEAM_GRANT_MAX_MINUTES = 30 * 24 * 60;
/** At most this many live team grants are read (oldest first): rows beyond are not held. */
const MAX_LIVE_GRANTS = 1000;
/** Refusals recorded per run of the host; more are neither logged nor recorded. */
const MAX_REFUSALS_RECORDED = 100;

type Query = Pick<Pool, 'query'>;

export interface TeamGrant extends GrantFields {
  signature: string;
  revokedAt: number | null;
  revokedBy: string | null;
}

interface GrantRow { id: string; kind: string; value: string; member: string | null; operator: string; console: string; created_at: string; expires_at: string; signature: string; revoked_at: string | null; revoked_by: string | null }
const COLUMNS = 'id, kind, value, member, operator, console, created_at, expires_at, signature, revoked_at, revoked_by';

function fromRow(r: GrantRow): TeamGrant {
  return {
    id: r.id,
    kind: r.kind as TargetKind,
    value: r.value,
    member: r.member ?? '',
    operator: r.operator,
    console: r.console,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    signature: r.signature,
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    revokedBy: r.revoked_by,
  };
}

/** Team grants not revoked and not expired (by `now`), for one member (its own and the team's) or all. */
export async function liveTeamGrants(db: Query, now: number, member?: string): Promise<TeamGrant[]> {
  const r = await db.query<GrantRow>(
    `SELECT ${COLUMNS} FROM team_grants WHERE revoked_at IS NULL AND expires_at > $1 ${member !== undefined ? 'AND (member IS NULL OR member = $2)' : ''} ORDER BY created_at, id LIMIT ${MAX_LIVE_GRANTS}`,
    member !== undefined ? [now, member] : [now],
  );
  return r.rows.map(fromRow);
}

/** Signs and stores a team grant. `value` is checked here as members will read it (normaliseTarget). */
export async function addTeamGrant(db: Query, o: { kind: TargetKind; value: string; member: string | null; minutes: number; operator: string; privatePem: string; console: string; home: string; now?: number }): Promise<TeamGrant> {
  // Refused here as every member would refuse it: a prefix that runs anything, the whole home, a wildcard host.
  normaliseTarget(o.kind, o.value, o.home);
  const createdAt = o.now ?? Date.now();
  const fields: GrantFields = { id: randomUUID(), kind: o.kind, value: o.value.trim(), member: o.member ?? '', operator: o.operator, console: o.console, createdAt, expiresAt: createdAt + Math.round(o.minutes * 60_000) };
  const g: TeamGrant = { ...fields, signature: signGrant(fields, o.privatePem), revokedAt: null, revokedBy: null };
  await db.query(`INSERT INTO team_grants (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL)`, [g.id, g.kind, g.value, o.member, g.operator, g.console, g.createdAt, g.expiresAt, g.signature]);
  return g;
}

/** Revokes the one unrevoked team grant whose id starts with `id`; the ids that matched when not exactly one did. */
export async function revokeTeamGrant(db: Query, id: string, by: string, now = Date.now()): Promise<{ revoked: TeamGrant } | { matched: string[] }> {
  const ids = (await db.query<{ id: string }>("SELECT id FROM team_grants WHERE starts_with(id, $1) AND revoked_at IS NULL", [id])).rows.map((r) => r.id);
  if (ids.length !== 1) return { matched: ids };
  const r = await db.query<GrantRow>(`UPDATE team_grants SET revoked_at = $3, revoked_by = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`, [ids[0], by, now]);
  return r.rows[0] ? { revoked: fromRow(r.rows[0]) } : { matched: [] };
}

export function grantSignatureProblem(db: Query, g: TeamGrant): Promise<string | null> {
  return signerProblem(db, g.operator, (key) => verifyGrant(g, g.signature, key), 'grant');
}

export interface TeamGrantDeps {
  member: string;
  grants: Pick<Grants, 'create' | 'get' | 'list' | 'revoke'>;
  /** `~` in a folder grant is this machine's home. */
  home: string;
  now: () => number;
  record: RecordFn;
  log: (msg: string, err?: unknown) => void;
}

/**
 * A member's side: the team grants that cover it, held as local grants only while this member is
 * in touch with the team database and they verify. SECURITY: a member cut off from the team
 * database (its agent can change its role's password, or end its connections) would otherwise keep
 * a grant for up to 30 days after it was revoked, so every team grant is dropped when the
 * connection drops or a sync fails, and at start (the local store kept them), and held again once
 * a sync has checked it.
 */
export class TeamGrantFollower {
  readonly channel = GRANTS_CHANNEL;
  private readonly refused = new Set<string>();
  private pool: Query | null = null;
  private readonly run = singleFlight(() => this.syncOnce(this.pool!));

  constructor(private readonly deps: TeamGrantDeps) {
    this.dropAll('the host started; they are held again once the team database confirms them');
  }

  async sync(pool: Query): Promise<void> {
    this.pool = pool;
    try {
      await this.run();
    } catch (err) {
      this.dropAll('the team database could not be read');
      throw err;
    }
  }

  disconnected(): void {
    this.dropAll('the connection to the team database dropped');
  }

  private dropAll(why: string): void {
    const held = this.deps.grants.list().filter((g) => g.id.startsWith(TEAM_GRANT_PREFIX));
    if (held.length === 0) return;
    for (const g of held) this.deps.grants.revoke(g.id, 'team');
    this.deps.log(`team grants: ${held.length} team grant${held.length === 1 ? '' : 's'} set aside: ${why}`);
  }

  /** Why a verified grant does not hold on this machine, or null; `value` is what it covers here. */
  private localProblem(g: TeamGrant): { problem: string } | { value: string } {
    let value: string;
    try {
      value = normaliseTarget(g.kind, g.value, this.deps.home);
    } catch (err) {
      return { problem: `its value does not hold here (${(err as Error).message})` };
    }
    if (g.kind === 'path') {
      // SECURITY: the folder is resolved on this machine, where the agent may have made it a symlink
      // (`~/proj/out` → `/home`) before the grant arrived: the operator signed the folder as written,
      // so a folder that resolves elsewhere, or that holds this machine's home, is not held.
      const lexical = normalisePath(g.value.trim(), '/', this.deps.home);
      if (value !== lexical) return { problem: `${lexical} leads through a symlink to ${value} on this machine` };
      const home = posix.resolve(this.deps.home);
      if (home.startsWith(value.endsWith('/') ? value : `${value}/`)) return { problem: `${value} holds this machine's home folder` };
    }
    return { value };
  }

  private async syncOnce(pool: Query): Promise<void> {
    const { grants, member } = this.deps;
    const held = new Set<string>();
    for (const g of await liveTeamGrants(pool, this.deps.now(), member)) {
      const localId = TEAM_GRANT_PREFIX + g.id;
      const unsigned = await grantSignatureProblem(pool, g);
      const local = unsigned ? { problem: unsigned } : this.localProblem(g);
      if ('problem' in local) {
        this.refuse(g, local.problem);
        continue;
      }
      held.add(localId);
      if (grants.get(localId)) continue;
      // The signed end, from now: a slow sync does not stretch it.
      const expiresInMs = g.expiresAt - this.deps.now();
      if (expiresInMs <= 0) continue;
      grants.create({
        id: localId,
        agent: '*',
        session: '*',
        tool: '*',
        operator: g.operator,
        expiresInMs,
        approval: null,
        target: { kind: g.kind, value: local.value },
        scope: 'everyone',
        operations: ['execute'],
      });
      this.deps.log(`team grants: holding ${g.kind} grant ${g.id} (${local.value}) by ${g.operator} until ${new Date(g.expiresAt).toISOString()}`);
    }
    // Revoked, expired, or no longer for this member in the team database: dropped here too.
    for (const local of grants.list()) {
      if (local.id.startsWith(TEAM_GRANT_PREFIX) && !held.has(local.id)) grants.revoke(local.id, 'team');
    }
  }

  private refuse(g: TeamGrant, problem: string): void {
    const key = g.id + g.signature;
    if (this.refused.has(key) || this.refused.size >= MAX_REFUSALS_RECORDED) return;
    this.refused.add(key);
    this.deps.log(`team grants: refused grant ${g.id} claimed by ${g.operator}: ${problem}`);
    this.deps.record('team.grant-refused', 'host', { id: g.id, operator: g.operator, kind: g.kind, value: g.value, problem });
  }
}
