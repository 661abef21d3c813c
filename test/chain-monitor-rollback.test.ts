// The chain monitor's live verifier across a batch that failed after the monitor read it (issue
// #25, found on a real full disk: test/disk-full.test.ts). The store inserts rows as they are
// appended and its own connection sees them before they commit; a batch then rolled back (SQLite's
// real SQLITE_FULL, from max_page_count) has its seqs reused by the next events. A real database.
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditStore } from '../main/audit/audit-store.js';
import { ChainMonitor } from '../main/audit/chain-monitor.js';
import { tempDir } from './support/temp.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ChainMonitor after a rolled-back batch', () => {
  it('does not report the log altered when rows it could see were rolled back and their seqs reused', () => {
    // Only the follow timer is controlled: the store's commits stay on their own schedule (flushed by hand here).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let monitor: ChainMonitor | undefined;
    const store = new AuditStore({ path: join(tempDir('gatehouse-rollback-'), 'audit.db'), log: () => {}, onCommit: (lastSeq) => monitor?.committed(lastSeq) });
    monitor = new ChainMonitor({ audit: store, clock: { now: () => Date.now() }, log: () => {}, changed: () => {}, retention: () => ({}), followDelayMs: 1 });
    store.append({ type: 'call.received', actor: 'agent:a', payload: { i: 0 } });
    store.flush();
    expect(monitor.verify()).toMatchObject({ state: 'verified', head: { seq: 1 } });

    // A batch opens (row 2 inserted, not committed) while the monitor follows the last commit.
    store.append({ type: 'call.received', actor: 'agent:a', payload: { i: 1 } });
    store.append({ type: 'call.received', actor: 'agent:a', payload: { i: 1.5 } });
    store.flush();
    store.append({ type: 'call.received', actor: 'agent:a', payload: { i: 2 } });
    vi.advanceTimersByTime(5);
    // The disk fills: the next event cannot be inserted, and the whole open batch is rolled back.
    const pages = Number(store.db.pragma('page_count', { simple: true }));
    store.db.pragma(`max_page_count = ${pages}`);
    store.append({ type: 'call.received', actor: 'agent:a', payload: { big: 'x'.repeat(2_000_000) } });
    expect(store.writeError()).toMatch(/disk full/);
    // Space returns: other events take the same seqs.
    store.db.pragma('max_page_count = 1073741823');
    for (let i = 0; i < 3; i++) store.append({ type: 'call.received', actor: 'agent:a', payload: { other: i } });
    store.flush();
    vi.advanceTimersByTime(5);
    expect(store.verify()).toMatchObject({ ok: true });
    expect(monitor.state()).toMatchObject({ state: 'verified', firstBad: null });
    monitor.close();
    store.close();
  });
});
