// A batch's rows packed for the writer thread (audit-rows.ts) and inserted from the packing store
// exactly what binding each string directly stores, for any text (non-ASCII, surrogate pairs, lone
// surrogates, one ending a field and another starting the next), with seq and prev_hash derived.
// A lone surrogate is stored as U+FFFD, as the well-formed string (the store hashes that form).
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { RowInserter, RowPacker } from '../../../main/audit/audit-rows.js';
import { migrate } from '../../../main/audit/migrations/migrate.js';
import { toWellFormed } from '../../../main/core/well-formed.js';
import { tempDir } from '../../support/temp.js';

interface Row {
  ts: number;
  type: string;
  actor: string;
  payload: string;
  hash: string;
}

// typeof: the packed fields are bound as bytes and cast, and must be stored as text, as strings are.
const COLUMNS = "seq, ts, hex(type) AS type, hex(actor) AS actor, hex(payload) AS payload, prev_hash, hash, typeof(type) || ' ' || typeof(actor) || ' ' || typeof(payload) || ' ' || typeof(prev_hash) || ' ' || typeof(hash) AS types";

function fresh(encoding = 'UTF-8'): Database.Database {
  const db = new Database(':memory:');
  db.pragma(`encoding = '${encoding}'`);
  migrate(db);
  return db;
}

/** What the rows are when each string, made well formed, is bound as it is (as the writer did before packing). */
function direct(rows: Row[], base: { seq: number; hash: string }, encoding?: string): unknown[] {
  const db = fresh(encoding);
  const insert = db.prepare('INSERT INTO events (seq, ts, type, actor, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)');
  let prev = base.hash;
  rows.forEach((r, i) => {
    insert.run(base.seq + i + 1, r.ts, toWellFormed(r.type), toWellFormed(r.actor), toWellFormed(r.payload), prev, r.hash);
    prev = r.hash;
  });
  return db.prepare(`SELECT ${COLUMNS} FROM events ORDER BY seq`).all();
}

function packed(rows: Row[], base: { seq: number; hash: string }, room?: [number, number], encoding?: string): { stored: unknown[]; head: { seq: number; hash: string } } {
  const db = fresh(encoding);
  const packer = room ? new RowPacker(...room) : new RowPacker();
  for (const r of rows) packer.add(r.ts, r.type, r.actor, r.payload, r.hash);
  // Through a real structured clone with the buffers moved, as postMessage does.
  const p = packer.pack();
  const moved = structuredClone(p, { transfer: [p.nums.buffer, p.bytes.buffer] });
  const head = db.transaction(() => new RowInserter(db).insert(moved, base))();
  return { stored: db.prepare(`SELECT ${COLUMNS} FROM events ORDER BY seq`).all(), head };
}

const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('', 'tool.call', 'é', '\ud83d', '\ude00', '\ud83d\ude00', 'a\ud800'));
const row = fc.record({ ts: fc.integer({ min: -1e15, max: 1e15 }), type: text, actor: text, payload: text, hash: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }) });

describe('packed batch rows', () => {
  it('store what binding each string directly stores, for any text', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 600 }), fc.nat(1000), (rows, seq) => {
        const base = { seq, hash: 'b'.repeat(64) };
        const { stored, head } = packed(rows, base);
        expect(stored).toEqual(direct(rows, base));
        expect(head).toEqual(rows.length ? { seq: seq + rows.length, hash: rows.at(-1)!.hash } : base);
      }),
      { numRuns: 60 },
    );
  });

  it('store the same text in a UTF-16 database (where the bytes are not cast but decoded)', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 300 }), (rows) => {
        const base = { seq: 7, hash: 'e'.repeat(64) };
        const stored = packed(rows, base, undefined, 'UTF-16le').stored;
        expect(stored).toEqual(direct(rows, base, 'UTF-16le'));
      }),
      { numRuns: 20 },
    );
  });

  it('fill every multi-row statement and the rows after them, from any starting room', () => {
    const rows: Row[] = Array.from({ length: 1000 }, (_, i) => ({ ts: 1_700_000_000_000 + i, type: i % 7 ? 'tool.call' : 'tööl.cäll', actor: `agent:${i}`, payload: `{"i":${i},"s":"${'x'.repeat(i % 300)}"}`, hash: i.toString(16).padStart(64, '0') }));
    const base = { seq: 41, hash: 'c'.repeat(64) };
    const expected = direct(rows, base);
    for (const room of [[0, 0], [1, 10], [1000, 400_000]] as [number, number][]) expect(packed(rows, base, room).stored).toEqual(expected);
  });

  it('non-ASCII events chain and verify on a real file', () => {
    const path = join(tempDir('gatehouse-rows-'), 'audit.db');
    const store = new AuditStore({ path });
    try {
      store.append({ type: 'tööl.call', actor: 'agent:ü\ud83d\ude00', payload: { s: 'ünïcödé \ud83d\ude00', lone: '\ud83d' } });
      for (let i = 0; i < 300; i++) store.append({ type: 'tool.call', actor: `agent:é${i}`, payload: { i } });
      expect(store.flush()).toBe(true);
      expect(store.headSeq).toBe(301);
      expect(store.verify()).toMatchObject({ ok: true, checked: 301 });
    } finally {
      store.close();
    }
  });
});
