// Tampering with a real audit database behind Gatehouse's back, then asking the real CLI
// (`gatehouse audit verify --home DIR`, a child process) to find it. Each edit must be named
// at the right row.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore, verifyDatabase } from '../../../main/audit/audit-store.js';
import { chainHash } from '../../../main/audit/chain.js';
import { homePaths } from '../../../main/home.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const ROWS = 10;

interface Row {
  seq: number;
  ts: number;
  type: string;
  actor: string;
  payload: string;
  prev_hash: string;
  hash: string;
}

/** A home whose audit log holds ROWS events written by the real store. */
async function homeWithLog(): Promise<{ home: string; db: string }> {
  const home = tempDir('gatehouse-tamper-');
  const db = homePaths(home).auditDb;
  const store = new AuditStore({ path: db });
  let last;
  for (let i = 1; i <= ROWS; i++) {
    last = store.append({ type: i % 2 ? 'tool.call' : 'policy.decision', actor: `agent:${i % 3}`, payload: { call: `c-${i}`, args: { path: `/srv/file-${i}.txt` }, n: i } });
  }
  await last!.durable;
  store.close();
  return { home, db };
}

/** Edits the file with its own connection, as an attacker with file access would. */
function tamper(db: string, edit: (conn: Database.Database) => void): void {
  const conn = new Database(db);
  try {
    edit(conn);
  } finally {
    conn.close();
  }
}

function row(conn: Database.Database, seq: number): Row {
  return conn.prepare('SELECT * FROM events WHERE seq = ?').get(seq) as Row;
}

async function verify(home: string): Promise<{ code: number | null; out: string }> {
  const r = await runCli(['audit', 'verify', '--home', home]);
  return { code: r.code, out: r.stdout + r.stderr };
}

