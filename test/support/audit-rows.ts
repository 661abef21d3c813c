// A finished host's audit log, read as the real-CLI tests check it: the payloads of one event
// type in the order they were recorded.
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type AuditRows = (type: string) => Record<string, unknown>[];

/** Opens `home`'s audit.db read-only for `check`, and closes it whatever `check` does. */
export function withAuditRows<T>(home: string, check: (rows: AuditRows) => T): T {
  const db = new Database(join(home, 'audit.db'), { readonly: true });
  try {
    return check((type) => (db.prepare('SELECT payload FROM events WHERE type = ? ORDER BY seq').all(type) as { payload: string }[]).map((r) => JSON.parse(r.payload) as Record<string, unknown>));
  } finally {
    db.close();
  }
}
