// One policy for the team: versions in team_policies, each signed by a registered operator
// (`gatehouse team policy publish`), applied by every member on top of its own policy.yaml.
//
// SECURITY: a member's database credentials are readable by its own agents, and a console role's
// by whoever holds it; neither may change what a member enforces. A member therefore applies a
// version only when its text matches its digest, the digest and version number carry a valid
// signature of a registered operator, and the text loads without a problem; anything else is
// refused (`team.policy-refused`) and the version in force stays. Versions only go forward: an
// old signed text offered again, or a restored database whose newest version is older, changes
// nothing. Team rules sit beside the local ones, where deny beats ask beats allow, so a local rule
// can never loosen a team deny or ask.
//
// The version in force is kept in the member's home (team-policy.json), so a host restarted while
// the team database is unreachable enforces it from its first call.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Pool } from 'pg';
import { z } from 'zod';
import type { RecordFn } from '../approvals/types.js';
import { writeSecretFile } from '../home.js';
import type { LoadResult } from '../policy/rules/load.js';
import { signPolicy, verifyPolicy, type PolicyFields } from './decision-signature.js';
import { signerProblem } from './team-decisions.js';
import { singleFlight } from './single-flight.js';

/** Refusals recorded per run of the host; more are neither logged nor recorded. */
const MAX_REFUSALS_RECORDED = 100;

/** The channel migration 4's trigger announces each new version on (payload: {"version": N}). */
export const POLICY_CHANNEL = 'gatehouse_team_policy';

type Query = Pick<Pool, 'query'>;

export interface TeamPolicyVersion extends PolicyFields {
  text: string;
  signature: string;
}

const versionShape = z.object({
  version: z.number().int().positive(),
  text: z.string(),
  sha256: z.string(),
  operator: z.string(),
  console: z.string(),
  publishedAt: z.number(),
  signature: z.string(),
});

interface PolicyRow { version: number; text: string; sha256: string; operator: string; console: string; published_at: string; signature: string }
const COLUMNS = 'version, text, sha256, operator, console, published_at, signature';

