// The search index (event_facets, events_fts) is not chained. Edited behind Gatehouse's back with
// raw SQL on the real database file, it must still be named by `gatehouse audit verify` (the real
// CLI, a child process) and by the console's chain check (the audit.verify job of a real host):
// the row and the index field that differ from what the chained event says.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditStore, openForVerify, verifyDatabaseChunked } from '../../../main/audit/audit-store.js';
import { ftsText } from '../../../main/audit/audit-index.js';
import { unattended } from '../../../main/chunked.js';
import { homePaths } from '../../../main/home.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import type { ChainState } from '../../../shared/contract.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const CALLS = 40;

/** Calls as the gateway records them (received with agent and session, decided, run), and a terminal's events. */
async function writeLog(db: string): Promise<void> {
  const store = new AuditStore({ path: db });
  for (let i = 1; i <= CALLS; i++) {
    const call = `call-${i}`;
    store.append({ type: 'call.received', actor: 'agent:claude', payload: { call, agent: 'claude', session: `s-${i % 3}`, tool: 'shell', arguments: { command: `rm -rf /srv/data-${i}` } } });
    store.append({ type: 'call.decided', actor: 'rule:protect-srv', payload: { call, decision: i % 2 ? 'deny' : 'allow', reason: 'rm under /srv is denied' } });
    if (i % 2 === 0) store.append({ type: 'execution.finished', actor: 'host', payload: { call, exitCode: 0 } });
  }
  store.append({ type: 'pty.started', actor: 'host', payload: { id: 't-1', call: 'call-2', command: 'bash' } });
  const last = store.append({ type: 'pty.exited', actor: 'host', payload: { id: 't-1', exitCode: 0 } });
  await last.durable;
  store.close();
}

async function homeWithLog(): Promise<{ home: string; db: string }> {
  const home = tempDir('gatehouse-facets-tamper-');
  const db = homePaths(home).auditDb;
  await writeLog(db);
  return { home, db };
}

function tamper(db: string, edit: (conn: Database.Database) => void): void {
  const conn = new Database(db);
  try {
    edit(conn);
  } finally {
    conn.close();
  }
}

/** The seq of the first event of a type whose payload has `key` = `value`. */
function seqOf(db: string, type: string, key: string, value: string): number {
  const conn = new Database(db, { readonly: true });
  try {
    return (conn.prepare(`SELECT seq FROM events WHERE type = ? AND json_extract(payload, '$.' || ?) = ?`).get(type, key, value) as { seq: number }).seq;
  } finally {
    conn.close();
  }
}

async function verify(home: string): Promise<{ code: number | null; out: string }> {
  const r = await runCli(['audit', 'verify', '--home', home]);
  return { code: r.code, out: r.stdout + r.stderr };
}

