// Operators by name: each person's ed25519 key pair, the private half in their own Gatehouse home
// (owner-only, never in the team database, never on a member machine that does not also run their
// console), the public half registered in team_operators. Decisions signed with it are the only
// ones a member honours (team-inbox.ts).
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { writeSecretFile } from '../home.js';
import { UsageError } from '../core/usage-error.js';
import { newOperatorKeys, publicPemOf } from './decision-signature.js';

export const OPERATOR_RULE = 'An operator name is 1-64 letters, digits, dots, dashes and underscores';
const OPERATOR_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export function operatorKeysDir(home: string): string {
  return join(home, 'operators');
}

function keyFile(home: string, name: string): string {
  if (!OPERATOR_NAME.test(name)) throw new UsageError(`${OPERATOR_RULE}, not "${name}".`);
  return join(operatorKeysDir(home), `${name}.key`);
}

/**
 * Registers operator `name` with this home's key (made now, 0600, if the home has none). Running
 * it again with the same key is a no-op; a name registered with another key is refused.
 */
export async function createOperator(db: Pick<Pool, 'query'>, home: string, name: string, console: string): Promise<{ file: string; created: boolean; registered: boolean }> {
  const file = keyFile(home, name);
  let created = false;
  let publicPem: string;
  if (existsSync(file)) {
    publicPem = publicPemOf(readFileSync(file, 'utf8'));
  } else {
    const keys = newOperatorKeys();
    mkdirSync(operatorKeysDir(home), { recursive: true, mode: 0o700 });
    writeSecretFile(file, keys.privatePem);
    publicPem = keys.publicPem;
    created = true;
  }
  const r = await db.query('INSERT INTO team_operators (name, public_key, console) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [name, publicPem, console]);
  if (r.rowCount === 1) return { file, created, registered: true };
  const stored = (await db.query<{ public_key: string }>('SELECT public_key FROM team_operators WHERE name = $1', [name])).rows[0]?.public_key;
  if (stored !== publicPem) {
    // A key made for a name someone else holds would sit in this home as if it were theirs.
    if (created) rmSync(file, { force: true });
    throw new UsageError(`Operator "${name}" is already registered in the team database with another key. Pick another name, or use the home that holds ${name}'s key (--home).`);
  }
  return { file, created, registered: false };
}

/** The private key to sign as `name` (or as the one operator this home holds), and the name. */
export function loadOperatorKey(home: string, name: string | undefined): { name: string; privatePem: string } {
  const dir = operatorKeysDir(home);
  if (name === undefined) {
    const names = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.key')).map((f) => f.slice(0, -4)) : [];
    if (names.length !== 1) {
      throw new UsageError(
        names.length === 0
          ? `No operator key in ${dir}: a team decision must be signed by a named operator. Create yours with gatehouse operator create NAME.`
          : `${dir} holds keys for ${names.join(', ')}: say which operator you are with --operator NAME.`,
      );
    }
    name = names[0]!;
  }
  const file = keyFile(home, name);
  if (!existsSync(file)) throw new UsageError(`No key for operator "${name}" in ${dir}: create it with gatehouse operator create ${name}, or use the home that holds it (--home).`);
  return { name, privatePem: readFileSync(file, 'utf8') };
}

export interface OperatorRow {
  name: string;
  console: string;
  createdAt: number;
  revokedAt: number | null;
}

export async function listOperators(db: Pick<Pool, 'query'>): Promise<OperatorRow[]> {
  const r = await db.query<{ name: string; console: string; created_at: Date; revoked_at: Date | null }>('SELECT name, console, created_at, revoked_at FROM team_operators ORDER BY name');
  return r.rows.map((o) => ({ name: o.name, console: o.console, createdAt: o.created_at.getTime(), revokedAt: o.revoked_at?.getTime() ?? null }));
}

/**
 * Revokes operator `name`'s key (as the team database's owner): members refuse every decision,
 * policy version and grant it signs from now on, and drop the team grants it made. Null when no
 * such operator is registered; the earlier revocation time when it was revoked already.
 */
export async function revokeOperator(db: Pick<Pool, 'query'>, name: string): Promise<{ revokedAt: number; already: boolean } | null> {
  const r = await db.query<{ revoked_at: Date }>('UPDATE team_operators SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL RETURNING revoked_at', [name]);
  if (r.rows[0]) return { revokedAt: r.rows[0].revoked_at.getTime(), already: false };
  const before = (await db.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM team_operators WHERE name = $1', [name])).rows[0];
  if (!before) return null;
  return { revokedAt: before.revoked_at!.getTime(), already: true };
}
