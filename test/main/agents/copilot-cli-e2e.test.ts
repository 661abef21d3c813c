// End to end with the real GitHub Copilot CLI (@github/copilot, a devDependency; its native
// binary from the platform package): inside a network namespace with only loopback, a scripted
// mock of an OpenAI-compatible model API asks for one tool call per scenario; a real Gatehouse
// host supervises it through the files its own "write it for me" wrote (the preToolUse hook and
// the stdio MCP bridge); Copilot CLI runs in -p mode, offline. The work inside the namespace is
// test/support/copilot-e2e-runner.mjs; this file checks what reached the model (the tool result
// the mock received), what ran, and the host's audit log.
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cliPath, repoRoot } from '../../support/cli.js';
import { namespaceCommand, runInNamespace } from '../../support/netns.js';
import { tempDir } from '../../support/temp.js';

/** The native binary @github/copilot's npm-loader.js would start on this platform (the platform package exports it). */
function copilotBinary(): string | null {
  try {
    const file = createRequire(import.meta.url).resolve(`@github/copilot-${process.platform}-${process.arch}`);
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

interface Scenario {
  name: string;
  ms: number;
  code: number | null;
  sessionId: string | null;
  offered: string[];
  toolResult: string | null;
  marker: boolean;
  stderr: string;
  raw: string | null;
}

describe('the real GitHub Copilot CLI, supervised through the files Gatehouse writes', () => {
  it("lists Gatehouse's tools; a read goes through; a protected read is denied with the reason reaching the model; an inbox call approved by the operator runs and is reported; a named token files the calls under its agent; one nobody answers is withdrawn before Copilot CLI's timeout, and one whose Copilot CLI is killed at once; with the host down nothing runs", async (ctx) => {
    const copilot = copilotBinary();
    const ns = namespaceCommand();
    if (!copilot || 'why' in ns) {
      const why = !copilot ? `the GitHub Copilot CLI is not installed (npm install: @github/copilot-${process.platform}-${process.arch})` : (ns as { why: string }).why;
      console.log(`copilot-cli-e2e skipped: ${why}`);
      ctx.skip(why);
      return;
    }
    const root = tempDir('gatehouse-copilot-e2e-');
    const config = join(root, 'config.json');
    // Copilot CLI unpacks ≈235 MB into its package cache on a first run: one cache for every run.
    writeFileSync(config, JSON.stringify({ root, cli: cliPath, copilot, pkgCache: join(tmpdir(), 'gatehouse-copilot-pkg-cache') }));
    const run = await runInNamespace(ns.argv, join(repoRoot, 'test', 'support', 'copilot-e2e-runner.mjs'), config);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      home: string;
      gatehouseTools: string[];
      written: { hooks: { version: number; hooks: Record<string, { type: string; bash: string; timeoutSec: number }[]> }; mcp: { mcpServers: { gatehouse: { type: string; args: string[]; tools: string[] } } }; notes: string[] };
      approved: { call: { client: string; tool: string }; deadlineReason: string } | null;
      killed: { state: string; outcome: { reason: string } } | null;
      gone: { hookTimeoutS: number; rewritten: { hooks: { preToolUse: { timeoutSec: number; bash: string }[] } }; pending: { state: string; deadline: number; requestedAt: number; deadlineReason: string } | null; closed: unknown; lateApprove: string | null };
      scenarios: Scenario[];
    };
    const s = Object.fromEntries(report.scenarios.map((x) => [x.name, x])) as Record<string, Scenario>;

    // What "write it for me" wrote: one preToolUse hook failing closed, its own deadline 10 s inside timeoutSec, the reports after; the bridge with every tool.
    expect(report.written.hooks).toMatchObject({ version: 1, hooks: { preToolUse: [{ type: 'command', timeoutSec: 600, bash: expect.stringMatching(/^\S+ \S+gatehouse\.js hook --agent copilot .*--timeout 590 \|\| \{ .*exit 2; \}$/) }] } });
    expect(report.written.hooks.hooks.postToolUse).toEqual([expect.objectContaining({ bash: expect.stringMatching(/ hook --agent copilot --event postToolUse --home /) })]);
    expect(report.written.mcp.mcpServers.gatehouse).toMatchObject({ type: 'local', tools: ['*'], args: expect.arrayContaining(['mcp', '--home']) });
    // The console says where Copilot CLI fails open when it writes the hook.
    expect(report.written.notes.join(' ')).toMatch(/fails open/);

    for (const x of report.scenarios.filter((x) => x.name !== 'killed')) expect(x.code, `${x.name}: ${x.stderr}${x.raw ?? ''}`).toBe(0);
    // Copilot CLI offered the model Gatehouse's tools (through the stdio bridge, as gatehouse-<tool>) beside its own.
    expect(s.read!.offered).toContain('view');
    expect(report.gatehouseTools.length).toBeGreaterThan(0);
    expect(s.read!.offered).toEqual(expect.arrayContaining(report.gatehouseTools.map((t) => `gatehouse-${t}`)));

    // An ordinary read: no objection, Copilot CLI read it and the model got the content (also with a named token).
    expect(s.read!.toolResult).toContain('ordinary-notes-content');
    expect(s.named!.toolResult).toContain('ordinary-notes-content');

    // A protected read: blocked before it ran; the model read Gatehouse's reason, not the key.
    expect(s.protected!.toolResult).toMatch(/^Denied by preToolUse hook: .*builtin\.credentials\.ssh/);
    expect(s.protected!.toolResult).not.toMatch(/PRIVATE KEY|dummy/);

    // Waited in the inbox, filed under Copilot CLI; the operator approved it; it ran.
    expect(report.approved).toMatchObject({ call: { client: 'copilot', tool: 'Bash' }, deadlineReason: "the hook's own timeout" });
    expect(s.wait!.marker).toBe(true);
    expect(s.wait!.toolResult).toContain('approved-ran');

    // One deadline: the operator's 12 s timeoutSec kept, --timeout 8 derived; nobody answered the inbox,
    // and Gatehouse answered deny before Copilot CLI gave up on the hook (after which it would have
    // run the tool): the model read Gatehouse's reason, the tool did not run.
    const g = report.gone;
    expect(g.rewritten.hooks.preToolUse[0]).toMatchObject({ timeoutSec: 12, bash: expect.stringMatching(/ --timeout 8 \|\| \{/) });
    expect(s.gone!.marker).toBe(false);
    expect(s.gone!.toolResult).toMatch(/^Denied by preToolUse hook: .*the hook's own timeout ends at/);
    expect(s.gone!.ms).toBeLessThan(g.hookTimeoutS * 1000 + 10_000);
    expect(g.pending).toMatchObject({ state: 'pending', deadlineReason: "the hook's own timeout" });
    expect(g.pending!.deadline - g.pending!.requestedAt).toBeLessThan(g.hookTimeoutS * 1000);
    // Withdrawn as agent gone; approving it afterwards is refused.
    expect(g.closed).toMatchObject({ state: 'gone', outcome: { state: 'gone', reason: expect.stringContaining("the hook's own timeout ends at") } });
    expect(g.lateApprove).toMatch(/cannot be approved: its agent is gone .*did not run and never will/);

    // Copilot CLI killed while its call waited (the hook as first written, 590 s): the hook saw its
    // agent gone and closed its connection, so the call was withdrawn as agent gone, not at its
    // deadline, and never ran.
    expect(s.killed!.marker).toBe(false);
    expect(report.killed).toMatchObject({ state: 'gone', outcome: { reason: expect.stringMatching(/^Agent gone before an operator decided: /) } });

    // The host stopped: the hook denies (fails closed); the model is told why, nothing ran.
    expect(s.stopped!.toolResult).toMatch(/^Denied by preToolUse hook: Gatehouse is not running/);
    expect(s.stopped!.marker).toBe(false);

    // The audit log, read after the host stopped: filed under Copilot CLI's client name and its own session ids.
    const db = new Database(join(report.home, 'audit.db'), { readonly: true });
    try {
      const rows = (type: string) => (db.prepare('SELECT payload FROM events WHERE type = ? ORDER BY seq').all(type) as { payload: string }[]).map((r) => JSON.parse(r.payload) as Record<string, unknown>);
      const received = rows('call.received').filter((r) => r.source === 'hook');
      const decided = new Map(rows('call.decided').map((d) => [d.call, d as { decision: string; decider: { kind: string } }]));
      expect(received.map((r) => [r.tool, decided.get(r.call)?.decision, decided.get(r.call)?.decider.kind])).toEqual([
        ['Read', 'allow', 'autonomy'],
        ['Read', 'deny', 'rule'],
        ['Bash', 'allow', 'operator'],
        ['Read', 'allow', 'autonomy'],
        ['Bash', 'expired', 'error'],
        ['Bash', 'expired', 'error'],
      ]);
      expect(received.map((r) => r.client)).toEqual(Array(6).fill('copilot'));
      // Filed under the token's agent and Copilot CLI's own session id: "copilot-bot" for the hook given its named token.
      expect(received.slice(0, 5).map((r) => r.session)).toEqual(['read', 'protected', 'wait', 'named', 'gone'].map((n) => `${n === 'named' ? 'copilot-bot' : 'default'}/${s[n]!.sessionId}`));
      // Withdrawn as agent gone against its own call, once.
      expect(rows('approval.withdrawn').filter((w) => w.call === received[5]!.call)).toEqual([expect.objectContaining({ state: 'gone' })]);
      expect(received[3]!.agent).toBe('copilot-bot');
      // After the tool: the postToolUse reports of the two calls that ran, each linked to its call (the denied and expired ones get none).
      expect(rows('call.outcome').map((o) => [o.call, o.tool, o.outcome, o.decision])).toEqual([
        [received[0]!.call, 'Read', 'executed', 'allow'],
        [received[2]!.call, 'Bash', 'executed', 'allow'],
        [received[3]!.call, 'Read', 'executed', 'allow'],
      ]);
      expect(rows('call.bypassed')).toEqual([]);
    } finally {
      db.close();
    }
  }, 600_000);
});
