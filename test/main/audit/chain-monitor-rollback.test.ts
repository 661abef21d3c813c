// The chain monitor's live verifier across a batch that failed (issue #25, found on a real full
// disk: test/main/audit/disk-full.test.ts). A failed batch is rolled back and its seqs are reused by the next
// events; a verifier that had read its rows reported the log "altered" (a false alarm of tampering
// on every console). The store's writer thread commits on its own connection, so the monitor's
// connection never sees a row before it commits. A real database; SQLite's real SQLITE_FULL, from
// max_page_count on the writer's connection.
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { ChainMonitor } from '../../../main/audit/chain-monitor.js';
import { tempDir } from '../../support/temp.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ChainMonitor after a rolled-back batch', () => {
  it('does not report the log altered when a batch was rolled back and its seqs reused', async () => {
    // Only the follow timer is controlled: the store's commits stay on their own schedule (flushed by hand here).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let monitor: ChainMonitor | undefined;
    const store = new AuditStore({ path: join(tempDir('gatehouse-rollback-'), 'audit.db'), log: () => {}, onCommit: () => monitor?.committed() });
    monitor = new ChainMonitor({ audit: store, clock: { now: () => Date.now() }, log: () => {}, changed: () => {}, retention: () => ({}), followDelayMs: 1 });
    store.append({ type: 'call.received', actor: 'agent:a', payload: { i: 0 } });
    store.flush();
    expect(monitor.verify()).toMatchObject({ state: 'verified', head: { seq: 1 } });
    store.append({ type: 'call.received', actor: 'agent:a', payload: { i: 1 } });
    store.flush();
    vi.advanceTimersByTime(5);

    // The disk fills: the next batch cannot be written and is rolled back whole.
    const pages = Number(store.db.pragma('page_count', { simple: true }));
    store.queueWrite(`PRAGMA max_page_count = ${pages}`, []);
    const lost = store.append({ type: 'call.received', actor: 'agent:a', payload: { big: 'x'.repeat(2_000_000) } });
    store.flush();
    await expect(lost.durable).rejects.toThrow(/full/);
    expect(store.writeError()).toMatch(/disk full/);
    vi.advanceTimersByTime(5);
    // Space returns: other events take the same seqs.
    store.queueWrite('PRAGMA max_page_count = 1073741823', []);
    for (let i = 0; i < 3; i++) store.append({ type: 'call.received', actor: 'agent:a', payload: { other: i } });
    store.flush();
    vi.advanceTimersByTime(5);
    expect(store.verify()).toMatchObject({ ok: true });
    expect(monitor.state()).toMatchObject({ state: 'verified', firstBad: null });
    monitor.close();
    store.close();
  });
});
