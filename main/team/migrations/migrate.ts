// Numbered, forward-only migrations of the team database; team_schema records each one applied.
// Each lives in its own file as the plain SQL it shipped with, frozen (as the audit log's do,
// main/audit/migrations/). All of them run in one transaction under an advisory lock, so two
// hosts running `gatehouse team init` at once cannot apply one twice or see half a schema.
import type { ClientBase } from 'pg';
import { TEAM_MIGRATION_001 } from './001-team-schema.js';
import { TEAM_MIGRATION_002 } from './002-team-inbox.js';
import { TEAM_MIGRATION_003 } from './003-team-roles.js';
import { TEAM_MIGRATION_004 } from './004-team-policy.js';
import { TEAM_MIGRATION_005 } from './005-team-search-facets.js';
import { TEAM_MIGRATION_006 } from './006-team-decision-v2.js';
import { TEAM_MIGRATION_007 } from './007-team-decision-v3.js';
import type { Migration } from '../../audit/migrations/migrate.js';

/** In order; a new migration is a new file and one more entry here. */
export const teamMigrations: readonly Migration[] = [TEAM_MIGRATION_001, TEAM_MIGRATION_002, TEAM_MIGRATION_003, TEAM_MIGRATION_004, TEAM_MIGRATION_005, TEAM_MIGRATION_006, TEAM_MIGRATION_007];

export const TEAM_SCHEMA_VERSION = teamMigrations.at(-1)!.version;

const LOCK = "SELECT pg_advisory_xact_lock(hashtext('gatehouse team schema'))";

/** The version the database is at (0: never initialised). */
export async function teamSchemaVersion(client: Pick<ClientBase, 'query'>): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('team_schema')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  const r = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM team_schema');
  return r.rows[0]?.v ?? 0;
}

/** Applies the migrations the database lacks; returns the versions before and after. */
export async function migrateTeam(client: ClientBase, list: readonly Migration[] = teamMigrations): Promise<{ from: number; to: number }> {
  const latest = list.at(-1)?.version ?? 0;
  await client.query('BEGIN');
  try {
    await client.query(LOCK);
    await client.query('CREATE TABLE IF NOT EXISTS team_schema (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const from = await teamSchemaVersion(client);
    if (from > latest) throw new Error(`The team database is at schema version ${from}, newer than this Gatehouse understands (${latest}). Upgrade Gatehouse on this machine.`);
    for (const m of list) {
      if (m.version <= from) continue;
      await client.query(m.sql);
      // The moment the migration's SQL was done (clock_timestamp, not the transaction's start):
      // audit verify --team takes a v1 (v2) decision signature only from a row stored before
      // migration 6 (7) was applied (team-decisions.ts). Its ALTER TABLE holds team_decisions until the commit,
      // so every row stored earlier committed before this moment, and every later one after it.
      await client.query('INSERT INTO team_schema (version, name, applied_at) VALUES ($1, $2, clock_timestamp())', [m.version, m.name]);
    }
    await client.query('COMMIT');
    return { from, to: latest };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

/**
 * The team database answered, and its schema is not the one this Gatehouse writes: only an operator
 * (gatehouse team init, or an upgrade) changes that. A class of its own so a caller can tell it from
 * the check itself failing (PostgreSQL unreachable, the connection cut, the server shutting down),
 * which passes by itself and is worth trying again.
 */
export class TeamSchemaMismatch extends Error {
  override readonly name = 'TeamSchemaMismatch';
  constructor(readonly version: number) {
    super(
      version < TEAM_SCHEMA_VERSION
        ? `the team database is at schema version ${version}, this Gatehouse needs ${TEAM_SCHEMA_VERSION}: run gatehouse team init URL`
        : `the team database is at schema version ${version}, newer than this Gatehouse understands (${TEAM_SCHEMA_VERSION}): upgrade Gatehouse on this machine`,
    );
  }
}

/** Throws TeamSchemaMismatch, saying what to run, unless the database is at the version this Gatehouse writes; any other error is the check's own (the database not reached). */
export async function requireTeamSchema(client: Pick<ClientBase, 'query'>): Promise<void> {
  const v = await teamSchemaVersion(client);
  if (v !== TEAM_SCHEMA_VERSION) throw new TeamSchemaMismatch(v);
}
