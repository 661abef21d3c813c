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

  it('checkpoints a log of small commits too (one agent answered at a time), so the WAL is written over instead of lengthened', async () => {
    const path = join(tempDir('gatehouse-checkpoint-small-'), 'audit.db');
    const store = new AuditStore({ path, log: () => {} });
    // Each append waited for: one commit each, as a host answering one call at a time makes them.
    const commits = async (n: number) => {
      for (let i = 0; i < n; i++) await store.append({ type: 'call.result', actor: 'host', payload: { call: `c${i}`, decision: 'allow', executed: true } }).durable;
    };
    await commits(1);
    const before = statSync(path).size;
    // ~20 KB of rows in all, far under the 2 MB of rows that alone calls for a checkpoint; each
    // commit still writes whole pages to the WAL.
    await commits(100);
    const wal = statSync(`${path}-wal`).size;
    expect(wal, 'the commits wrote less WAL than this test assumes').toBeGreaterThan(400_000);
    // Quiet now: the WAL is copied into the database file.
    expect(await eventually(() => statSync(path).size > before, 10_000), 'no checkpoint after 100 small commits').toBe(true);
    // The next commits start the WAL over: written over the old frames, the file does not grow.
    // Fewer than a checkpoint's worth: should one have run before the 100th (a slow machine's
    // pause), the frames kept from before it were still at least 64 commits' worth.
    await commits(40);
    expect(statSync(`${path}-wal`).size, 'the WAL grew past its frames from before the checkpoint').toBeLessThanOrEqual(wal);
    expect(store.verify()).toMatchObject({ ok: true, checked: 141 });
    store.close();
  });
});
