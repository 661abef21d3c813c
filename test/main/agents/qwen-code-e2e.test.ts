// End to end with the real Qwen Code (@qwen-code/qwen-code, a devDependency): inside a network
// namespace with only loopback, a scripted mock of an OpenAI chat-completions API asks for one tool
// call per scenario; a real Gatehouse host supervises it through the settings.json its own "write
// it for me" wrote (the stdio MCP bridge and the PreToolUse / PostToolUse hooks); Qwen Code runs in
// -p mode. The work inside the namespace is test/support/qwen-e2e-runner.mjs; this file checks
// what reached the model (the tool message the mock received) and the host's audit log.
import { describe, expect, it } from 'vitest';
import { withAuditRows } from '../../support/audit-rows.js';
import { packageFile, runAgentScenarios } from '../../support/netns.js';

interface Scenario {
  name: string;
  ms: number;
  code: number | null;
  marker: boolean;
  offered: string[];
  toolResult: unknown;
  stderr: string;
  raw: string;
}

interface HookEntry {
  matcher: string;
  hooks: { command: string; timeout: number }[];
}

describe('the real Qwen Code, supervised through the settings Gatehouse writes', () => {
  it("lists Gatehouse's tools; an ordinary read goes through; a protected read is denied with the reason reaching the model; a call waiting in the inbox is approved and runs, or withdrawn when Qwen Code is gone; with the host down nothing is read", async (ctx) => {
    const run = await runAgentScenarios({ label: 'qwen-code-e2e', key: 'qwen', agent: packageFile('@qwen-code/qwen-code', 'cli.js'), missing: 'Qwen Code is not installed (npm install: @qwen-code/qwen-code)', runner: 'qwen-e2e-runner.mjs' });
    if ('skip' in run) return void ctx.skip(run.skip);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { home: string; gatehouseTools: string[]; written: { general: unknown; hooks: Record<'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure', HookEntry[]>; mcpServers: { gatehouse: { trust: boolean; alwaysLoadTools: boolean; args: string[] } } }; scenarios: Scenario[] };
    const s = Object.fromEntries(report.scenarios.map((x) => [x.name, x])) as Record<string, Scenario>;
    const said = (x: Scenario) => JSON.stringify(x.toolResult);

    // What "write it for me" wrote: the user's own setting kept, the hook failing closed with a timeout in seconds, the bridge trusted and loaded.
    expect(report.written.general).toEqual({ checkpointing: { enabled: false } });
    expect(report.written.hooks.PreToolUse[0]).toMatchObject({ matcher: '*', hooks: [{ timeout: 600, command: expect.stringMatching(/^\S+ \S+gatehouse\.js hook --agent qwen-code .*--timeout 590 \|\| \{ .*exit 2; \}$/) }] });
    expect(report.written.hooks.PostToolUse[0]).toMatchObject({ matcher: '*', hooks: [{ timeout: 30, command: expect.stringMatching(/hook --agent qwen-code .*--timeout 20$/) }] });
    expect(report.written.mcpServers.gatehouse).toMatchObject({ trust: true, alwaysLoadTools: true, args: expect.arrayContaining(['mcp', '--home']) });

    // Qwen Code offered the model Gatehouse's tools (through the stdio bridge) beside its own.
    for (const x of report.scenarios.filter((x) => x.name !== 'gone' && x.name !== 'launcher')) expect(x.code, `${x.name}: ${x.stderr}${x.raw}`).toBe(0);
    expect(s.read!.offered).toContain('read_file');
    expect(report.gatehouseTools.length).toBeGreaterThan(0);
    for (const t of report.gatehouseTools) expect(s.read!.offered).toContain(`mcp__gatehouse__${t}`);

    // An ordinary read: no objection, Qwen Code read it and the model got the content.
    expect(said(s.read!)).toContain('ordinary-notes-content');

    // A protected read: blocked before it ran; the model read Gatehouse's reason, not the key.
    expect(said(s.protected!)).toContain('builtin.credentials.ssh');
    expect(said(s.protected!)).not.toMatch(/PRIVATE KEY|dummy/);

    // A shell command that writes waited in the inbox; the operator approved it; Qwen Code ran it.
    expect(s.inbox!.marker, said(s.inbox!)).toBe(true);
    expect(s.stopped!.marker).toBe(false);
    // Qwen Code killed while its call waited: the call was withdrawn, and never ran.
    expect(s.gone!.marker).toBe(false);
    expect(s.gone!.toolResult).toBeNull();
    // Only its launcher killed: the relaunched Qwen Code read the deny, and nothing ran.
    expect(s.launcher!.marker).toBe(false);
    expect(said(s.launcher!)).toContain('has exited');

    // The host stopped: the hook denies (fails closed); the model is told why, the file is not read.
    expect(said(s.stopped!)).toContain('Gatehouse is not running');
    expect(said(s.stopped!)).not.toContain('ordinary-notes-content');

    // The audit log, read after the host stopped.
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
      // Filed under Qwen Code's own client name and its session_id.
      expect(received.map((r) => r.client)).toEqual(Array(5).fill('qwen-code'));
      expect(received.every((r) => /^default\/[0-9a-f-]{36}$/.test(String(r.session)))).toBe(true);
      // What ran was reported after it (PostToolUse), linked to the judged call by Qwen Code's own tool_use_id.
      const outcomes = rows('call.outcome');
      const byCall = (tool: string) => received.find((r) => r.tool === tool && decided.get(r.call)?.decision === 'allow')?.call;
      expect(outcomes.find((o) => o.call === byCall('Bash'))).toMatchObject({ outcome: 'executed' });
      expect(outcomes.find((o) => o.call === byCall('Read'))).toMatchObject({ outcome: 'executed' });
    });
  }, 300_000);
});