describe('gatehouse audit verify (tamper detection, real CLI)', () => {
  it('exits 0 on an intact log', async () => {
    const { home } = await homeWithLog();
    const r = await verify(home);
    expect(r.out).toMatch(new RegExp(`^Audit chain intact: ${ROWS} events, head row ${ROWS} `));
    expect(r.code).toBe(0);
  });

  it('names the row whose payload was edited', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) => c.prepare('UPDATE events SET payload = ? WHERE seq = 4').run('{"args":{"path":"/srv/innocent.txt"},"call":"c-4","n":4}'));
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Audit chain broken at row 4:');
    expect(r.out).toContain('3 rows before it verified');
  });

  it('names a deleted row', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) => c.prepare('DELETE FROM events WHERE seq = 5').run());
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('broken at row 5:');
    expect(r.out).toMatch(/row 5 is missing/);
  });

  it('names the lower of two rows whose contents were swapped (seq kept)', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) => {
      const a = row(c, 3);
      const b = row(c, 7);
      const set = c.prepare('UPDATE events SET ts = ?, type = ?, actor = ?, payload = ?, prev_hash = ?, hash = ? WHERE seq = ?');
      c.transaction(() => {
        set.run(b.ts, b.type, b.actor, b.payload, b.prev_hash, b.hash, 3);
        set.run(a.ts, a.type, a.actor, a.payload, a.prev_hash, a.hash, 7);
      })();
    });
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('broken at row 3:');
  });

  it('names the lower of two rows whose payloads alone were swapped', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) => {
      const a = row(c, 6);
      const b = row(c, 8);
      c.prepare('UPDATE events SET payload = ? WHERE seq = ?').run(b.payload, 6);
      c.prepare('UPDATE events SET payload = ? WHERE seq = ?').run(a.payload, 8);
    });
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('broken at row 6:');
  });

  it('names a row that was edited and had its own hash recomputed', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) => {
      const r = row(c, 4);
      const payload = '{"args":{"path":"/srv/innocent.txt"},"call":"c-4","n":4}';
      const hash = chainHash(r.prev_hash, { seq: r.seq, ts: r.ts, type: r.type, actor: r.actor, payloadJson: payload });
      c.prepare('UPDATE events SET payload = ?, hash = ? WHERE seq = 4').run(payload, hash);
    });
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('broken at row 4:');
    expect(r.out).toMatch(/hash was recomputed/);
    expect(r.out).toContain('3 rows before it verified');
  });

  it('prints a stored hash it quotes with its escape codes escaped (a tamperer cannot erase the verdict from the terminal)', async () => {
    // Whoever edits the file also chooses what the verdict quotes from it: row 5's prev_hash.
    // Raw, "\x1b[2K\r\x1b]2;" erases the "broken" line and swallows the rest into the window title.
    const { home, db } = await homeWithLog();
    const forged = '\x1b[2K\r\x1b]2;hide';
    tamper(db, (c) => c.prepare('UPDATE events SET prev_hash = ? WHERE seq = 5').run(forged));
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('broken at row 5:');
    expect(r.out).not.toContain('\x1b');
    expect(r.out).toContain('\\x1b[2K\\r\\x1b]2;');
  });

  it('names the last row when it was edited and its hash recomputed', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) => {
      const r = row(c, ROWS);
      const hash = chainHash(r.prev_hash, { seq: r.seq, ts: r.ts, type: r.type, actor: 'agent:nobody', payloadJson: r.payload });
      c.prepare('UPDATE events SET actor = ?, hash = ? WHERE seq = ?').run('agent:nobody', hash, ROWS);
    });
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`broken at row ${ROWS}:`);
  });

  it('detects a truncated tail', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) => c.prepare('DELETE FROM events WHERE seq > 7').run());
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('broken at row 8:');
    expect(r.out).toMatch(/truncated/);
  });

  it('detects rows appended outside Gatehouse, even with a valid chain', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) => {
      const last = row(c, ROWS);
      const forged = { seq: ROWS + 1, ts: last.ts, type: 'policy.decision', actor: 'host', payloadJson: '{"decision":"allow"}' };
      c.prepare('INSERT INTO events (seq, ts, type, actor, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)').run(forged.seq, forged.ts, forged.type, forged.actor, forged.payloadJson, last.hash, chainHash(last.hash, forged));
    });
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`broken at row ${ROWS + 1}:`);
    expect(r.out).toContain(`${ROWS} rows before it verified`);
  });

  it('detects a log whose chain head record was removed', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) => {
      c.prepare('DELETE FROM chain_head').run();
      c.prepare('DELETE FROM events WHERE seq > 8').run();
    });
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/chain head/);
  });

  it('names a reordered row (seq numbers exchanged)', async () => {
    const { home, db } = await homeWithLog();
    tamper(db, (c) =>
      c.transaction(() => {
        c.prepare('UPDATE events SET seq = 1000 WHERE seq = 2').run();
        c.prepare('UPDATE events SET seq = 2 WHERE seq = 9').run();
        c.prepare('UPDATE events SET seq = 9 WHERE seq = 1000').run();
      })(),
    );
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain('broken at row 2:');
  });

  it('names any single edited cell at its row (property, in-process verifier)', async () => {
    const { db } = await homeWithLog();
    const conn = new Database(db);
    const columns = ['ts', 'type', 'actor', 'payload', 'prev_hash', 'hash'] as const;
    try {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: ROWS }), fc.constantFrom(...columns), fc.string({ minLength: 1, maxLength: 8 }), (seq, column, junk) => {
          const original = row(conn, seq);
          const value = column === 'ts' ? original.ts + 1 + junk.length : column === 'payload' ? JSON.stringify({ junk }) : `${original[column]}${junk}`;
          conn.prepare(`UPDATE events SET ${column} = ? WHERE seq = ?`).run(value, seq);
          try {
            const r = verifyDatabase(conn);
            expect(r.ok).toBe(false);
            expect(r.firstBad?.seq).toBe(seq);
          } finally {
            conn.prepare(`UPDATE events SET ${column} = ? WHERE seq = ?`).run(original[column], seq);
          }
        }),
        { numRuns: 150 },
      );
      expect(verifyDatabase(conn).ok).toBe(true);
    } finally {
      conn.close();
    }
  });

  it('exits 2 with one line, then the usage line, when there is no audit log in the folder', async () => {
    const home = tempDir();
    const r = await runCli(['audit', 'verify', '--home', join(home, 'nothing-here')]);
    expect(r.code).toBe(2);
    const [error, usage, ...rest] = r.stderr.trim().split('\n');
    expect(error).toMatch(/^gatehouse: No audit log at .*nothing-here/);
    expect(usage).toBe('Usage: gatehouse audit verify [options]');
    expect(rest).toEqual([]);
  });
});
