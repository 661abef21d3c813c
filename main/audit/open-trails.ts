// After a crash (SIGKILL, power loss), the calls the last run left open are closed at the next
// start, each with one event and the decision that was in force: a call judged or waiting with no
// result becomes `call.abandoned`, a tool that was running becomes `call.interrupted`. Without it
// the log kept open trails forever, and an abandoned call had no decision on record.
//
// Bounded: a run that stopped cleanly ends with `host.stopped`, and then nothing is read (one
// query). Otherwise only the crashed run is read, from its `host.started` on (found through the
// type index), and only the events a call's trail is made of.
import type { Database as Db } from 'better-sqlite3';

/** Why the call is closed: the same sentence on every closing event. */
export const CRASH_REASON = 'host stopped before the call finished';

export interface OpenTrail {
  call: string;
  agent: string | null;
  session: string | null;
  tool: string | null;
  /** The last decision recorded for it (null: it was still being judged). */
  decision: string | null;
  /** The tool was running (execution.started without its end): the plugin that ran it. */
  running: { plugin: string | null; tool: string | null } | null;
}

const TRAIL_TYPES = ['call.received', 'call.decided', 'call.result', 'call.abandoned', 'call.interrupted', 'call.lost', 'execution.started', 'execution.ended', 'approval.requested', 'approval.decided', 'approval.expired', 'approval.withdrawn'] as const;

/**
 * The calls the last run left open, when it did not stop cleanly (empty when it did). Calls that
 * waited for an operator are left out: the approval queue closes them from its own table at start
 * (ApprovalQueue.restore), with the same kind of event.
 */
export function openTrailsOfLastRun(db: Db): OpenTrail[] {
  const last = db.prepare('SELECT type FROM events ORDER BY seq DESC LIMIT 1').get() as { type: string } | undefined;
  if (!last || last.type === 'host.stopped') return [];
  const started = (db.prepare("SELECT MAX(seq) AS seq FROM events WHERE type = 'host.started'").get() as { seq: number | null }).seq ?? 0;
  const rows = db.prepare(`SELECT type, payload FROM events WHERE seq >= ? AND type IN (${TRAIL_TYPES.map(() => '?').join(', ')}) ORDER BY seq`).iterate(started, ...TRAIL_TYPES) as IterableIterator<{ type: string; payload: string }>;
  const open = new Map<string, OpenTrail>();
  const waited = new Set<string>();
  for (const row of rows) {
    const p = JSON.parse(row.payload) as Record<string, unknown>;
    const call = typeof p.call === 'string' ? p.call : null;
    if (call === null) continue;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    switch (row.type) {
      case 'call.received':
        open.set(call, { call, agent: str(p.agent), session: str(p.session), tool: str(p.tool), decision: null, running: null });
        break;
      case 'call.decided': {
        const t = open.get(call);
        if (!t) break;
        t.decision = str(p.decision);
        // Only an allowed call goes on (to run); any other decision is the call's last word.
        if (t.decision !== 'allow') open.delete(call);
        break;
      }
      case 'execution.started': {
        const t = open.get(call);
        if (t) t.running = { plugin: str(p.plugin), tool: str(p.tool) };
        break;
      }
      case 'execution.ended': {
        const t = open.get(call);
        if (t) t.running = null;
        break;
      }
      case 'approval.requested':
        waited.add(call);
        break;
      case 'approval.decided':
      case 'approval.expired':
      case 'approval.withdrawn':
        // Decided before the stop: what follows (a run, a result) says whether it is still open.
        waited.delete(call);
        break;
      default:
        // call.result, or already closed (an earlier start closed it, or it was lost).
        open.delete(call);
    }
  }
  return [...open.values()].filter((t) => !waited.has(t.call));
}

/** Why a call still open at a clean stop is closed (CallTrails.closeUnfinished). */
export const SHUTDOWN_REASON = 'the host shut down before the call finished';

/**
 * The closing event of an open trail: its type and payload. `how` says when it is written: at the
 * next start after a crash, or by the stopping host itself for the calls still in flight (one
 * shape for both, so a reader of the log finds every unfinished call closed the same way).
 */
export function closingEvent(t: OpenTrail, how: 'crash' | 'shutdown' = 'crash'): { type: 'call.abandoned' | 'call.interrupted'; payload: Record<string, unknown> } {
  const who = { call: t.call, agent: t.agent, session: t.session, tool: t.tool };
  const detail = how === 'crash' ? CRASH_REASON : SHUTDOWN_REASON;
  if (t.running) return { type: 'call.interrupted', payload: { ...who, plugin: t.running.plugin, decision: t.decision ?? 'allow', reason: detail, answered: false } };
  // Nothing ran on Gatehouse's say; a call still being judged was in force as a deny.
  return { type: 'call.abandoned', payload: { ...who, approval: null, decision: t.decision ?? 'deny', reason: how === 'crash' ? 'host stopped unexpectedly' : 'host shut down', detail, answered: false } };
}
