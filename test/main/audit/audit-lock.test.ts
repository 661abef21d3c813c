// Another process holding the audit database's write lock (#25 finding 4): a real `gatehouse
// serve` and a second real process (better-sqlite3, BEGIN IMMEDIATE) on the same file. The host's
// writer thread waits for the lock, not its event loop: the console's reads are answered while a
// call waits on the lock; the call is then denied with a sentence naming the lock; once the lock
// is released calls are answered again, the gap is on record and the chain verifies. No sleeps.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import type { ChainState } from '../../../shared/contract.js';
import { homePaths } from '../../../main/home.js';
import { connectHost } from '../../../main/cli/host-client.js';
import { repoRoot, runCli, startCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

/** A Claude Code PreToolUse hook call through the real `gatehouse hook` command. */
async function hook(home: string, id: string): Promise<{ decision: string; reason: string }> {
  const input = JSON.stringify({ session_id: 'lock-1', cwd: home, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/etc/hostname' }, tool_use_id: id });
  const out = await runCli(['hook', '--home', home], {}, input);
  expect(out.code, out.stderr).toBe(0);
  if (out.stdout.trim() === '') return { decision: 'allow', reason: '' };
  const o = (JSON.parse(out.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  return { decision: o.permissionDecision, reason: o.permissionDecisionReason };
}

/** Another program with the file open for writing: takes the write lock and holds it until told. */
function holdLock(db: string): { locked: Promise<void>; release: () => Promise<void> } {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    console.log('locked');
    process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script, db], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const locked = new Promise<void>((resolve, reject) => {
    lines.once('line', (l) => (l === 'locked' ? resolve() : reject(new Error(`locker said ${l}`))));
    child.once('exit', (code) => reject(new Error(`locker exited with ${code}`)));
  });
  return {
    locked,
    release: async () => {
      child.stdin.end('release\n');
      await exited;
    },
  };
}

describe('another process holds the audit log write lock', () => {
  it('keeps the console answering, denies the waiting call naming the lock, and recovers when it is released', { timeout: 60_000 }, async () => {
    const home = join(tempDir('gatehouse-lock-'), 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    const host = startCli(['serve', '--home', home, '--port', '0']);
    try {
      await host.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
      expect((await hook(home, 'tu-before')).decision).toBe('allow');
      const operator = await connectHost(home);
      try {
        const lock = holdLock(homePaths(home).auditDb);
        await lock.locked;
        let answered = false;
        const waiting = hook(home, 'tu-locked').then((r) => {
          answered = true;
          return r;
        });
        // The console keeps answering while the call's events wait on the lock: it sees them
        // waiting (the writer's backlog), which it could not if the host's event loop were held.
        let state = await operator.call('audit.chainState', {});
        while (!state.unwritten && !answered) state = await operator.call('audit.chainState', {});
        expect(state.unwritten).toBeGreaterThan(0);
        const events = await operator.call('audit.tail', { limit: 5 });
        expect(events.events.length).toBeGreaterThan(0);
        expect(answered).toBe(false);
        const denied = await waiting;
        expect(denied.decision).toBe('deny');
        expect(denied.reason).toMatch(/the audit log is locked by another process/);
        await lock.release();
        // Writes work again: the next call is answered, with no restart.
        expect((await hook(home, 'tu-after')).decision).toBe('allow');
        const after: ChainState = await operator.call('audit.chainState', {});
        expect(after.state).not.toBe('broken');
        expect(after.writeError ?? null).toBeNull();
      } finally {
        await operator.close();
      }
    } finally {
      host.child.kill('SIGTERM');
      await host.exited;
    }
    // The gap is in the chain itself, and the chain verifies.
    const db = new Database(homePaths(home).auditDb, { readonly: true });
    const resumed = db.prepare("SELECT payload FROM events WHERE type = 'audit.write-resumed'").all() as { payload: string }[];
    db.close();
    expect(resumed).toHaveLength(1);
    expect(JSON.parse(resumed[0]!.payload)).toMatchObject({ code: 'SQLITE_BUSY' });
    const verify = await runCli(['audit', 'verify', '--home', home]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });
});
