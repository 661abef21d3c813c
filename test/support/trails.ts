// Checks every call's trail in an audit database file (issue #25): at most one decision, no event
// of a call without its call.received unless call.lost closed it, and every received call ends.
import Database from 'better-sqlite3';

/** What is wrong with the trails in the file, one line per call (empty when every trail holds). */
export function trailProblems(dbFile: string): string[] {
  // Read-write: a copy taken beside its WAL needs its -shm made (a read-only open cannot).
  const db = new Database(dbFile, { fileMustExist: true });
  const byCall = new Map<string, string[]>();
  try {
    for (const row of db.prepare('SELECT type, payload FROM events ORDER BY seq').iterate() as IterableIterator<{ type: string; payload: string }>) {
      const p = JSON.parse(row.payload) as Record<string, unknown>;
      if (typeof p.call !== 'string') continue;
      byCall.set(p.call, [...(byCall.get(p.call) ?? []), row.type === 'call.decided' ? `call.decided:${String(p.decision)}` : row.type]);
    }
  } finally {
    db.close();
  }
  const bad: string[] = [];
  for (const [call, types] of byCall) {
    const decisions = types.filter((t) => t.startsWith('call.decided'));
    const lost = types.filter((t) => t === 'call.lost').length;
    if (decisions.length > 1) bad.push(`${call}: ${decisions.length} decisions (${types.join(', ')})`);
    if (lost > 1) bad.push(`${call}: closed as lost ${lost} times`);
    if (!types.includes('call.received') && !lost) bad.push(`${call}: events without call.received (${types.join(', ')})`);
    const ends = ['call.result', 'call.lost', 'call.abandoned', 'call.interrupted'];
    if (types.includes('call.received') && !types.some((t) => ends.includes(t))) bad.push(`${call}: never ends (${types.join(', ')})`);
  }
  return bad;
}
