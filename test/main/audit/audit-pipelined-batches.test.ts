// Full batches go to the writer thread without waiting for the answer to the one before (a burst
// of appends kept the thread idle between batches until the event loop heard each answer), and a
// batch sent after one that failed is refused by the thread: its rows chain onto rows that were
// rolled back. A real database, read by a second connection as `audit verify` would; SQLite's real
// SQLITE_FULL, from max_page_count on the writer's connection.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { AuditStore, FIRST_BURST_BATCH } from '../../../main/audit/audit-store.js';
import { GENESIS_HASH } from '../../../main/audit/chain.js';
import { tempDir } from '../../support/temp.js';
import { holdsWithoutATurn } from '../../support/wait.js';

function rowsInFile(path: string): { seq: number; prev_hash: string }[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT seq, prev_hash FROM events ORDER BY seq').all() as { seq: number; prev_hash: string }[];
  } finally {
    db.close();
  }
}

describe('audit batches sent while one is being written', () => {
  it('sends every full batch at once: the writer commits a burst while the host has not yet heard any answer', async () => {
    const path = join(tempDir('gatehouse-pipelined-'), 'audit.db');
    const store = new AuditStore({ path, maxBatch: 2, log: () => {} });
    const appended = [];
    for (let i = 0; i < 6; i++) appended.push(store.append({ type: 'call.received', actor: 'agent:a', payload: { i } }));
    // Three full batches: all with the thread before this test yields once.
    expect(holdsWithoutATurn(() => rowsInFile(path).length === 6, 20_000)).toBe(true);
    await Promise.all(appended.map((a) => a.durable));
    expect(store.verify()).toMatchObject({ ok: true, checked: 6 });
    store.close();
  });

  it("a burst's first batch goes at FIRST_BURST_BATCH events and each next at twice the last, while a smaller tick stays one batch", async () => {
    const path = join(tempDir('gatehouse-pipelined-'), 'audit.db');
    const commits: number[] = [];
    const store = new AuditStore({ path, log: () => {}, onCommit: (_seq, count) => commits.push(count) });
    // A tick smaller than the first batch: one batch, sent when the tick ends.
    for (let i = 0; i < FIRST_BURST_BATCH - 1; i++) store.append({ type: 'call.received', actor: 'agent:a', payload: { i } });
    expect(holdsWithoutATurn(() => rowsInFile(path).length > 0, 300)).toBe(false);
    await store.append({ type: 'call.received', actor: 'agent:a', payload: {} }).durable;
    expect(commits).toEqual([FIRST_BURST_BATCH]);
    // A burst: the writer has the first two batches (1024, then 2048) before the host yields once.
    const burst = [];
    for (let i = 0; i < 3 * FIRST_BURST_BATCH + 10; i++) burst.push(store.append({ type: 'call.received', actor: 'agent:b', payload: { i } }).durable);
    expect(holdsWithoutATurn(() => rowsInFile(path).length === 4 * FIRST_BURST_BATCH, 20_000)).toBe(true);
    await Promise.all(burst);
    expect(commits).toEqual([FIRST_BURST_BATCH, FIRST_BURST_BATCH, 2 * FIRST_BURST_BATCH, 10]);
    expect(store.verify()).toMatchObject({ ok: true, checked: 4 * FIRST_BURST_BATCH + 10 });
    store.close();
  });

  it('a burst of full batches, closed at once: every event is answered durable, in order, and is in the file', async () => {
    const path = join(tempDir('gatehouse-pipelined-'), 'audit.db');
    const store = new AuditStore({ path, maxBatch: 3, log: () => {} });
    const durable = [];
    for (let i = 0; i < 30; i++) durable.push(store.append({ type: 'call.received', actor: 'agent:a', payload: { i } }).durable);
    store.close();
    await Promise.all(durable);
    expect(rowsInFile(path).map((r) => r.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('fails a batch sent to a writer thread that has stopped at once, saying so', async () => {
    const path = join(tempDir('gatehouse-pipelined-'), 'audit.db');
    const store = new AuditStore({ path, log: () => {} });
    // The thread itself, stopped for real (as a crash of it would): reached through the store, not replaced.
    const worker = (store as unknown as { writer: { worker: Worker } }).writer.worker;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    await worker.terminate();
    await exited;
    const a = store.append({ type: 'call.received', actor: 'agent:a', payload: {} });
    expect(store.flush(60_000)).toBe(true);
    await expect(a.durable).rejects.toThrow(/writer thread stopped/);
    expect(store.writeError()).toMatch(/writer thread stopped/);
    store.close();
  });

  it('refuses a batch sent after one that failed, so the log never holds rows chained onto rolled-back ones', async () => {
    const path = join(tempDir('gatehouse-pipelined-'), 'audit.db');
    const store = new AuditStore({ path, maxBatch: 2, log: () => {} });
    store.append({ type: 'call.received', actor: 'agent:a', payload: { i: 0 } });
    store.flush();
    // The disk fills: the first batch cannot be written and is rolled back whole.
    const pages = Number(store.db.pragma('page_count', { simple: true }));
    store.queueWrite(`PRAGMA max_page_count = ${pages}`, []);
    const first = [0, 1].map(() => store.append({ type: 'call.received', actor: 'agent:a', payload: { big: 'x'.repeat(2_000_000) } }));
    // The next batch (full, so sent at once, behind the first) would fit: it lifts the limit before its rows.
    store.queueWrite('PRAGMA max_page_count = 1073741823', []);
    const second = [0, 1].map((i) => store.append({ type: 'call.received', actor: 'agent:b', payload: { i } }));
    for (const a of [...first, ...second]) await expect(a.durable).rejects.toThrow();
    // Without the refusal the second batch committed as rows 4 and 5, chained onto rows 2 and 3 that are not there.
    expect(rowsInFile(path).map((r) => r.seq)).toEqual([1]);
    // Writes work again: the chain resumes after the last row committed.
    store.queueWrite('PRAGMA max_page_count = 1073741823', []);
    const next = store.append({ type: 'call.received', actor: 'agent:c', payload: {} });
    store.flush();
    await next.durable;
    const rows = rowsInFile(path);
    expect(rows[0]!.prev_hash).toBe(GENESIS_HASH);
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(store.verify()).toMatchObject({ ok: true });
    store.close();
  });
});
