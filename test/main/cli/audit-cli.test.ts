// `gatehouse audit search` and `gatehouse audit export` (the built CLI as a child process) against
// a real audit database, read-only, with no host running: results, redaction, --since, errors.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { parseSince } from '../../../main/cli/audit-commands.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const SECRET = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

async function home(): Promise<string> {
  const dir = tempDir();
  const store = new AuditStore({ path: join(dir, 'audit.db'), log: () => {} });
  let last: Promise<void> | undefined;
  for (let i = 1; i <= 3; i++) {
    const call = `call-${i}`;
    const session = i === 3 ? 's-b' : 's-a';
    store.append({ type: 'call.received', actor: 'agent:claude', payload: { call, agent: 'claude', session, tool: 'Bash', arguments: { command: i === 2 ? `git push https://${SECRET}@github.com/o/r wombat` : `ls dir-${i}` } } });
    last = store.append({ type: 'call.decided', actor: 'host', payload: { call, decision: i === 2 ? 'deny' : 'allow', reason: 'rule' } }).durable;
  }
  await last;
  store.close();
  return dir;
}

describe('gatehouse audit search / export', () => {
  it('searches by a word, as a table and as JSON, with secrets masked', async () => {
    const dir = await home();
    const r = await runCli(['audit', 'search', 'wombat', '--json', '--home', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { events: { type: string; payload: { call: string } }[]; total: number };
    expect(out.total).toBe(1);
    expect(out.events[0]!.payload.call).toBe('call-2');
    expect(r.stdout).not.toContain(SECRET);
    expect(r.stdout).toContain('ghp_[REDACTED]');
    const table = await runCli(['audit', 'search', '--session', 's-a', '--type', 'call.decided', '--home', dir]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/2 matching events, 2 shown/);
    expect(table.stdout).toMatch(/call\.decided .*decision=deny/);
  });

  it('exports JSONL oldest first; --raw needs the setting; bad input is a clear error', async () => {
    const dir = await home();
    const r = await runCli(['audit', 'export', '--since', '1h', '--home', dir]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { seq: number });
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.stdout).not.toContain(SECRET);
    const q = await runCli(['audit', 'export', '--query', 'wombat OR "dir-3"', '--home', dir]);
    expect(q.stdout.trimEnd().split('\n')).toHaveLength(2);

    const refused = await runCli(['audit', 'export', '--raw', '--home', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--raw needs .*auditRaw/);
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ auditRaw: true }));
    const raw = await runCli(['audit', 'export', '--raw', '--home', dir]);
    expect(raw.stdout).toContain(SECRET);

    const bad = await runCli(['audit', 'search', '"unterminated', '--home', dir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not valid FTS5 syntax/);
    const since = await runCli(['audit', 'export', '--since', 'yesterday', '--home', dir]);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/--since must be an ISO date/);
  });

  it('parses --since as ISO dates and ages', () => {
    const now = Date.parse('2026-05-10T12:00:00Z');
    expect(parseSince('2h', now)).toBe(now - 2 * 3_600_000);
    expect(parseSince('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseSince('2026-05-01', now)).toBe(Date.parse('2026-05-01'));
    expect(parseSince('2026-05-01T12:00:00Z', now)).toBe(Date.parse('2026-05-01T12:00:00Z'));
    expect(() => parseSince('2 weeks', now)).toThrow(/--since/);
  });
});
