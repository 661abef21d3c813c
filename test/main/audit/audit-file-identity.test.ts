// The audit log's file under a running host (#25 items 3, 5, 6): deleted, replaced, truncated or
// with a byte changed while `gatehouse serve` (the built CLI, a real process) runs, and a start over
// a log that lost its history. Real SQLite files, real file operations, the host's own API, the
// `gatehouse hook`, `audit verify`, `audit recover` and `doctor` commands. No sleeps.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChainState } from '../../../shared/contract.js';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { checkEvent } from '../../../main/audit/event-schemas.js';
import { homePaths } from '../../../main/home.js';
import { connectHost } from '../../../main/cli/host-client.js';
import { cliPath, repoRoot, runCli, startCli, type RunningCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

function newHome(): string {
  const home = join(tempDir('gatehouse-file-'), 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  return home;
}

async function serve(home: string): Promise<RunningCli> {
  const s = startCli(['serve', '--home', home, '--port', '0']);
  await s.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
  return s;
}

async function stop(s: RunningCli): Promise<void> {
  s.child.kill('SIGTERM');
  await s.exited;
}

/** A Claude Code PreToolUse hook call through the real `gatehouse hook` command. */
async function hook(home: string, file = '/etc/hostname'): Promise<{ decision: string; reason: string }> {
  const input = JSON.stringify({ session_id: 'file-1', cwd: home, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: file }, tool_use_id: 'tu-1' });
  const out = await runCli(['hook', '--home', home], {}, input);
  expect(out.code, out.stderr).toBe(0);
  // An allow at full autonomy is no output (Claude Code's own rules apply).
  if (out.stdout.trim() === '') return { decision: 'allow', reason: '' };
  const o = (JSON.parse(out.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  return { decision: o.permissionDecision, reason: o.permissionDecisionReason };
}

/** The running host's API, as a console calls it. */
async function api<T>(home: string, f: (c: Awaited<ReturnType<typeof connectHost>>) => Promise<T>): Promise<T> {
  const c = await connectHost(home);
  try {
    expect(c.mode).toBe('remote');
    return await f(c);
  } finally {
    await c.close();
  }
}

const chainState = (home: string): Promise<ChainState> => api(home, (c) => c.call('audit.chainState', {}));

async function doctorAudit(home: string): Promise<{ code: number | null; audit: { status: string; summary: string } }> {
  const r = await runCli(['doctor', '--home', home, '--json']);
  const report = JSON.parse(r.stdout) as { checks: { id: string; status: string; summary: string }[] };
  return { code: r.code, audit: report.checks.find((c) => c.id === 'audit')! };
}

/** A log with some history, written and closed the ordinary way (so the database file holds its pages). */
function seed(home: string): void {
  const store = new AuditStore({ path: homePaths(home).auditDb, log: () => {} });
  for (let i = 0; i < 50; i++) store.append({ type: 'host.note', actor: 'host', payload: { i, text: `seeded event ${i}` } });
  store.close();
}

describe('the audit log changed under a running host', () => {
  const cases: [string, string, (db: string, home: string) => void, RegExp][] = [
    ['deleted', 'the next call is denied naming the deletion', (db) => rmSync(db), /the audit log \S*audit\.db was deleted while Gatehouse ran: the events recorded in it since it was opened are gone with it/],
    [
      'replaced by another file',
      'the next call is denied naming the replacement',
      (db, home) => {
        const other = join(home, 'other.db');
        const s = new AuditStore({ path: other, log: () => {} });
        s.append({ type: 'host.note', actor: 'host', payload: { forged: true } });
        s.close();
        renameSync(other, db);
      },
      /the audit log \S*audit\.db was (replaced by another file|deleted while Gatehouse ran and another file now has its name)/,
    ],
    ['truncated', 'the next call is denied naming the truncation', (db) => truncateSync(db, 0), /the audit log \S*audit\.db was truncated while Gatehouse ran \(0 bytes, it had \d+\)/],
    // A review found this one unseen: SQLite went on writing the unlinked WAL, and a crash lost the whole run.
    ['its write-ahead log deleted', 'the next call is denied naming the deletion', (db) => rmSync(`${db}-wal`), /the audit log's write-ahead log \S*audit\.db-wal was deleted while Gatehouse ran/],
    ['its write-ahead log emptied in place', 'the next call is denied naming the truncation', (db) => truncateSync(`${db}-wal`, 0), /the audit log's write-ahead log \S*audit\.db-wal was truncated while Gatehouse ran \(0 bytes, it had \d+\)/],
    [
      'its write-ahead log replaced',
      'the next call is denied naming the replacement',
      (db) => {
        writeFileSync(`${db}-wal.new`, '');
        renameSync(`${db}-wal.new`, `${db}-wal`);
      },
      /the audit log's write-ahead log \S*audit\.db-wal was (replaced by another file|deleted while Gatehouse ran)/,
    ],
  ];
  for (const [what, outcome, act, sentence] of cases) {
    it(`${what}: ${outcome}, every call after it too; the console's chain state and doctor report it`, async () => {
      const home = newHome();
      seed(home);
      const s = await serve(home);
      expect((await hook(home)).decision).toBe('allow');
      act(homePaths(home).auditDb, home);

      const denied = await hook(home);
      expect(denied.decision).toBe('deny');
      expect(denied.reason).toMatch(sentence);
      expect(denied.reason).toContain('Gatehouse denies every call until it restarts');
      const cause = denied.reason.match(sentence)![0];
      // Fails closed from then on, not for one batch.
      expect(await hook(home)).toMatchObject({ decision: 'deny', reason: denied.reason });
      // The console's alarm: the chain state every console shows carries the sentence.
      const shown = (await chainState(home)).writeError!;
      expect(shown).toMatch(new RegExp(`^${cause.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      expect(denied.reason).toContain(shown);
      const doc = await doctorAudit(home);
      expect(doc.code).toBe(1);
      expect(doc.audit.status).toBe('fail');
      expect(doc.audit.summary).toContain(shown);
      await stop(s);
    }, 60_000);
  }

  it('deleted with no call since: asking for the chain state notices it, and doctor does not say "no audit log yet"', async () => {
    const home = newHome();
    const s = await serve(home);
    rmSync(homePaths(home).auditDb);
    expect((await chainState(home)).writeError).toMatch(/was deleted while Gatehouse ran/);
    const doc = await doctorAudit(home);
    expect(doc.audit.status).toBe('fail');
    expect(doc.audit.summary).not.toContain('no audit log yet');
    await stop(s);
  }, 60_000);
});

describe('verification reads the file', () => {
  it("a byte changed in a committed row while the host runs fails the console's audit.verify, naming the row", async () => {
    const home = newHome();
    seed(home);
    const db = homePaths(home).auditDb;
    const s = await serve(home);
    // The host has read the whole chain at start: its connection holds those pages in its cache.
    expect(await chainState(home)).toMatchObject({ state: 'verified' });
    // Every copy of the row's text in the file (a page SQLite freed may hold an older one).
    const bytes = readFileSync(db);
    const at: number[] = [];
    for (let i = bytes.indexOf('seeded event 17'); i >= 0; i = bytes.indexOf('seeded event 17', i + 1)) at.push(i);
    expect(at.length).toBeGreaterThan(0);
    const fd = openSync(db, 'r+');
    for (const i of at) writeSync(fd, Buffer.from('X'), 0, 1, i);
    closeSync(fd);

    const verified = await api(home, (c) => c.callJob('audit.verify', {}, () => {}).result);
    expect(verified.state).toBe('broken');
    expect(verified.firstBad).toMatchObject({ seq: 18, reason: 'row 18 was altered: its contents no longer match its hash' });
    expect((await chainState(home)).state).toBe('broken');
    // The same finding as the command reading the file.
    const cli = await runCli(['audit', 'verify', '--home', home]);
    expect(cli.stdout).toContain('Audit chain broken at row 18: row 18 was altered');
    await stop(s);
  }, 60_000);
});

describe('a start over a log that lost its history', () => {
  it('is said plainly: audit verify fails, the console and doctor say it; audit recover leaves a state that verifies', async () => {
    const home = newHome();
    const db = homePaths(home).auditDb;
    let s = await serve(home);
    expect((await hook(home)).decision).toBe('allow');
    await stop(s);
    expect(readFileSync(join(home, 'audit.head'), 'utf8')).toMatch(/^\{"seq":\d+,"hash":"[0-9a-f]{64}"\}\n$/);
    for (const side of ['', '-wal', '-shm']) rmSync(db + side, { force: true });

    // Before any host starts again: the command reading the files says so.
    const before = await runCli(['audit', 'verify', '--home', home]);
    expect(before.code).toBe(1);
    expect(before.stdout).toMatch(/^Audit history missing: The audit log .*audit\.db is missing, but the chain head kept beside it \(.*audit\.head\) records that Gatehouse wrote up to row \d+/);
    expect((await doctorAudit(home)).audit).toMatchObject({ status: 'fail', summary: expect.stringContaining('is missing, but the chain head kept beside it') });

    // The host starts, records the gap as its first event and shows the chain broken there.
    s = await serve(home);
    expect(s.output().stderr).toContain('is missing, but the chain head kept beside it');
    const state = await chainState(home);
    expect(state.state).toBe('broken');
    expect(state.firstBad).toMatchObject({ seq: 1, reason: expect.stringMatching(/^history is missing before row 1: The audit log .*is missing/) });
    const doc = await doctorAudit(home);
    expect(doc.code).toBe(1);
    expect(doc.audit).toMatchObject({ status: 'fail', summary: expect.stringContaining('history is missing before row 1') });
    await stop(s);
    const first = new Database(db, { readonly: true });
    const gap = first.prepare('SELECT seq, type, actor, payload FROM events WHERE seq = 1').get() as { seq: number; type: string; actor: string; payload: string };
    expect(gap.type).toBe('audit.history-missing');
    expect(checkEvent({ ...gap, payload: JSON.parse(gap.payload) })).toBeNull();
    expect(JSON.parse(gap.payload)).toMatchObject({ expected: { seq: expect.any(Number) }, found: null, headFile: join(home, 'audit.head') });
    first.close();

    // And after: the gap stays in the record, so verify keeps failing until someone decides.
    const after = await runCli(['audit', 'verify', '--home', home]);
    expect(after.code).toBe(1);
    expect(after.stdout).toMatch(/^Audit chain broken at row 1: history is missing before row 1/);

    // The operator starts a new chain on purpose: it verifies, and the next start is not flagged.
    const recovered = await runCli(['audit', 'recover', '--home', home, '--reason', 'audit.db deleted by a cleanup script']);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect((await runCli(['audit', 'verify', '--home', home])).stdout).toMatch(/^Audit chain intact: 1 events/);
    s = await serve(home);
    expect(await chainState(home)).toMatchObject({ state: 'verified' });
    expect((await hook(home)).decision).toBe('allow');
    await stop(s);
    expect((await runCli(['audit', 'verify', '--home', home])).code).toBe(0);
    expect((await doctorAudit(home)).audit.status).toBe('ok');
  }, 120_000);

  it('an older copy of the log put back (a restored backup) is flagged the same way', async () => {
    const home = newHome();
    const db = homePaths(home).auditDb;
    seed(home);
    const backup = join(home, 'backup.db');
    writeFileSync(backup, readFileSync(db));
    const s = await serve(home);
    expect((await hook(home)).decision).toBe('allow');
    await stop(s);
    renameSync(backup, db);
    const verify = await runCli(['audit', 'verify', '--home', home]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toMatch(/^Audit history missing: The audit log .*audit\.db ends at row 50, but the chain head kept beside it/);
  }, 60_000);
});

describe('side files SQLite cannot write', () => {
  it('an audit.db-shm the account cannot write stops the host at start with a sentence naming it', async () => {
    // Permissions do not bind root: as root the host runs as nobody, over a side file root owns.
    const asRoot = process.getuid?.() === 0;
    const top = tempDir('gatehouse-shm-');
    chmodSync(top, 0o755);
    const home = join(top, 'home');
    mkdirSync(home);
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    seed(home);
    const shm = `${homePaths(home).auditDb}-shm`;
    writeFileSync(shm, '');
    if (asRoot) for (const f of [home, join(home, 'settings.json'), homePaths(home).auditDb]) chownSync(f, 65534, 65534);
    chmodSync(shm, 0o444);
    const args = ['serve', '--home', home, '--port', '0'];
    const env = { ...process.env, HOME: home, GATEHOUSE_HOME: home, GATEHOUSE_NO_ELECTRON: '1', NO_COLOR: '1' };
    const child = asRoot ? spawn('runuser', ['-u', 'nobody', '--', process.execPath, cliPath, ...args], { cwd: repoRoot, env }) : spawn(process.execPath, [cliPath, ...args], { cwd: repoRoot, env });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain(`gatehouse: The audit log cannot be opened for writing: ${shm} is not readable and writable by this account (EACCES).`);
    expect(stderr).toContain('Fix the permissions or ownership');
  }, 60_000);
});
