// Retention on a real audit database: pruning by age and by count leaves a checkpoint the chain is
// verified from (by the store and by the real `gatehouse audit verify`), and tampering with the
// checkpoint or the first row after it is named at the right row.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AuditStore, verifyDatabase } from '../../../main/audit/audit-store.js';
import { chainHash } from '../../../main/audit/chain.js';
import { homePaths } from '../../../main/home.js';
import { createHost } from '../../../main/host/create-host.js';
import { writeFileSync, mkdirSync } from 'node:fs';
import { runCli } from '../../support/cli.js';
import { FakeTime } from '../../support/fake-time.js';
import { tempDir } from '../../support/temp.js';

const DAY = 86_400_000;

/** 30 events, one a day, the last one today. */
async function dailyLog(): Promise<{ home: string; db: string; time: FakeTime; store: AuditStore }> {
  const home = tempDir('gatehouse-retention-');
  const db = homePaths(home).auditDb;
  const time = new FakeTime();
  const store = new AuditStore({ path: db, clock: time });
  for (let i = 1; i <= 30; i++) {
    store.append({ type: 'call.received', actor: `agent:a${i % 3}`, payload: { call: `c-${i}`, day: i } });
    if (i < 30) time.advance(DAY);
  }
  store.flush();
  return { home, db, time, store };
}

function tamper(db: string, edit: (c: Database.Database) => void): void {
  const c = new Database(db);
  try {
    edit(c);
  } finally {
    c.close();
  }
}

async function cliVerify(home: string): Promise<{ code: number | null; out: string }> {
  const r = await runCli(['audit', 'verify', '--home', home]);
  return { code: r.code, out: r.stdout + r.stderr };
}

/** A log pruned to keep the last 10 of 30 events: checkpoint at row 20, rows 21-31 kept (31 is audit.pruned). */
async function prunedHome(): Promise<{ home: string; db: string }> {
  const { home, db, store } = await dailyLog();
  const r = store.prune({ maxEvents: 10 });
  await r.durable;
  store.close();
  return { home, db };
}

