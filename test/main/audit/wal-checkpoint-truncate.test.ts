// The write-ahead log cut back by a checkpoint that copied it into the database first (another
// program's `PRAGMA wal_checkpoint(TRUNCATE)`) is not a lost log: everything committed still reads
// back, and appends go on. The bench's own truncating checkpoint was taken for tampering.
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { tempDir } from '../../support/temp.js';

it('a truncating checkpoint by another connection leaves the log writable and whole', async () => {
  const path = join(tempDir('gatehouse-wal-ckpt-'), 'audit.db');
  const store = new AuditStore({ path, log: () => {} });
  try {
    for (let i = 0; i < 200; i++) store.append({ type: 'host.note', actor: 'host', payload: { i } });
    await store.append({ type: 'host.note', actor: 'host', payload: { last: true } }).durable;
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
    const other = new Database(path);
    other.pragma('wal_checkpoint(TRUNCATE)');
    other.close();
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect(store.checkFile()).toBeNull();
    await store.append({ type: 'host.note', actor: 'host', payload: { after: true } }).durable;
    expect(store.writeError()).toBeNull();
    expect(store.verify().ok).toBe(true);
  } finally {
    store.close();
  }
});
