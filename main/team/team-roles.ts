// Database roles for the team (migration 003): a login role per member machine, which row-level
// security holds to its own member's rows, and login roles for operators' consoles, which read
// everything and may insert decisions. Made by the team database's owner with `gatehouse team
// add-role`; passwords (or certificates) are set by the database's administrator, never here.
import type { Pool } from 'pg';
import { UsageError } from '../core/usage-error.js';

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Creates `role` (if missing) as a member machine's role for `member`, or as a console role. */
export async function addTeamRole(db: Pick<Pool, 'query'>, role: string, as: { member: string } | { console: true }): Promise<{ created: boolean }> {
  if (!ROLE_NAME.test(role)) throw new UsageError(`A team role name is 1-63 lowercase letters, digits and underscores, starting with a letter or underscore, not "${role}".`);
  const exists = (await db.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
  // The name is checked above, so quoting it is enough: nothing but [a-z0-9_] reaches the SQL.
  if (!exists) await db.query(`CREATE ROLE "${role}" LOGIN`);
  if ('member' in as) {
    const mapped = (await db.query<{ member: string }>('SELECT member FROM team_member_roles WHERE role = $1 OR member = $2', [role, as.member])).rows;
    if (mapped.some((m) => m.member !== as.member)) throw new UsageError(`Role ${role} already ships as member ${mapped.find((m) => m.member !== as.member)!.member}: one role per member, one member per role.`);
    if (mapped.length === 0) await db.query('INSERT INTO team_member_roles (role, member) VALUES ($1, $2)', [role, as.member]);
    else if ((await db.query('SELECT 1 FROM team_member_roles WHERE role = $1', [role])).rowCount === 0) throw new UsageError(`Member ${as.member} already ships under another role: one role per member.`);
    await db.query(`GRANT gatehouse_member TO "${role}"`);
  } else {
    await db.query(`GRANT gatehouse_operator TO "${role}"`);
  }
  return { created: !exists };
}
