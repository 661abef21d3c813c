// What the host prints while the audit log cannot be written: the first failed batch of a spell
// with its error, then nothing per batch, then one line when writes resume saying how many events
// were lost. The soak's disk-full phase printed 3,316 stack traces in five seconds. A real
// database; SQLite's real SQLITE_FULL, from max_page_count on the writer's connection.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { tempDir } from '../../support/temp.js';

describe('a spell of failed audit writes in the host log', () => {
  it('prints the first failure, not one per batch, and one line with the lost count when writes resume', async () => {
    const lines: string[] = [];
    const path = join(tempDir('gatehouse-failure-log-'), 'audit.db');
    const store = new AuditStore({ path, log: (m) => lines.push(m) });
    store.append({ type: 'call.received', actor: 'agent:a', payload: { i: 0 } });
    store.flush();
    const pages = Number(store.db.pragma('page_count', { simple: true }));
    store.queueWrite(`PRAGMA max_page_count = ${pages}`, []);
    // Five batches, one after another, each too big for the full disk.
    for (let i = 0; i < 5; i++) {
      const a = store.append({ type: 'call.received', actor: 'agent:a', payload: { big: 'x'.repeat(1_000_000), i } });
      store.flush();
      await expect(a.durable).rejects.toThrow(/full/);
    }
    expect(lines.filter((l) => l === 'audit batch failed to commit')).toHaveLength(1);

    store.queueWrite('PRAGMA max_page_count = 1073741823', []);
    const ok = store.append({ type: 'call.received', actor: 'agent:b', payload: {} });
    store.flush();
    await ok.durable;
    const resumed = lines.filter((l) => l.startsWith('audit log written again'));
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatch(/^audit log written again: 5 events could not be recorded since \d{4}-\d\d-\d\dT.* \(.*full.*\)$/);

    // A second spell is reported again.
    store.queueWrite(`PRAGMA max_page_count = ${Number(store.db.pragma('page_count', { simple: true }))}`, []);
    const again = store.append({ type: 'call.received', actor: 'agent:a', payload: { big: 'x'.repeat(1_000_000) } });
    store.flush();
    await expect(again.durable).rejects.toThrow(/full/);
    expect(lines.filter((l) => l === 'audit batch failed to commit')).toHaveLength(2);
    store.queueWrite('PRAGMA max_page_count = 1073741823', []);
    store.close();
  });
});
