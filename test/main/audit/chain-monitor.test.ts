// The chain monitor on a real audit database: the live verifier keeps up with committed batches,
// a row edited behind the store's back turns the state broken at that row, and retention prunes
// an intact chain but never a broken one (the rows around a break are the evidence).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChainState } from '../../../shared/contract.js';
import { AuditStore, type RetentionPolicy } from '../../../main/audit/audit-store.js';
import { ChainMonitor } from '../../../main/audit/chain-monitor.js';
import { FakeTime } from '../../support/fake-time.js';
import { tempDir } from '../../support/temp.js';
import { eventually } from '../../support/wait.js';

function setup(retention: RetentionPolicy = {}) {
  const path = join(tempDir('gatehouse-chain-monitor-'), 'audit.db');
  const time = new FakeTime();
  const states: ChainState[] = [];
  let monitor: ChainMonitor | undefined;
  const store = new AuditStore({ path, clock: time, onCommit: () => monitor?.committed() });
  monitor = new ChainMonitor({ audit: store, clock: time, log: () => {}, changed: (s) => states.push(s), retention: () => retention, followDelayMs: 1 });
  const append = (n: number) => {
    for (let i = 0; i < n; i++) store.append({ type: 'call.received', actor: 'agent:a', payload: { i } });
    store.flush();
  };
  return { path, store, monitor, states, append };
}

describe('ChainMonitor', () => {
  it('follows committed batches with the verifier of the last full check', async () => {
    const { store, monitor, states, append } = setup();
    append(5);
    expect(monitor.verify()).toMatchObject({ state: 'verified', checked: 5, head: { seq: 5 } });
    append(3);
    await eventually(() => expect(monitor.state()).toMatchObject({ state: 'verified', checked: 8, head: { seq: 8 } }));
    // What was published is what a console asking now sees (plus the writer's backlog, read live).
    expect(monitor.state()).toEqual({ ...states.at(-1), unwritten: 0 });
    monitor.close();
    store.close();
  });

  it('reports a row edited behind the store as broken at that row, and retention then prunes nothing', () => {
    const { path, store, monitor, append } = setup({ maxEvents: 2 });
    append(6);
    const other = new Database(path);
    other.prepare("UPDATE events SET actor = 'someone-else' WHERE seq = 3").run();
    other.close();
    expect(monitor.verify()).toMatchObject({ state: 'broken', firstBad: { seq: 3 } });
    monitor.retain();
    expect(store.verify().firstBad).toMatchObject({ seq: 3 });
    expect((store.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(6);
    monitor.close();
    store.close();
  });

  it('prunes an intact chain by the retention in force and verifies again from the checkpoint', () => {
    const { store, monitor, append } = setup({ maxEvents: 4 });
    append(10);
    monitor.verify();
    monitor.retain();
    const first = (store.db.prepare('SELECT MIN(seq) AS s FROM events').get() as { s: number }).s;
    expect(first).toBeGreaterThan(1);
    expect(monitor.state()).toMatchObject({ state: 'verified', firstBad: null });
    monitor.close();
    store.close();
  });

  it('shows a write failure with the chain state until writes resume', () => {
    const { store, monitor, states } = setup();
    monitor.verify();
    monitor.writeState('the disk is full');
    expect(states.at(-1)).toMatchObject({ state: 'verified', writeError: 'the disk is full' });
    monitor.writeState(null);
    expect(monitor.state().writeError).toBeNull();
    monitor.close();
    store.close();
  });
});
