// The connection to the team database. pg is imported here only, and only when team mode is on
// (a dynamic import): a single machine never loads it.
import type { Pool, PoolConfig } from 'pg';

export type { Pool } from 'pg';

/** Short timeouts: a link that hangs must show as down, not stall shipping or a command for minutes. */
export const CONNECT_TIMEOUT_MS = 5_000;
export const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * A pool for `url` (postgres://…; the password, if not in the URL, from PGPASSFILE or ~/.pgpass,
 * and sslmode from the URL, both read by pg itself). `onError`: an idle connection dropped by the
 * server (PostgreSQL restarted); without a listener pg would throw it and end the process.
 */
export async function openTeamPool(url: string, onError: (err: Error) => void, extra: PoolConfig = {}): Promise<Pool> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS + 5_000,
    keepAlive: true,
    application_name: 'gatehouse',
    max: 4,
    ...extra,
  });
  pool.on('error', onError);
  // A connection the server drops just as the pool hands it out (its last startup message and
  // PostgreSQL's "terminating connection" read at once, as when the server goes down then) reports
  // the error after the pool took its own listener off and before the caller's `await connect()`
  // has resumed to add one: an 'error' event nobody listens to, which ended the whole host. Each
  // client keeps this listener for good; the error is not lost: the client is not queryable any
  // more, so the caller's next query fails with it, and the pool discards it when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs `fn` with a pool for a one-shot command, and closes it. */
export async function withTeamPool<T>(url: string, fn: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = await openTeamPool(url, () => {});
  try {
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

/** A pg error as a sentence for the operator: what failed, and the server's own words. */
export function describePgError(err: unknown): string {
  const e = err as { message?: string; code?: string } | null;
  const msg = e?.message || String(err);
  if (e?.code === 'ECONNREFUSED') return `the team database refused the connection (${msg}): is PostgreSQL running at that address?`;
  if (e?.code === '28P01' || e?.code === '28000') return `the team database refused the login (${msg}): check the password in GATEHOUSE_TEAM_URL, PGPASSFILE or ~/.pgpass`;
  return msg;
}

// Array parameters in PostgreSQL's binary form: the team shipper's columns (team-shipper.ts).
const TEXT_OID = 25;
const INT8_OID = 20;

/**
 * A one-dimensional array without NULLs in PostgreSQL's binary form (array_send): a header, then
 * each element's length and bytes, written straight into one buffer.
 */
function binaryArray(elementOid: number, count: number, length: (i: number) => number, write: (i: number, out: Buffer, at: number) => void): Buffer {
  let size = 20;
  for (let i = 0; i < count; i++) size += 4 + length(i);
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(1, 0); // dimensions
  out.writeInt32BE(0, 4); // no NULLs
  out.writeUInt32BE(elementOid, 8);
  out.writeInt32BE(count, 12);
  out.writeInt32BE(1, 16); // lower bound
  let at = 20;
  for (let i = 0; i < count; i++) {
    const n = length(i);
    out.writeInt32BE(n, at);
    write(i, out, at + 4);
    at += 4 + n;
  }
  return out;
}

/**
 * `values` as a binary text[] parameter (the driver sends a Buffer in binary form): PostgreSQL
 * takes each element's bytes as they are, with no literal to parse and nothing escaped. UTF-8 as
 * the driver writes a string (a lone surrogate becomes U+FFFD).
 */
export function pgTextArrayBinary(values: readonly string[]): Buffer {
  const lengths = values.map((v) => Buffer.byteLength(v, 'utf8'));
  return binaryArray(TEXT_OID, values.length, (i) => lengths[i]!, (i, out, at) => void out.write(values[i]!, at, lengths[i]!, 'utf8'));
}

/** `values` as a binary bigint[] parameter. Throws on a value that is not a safe integer (the literal PostgreSQL would refuse). */
export function pgBigintArrayBinary(values: readonly number[]): Buffer {
  for (const v of values) if (!Number.isSafeInteger(v)) throw new TypeError(`not an integer to store as bigint: ${v}`);
  return binaryArray(INT8_OID, values.length, () => 8, (i, out, at) => void out.writeBigInt64BE(BigInt(values[i]!), at));
}