describe('gatehouse audit verify checks the search index against the chain (real CLI)', () => {
  it('an untouched log verifies, index included', async () => {
    const { home } = await homeWithLog();
    const r = await verify(home);
    expect(r.out).toMatch(/^Audit chain intact: \d+ events, head row \d+ .*the search index matches them/);
    expect(r.code).toBe(0);
  });

  it('denials turned into allows in event_facets are named, each with its row and field', async () => {
    const { home, db } = await homeWithLog();
    let changed = 0;
    tamper(db, (c) => (changed = c.prepare("UPDATE event_facets SET decision = 'allow' WHERE decision = 'deny'").run().changes));
    expect(changed).toBe(CALLS / 2);
    const first = seqOf(db, 'call.decided', 'call', 'call-1');
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`Audit search index altered: ${CALLS / 2} differences`);
    expect(r.out).toContain(`facets.decision: row ${first}: the search index's decision is "allow", but the event says "deny"`);
    expect(r.out.match(/facets\.decision: row \d+/g)).toHaveLength(CALLS / 2);
  });

  it('an agent or session facet moved to someone else, or erased, is named (also where it is inherited from the call)', async () => {
    const { home, db } = await homeWithLog();
    const received = seqOf(db, 'call.received', 'call', 'call-4');
    const decided = seqOf(db, 'call.decided', 'call', 'call-4');
    const finished = seqOf(db, 'execution.finished', 'call', 'call-6');
    tamper(db, (c) => {
      c.prepare("UPDATE event_facets SET agent = 'someone-else' WHERE seq = ?").run(received);
      c.prepare("UPDATE event_facets SET session = 's-9' WHERE seq = ?").run(decided);
      c.prepare('UPDATE event_facets SET agent = NULL WHERE seq = ?').run(finished);
    });
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`facets.agent: row ${received}: the search index's agent is "someone-else", but the event says "claude"`);
    expect(r.out).toContain(`facets.session: row ${decided}: the search index's session is "s-9", but call "call-4" says "s-1"`);
    expect(r.out).toContain(`facets.agent: row ${finished}: the search index's agent is empty, but call "call-6" says "claude"`);
  });

  it('a terminal event moved to another call is named', async () => {
    const { home, db } = await homeWithLog();
    const exited = seqOf(db, 'pty.exited', 'id', 't-1');
    tamper(db, (c) => c.prepare("UPDATE event_facets SET call = 'call-3' WHERE seq = ?").run(exited));
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`facets.call: row ${exited}: the search index's call is "call-3", but terminal "t-1" says "call-2"`);
  });

  it('a deleted facets row and one with no event behind it are named', async () => {
    const { home, db } = await homeWithLog();
    const gone = seqOf(db, 'call.decided', 'call', 'call-7');
    tamper(db, (c) => {
      c.prepare('DELETE FROM event_facets WHERE seq = ?').run(gone);
      c.prepare("INSERT INTO event_facets(seq, decision) VALUES (100000, 'allow')").run();
    });
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`facets: row ${gone} has no row in the search index's facets`);
    expect(r.out).toContain('facets: row 100000 is in the search index\'s facets but not in the log');
  });

  it('an event whose words were taken out of the text index (FTS5 delete, then other text) is named', async () => {
    const { home, db } = await homeWithLog();
    const hidden = seqOf(db, 'call.received', 'call', 'call-5');
    tamper(db, (c) => {
      // What an attacker does to hide a command from search: the exact text out, harmless text in.
      c.prepare(`INSERT INTO events_fts(events_fts, rowid, text) SELECT 'delete', seq, ${ftsText('events')} FROM events WHERE seq = ?`).run(hidden);
      c.prepare("INSERT INTO events_fts(rowid, text) VALUES (?, 'call.received agent:claude ls /srv')").run(hidden);
    });
    const conn = new Database(db, { readonly: true });
    // The edit works: a search for the command no longer finds the event.
    expect(conn.prepare("SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH '\"data-5\"'").get()).toEqual({ n: 0 });
    conn.close();
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`text: row ${hidden}: the search index lacks the word`);
    expect(r.out).toContain(`text: row ${hidden}: the search index holds the word "ls", which the event does not contain`);
  });

  it('words moved to other positions (phrase search sees other text) and text for a row not in the log are named', async () => {
    const { home, db } = await homeWithLog();
    const moved = seqOf(db, 'call.received', 'call', 'call-8');
    tamper(db, (c) => {
      const text = (c.prepare(`SELECT ${ftsText('events')} AS t FROM events WHERE seq = ?`).get(moved) as { t: string }).t;
      c.prepare("INSERT INTO events_fts(events_fts, rowid, text) VALUES ('delete', ?, ?)").run(moved, text);
      c.prepare('INSERT INTO events_fts(rowid, text) VALUES (?, ?)').run(moved, text.split(' ').reverse().join(' '));
      c.prepare("INSERT INTO events_fts(rowid, text) VALUES (777777, 'approved by operator')").run();
    });
    const r = await verify(home);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`text: row ${moved}: the search index holds the event's word`);
    expect(r.out).toContain('text: row 777777 has words in the search index but is not in the log');
  });

  it('verifies a pruned log from its checkpoint without false reports', async () => {
    const home = tempDir('gatehouse-facets-pruned-');
    const db = homePaths(home).auditDb;
    await writeLog(db);
    const store = new AuditStore({ path: db });
    store.prune({ maxEvents: 30 });
    store.close();
    const conn = openForVerify(db);
    const r = await verifyDatabaseChunked(conn, unattended, undefined, 7);
    conn.close();
    expect(r.index?.mismatches).toEqual([]);
    expect(r.ok).toBe(true);
  });
});

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

describe("the console's chain check (audit.verify job on a real host)", () => {
  it('reports a rewritten facet as tampering, naming the row and the field', async () => {
    const root = tempDir('gatehouse-facets-host-');
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    await writeLog(homePaths(home).auditDb);
    const flipped = seqOf(homePaths(home).auditDb, 'call.decided', 'call', 'call-9');
    tamper(homePaths(home).auditDb, (c) => c.prepare("UPDATE event_facets SET decision = 'allow' WHERE seq = ?").run(flipped));
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: root, watch: false });
    hosts.push(host);
    await host.ready;
    const env = await host.dispatcher.dispatch('audit.verify', { job: 'verify-facets' }, { operator: 'alice', console: 'serve' });
    expect(env).toMatchObject({ ok: true, result: { state: 'broken' } });
    const state = (env as { result: ChainState }).result;
    expect(state.firstBad).toMatchObject({ seq: flipped });
    expect(state.firstBad!.reason).toContain(`row ${flipped}: the search index's decision is "allow", but the event says "deny"`);
    expect(state.firstBad!.reason).toContain('facets.decision');
  });
});
