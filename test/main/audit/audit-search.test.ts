// Incident review on a real SQLite file: the search index written with each batch, FTS5 search
// with facets and a seq cursor, one event with its call, a session's timeline (including events
// that carry only a call or terminal id), redacted JSONL export, and the migration of a v1 log.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore, type AuditEventInput } from '../../../main/audit/audit-store.js';
import { AuditQuery } from '../../../main/audit/audit-query.js';
import { canonicalJson, chainHash, GENESIS_HASH } from '../../../main/audit/chain.js';
import { migrate, migrations } from '../../../main/audit/migrations/migrate.js';
import { SearchIndexer } from '../../../main/audit/audit-index.js';
import { OperationError } from '../../../main/core/operation-error.js';
import { tempDir } from '../../support/temp.js';

const SECRET = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx';

/** One call the way the pipeline, runner and PTY record it. */
function callEvents(i: number, session: string, agent: string, args: Record<string, unknown>, decision = 'allow'): AuditEventInput[] {
  const call = `call-${i}`;
  const term = `term-${i}`;
  return [
    { type: 'call.received', actor: `agent:${agent}`, payload: { call, agent, session, tool: 'Bash', arguments: args, source: 'mcp', cwd: '/srv' } },
    { type: 'call.extracted', actor: 'host', payload: { call, operations: ['execute'], paths: [], hosts: [], command: String(args.command ?? ''), evasive: false } },
    { type: 'rule.matched', actor: 'rule:shell', payload: { call, rule: 'shell', decision, severity: 'high', detail: 'shell commands ask' } },
    { type: 'call.decided', actor: 'operator:alice', payload: { call, decision, reason: 'looked fine' } },
    { type: 'execution.started', actor: `agent:${agent}`, payload: { call, plugin: 'shell-plugin', tool: 'run', sandboxed: true } },
    { type: 'pty.started', actor: `agent:${agent}`, payload: { id: term, tool: 'run', plugin: 'shell-plugin', callId: call, command: '/bin/sh' } },
    { type: 'pty.transcript', actor: 'host', payload: { id: term, seq: 1, offset: 0, data: `output of call ${i} zebrafish\r\n` } },
    { type: 'pty.exited', actor: 'host', payload: { id: term, exitCode: 0 } },
    { type: 'execution.ended', actor: `agent:${agent}`, payload: { call, plugin: 'shell-plugin', tool: 'run', ok: true, exitCode: 0 } },
    { type: 'call.result', actor: 'host', payload: { call, decision, executed: true } },
  ];
}

async function fill(store: AuditStore, events: AuditEventInput[]): Promise<void> {
  let last: Promise<void> | undefined;
  for (const e of events) last = store.append(e).durable;
  await last;
}

function open(dir: string): { store: AuditStore; q: AuditQuery } {
  const store = new AuditStore({ path: join(dir, 'audit.db'), log: () => {} });
  return { store, q: new AuditQuery({ store }) };
}

/** An audit database as an older Gatehouse left it: schema `version`, `events` chained in it (no index filled). */
function oldDatabase(version: number, events: AuditEventInput[]): { dir: string; db: Database.Database } {
  const dir = tempDir();
  const db = new Database(join(dir, 'audit.db'));
  db.pragma('journal_mode = WAL');
  migrate(db, migrations.filter((m) => m.version <= version));
  let prev = GENESIS_HASH;
  const insert = db.prepare('INSERT INTO events (seq, ts, type, actor, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)');
  events.forEach((e, i) => {
    const row = { seq: i + 1, ts: 1_000 + i, type: e.type, actor: e.actor, payloadJson: canonicalJson(e.payload) };
    const hash = chainHash(prev, row);
    insert.run(row.seq, row.ts, row.type, row.actor, row.payloadJson, prev, hash);
    prev = hash;
  });
  db.prepare('INSERT INTO chain_head (id, seq, hash) VALUES (1, ?, ?)').run(events.length, prev);
  return { dir, db };
}

