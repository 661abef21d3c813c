// The WAL is copied into the database file (a checkpoint) when the writer thread is quiet, not in
// the commit of whichever batch takes the log past SQLite's default of 1000 pages: that batch's
// answer (and in a burst the batches behind it) waited for the copy and the database file's sync.
// A real database file; the writer's progress is read by a second connection as `audit verify`
// would, while the host's thread does not take a turn.
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore, FIRST_BURST_BATCH } from '../../../main/audit/audit-store.js';
import { tempDir } from '../../support/temp.js';
import { holdsWithoutATurn } from '../../support/wait.js';

function rowsInFile(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT coalesce(max(seq), 0) AS n FROM events').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Waits, taking turns, until `done` holds or `maxMs` passed. */
async function eventually(done: () => boolean, maxMs: number): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}

describe('audit log checkpoints', () => {
  it('copies nothing into the database file while a burst is being written, then everything once the writer is quiet, and gives the WAL back afterwards', async () => {
    const path = join(tempDir('gatehouse-checkpoint-'), 'audit.db');
    const store = new AuditStore({ path, log: () => {} });
    await store.append({ type: 'call.received', actor: 'agent:a', payload: {} }).durable;
    const before = statSync(path).size;
    // Four full batches (1024, 2048, 4096, 8192 events: see FIRST_BURST_BATCH), ~23 MB of rows: the WAL passes 1000 pages in the second batch, and
    // stays under the cap of the inline checkpoint.
    const text = 'x'.repeat(1500);
    const n = FIRST_BURST_BATCH * 15;
    // The write lock held elsewhere while they are appended (hashing them takes the host a while),
    // so the writer has all four when it starts: it is quiet only when a batch is not there yet.
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const appended = [];
    for (let i = 0; i < n; i++) appended.push(store.append({ type: 'call.received', actor: 'agent:a', payload: { i, text } }));
    other.exec('ROLLBACK');
    other.close();
    // Three batches committed, the largest still to write: the writer has not been quiet yet, so
    // nothing may have been copied (SQLite's default checkpoint ran in the second batch's commit).
    const three = FIRST_BURST_BATCH * 7;
    expect(holdsWithoutATurn(() => rowsInFile(path) >= three, 60_000)).toBe(true);
    expect(statSync(path).size, 'a checkpoint ran inside a commit of the burst').toBe(before);
    await Promise.all(appended.map((a) => a.durable));
    // Quiet now: the rows reach the database file.
    expect(await eventually(() => statSync(path).size > before + 10_000_000, 20_000), 'no checkpoint once the writer was quiet').toBe(true);
    // The next commit starts the WAL over, and the file is cut back to journal_size_limit.
    await store.append({ type: 'call.received', actor: 'agent:a', payload: {} }).durable;
    expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(store.verify()).toMatchObject({ ok: true, checked: n + 2 });
    store.close();
  });
});
