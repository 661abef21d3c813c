// The soak of `npm run soak` (bench/soak.ts), small: 30 seconds, 20 agents (16 MCP SDK clients,
// 4 HTTP hook clients) against a real `gatehouse serve` child in live mode, a scripted operator on
// the console WebSocket. Correctness only, never a time: every call the agents sent is in the
// audit log with a complete trail, nothing the agents or the operator were told is missing from
// it, the chain verifies (in-process and with `gatehouse audit verify`), the host stops cleanly,
// its RSS stays bounded, and it reports its event-loop lag.
import { describe, expect, it } from 'vitest';
import { formatReport, runSoak, soakProblems } from '../bench/soak.js';

describe('soak: 20 agents for 30 seconds on a real host', () => {
  it('loses no event, leaves no trail incomplete, keeps the chain and a bounded RSS', async () => {
    const report = await runSoak({ seconds: 30, agents: 20, live: true, thinkMs: 100 });
    const printed = formatReport(report);
    // The whole report in the failure message: what went wrong is in the numbers.
    expect(soakProblems(report, { maxRssGrowthMb: 300 }), printed).toEqual([]);
    expect(report.agents).toEqual({ mcp: 16, hook: 4 });
    // Every kind of call was made through both ingresses, and the operator both approved and denied.
    for (const kind of ['allow', 'deny', 'ask'] as const) expect(report.calls.byKind[kind], printed).toBeGreaterThan(0);
    expect(report.calls.bySource.mcp, printed).toBeGreaterThan(0);
    expect(report.calls.bySource.hook, printed).toBeGreaterThan(0);
    expect(report.operator.approved, printed).toBeGreaterThan(0);
    expect(report.operator.denied, printed).toBeGreaterThan(0);
    // The log holds exactly the calls the agents made: none missing, none invented.
    expect(report.audit.callsInLog, printed).toBe(report.calls.total);
    expect(report.audit.incompleteTrails, printed).toBe(0);
    expect(report.audit.chainOk, printed).toBe(true);
    expect(report.audit.cliVerify.code, printed).toBe(0);
    // The host measures its own event loop and reports it through health.list.
    expect(report.eventLoop, printed).not.toBeNull();
    expect(report.eventLoop!.maxMs, printed).toBeGreaterThanOrEqual(report.eventLoop!.p99Ms);
    expect(report.rssMb.end, printed).toBeLessThan(report.rssMb.start + 300);
  }, 180_000);
});
