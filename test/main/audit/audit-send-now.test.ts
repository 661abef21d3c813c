// A caller about to wait for its call's events (an agent's answer, a tool's start) hands them to an
// idle writer at once (AuditStore.sendNow through CallTrails.whenCallDurable), instead of at the
// end of the loop turn, which let the rest of the turn run first while the writer sat idle. Real
// store, real writer thread, a second connection to the file reading what is committed.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { CallTrails } from '../../../main/audit/call-trails.js';
import { tempDir } from '../../support/temp.js';

/** Reads the committed count of `type` events on another connection until it is `want`, within this turn. */
function committedWithinTurn(path: string, type: string, want: number, deadlineMs: number): boolean {
  const reader = new Database(path, { readonly: true });
  try {
    const count = reader.prepare('SELECT count(*) AS n FROM events WHERE type = ?');
    const end = Date.now() + deadlineMs;
    // The loop holds the turn on purpose: only a batch already handed to the writer can commit.
    while (Date.now() < end) if ((count.get(type) as { n: number }).n === want) return true;
    return false;
  } finally {
    reader.close();
  }
}

describe("a call's events when its caller waits for them", () => {
  it('go to an idle writer before the loop turn ends, and are durable when the wait resolves', async () => {
    const path = join(tempDir('gatehouse-send-now-'), 'audit.db');
    const store = new AuditStore({ path, log: () => {} });
    const trails = new CallTrails(store);
    try {
      trails.append({ type: 'call.received', actor: 'agent:a', payload: { call: 'c1', agent: 'a', tool: 'echo' } });
      const durable = trails.whenCallDurable('c1');
      expect(committedWithinTurn(path, 'call.received', 1, 10_000)).toBe(true);
      await durable;

      // Without a waiter, the batch still goes with the end of its turn (events of one turn share a commit).
      trails.append({ type: 'call.received', actor: 'agent:b', payload: { call: 'c2', agent: 'b', tool: 'echo' } });
      expect(committedWithinTurn(path, 'call.received', 2, 200)).toBe(false);
      await trails.whenCallDurable('c2');
      expect(committedWithinTurn(path, 'call.received', 2, 10_000)).toBe(true);
    } finally {
      store.close();
    }
  });
});