describe('audit search', () => {
  it('finds a call by a word from one of its arguments, and the call gathers its events', async () => {
    const { store, q } = open(tempDir());
    try {
      await fill(store, [
        ...callEvents(1, 's-1', 'claude', { command: 'ls /srv/app' }),
        ...callEvents(2, 's-1', 'claude', { command: 'cat /etc/quokka.conf' }),
        ...callEvents(3, 's-2', 'codex', { command: 'echo hello' }),
      ]);
      const r = q.search({ query: 'quokka', limit: 200 });
      expect(r.events.map((e) => e.type)).toEqual(['call.extracted', 'call.received']);
      expect(r.events.every((e) => (e.payload as { call: string }).call === 'call-2')).toBe(true);
      expect(r.total).toBe(2);
      expect(r.totalCapped).toBe(false);
      const got = q.get(r.events.at(-1)!.seq);
      expect(got.event.type).toBe('call.received');
      // Including the PTY events, which name only the terminal the call opened.
      expect(got.related.map((e) => e.type)).toEqual(['call.extracted', 'rule.matched', 'call.decided', 'execution.started', 'pty.started', 'pty.transcript', 'pty.exited', 'execution.ended', 'call.result']);
      // Transcript text is searchable too.
      expect(q.search({ query: 'zebrafish', limit: 200 }).total).toBe(3);
      expect(() => q.get(10_000)).toThrow(/does not exist/);
    } finally {
      store.close();
    }
  });

  it('filters by facets: agent, session, plugin, decision, severity, types, time', async () => {
    const { store, q } = open(tempDir());
    try {
      await fill(store, [...callEvents(1, 's-1', 'claude', { command: 'a' }), ...callEvents(2, 's-2', 'codex', { command: 'b' }, 'deny')]);
      const bySession = q.search({ query: '', session: 's-2', limit: 200 });
      // Every event of the call, including those that name only the call or the terminal.
      expect(bySession.total).toBe(10);
      expect(q.search({ query: '', agent: 'codex', limit: 200 }).total).toBe(10);
      expect(q.search({ query: '', decision: 'deny', limit: 200 }).events.map((e) => e.type)).toEqual(['call.result', 'call.decided', 'rule.matched']);
      expect(q.search({ query: '', plugin: 'shell-plugin', agent: 'claude', limit: 200 }).total).toBe(3);
      expect(q.search({ query: '', severity: 'high', limit: 200 }).total).toBe(2);
      expect(q.search({ query: 'output', types: ['pty.transcript'], session: 's-1', limit: 200 }).events).toHaveLength(1);
      const all = q.search({ query: '', limit: 200 });
      const ts = all.events[0]!.ts;
      expect(q.search({ query: '', from: ts + 1_000_000, limit: 200 }).total).toBe(0);
      expect(q.search({ query: '', to: ts, limit: 200 }).total).toBe(all.total);
    } finally {
      store.close();
    }
  });

  it('pages newest first with the before cursor, counting up to the cap', async () => {
    const { store, q } = open(tempDir());
    try {
      const events: AuditEventInput[] = [];
      for (let i = 1; i <= 25; i++) events.push(...callEvents(i, `s-${i % 3}`, 'claude', { command: `deploy build-${i}` }));
      await fill(store, events);
      const seen: number[] = [];
      let before: number | undefined;
      for (;;) {
        const page = q.search({ query: 'deploy', limit: 7, ...(before ? { before } : {}) });
        expect(page.total).toBe(50);
        seen.push(...page.events.map((e) => e.seq));
        if (page.nextBefore === null) break;
        before = page.nextBefore;
      }
      expect(seen).toHaveLength(50);
      expect([...seen].sort((a, b) => b - a)).toEqual(seen);
      expect(new Set(seen).size).toBe(50);
    } finally {
      store.close();
    }
  });

  it('answers bad FTS syntax with a clear invalid error, not a crash', async () => {
    const { store, q } = open(tempDir());
    try {
      await fill(store, callEvents(1, 's', 'a', { command: 'x' }));
      for (const bad of ['"unterminated', 'foo AND', 'nosuchcol: x', '(a OR']) {
        let err: unknown;
        try {
          q.search({ query: bad, limit: 10 });
        } catch (e) {
          err = e;
        }
        expect(err, bad).toBeInstanceOf(OperationError);
        expect((err as OperationError).reason).toBe('invalid');
        expect((err as Error).message).toMatch(/not valid FTS5 syntax.*double quotes/);
      }
      expect(q.search({ query: '"rm -rf"', limit: 10 }).total).toBe(0);
    } finally {
      store.close();
    }
  });

  it("builds a session's timeline from call, execution and PTY events in seq order", async () => {
    const { store, q } = open(tempDir());
    try {
      await fill(store, [
        ...callEvents(1, 'story', 'claude', { command: 'one' }),
        { type: 'settings.changed', actor: 'operator:alice', payload: { mode: 'live' } },
        ...callEvents(2, 'other', 'claude', { command: 'two' }),
        ...callEvents(3, 'story', 'claude', { command: 'three' }),
      ]);
      const t = q.session('story', 10_000);
      expect(t.truncated).toBe(false);
      expect(t.events).toHaveLength(20);
      expect(t.events.map((e) => e.seq)).toEqual([...t.events.map((e) => e.seq)].sort((a, b) => a - b));
      expect(t.events.filter((e) => e.type === 'pty.transcript')).toHaveLength(2);
      expect(t.events.filter((e) => e.type.startsWith('execution.'))).toHaveLength(4);
      const short = q.session('story', 5);
      expect(short.truncated).toBe(true);
      expect(short.events).toHaveLength(5);
      expect(q.session('nobody', 10).events).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('exports the filter as JSONL, oldest first, matching the stored events with secrets masked', async () => {
    const dir = tempDir();
    const { store, q } = open(dir);
    try {
      await fill(store, [...callEvents(1, 's-1', 'claude', { command: `curl -H "Authorization: Bearer ${SECRET}" https://api.example.com` }), ...callEvents(2, 's-2', 'codex', { command: 'ls' })]);
      const r = await q.export({ query: '', session: 's-1', limit: 100_000 });
      const lines = r.jsonl.trimEnd().split('\n').map((l) => JSON.parse(l) as { seq: number; ts: number; type: string; actor: string; payload: unknown; hash: string });
      expect(r.count).toBe(10);
      expect(r.truncated).toBe(false);
      expect(r.jsonl).not.toContain(SECRET);
      const db = new Database(join(dir, 'audit.db'), { readonly: true });
      try {
        for (const line of lines) {
          const row = db.prepare('SELECT seq, ts, type, actor, payload, hash FROM events WHERE seq = ?').get(line.seq) as { ts: number; type: string; actor: string; payload: string; hash: string };
          expect({ ts: line.ts, type: line.type, actor: line.actor, hash: line.hash }).toEqual({ ts: row.ts, type: row.type, actor: row.actor, hash: row.hash });
          // The stored row keeps the raw value (the chain hashes it); only the export masks it.
          if (row.payload.includes(SECRET)) expect(JSON.stringify(line.payload)).toContain('Bearer [REDACTED]');
          else expect(line.payload).toEqual(JSON.parse(row.payload));
        }
      } finally {
        db.close();
      }
      expect(lines.map((l) => l.seq)).toEqual([...lines.map((l) => l.seq)].sort((a, b) => a - b));
      const raw = await new AuditQuery({ store, raw: () => true }).export({ query: 'curl', limit: 10 });
      expect(raw.jsonl).toContain(SECRET);
      const capped = await q.export({ query: '', limit: 3 });
      expect(capped.count).toBe(3);
      expect(capped.truncated).toBe(true);
    } finally {
      store.close();
    }
  });

  it('migrates a v1 database: backfills the index for old rows, keeps the chain, and appends on', async () => {
    const { dir, db } = oldDatabase(1, callEvents(1, 'legacy', 'claude', { command: 'grep platypus /var/log' }));
    db.close();

    const { store, q } = open(dir);
    try {
      expect(store.db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
      expect(q.search({ query: 'platypus', limit: 10 }).total).toBe(2);
      expect(q.session('legacy', 100).events).toHaveLength(10);
      await fill(store, callEvents(2, 'legacy', 'claude', { command: 'grep platypus again' }));
      expect(q.search({ query: 'platypus', limit: 10 }).total).toBe(4);
      expect(q.session('legacy', 100).events).toHaveLength(20);
      expect(store.verify().ok).toBe(true);
    } finally {
      store.close();
    }
  });
  it('searches phrases, prefixes and non-ASCII words, and retention takes pruned events out of the text index', async () => {
    const { store, q } = open(tempDir());
    try {
      await fill(store, [
        ...callEvents(1, 's-1', 'claude', { command: 'rm -rf /srv/app/build-12' }),
        ...callEvents(2, 's-1', 'claude', { command: 'cat /srv/app/build-7 /srv/12/rm' }),
        ...callEvents(3, 's-2', 'codex', { command: 'echo Müller café' }),
      ]);
      // A phrase is its words next to each other in that order: call 2 has every word, not the phrase.
      expect(q.search({ query: '"rm -rf"', limit: 10 }).total).toBe(2);
      expect(q.search({ query: '"build-12"', limit: 10 }).total).toBe(2);
      expect(q.search({ query: 'build AND 12 AND rm', limit: 10 }).total).toBe(4);
      expect(q.search({ query: 'NEAR(cat rm, 10)', limit: 10 }).total).toBe(2);
      expect(q.search({ query: 'bui*', limit: 10 }).total).toBe(4);
      // Diacritics fold both ways.
      expect(q.search({ query: 'muller', limit: 10 }).total).toBe(2);
      expect(q.search({ query: 'CAFÉ', limit: 10 }).total).toBe(2);

      const fts = (match: string) => (store.db.prepare('SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH ?').get(match) as { n: number }).n;
      expect(fts('"rm -rf"')).toBe(2);
      expect(fts('zebrafish')).toBe(3);
      // Calls 1 and 2 are pruned: their terms leave the index itself, not only the results.
      store.prune({ maxEvents: 11 });
      expect(fts('"rm -rf"')).toBe(0);
      expect(fts('build')).toBe(0);
      expect(fts('zebrafish')).toBe(1);
      expect(fts('muller')).toBe(2);
      expect(q.search({ query: 'zebrafish', limit: 10 }).total).toBe(1);
      store.db.prepare("INSERT INTO events_fts(events_fts) VALUES ('integrity-check')").run();
      expect(store.verify().ok).toBe(true);
    } finally {
      store.close();
    }
  });

  it('migrates a v3 search index (contentless_delete) to v4 (columnsize=0): the text index is rebuilt from events', async () => {
    const { dir, db } = oldDatabase(3, [...callEvents(1, 'legacy', 'claude', { command: 'grep platypus /var/log' }), ...callEvents(2, 'legacy', 'codex', { command: 'tar czf wombat.tgz' })]);
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    new SearchIndexer(db).indexAfter(0);
    const ftsSql = () => (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'events_fts'").get() as { sql: string }).sql;
    expect(ftsSql()).toContain('contentless_delete=1');
    // A v3 index as a v3 host left it, with a pruned-looking gap the rebuild must not bring back.
    db.prepare('INSERT INTO events_fts(rowid, text) VALUES (?, ?)').run(999, 'ghost');
    migrate(db);
    expect(db.pragma('user_version', { simple: true })).toBe(4);
    expect(ftsSql()).toContain('columnsize=0');
    expect(ftsSql()).not.toContain('contentless_delete');
    expect((db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'events_fts_docsize'").get() as { n: number }).n).toBe(0);
    expect((db.prepare("SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH 'ghost'").get() as { n: number }).n).toBe(0);
    db.close();

    const { store, q } = open(dir);
    try {
      expect(q.search({ query: 'platypus', limit: 10 }).total).toBe(2);
      expect(q.search({ query: '"wombat.tgz"', limit: 10 }).total).toBe(2);
      expect(q.search({ query: 'zebrafish', limit: 10 }).total).toBe(2);
      await fill(store, callEvents(3, 'legacy', 'claude', { command: 'grep platypus again' }));
      expect(q.search({ query: 'platypus', limit: 10 }).total).toBe(4);
      // The delete trigger the migration made takes a pruned call's words out of the index.
      store.prune({ maxEvents: 20 });
      expect((store.db.prepare("SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH 'platypus'").get() as { n: number }).n).toBe(2);
      expect(q.search({ query: 'wombat', limit: 10 }).total).toBe(2);
      store.db.prepare("INSERT INTO events_fts(events_fts) VALUES ('integrity-check')").run();
      expect(store.verify().ok).toBe(true);
    } finally {
      store.close();
    }
  });
});
