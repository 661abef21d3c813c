// Inbox items and live grants, kept in the audit database beside the log (the same SQLite file,
// its own tables), so a restart loses neither the history nor a grant an operator gave. The
// audit log stays the record of what happened; these tables are the state to resume from, and
// are not chained. Each row holds the item or grant as JSON: they are read whole at start only.
//
// The SQL lives here, with the rest of the database, and knows only the columns it indexes;
// approvals/approval-store.ts gives it the inbox's own types (approvals/ sits above audit/).
//
// The tables have no `seq` column on purpose: audit retention deletes rows of side tables by
// `seq`, and these rows are not events.
import type { Database } from 'better-sqlite3';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS approval_items (
    id           TEXT    PRIMARY KEY,
    state        TEXT    NOT NULL,
    requested_at INTEGER NOT NULL,
    item         TEXT    NOT NULL
  );
  CREATE TABLE IF NOT EXISTS approval_grants (
    id         TEXT    PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    grant_json TEXT    NOT NULL
  );
`;

/** What the tables index of an inbox item. */
export interface StoredApproval {
  id: string;
  state: string;
  requestedAt: number;
}

/** What the tables index of a grant. */
export interface StoredGrant {
  id: string;
  expiresAt: number;
}

const UPSERT_ITEM = 'INSERT INTO approval_items (id, state, requested_at, item) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET state = excluded.state, item = excluded.item';
const DELETE_ITEM = 'DELETE FROM approval_items WHERE id = ?';
const UPSERT_GRANT = 'INSERT INTO approval_grants (id, expires_at, grant_json) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET expires_at = excluded.expires_at, grant_json = excluded.grant_json';
const DELETE_GRANT = 'DELETE FROM approval_grants WHERE id = ?';

/** Makes a write: the host passes the audit store's queueWrite, so it joins the writer thread's next batch. */
export type TableWrite = (sql: string, params: unknown[]) => void;

export class ApprovalTables<Item extends StoredApproval, G extends StoredGrant> {
  private readonly write: TableWrite;

  /**
   * `write`: how rows are written. The host queues them with the log's writer thread, so another
   * process holding the file's write lock never blocks the host's event loop; without it (tests,
   * a tool with the file to itself) they are written at once on `db`.
   */
  constructor(
    private readonly db: Database,
    write?: TableWrite,
  ) {
    db.exec(SCHEMA);
    this.write = write ?? ((sql, params) => void db.prepare(sql).run(...params));
  }

  saveApproval(item: Item): void {
    this.write(UPSERT_ITEM, [item.id, item.state, Math.trunc(item.requestedAt), JSON.stringify(item)]);
  }

  forgetApproval(id: string): void {
    this.write(DELETE_ITEM, [id]);
  }

  saveGrant(grant: G): void {
    this.write(UPSERT_GRANT, [grant.id, Math.trunc(grant.expiresAt), JSON.stringify(grant)]);
  }

  forgetGrant(id: string): void {
    this.write(DELETE_GRANT, [id]);
  }

  /**
   * Everything kept, in request order. A row that is not readable JSON is skipped and reported
   * through `bad` (its id), never fatal: one damaged row must not keep the host from starting.
   */
  load(bad?: (table: string, id: string, err: unknown) => void): { items: Item[]; grants: G[] } {
    const items: Item[] = [];
    for (const r of this.db.prepare('SELECT id, item FROM approval_items ORDER BY requested_at, rowid').all() as { id: string; item: string }[]) {
      try {
        items.push(JSON.parse(r.item) as Item);
      } catch (err) {
        bad?.('approval_items', r.id, err);
      }
    }
    const grants: G[] = [];
    for (const r of this.db.prepare('SELECT id, grant_json FROM approval_grants ORDER BY rowid').all() as { id: string; grant_json: string }[]) {
      try {
        grants.push(JSON.parse(r.grant_json) as G);
      } catch (err) {
        bad?.('approval_grants', r.id, err);
      }
    }
    return { items, grants };
  }
}
