// The audit store on a real SQLite file: durability, group commit, chain continuity across
// restarts and failed batches. A second connection reads the file, as `audit verify` would.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore, type AuditStoreOptions } from '../../../main/audit/audit-store.js';
import { GENESIS_HASH, canonicalJson, chainHash } from '../../../main/audit/chain.js';
import { tempDir } from '../../support/temp.js';

interface FileRow {
  seq: number;
  ts: number;
  type: string;
  actor: string;
  payload: string;
  prev_hash: string;
  hash: string;
}

function openStore(path: string, opts: Partial<AuditStoreOptions> = {}): { store: AuditStore; logged: string[] } {
  const logged: string[] = [];
  const store = new AuditStore({ path, log: (msg, err) => logged.push(`${msg}: ${err instanceof Error ? err.message : String(err)}`), ...opts });
  return { store, logged };
}

/** Rows as another process sees them: only what has been committed. */
function rowsInFile(path: string): FileRow[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT seq, ts, type, actor, payload, prev_hash, hash FROM events ORDER BY seq').all() as FileRow[];
  } finally {
    db.close();
  }
}

function headInFile(path: string): { seq: number; hash: string } | undefined {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT seq, hash FROM chain_head WHERE id = 1').get() as { seq: number; hash: string } | undefined;
  } finally {
    db.close();
  }
}

