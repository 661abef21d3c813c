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
import type { Pool } from 'pg';
import type { Grants } from '../approvals/grants.js';
import type { RecordFn } from '../approvals/types.js';
import { normaliseTarget, type TargetKind } from '../approvals/grant-match.js';
import { signGrant, verifyGrant, type GrantFields } from './decision-signature.js';
import { signerProblem } from './team-decisions.js';

export const GRANTS_CHANNEL = 'gatehouse_team_grants';
/** Local grant ids of team grants start with this. */
export const TEAM_GRANT_PREFIX = 'team-grant-';
/** The longest a team grant may last. */
export const TEAM_GRANT_MAX_MINUTES = 30 * 24 * 60;

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
    `SELECT ${COLUMNS} FROM team_grants WHERE revoked_at IS NULL AND expires_at > $1 ${member !== undefined ? 'AND (member IS NULL OR member = $2)' : ''} ORDER BY created_at, id`,
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

/** A member's side: the team grants that cover it, held as local grants while they verify. */
export class TeamGrantFollower {
  readonly channel = GRANTS_CHANNEL;
  private readonly refused = new Set<string>();
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly deps: TeamGrantDeps) {}

  sync(pool: Query): Promise<void> {
    const run = this.running.then(() => this.syncOnce(pool));
    this.running = run.catch(() => {});
    return run;
  }

  disconnected(): void {}

  private async syncOnce(pool: Query): Promise<void> {
    const { grants, member } = this.deps;
    const now = this.deps.now();
    const held = new Set<string>();
    for (const g of await liveTeamGrants(pool, now, member)) {
      const localId = TEAM_GRANT_PREFIX + g.id;
      let problem = await grantSignatureProblem(pool, g);
      let value = '';
      if (!problem) {
        try {
          value = normaliseTarget(g.kind, g.value, this.deps.home);
        } catch (err) {
          problem = `its value does not hold here (${(err as Error).message})`;
        }
      }
      if (problem) {
        if (!this.refused.has(g.id + g.signature)) {
          this.refused.add(g.id + g.signature);
          this.deps.log(`team grants: refused grant ${g.id} claimed by ${g.operator}: ${problem}`);
          this.deps.record('team.grant-refused', 'host', { id: g.id, operator: g.operator, kind: g.kind, value: g.value, problem });
        }
        continue;
      }
      held.add(localId);
      if (grants.get(localId)) continue;
      grants.create({
        id: localId,
        agent: '*',
        session: '*',
        tool: '*',
        operator: g.operator,
        expiresInMs: g.expiresAt - now,
        approval: null,
        target: { kind: g.kind, value },
        scope: 'everyone',
        operations: ['execute'],
      });
      this.deps.log(`team grants: holding ${g.kind} grant ${g.id} (${value}) by ${g.operator} until ${new Date(g.expiresAt).toISOString()}`);
    }
    // Revoked, expired, or no longer for this member in the team database: dropped here too.
    for (const local of grants.list()) {
      if (local.id.startsWith(TEAM_GRANT_PREFIX) && !held.has(local.id)) grants.revoke(local.id, 'team');
    }
  }
}