function fromRow(r: PolicyRow): TeamPolicyVersion {
  return { version: r.version, text: r.text, sha256: r.sha256, operator: r.operator, console: r.console, publishedAt: Number(r.published_at), signature: r.signature };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Versions newer than `after`, newest first, without their texts (a member reads the one it applies). */
export async function policyHeadsAfter(db: Query, after: number): Promise<Omit<TeamPolicyVersion, 'text'>[]> {
  const r = await db.query<Omit<PolicyRow, 'text'>>('SELECT version, sha256, operator, console, published_at, signature FROM team_policies WHERE version > $1 ORDER BY version DESC LIMIT 100', [after]);
  return r.rows.map((x) => ({ version: x.version, sha256: x.sha256, operator: x.operator, console: x.console, publishedAt: Number(x.published_at), signature: x.signature }));
}

/** One version, or the newest (version undefined); null when there is none. */
export async function policyVersion(db: Query, version?: number): Promise<TeamPolicyVersion | null> {
  const r = version === undefined ? await db.query<PolicyRow>(`SELECT ${COLUMNS} FROM team_policies ORDER BY version DESC LIMIT 1`) : await db.query<PolicyRow>(`SELECT ${COLUMNS} FROM team_policies WHERE version = $1`, [version]);
  return r.rows[0] ? fromRow(r.rows[0]) : null;
}

/** Why a stored version must not be applied, or null when a registered operator signed exactly it. */
export async function policySignatureProblem(db: Query, p: TeamPolicyVersion, storedAt?: Date): Promise<string | null> {
  if (sha256Hex(p.text) !== p.sha256) return 'its text does not match the SHA-256 it was signed with';
  return headSignatureProblem(db, p, storedAt);
}

/** The signature over a version's number and digest, checked before its text is read. */
function headSignatureProblem(db: Query, p: Omit<TeamPolicyVersion, 'text'>, storedAt?: Date): Promise<string | null> {
  return signerProblem(db, p.operator, (key) => verifyPolicy(p, p.signature, key), 'version', storedAt);
}

/** Every stored version whose signature does not verify (for `audit verify --team`), and how many there are. */
export async function unsignedPolicies(db: Query): Promise<{ checked: number; bad: { policy: TeamPolicyVersion; problem: string }[] }> {
  const all = (await db.query<PolicyRow & { stored_at: Date }>(`SELECT ${COLUMNS}, stored_at FROM team_policies ORDER BY version`)).rows;
  const bad: { policy: TeamPolicyVersion; problem: string }[] = [];
  for (const r of all) {
    const p = fromRow(r);
    const problem = await policySignatureProblem(db, p, r.stored_at);
    if (problem) bad.push({ policy: p, problem });
  }
  return { checked: all.length, bad };
}

/**
 * Signs `text` as the next version and stores it. The next number is read and inserted in one
 * statement; two operators publishing at once get distinct versions (the loser signs again).
 */
export async function publishPolicy(db: Query, o: { text: string; operator: string; privatePem: string; console: string; now?: () => number }): Promise<TeamPolicyVersion> {
  const sha256 = sha256Hex(o.text);
  for (let attempt = 0; ; attempt++) {
    const version = Number((await db.query<{ v: number }>('SELECT coalesce(max(version), 0) + 1 AS v FROM team_policies')).rows[0]!.v);
    const fields: PolicyFields = { version, sha256, operator: o.operator, console: o.console, publishedAt: (o.now ?? Date.now)() };
    const p: TeamPolicyVersion = { ...fields, text: o.text, signature: signPolicy(fields, o.privatePem) };
    try {
      // The database takes only the next number (migration 004's trigger): another publisher that
      // came first makes this one sign again with the number after theirs.
      await db.query(`INSERT INTO team_policies (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [p.version, p.text, p.sha256, p.operator, p.console, p.publishedAt, p.signature]);
      return p;
    } catch (err) {
      if ((err as { code?: string }).code !== '23505' || attempt >= 4) throw err;
    }
  }
}

export function readSavedPolicy(file: string): TeamPolicyVersion | null {
  if (!existsSync(file)) return null;
  return versionShape.parse(JSON.parse(readFileSync(file, 'utf8')));
}

function savePolicy(file: string, p: TeamPolicyVersion): void {
  // Synced and renamed into place: a crash leaves the old version or the new one, never half.
  writeSecretFile(file, JSON.stringify(p, null, 2));
}

export interface TeamPolicyDeps {
  member: string;
  /** PolicyStore fits. */
  store: { setTeamPolicy(text: string, version: number): LoadResult; checkTeamPolicy(text: string, version: number): LoadResult };
  /** Where the version in force is kept (GATEHOUSE_HOME/team-policy.json). */
  file: string;
  record: RecordFn;
  log: (msg: string, err?: unknown) => void;
}

function loadProblem(r: LoadResult): string | null {
  if (!r.broken && r.problems.length === 0) return null;
  const first = r.problems[0];
  return `it does not load here (${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}${first ? `; line ${first.line}: ${first.message}` : ''})`;
}

/** A member's side: the version in force, and each newer one checked and applied (or refused). */
export class TeamPolicyFollower {
  readonly channel = POLICY_CHANNEL;
  private inForceValue: TeamPolicyVersion | null = null;
  /** Refusals already recorded (version + signature): a version read again is not logged twice. */
  private readonly refused = new Set<string>();
  /** The member row last told which version is in force (null: not yet, on this connection). */
  private reported: number | null = null;
  private pool: Query | null = null;
  private readonly run = singleFlight(() => this.syncOnce(this.pool!));

  constructor(private readonly deps: TeamPolicyDeps) {}

  get inForce(): TeamPolicyVersion | null {
    return this.inForceValue;
  }

  /** At host start, before any call is judged: the version this member applied last time. */
  loadSaved(): void {
    let saved: TeamPolicyVersion | null;
    try {
      saved = readSavedPolicy(this.deps.file);
    } catch (err) {
      this.deps.log(`team policy: ${this.deps.file} is unreadable, so no team policy is in force until the team database is reachable`, err);
      return;
    }
    if (!saved) return;
    const problem = loadProblem(this.deps.store.setTeamPolicy(saved.text, saved.version));
    if (problem) this.deps.log(`team policy: version ${saved.version} saved in ${this.deps.file} ${problem}; waiting for the team database`);
    else this.inForceValue = saved;
  }

  /** After each (re)connect and on each announcement: one run at a time, announcements meanwhile folded into one more. */
  sync(pool: Query): Promise<void> {
    this.pool = pool;
    return this.run();
  }

  /** The connection dropped: the member row is told again once it is back. */
  disconnected(): void {
    this.reported = null;
  }

  private async syncOnce(pool: Query): Promise<void> {
    const current = this.inForceValue?.version ?? 0;
    for (const head of await policyHeadsAfter(pool, current)) {
      // The signature first: no text nobody signed is read or parsed.
      const unsigned = await headSignatureProblem(pool, head);
      if (unsigned) {
        this.refuse(head, unsigned);
        continue;
      }
      const p = await policyVersion(pool, head.version);
      if (!p) continue;
      const problem = (await policySignatureProblem(pool, p)) ?? loadProblem(this.deps.store.checkTeamPolicy(p.text, p.version));
      if (problem) {
        this.refuse(p, problem);
        continue;
      }
      const r = this.deps.store.setTeamPolicy(p.text, p.version);
      const late = loadProblem(r);
      if (late) {
        this.refuse(p, late);
        continue;
      }
      savePolicy(this.deps.file, p);
      this.inForceValue = p;
      this.deps.log(`team policy: version ${p.version} by ${p.operator} is in force (${r.compiled.length} rules)`);
      this.deps.record('team.policy-applied', 'host', { version: p.version, sha256: p.sha256, operator: p.operator, console: p.console, rules: r.compiled.length });
      break;
    }
    const v = this.inForceValue?.version ?? null;
    if (v !== null && this.reported !== v) {
      const r = await pool.query('UPDATE team_members SET policy_version = $2 WHERE name = $1', [this.deps.member, v]);
      // No member row yet (nothing shipped): told on the next run.
      if (r.rowCount === 1) this.reported = v;
    }
  }

  private refuse(p: Omit<TeamPolicyVersion, 'text'>, problem: string): void {
    const key = `${p.version}\n${p.signature}`;
    // Bounded: past this many, a flood of bad rows is neither logged nor written into this member's chain.
    if (this.refused.has(key) || this.refused.size >= MAX_REFUSALS_RECORDED) return;
    this.refused.add(key);
    const inForce = this.inForceValue?.version ?? null;
    this.deps.log(`team policy: refused version ${p.version} claimed by ${p.operator}: ${problem}; ${inForce === null ? 'no team policy is in force' : `version ${inForce} stays in force`}`);
    this.deps.record('team.policy-refused', 'host', { version: p.version, operator: p.operator, problem, inForce });
  }
}