describe('AuditStore', () => {
  it('resolves durable once the events are committed to the file, and not before', async () => {
    const path = join(tempDir(), 'audit.db');
    const clock = { now: () => 1_700_000_000_123.9 };
    const { store } = openStore(path, { clock });
    const a = store.append({ type: 'tool.call', actor: 'agent:one', payload: { tool: 'Bash', args: { command: 'ls' } } });
    const b = store.append({ type: 'policy.decision', actor: 'host', payload: { decision: 'allow', z: 1, a: [1, 'two', null] } });
    const c = store.append({ type: 'note', actor: 'host' });

    // Appended but not yet committed: another connection sees nothing.
    expect(rowsInFile(path)).toEqual([]);
    let durable = false;
    void c.durable.then(() => (durable = true));
    await Promise.resolve();
    expect(durable).toBe(false);

    await Promise.all([a.durable, b.durable, c.durable]);
    const rows = rowsInFile(path);
    expect(rows.map((r) => [r.seq, r.type, r.actor])).toEqual([
      [1, 'tool.call', 'agent:one'],
      [2, 'policy.decision', 'host'],
      [3, 'note', 'host'],
    ]);
    expect(rows.map((r) => r.ts)).toEqual([1_700_000_000_123, 1_700_000_000_123, 1_700_000_000_123]);
    // Payloads are stored as canonical JSON (sorted keys), a missing payload as null.
    expect(rows[1]!.payload).toBe('{"a":[1,"two",null],"decision":"allow","z":1}');
    expect(rows[2]!.payload).toBe('null');
    // Each row chains to the one before, from the genesis hash.
    expect(rows[0]!.prev_hash).toBe(GENESIS_HASH);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if (i > 0) expect(r.prev_hash).toBe(rows[i - 1]!.hash);
      expect(r.hash).toBe(chainHash(r.prev_hash, { seq: r.seq, ts: r.ts, type: r.type, actor: r.actor, payloadJson: r.payload }));
    }
    expect([a.hash, b.hash, c.hash]).toEqual(rows.map((r) => r.hash));
    expect(headInFile(path)).toEqual({ seq: 3, hash: c.hash });
    store.close();
  });

  it('commits everything appended in one tick as one batch (group commit)', async () => {
    const path = join(tempDir(), 'audit.db');
    const commits: [number, number][] = [];
    const { store } = openStore(path, { onCommit: (lastSeq, count) => commits.push([lastSeq, count]) });
    const appended = Array.from({ length: 500 }, (_, i) => store.append({ type: 'tick.one', actor: 'host', payload: { i } }));
    // One batch: every producer of the tick waits on the same commit.
    expect(new Set(appended.map((a) => a.durable)).size).toBe(1);
    await appended.at(-1)!.durable;
    expect(commits).toEqual([[500, 500]]);

    const second = [store.append({ type: 'tick.two', actor: 'host' }), store.append({ type: 'tick.two', actor: 'host' })];
    await second[1]!.durable;
    expect(commits).toEqual([
      [500, 500],
      [502, 2],
    ]);
    expect(rowsInFile(path)).toHaveLength(502);
    store.close();
  });

  it('splits a tick larger than maxBatch into several commits', async () => {
    const path = join(tempDir(), 'audit.db');
    const commits: [number, number][] = [];
    const { store } = openStore(path, { maxBatch: 10, onCommit: (lastSeq, count) => commits.push([lastSeq, count]) });
    const appended = Array.from({ length: 25 }, (_, i) => store.append({ type: 'bulk', actor: 'host', payload: { i } }));
    // A full batch goes to the writer at once, inside append; the rest follow one batch at a time.
    await appended.at(-1)!.durable;
    expect(commits).toEqual([
      [10, 10],
      [20, 10],
      [25, 5],
    ]);
    expect(rowsInFile(path)).toHaveLength(25);
    expect(store.verify()).toMatchObject({ ok: true, checked: 25 });
    store.close();
  });

  it('resumes the chain after close and reopen', async () => {
    const path = join(tempDir(), 'audit.db');
    const first = openStore(path).store;
    let last = first.append({ type: 'a', actor: 'host' });
    for (let i = 0; i < 4; i++) last = first.append({ type: 'a', actor: 'host', payload: { i } });
    await last.durable;
    first.close();

    const second = openStore(path).store;
    expect(second.headSeq).toBe(5);
    const next = second.append({ type: 'b', actor: 'host' });
    expect(next.seq).toBe(6);
    await next.durable;
    const rows = rowsInFile(path);
    expect(rows[5]!.prev_hash).toBe(last.hash);
    expect(second.verify()).toMatchObject({ ok: true, checked: 6, head: { seq: 6, hash: next.hash }, firstBad: null });
    second.close();
  });

  it('verify() reports an intact chain with its head, and an empty log as intact', async () => {
    const path = join(tempDir(), 'audit.db');
    const { store } = openStore(path);
    expect(store.verify()).toEqual({ ok: true, checked: 0, head: { seq: 0, hash: GENESIS_HASH }, firstBad: null });
    let last = store.append({ type: 'x', actor: 'host' });
    for (let i = 0; i < 9; i++) last = store.append({ type: 'x', actor: 'host', payload: { i } });
    // verify() commits what is pending first, so it sees the events appended this tick.
    expect(store.verify()).toEqual({ ok: true, checked: 10, head: { seq: 10, hash: last.hash }, firstBad: null });
    store.close();
  });

  it('verify() names a row edited behind its back', async () => {
    const path = join(tempDir(), 'audit.db');
    const { store } = openStore(path);
    for (let i = 0; i < 5; i++) store.append({ type: 'x', actor: 'host', payload: { i } });
    store.flush();
    const other = new Database(path);
    other.prepare("UPDATE events SET actor = 'someone-else' WHERE seq = 3").run();
    other.close();
    expect(store.verify()).toMatchObject({ ok: false, checked: 2, firstBad: { seq: 3 } });
    store.close();
  });

  it('rejects the durable of a batch that fails to commit, and the chain continues from the last commit', async () => {
    const path = join(tempDir(), 'audit.db');
    const commits: [number, number][] = [];
    const { store, logged } = openStore(path, { onCommit: (lastSeq, count) => commits.push([lastSeq, count]) });
    const ok1 = store.append({ type: 'before', actor: 'host' });
    const ok2 = store.append({ type: 'before', actor: 'host' });
    await ok2.durable;

    // A real failure inside SQLite: a trigger (added by another connection) aborts the insert.
    const other = new Database(path);
    other.exec("CREATE TRIGGER fail_audit BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
    const bad1 = store.append({ type: 'lost', actor: 'host' });
    const bad2 = store.append({ type: 'lost', actor: 'host' });
    await expect(bad1.durable).rejects.toThrow(/disk on fire/);
    await expect(bad2.durable).rejects.toThrow(/disk on fire/);
    expect(logged.some((l) => l.includes('disk on fire'))).toBe(true);
    expect(rowsInFile(path).map((r) => r.seq)).toEqual([1, 2]);
    // The store rewound to its committed head rather than chaining onto rows that do not exist.
    expect(store.headSeq).toBe(2);

    other.exec('DROP TRIGGER fail_audit');
    other.close();
    const after = store.append({ type: 'after', actor: 'host' });
    await after.durable;
    expect(after.seq).toBe(3);
    // The record of the gap goes with the batch after the first one that commits again.
    store.flush();
    const rows = rowsInFile(path);
    // The first commit after the failure records the gap in the chain (audit.write-resumed).
    expect(rows.map((r) => r.type)).toEqual(['before', 'before', 'after', 'audit.write-resumed']);
    expect(rows[2]!.prev_hash).toBe(ok2.hash);
    expect(commits).toEqual([
      [2, 2],
      [3, 1],
      [4, 1],
    ]);
    expect(store.verify()).toMatchObject({ ok: true, checked: 4, firstBad: null });
    expect(store.writeError()).toBeNull();
    expect(ok1.seq).toBe(1);
    store.close();

    // And a fresh process reading the file agrees.
    const reopened = openStore(path).store;
    expect(reopened.verify()).toMatchObject({ ok: true, checked: 4 });
    reopened.close();
  });

  it('fails a whole batch when one of its events cannot be written, keeping the chain whole', async () => {
    const path = join(tempDir(), 'audit.db');
    const { store } = openStore(path);
    await store.append({ type: 'first', actor: 'host' }).durable;
    const other = new Database(path);
    other.exec("CREATE TRIGGER poison BEFORE INSERT ON events WHEN NEW.type = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned event'); END");

    const before = store.append({ type: 'same-batch', actor: 'host' });
    const poison = store.append({ type: 'poison', actor: 'host' });
    await expect(before.durable).rejects.toThrow(/poisoned event/);
    await expect(poison.durable).rejects.toThrow(/poisoned event/);
    // The batch was rolled back; what comes next opens a new one on the committed head.
    const later = store.append({ type: 'next-batch', actor: 'host' });
    await later.durable;
    expect(later.seq).toBe(2);
    other.exec('DROP TRIGGER poison');
    other.close();
    store.flush();

    expect(rowsInFile(path).map((r) => [r.seq, r.type])).toEqual([
      [1, 'first'],
      [2, 'next-batch'],
      [3, 'audit.write-resumed'],
    ]);
    expect(store.verify()).toMatchObject({ ok: true, checked: 3 });
    store.close();
  });

  it('refuses a payload that is not JSON without touching the chain', async () => {
    const path = join(tempDir(), 'audit.db');
    const { store } = openStore(path);
    expect(() => store.append({ type: 'x', actor: 'host', payload: { n: Number.NaN } })).toThrow(/NaN/);
    expect(() => store.append({ type: 'x', actor: 'host', payload: { n: 1n } })).toThrow(/BigInt/);
    const ok = store.append({ type: 'x', actor: 'host', payload: { n: 1 } });
    expect(ok.seq).toBe(1);
    await ok.durable;
    expect(store.verify()).toMatchObject({ ok: true, checked: 1 });
    store.close();
  });

  it('tail() returns the newest events with their payloads, including ones not yet committed', async () => {
    const path = join(tempDir(), 'audit.db');
    const { store } = openStore(path);
    for (let i = 1; i <= 5; i++) store.append({ type: 'x', actor: 'host', payload: { i, nested: { k: [i] } } });
    const tail = store.tail(2);
    expect(tail.map((e) => [e.seq, e.payload])).toEqual([
      [5, { i: 5, nested: { k: [5] } }],
      [4, { i: 4, nested: { k: [4] } }],
    ]);
    store.close();
  });

  it('throws on append after close, and close commits what is pending', async () => {
    const path = join(tempDir(), 'audit.db');
    const { store } = openStore(path);
    const pending = store.append({ type: 'x', actor: 'host' });
    store.close();
    await pending.durable;
    expect(rowsInFile(path)).toHaveLength(1);
    expect(() => store.append({ type: 'x', actor: 'host' })).toThrow(/closed/);
  });

  it('stores any JSON payload so that verify recomputes the same hash (property)', async () => {
    const path = join(tempDir(), 'audit.db');
    const { store } = openStore(path);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ type: fc.string({ minLength: 1 }), actor: fc.string(), payload: fc.jsonValue() }), { minLength: 1, maxLength: 8 }), async (events) => {
        let last;
        for (const e of events) last = store.append(e);
        await last!.durable;
        const tail = store.tail(events.length).reverse();
        expect(tail.map((t) => [t.type, t.actor, canonicalJson(t.payload)])).toEqual(events.map((e) => [e.type, e.actor, canonicalJson(e.payload)]));
        expect(store.verify().ok).toBe(true);
      }),
      { numRuns: 40 },
    );
    store.close();
  });

  it('stores a type or actor holding a lone surrogate as it hashed it, so the chain still verifies (property)', async () => {
    // TEXT holds UTF-8, which has no lone surrogates: such a half comes back as U+FFFD. Hashed as
    // given, the row read back would no longer match its hash.
    const path = join(tempDir(), 'audit.db');
    const { store } = openStore(path);
    const text = fc.string({ unit: 'binary', minLength: 1 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ type: text, actor: text, payload: fc.jsonValue() }), { minLength: 1, maxLength: 8 }), async (events) => {
        let last;
        for (const e of events) last = store.append(e);
        await last!.durable;
        const wellFormed = (s: string) => (s as string & { toWellFormed(): string }).toWellFormed();
        const stored = rowsInFile(path).slice(-events.length);
        expect(stored.map((r) => [r.type, r.actor])).toEqual(events.map((e) => [wellFormed(e.type), wellFormed(e.actor)]));
        expect(store.tail(events.length).reverse().map((t) => [t.type, t.actor])).toEqual(stored.map((r) => [r.type, r.actor]));
        expect(store.verify().ok).toBe(true);
      }),
      { numRuns: 40, examples: [[[{ type: 'call.received', actor: 'agent:x\ud800y', payload: null }]], [[{ type: 'call\udc00', actor: 'host', payload: {} }]]] },
    );
    store.close();
  });
});
