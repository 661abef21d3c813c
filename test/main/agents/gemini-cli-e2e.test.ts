// End to end with the real Gemini CLI (@google/gemini-cli, a devDependency): inside a network
// namespace with only loopback, a scripted mock of the Gemini API asks for one read_file call per
// scenario; a real Gatehouse host supervises it through the settings.json its own "write it for
// me" wrote (the stdio MCP bridge and the BeforeTool hook); Gemini CLI runs in -p mode. The work
// inside the namespace is test/support/gemini-e2e-runner.mjs; this file checks what reached the
// model (the functionResponse the mock received) and the host's audit log.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withAuditRows } from '../../support/audit-rows.js';
import { runAgentScenarios } from '../../support/netns.js';

function geminiBundle(): string | null {
  try {
    const file = join(dirname(createRequire(import.meta.url).resolve('@google/gemini-cli/package.json')), 'bundle', 'gemini.js');
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

interface Scenario {
  name: string;
  ms: number;
  code: number | null;
  marker: boolean;
  offered: string[];
  functionResponse: { name: string; response: Record<string, unknown> } | null;
  stderr: string;
  raw: string | null;
}

describe('the real Gemini CLI, supervised through the settings Gatehouse writes', () => {
  it("lists Gatehouse's tools; an ordinary read goes through; a protected read is denied with the reason reaching the model; a call waiting in the inbox is approved and runs, or withdrawn when Gemini CLI is gone; with the host down nothing is read", async (ctx) => {
    const run = await runAgentScenarios({ label: 'gemini-cli-e2e', key: 'gemini', agent: geminiBundle(), missing: 'the Gemini CLI is not installed (npm install: @google/gemini-cli)', runner: 'gemini-e2e-runner.mjs' });
    if ('skip' in run) return void ctx.skip(run.skip);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { home: string; gatehouseTools: string[]; written: { security: unknown; hooks: Record<'BeforeTool' | 'AfterTool', { matcher: string; hooks: { command: string; timeout: number }[] }[]>; mcpServers: { gatehouse: { trust: boolean; args: string[] } } }; requests: number; scenarios: Scenario[] };
    const s = Object.fromEntries(report.scenarios.map((x) => [x.name, x])) as Record<string, Scenario>;
    const said = (x: Scenario) => JSON.stringify(x.functionResponse);

    // What "write it for me" wrote: the user's own key kept, the hook failing closed with an explicit timeout, the bridge trusted.
    expect(report.written.security).toEqual({ auth: { selectedType: 'gemini-api-key' } });
    expect(report.written.hooks.BeforeTool[0]).toMatchObject({ matcher: '.*', hooks: [{ timeout: 600_000, command: expect.stringMatching(/^\S+ \S+gatehouse\.js hook --agent gemini-cli .*--timeout 590 \|\| \{ .*exit 2; \}$/) }] });
    expect(report.written.hooks.AfterTool[0]).toMatchObject({ matcher: '.*', hooks: [{ timeout: 30_000, command: expect.stringMatching(/hook --agent gemini-cli .*--timeout 20 /) }] });
    expect(report.written.mcpServers.gatehouse).toMatchObject({ trust: true, args: expect.arrayContaining(['mcp', '--home']) });

    // Gemini CLI offered the model Gatehouse's tools (through the stdio bridge) beside its own.
    for (const x of report.scenarios.filter((x) => x.name !== 'gone' && x.name !== 'launcher')) expect(x.code, `${x.name}: ${x.stderr}${x.raw ?? ''}`).toBe(0);
    expect(s.read!.offered).toContain('read_file');
    expect(report.gatehouseTools.length).toBeGreaterThan(0);
    expect(s.read!.offered.some((name) => report.gatehouseTools.some((t) => name.endsWith(t)))).toBe(true);

    // An ordinary read: no objection, Gemini CLI read it and the model got the content.
    expect(said(s.read!)).toContain('ordinary-notes-content');

    // A protected read: blocked before it ran; the model read Gatehouse's reason, not the key.
    expect(said(s.protected!)).toContain('builtin.credentials.ssh');
    expect(said(s.protected!)).toContain('Tool execution blocked');
    expect(said(s.protected!)).not.toMatch(/PRIVATE KEY|dummy/);

    // A shell command that writes waited in the inbox; the operator approved it; Gemini CLI ran it.
    expect(s.inbox!.marker, said(s.inbox!)).toBe(true);
    expect(s.stopped!.marker).toBe(false);
    // Gemini CLI killed while its call waited: the call was withdrawn, and never ran.
    expect(s.gone!.marker).toBe(false);
    expect(s.gone!.functionResponse).toBeNull();
    // Only its launcher killed: the relaunched Gemini CLI read the deny, and nothing ran.
    expect(s.launcher!.marker).toBe(false);
    expect(said(s.launcher!)).toContain('has exited');

    // The host stopped: the hook denies (fails closed); the model is told why, the file is not read.
    expect(said(s.stopped!)).toContain('Gatehouse is not running');
    expect(said(s.stopped!)).not.toContain('ordinary-notes-content');

    // The audit log, read after the host stopped, filed under the token's agent and Gemini CLI's session_id.
    withAuditRows(report.home, (rows) => {
      const received = rows('call.received').filter((r) => r.source === 'hook');
      const decided = new Map(rows('call.decided').map((d) => [d.call, d as { decision: string; decider: { kind: string } }]));
      // The five hook calls it saw (the stopped host saw none): two read_file calls judged as reads, the approved shell command, the two whose agent went.
      expect(received.map((r) => [r.tool, decided.get(r.call)?.decision, decided.get(r.call)?.decider.kind])).toEqual([
        ['Read', 'allow', 'autonomy'],
        ['Read', 'deny', 'rule'],
        ['Bash', 'allow', 'operator'],
        ['Bash', 'expired', 'error'],
        ['Bash', 'expired', 'error'],
      ]);
      // Withdrawn from the inbox as agent gone, against their calls, once each.
      expect(rows('approval.withdrawn')).toEqual([expect.objectContaining({ state: 'gone', call: received[3]!.call }), expect.objectContaining({ state: 'gone', call: received[4]!.call })]);
      expect(received.every((r) => String(r.session).startsWith('default/'))).toBe(true);
      // What ran was reported after it (AfterTool) and linked to the call Gatehouse judged.
      const outcomes = rows('call.outcome');
      const byCall = (tool: string) => received.find((r) => r.tool === tool && decided.get(r.call)?.decision === 'allow')?.call;
      expect(outcomes.find((o) => o.call === byCall('Bash'))).toMatchObject({ outcome: 'executed' });
      expect(outcomes.find((o) => o.call === byCall('Read'))).toMatchObject({ outcome: 'executed' });
      // Filed under Gemini CLI's own client name (the hook says whose it is), not Claude Code's.
      expect(received.map((r) => r.client)).toEqual(Array(5).fill('gemini-cli'));
    });
  }, 300_000);
});