describe('audit retention', () => {
  it('prunes by age, records the checkpoint and an audit.pruned event, and verifies from the checkpoint', async () => {
    const { home, store } = await dailyLog();
    const cp20 = store.db.prepare('SELECT seq, hash FROM events WHERE seq = 20').get() as { seq: number; hash: string };
    // Events 1..20 are 10 days old or more; 21..30 are younger than 9.5 days.
    const r = store.prune({ maxAgeDays: 9.5 });
    expect(r.pruned).toBe(20);
    expect(r.checkpoint).toEqual(cp20);
    expect(r.seq).toBe(31);
    await r.durable;
    expect(store.checkpoint()).toEqual(cp20);
    const [ev] = store.tail(1);
    expect(ev).toMatchObject({ seq: 31, type: 'audit.pruned', actor: 'host', payload: { pruned: 20, fromSeq: 1, toSeq: 20, checkpoint: cp20, previousCheckpoint: null, maxAgeDays: 9.5 } });
    const v = store.verify();
    expect(v).toMatchObject({ ok: true, checked: 11, head: { seq: 31 } });
    // Nothing more is old enough: no second event.
    expect(store.prune({ maxAgeDays: 9.5 }).pruned).toBe(0);
    expect(store.headSeq).toBe(31);
    store.close();

    const cli = await cliVerify(home);
    expect(cli.code).toBe(0);
    expect(cli.out).toContain('Audit chain intact: 11 events, head row 31');
    expect(cli.out).toContain('retention checkpoint at row 20');
  });

  it('prunes by count repeatedly (an older audit.pruned event is pruned too) and appending resumes after a restart', async () => {
    const { db, store } = await dailyLog();
    expect(store.prune({ maxEvents: 10 }).pruned).toBe(20);
    for (let i = 0; i < 15; i++) store.append({ type: 'call.received', actor: 'agent:b', payload: { i } });
    const second = store.prune({ maxEvents: 5 });
    // Head was 31 + 15 = 46: rows 21..41 go, the first audit.pruned (31) among them.
    expect(second).toMatchObject({ pruned: 21, seq: 47, checkpoint: { seq: 41 } });
    expect(store.tail(1)[0]!.payload).toMatchObject({ previousCheckpoint: { seq: 20 } });
    await second.durable;
    store.close();

    const reopened = new AuditStore({ path: db });
    const next = reopened.append({ type: 'host.started', actor: 'host', payload: {} });
    expect(next.seq).toBe(48);
    await next.durable;
    expect(reopened.verify()).toMatchObject({ ok: true, checked: 7, head: { seq: 48 } });
    reopened.close();
  });

  it('an intact pruned log verifies with the real CLI, and an edit after the checkpoint is still named at its row', async () => {
    const { home, db } = await prunedHome();
    expect((await cliVerify(home)).code).toBe(0);
    // Plain tampering after the checkpoint is still found where it was.
    tamper(db, (c) => c.prepare('UPDATE events SET payload = ? WHERE seq = 25').run('{"call":"c-x","day":0}'));
    const r = await cliVerify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Audit chain broken at row 25:');
    expect(r.out).toContain('4 rows before it verified');
  });

  it('names the checkpoint when its hash was edited', async () => {
    const { home, db } = await prunedHome();
    tamper(db, (c) => c.prepare('UPDATE chain_checkpoint SET hash = ? WHERE id = 1').run('f'.repeat(64)));
    const r = await cliVerify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Audit chain broken at row 20: the checkpoint (row 20) was altered');
  });

  it('names the missing rows when the checkpoint was moved forward over deleted rows (chain alone would pass)', async () => {
    const { home, db } = await prunedHome();
    tamper(db, (c) => {
      const r23 = c.prepare('SELECT seq, hash FROM events WHERE seq = 23').get() as { seq: number; hash: string };
      c.prepare('DELETE FROM events WHERE seq <= 23').run();
      c.prepare('UPDATE chain_checkpoint SET seq = ?, hash = ? WHERE id = 1').run(r23.seq, r23.hash);
    });
    const r = await cliVerify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Audit chain broken at row 21:');
    expect(r.out).toContain('differs from the one row 31 recorded (row 20');
  });

  it('names the first row after the checkpoint when it was edited, or edited with its hash recomputed', async () => {
    const edited = await prunedHome();
    tamper(edited.db, (c) => c.prepare('UPDATE events SET actor = ? WHERE seq = 21').run('agent:someone-else'));
    let r = await cliVerify(edited.home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Audit chain broken at row 21: row 21 was altered');
    expect(r.out).toContain('0 rows before it verified');

    const recomputed = await prunedHome();
    tamper(recomputed.db, (c) => {
      const row = c.prepare('SELECT * FROM events WHERE seq = 21').get() as { seq: number; ts: number; type: string; actor: string; payload: string; prev_hash: string };
      const payload = '{"call":"c-21","day":0}';
      const hash = chainHash(row.prev_hash, { seq: 21, ts: row.ts, type: row.type, actor: row.actor, payloadJson: payload });
      c.prepare('UPDATE events SET payload = ?, hash = ? WHERE seq = 21').run(payload, hash);
    });
    r = await cliVerify(recomputed.home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Audit chain broken at row 21: row 21 was altered: its hash was recomputed');
    expect(r.out).toContain('0 rows before it verified');
  });

  it('names the pruned rows when the checkpoint record was deleted, or the first kept row deleted', async () => {
    const a = await prunedHome();
    tamper(a.db, (c) => c.prepare('DELETE FROM chain_checkpoint').run());
    let r = await cliVerify(a.home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Audit chain broken at row 1: rows 1-20 are missing');

    const b = await prunedHome();
    tamper(b.db, (c) => c.prepare('DELETE FROM events WHERE seq = 21').run());
    r = await cliVerify(b.home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Audit chain broken at row 21: row 21 is missing: the checkpoint is at row 20');
  });

  it('a checkpoint written without any audit.pruned event is refused', async () => {
    const { db, store } = await dailyLog();
    store.close();
    tamper(db, (c) => {
      const r5 = c.prepare('SELECT seq, hash FROM events WHERE seq = 5').get() as { seq: number; hash: string };
      c.prepare('DELETE FROM events WHERE seq <= 5').run();
      c.prepare('INSERT INTO chain_checkpoint (id, seq, hash, pruned_at) VALUES (1, ?, ?, 0)').run(r5.seq, r5.hash);
    });
    const conn = new Database(db, { readonly: true });
    const v = verifyDatabase(conn);
    conn.close();
    expect(v.ok).toBe(false);
    expect(v.firstBad).toMatchObject({ seq: 5 });
    expect(v.firstBad!.reason).toContain('not recorded by any audit.pruned event');
  });

  it('deletes the rows other tables keep about pruned events (seq columns, FTS5 by rowid, external-content FTS rebuilt)', async () => {
    const { store } = await dailyLog();
    store.db.exec(`
      CREATE TABLE event_tags (seq INTEGER NOT NULL, tag TEXT NOT NULL);
      CREATE VIRTUAL TABLE own_fts USING fts5(text);
      CREATE VIRTUAL TABLE ext_fts USING fts5(type, payload, content='events', content_rowid='seq');
      INSERT INTO event_tags (seq, tag) SELECT seq, 'x' FROM events;
      INSERT INTO own_fts (rowid, text) SELECT seq, payload FROM events;
      INSERT INTO ext_fts(ext_fts) VALUES ('rebuild');
    `);
    const r = store.prune({ maxEvents: 10 });
    expect(r.pruned).toBe(20);
    const count = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT COUNT(*) AS n FROM event_tags')).toBe(10);
    expect(count('SELECT MIN(seq) AS n FROM event_tags')).toBe(21);
    expect(count('SELECT COUNT(*) AS n FROM own_fts')).toBe(10);
    // c-3 was pruned, c-23 kept: the index answers for the kept one only.
    expect(count(`SELECT COUNT(*) AS n FROM ext_fts WHERE ext_fts MATCH '"c-3"'`)).toBe(0);
    expect(count(`SELECT COUNT(*) AS n FROM ext_fts WHERE ext_fts MATCH '"c-23"'`)).toBe(1);
    expect(store.verify().ok).toBe(true);
    store.close();
  });

  it('the host prunes at start by the settings, records it, keeps the chain verified, and prunes again when settings change', async () => {
    // 30 events from 2023 (FakeTime's epoch), then a host started today with 365 days' retention.
    const { home, store } = await dailyLog();
    store.close();
    mkdirSync(homePaths(home).root, { recursive: true });
    writeFileSync(homePaths(home).settings, JSON.stringify({ auditRetentionDays: 365 }));
    const host = createHost({ home, shell: 'cli', log: () => {}, projectDir: home, watch: false });
    try {
      await host.ready;
      const pruned = host.audit.tail(100).filter((e) => e.type === 'audit.pruned');
      expect(pruned).toHaveLength(1);
      expect(pruned[0]!.payload).toMatchObject({ pruned: 30, fromSeq: 1, toSeq: 30, checkpoint: { seq: 30 }, maxAgeDays: 365 });
      expect(host.chainState()).toMatchObject({ state: 'verified', firstBad: null });
      expect(host.audit.checkpoint()).toMatchObject({ seq: 30 });
      // host.started (31) and audit.pruned (32) and whatever start-up wrote since are kept.
      const before = host.audit.headSeq;
      const r = await host.dispatcher.dispatch('settings.update', { auditRetentionDays: 0, auditMaxEvents: 1 }, { operator: 'tester', console: 'cli' });
      expect(r).toMatchObject({ ok: true });
      const second = host.audit.tail(1)[0]!;
      expect(second).toMatchObject({ type: 'audit.pruned', payload: { maxEvents: 1 } });
      // Everything up to the settings.changed event before it goes; that event and this one stay.
      expect((second.payload as { toSeq: number }).toSeq).toBe(second.seq - 2);
      expect(second.seq).toBeGreaterThan(before);
      expect(host.audit.verify()).toMatchObject({ ok: true, checked: 2 });
      expect(host.chainState()).toMatchObject({ state: 'verified', checked: 2 });
    } finally {
      await host.close('test done');
    }
  });
});
