// The Audit view's waterfall model (renderer/src/lib/call-waterfall.ts): how a session's events
// become bars, steps and outcomes for the call shapes the e2e suite does not reach — a Claude
// Code call run by the agent itself, an approval that expired, a dry-run call, an agent that
// left, terminal output of no call — and the axis. Events are written as the host writes them
// (docs/audit-events.md).
import { describe, expect, it } from 'vitest';
import type { AuditEventView } from '../../../shared/contract.ts';
import { axisTicks, buildWaterfall, callOutcome, formatOffset, formatSpan } from '../../../renderer/src/lib/call-waterfall.ts';

let seq = 0;
const ev = (ts: number, type: string, payload: Record<string, unknown>): AuditEventView => ({ seq: ++seq, ts, type, actor: 'host', payload, hash: `h${seq}` });

describe('buildWaterfall', () => {
  it('a hook call the agent ran itself: the run is its reported duration, ending at call.outcome', () => {
    const c = 'call-hook';
    const w = buildWaterfall([
      ev(1000, 'call.received', { call: c, tool: 'Bash', agent: 'claude', session: 's' }),
      ev(1004, 'call.extracted', { call: c }),
      ev(1010, 'call.decided', { call: c, decision: 'allow' }),
      ev(1011, 'call.result', { call: c, decision: 'allow', executed: false, ranBy: 'agent', mode: 'live' }),
      ev(1500, 'call.outcome', { call: c, outcome: 'executed', decision: 'allow', durationMs: 300 }),
    ]);
    expect(w.calls).toHaveLength(1);
    const bar = w.calls[0]!;
    expect(bar.segments).toEqual([
      { step: 'extraction', start: 1000, end: 1004 },
      { step: 'policy', start: 1004, end: 1010 },
      { step: 'run', start: 1200, end: 1500 },
    ]);
    expect(bar.outcome).toEqual({ label: 'ran (agent ran it)', tone: 'ok' });
    expect([bar.start, bar.end, bar.decidedAt, bar.ranAt, bar.finishedAt]).toEqual([1000, 1500, 1010, 1200, 1500]);
  });

  it('an approval nobody decided: the wait runs to the expiry, no run, outcome expired', () => {
    const c = 'call-exp';
    const w = buildWaterfall([
      ev(0, 'call.received', { call: c, tool: 'write', agent: 'a' }),
      ev(2, 'call.extracted', { call: c }),
      ev(3, 'approval.requested', { call: c }),
      ev(600_000, 'approval.expired', { call: c, state: 'expired' }),
      ev(600_001, 'call.decided', { call: c, decision: 'expired' }),
      ev(600_002, 'call.result', { call: c, decision: 'expired', executed: false, mode: 'live' }),
    ]);
    const bar = w.calls[0]!;
    expect(bar.segments.map((s) => [s.step, s.start, s.end])).toEqual([
      ['extraction', 0, 2],
      ['policy', 2, 3],
      ['approval', 3, 600_000],
    ]);
    expect(bar.ranAt).toBeNull();
    expect(bar.outcome).toEqual({ label: 'expired', tone: 'warn' });
  });

  it('a dry-run call, a call whose agent left, and terminal output of no call', () => {
    const w = buildWaterfall([
      ev(10, 'call.received', { call: 'dry', tool: 'hello' }),
      ev(11, 'call.decided', { call: 'dry', decision: 'allow' }),
      ev(12, 'call.result', { call: 'dry', decision: 'allow', executed: false, mode: 'dry-run' }),
      ev(20, 'call.received', { call: 'gone', tool: 'shell' }),
      ev(21, 'approval.requested', { call: 'gone' }),
      ev(25, 'pty.transcript', { id: 't1', data: 'hello' }),
      ev(30, 'approval.withdrawn', { call: 'gone', state: 'gone' }),
    ]);
    expect(w.calls.map((b) => [b.call, b.outcome.label])).toEqual([
      ['dry', 'allowed, not run (dry-run)'],
      ['gone', 'agent gone'],
    ]);
    expect(w.calls[1]!.segments.find((s) => s.step === 'approval')).toEqual({ step: 'approval', start: 21, end: 30 });
    expect(w.others.map((e) => e.type)).toEqual(['pty.transcript']);
    expect([w.t0, w.t1]).toEqual([10, 30]);
  });

  it('bars are in the order calls started, whatever order the events come in', () => {
    const a = ev(5, 'call.received', { call: 'a' });
    const b = ev(1, 'call.received', { call: 'b' });
    const w = buildWaterfall([a, b].reverse());
    expect(w.calls.map((c) => c.call)).toEqual(['b', 'a']);
  });
});

describe('callOutcome from part of a call (grouped search results)', () => {
  it('a denial, a run that failed, and a call still waiting', () => {
    expect(callOutcome([ev(1, 'call.decided', { call: 'x', decision: 'deny' })])).toEqual({ label: 'denied', tone: 'danger' });
    expect(callOutcome([ev(1, 'call.result', { call: 'x', decision: 'allow', executed: true, ok: false })])).toEqual({ label: 'failed', tone: 'danger' });
    expect(callOutcome([ev(1, 'approval.requested', { call: 'x' })])).toEqual({ label: 'waiting for an operator', tone: 'warn' });
    // The agent ran it although Gatehouse said no: that is the alarm.
    expect(callOutcome([ev(1, 'call.outcome', { call: 'x', outcome: 'executed', decision: 'deny' })]).tone).toBe('danger');
  });
});

describe('the axis', () => {
  it('round steps from zero to the span', () => {
    expect(axisTicks(847)).toEqual([0, 200, 400, 600, 800]);
    expect(axisTicks(10_000)).toEqual([0, 2000, 4000, 6000, 8000, 10_000]);
    expect(axisTicks(0)).toEqual([0]);
  });

  it('offsets and spans read at a glance', () => {
    expect([formatOffset(0), formatOffset(250), formatOffset(1250), formatOffset(125_000)]).toEqual(['+0 ms', '+250 ms', '+1.25 s', '+2:05']);
    expect([formatSpan(3), formatSpan(1200), formatSpan(125_000)]).toEqual(['3 ms', '1.20 s', '2:05 min']);
  });
});
