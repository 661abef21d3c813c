// End to end with the real Claude Code CLI (@anthropic-ai/claude-code, a devDependency): inside a
// network namespace with only loopback, so nothing can leave the machine, a scripted mock of the
// Messages API asks for one Bash call per scenario; a real Gatehouse host supervises it through
// the hook settings its own "write it for me" wrote; Claude Code runs in -p mode. The work inside
// the namespace is test/support/claude-e2e-runner.mjs; this file checks what it saw, the marker
// files the Bash calls would make, and the host's audit log.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cliPath, repoRoot } from '../../support/cli.js';
import { namespaceCommand, runInNamespace } from '../../support/netns.js';
import { tempDir } from '../../support/temp.js';

/** The native binary: the package's bin/claude.exe once its install script ran, else the platform package's own. */
function claudeBinary(): string | null {
  const require = createRequire(import.meta.url);
  const candidates: string[] = [];
  try {
    candidates.push(join(dirname(require.resolve('@anthropic-ai/claude-code/package.json')), 'bin', 'claude.exe'));
  } catch {
    // not installed
  }
  try {
    candidates.push(join(dirname(require.resolve(`@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`)), 'claude'));
  } catch {
    // no platform package
  }
  for (const c of candidates) {
    // The placeholder left when the install script did not run is small; the real binary is not.
    if (existsSync(c) && statSync(c).size > 1 << 20 && spawnSync(c, ['--version'], { timeout: 20_000 }).status === 0) return c;
  }
  return null;
}

interface Scenario {
  name: string;
  ms: number;
  marker: boolean;
  code: number | null;
  result: string | null;
  denials: { tool_name: string }[] | null;
  stderr: string;
}

/** The short-timeout scenario: the inbox item as it waited, as it was closed, and a late approval's refusal. */
interface TimeoutReport {
  hookTimeoutS: number;
  rewritten: { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> };
  pending: ApprovalItem | null;
  closed: ApprovalItem | null;
  lateApprove: string | null;
}
interface ApprovalItem {
  id: string;
  state: string;
  requestedAt: number;
  deadline: number;
  deadlineReason: string;
  decidedAt: number | null;
  outcome: { state: string; reason: string } | null;
}

describe('the real Claude Code CLI, supervised through the hooks Gatehouse writes', () => {
  it('denied, deferred, allowed, waiting for an operator, wrong token and stopped host (command form), denied and deferred (HTTP form), a short hook timeout nobody answers: what ran and what did not', async (ctx) => {
    const claude = claudeBinary();
    const ns = namespaceCommand();
    if (!claude || 'why' in ns) {
      const why = !claude ? 'the Claude Code CLI is not installed (npm install: @anthropic-ai/claude-code)' : (ns as { why: string }).why;
      console.log(`claude-code-e2e skipped: ${why}`);
      ctx.skip(why);
      return;
    }
    const root = tempDir('gatehouse-claude-e2e-');
    const config = join(root, 'config.json');
    writeFileSync(config, JSON.stringify({ root, cli: cliPath, claude }));
    const run = await runInNamespace(ns.argv, join(repoRoot, 'test', 'support', 'claude-e2e-runner.mjs'), config);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { timeout: TimeoutReport; written: { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> }; requests: number; streamed: number; scenarios: Scenario[]; home: string; bashrcAfter: string };
    const s = Object.fromEntries(report.scenarios.map((x) => [x.name, x])) as Record<string, Scenario>;
    const marker = (name: string) => existsSync(join(root, `marker-${name}`));

    // What "write it for me" wrote, and Claude Code used: absolute paths, fail-closed, explicit timeouts, reports.
    expect(Object.keys(report.written.hooks)).toEqual(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);
    expect(report.written.hooks.PreToolUse![0]!.hooks[0]).toMatchObject({ type: 'command', timeout: 600, command: expect.stringMatching(/^\/bin\/bash \S+gatehouse-hook\.sh .*--timeout 590 \|\| \{ .*exit 2; \}$/) });
    // Claude Code streamed its requests to the mock; nothing else was reachable.
    expect(report.streamed).toBeGreaterThan(0);

    // Denied by a built-in rule: the command did not run; the reason reached the model word for word.
    expect(s.deny!.marker).toBe(false);
    expect(marker('deny')).toBe(false);
    expect(s.deny!.result).toContain('builtin.credentials.ssh');

    // Autonomy alone: no decision, so Claude Code's own permission flow applied and, in -p, refused it.
    expect(s.defer!.marker).toBe(false);
    expect(s.defer!.result).toMatch(/needs approval|requires approval|permission/i);
    expect(s.defer!.result).not.toContain('Gatehouse');

    // Allowed: it ran, and its PostToolUse report is in the audit log against its call.
    expect(s.allow!.marker).toBe(true);
    expect(s.allow!.result).toContain('made-it');

    // Headless wait: the call waited in the inbox, the operator approved over the API, it ran.
    expect(s.wait!.marker).toBe(true);

    // Fail closed in the command form: a wrong token and a stopped host.
    expect(s['wrong-token']!.marker).toBe(false);
    expect(s['wrong-token']!.result).toContain('agent token');
    expect(s.stopped!.marker).toBe(false);
    expect(s.stopped!.result).toContain('Gatehouse is not running');

    // The HTTP form: a deny blocks; "no decision" ({"continue": true}) is accepted and Claude Code's own rules apply.
    expect(s['http-deny']!.marker).toBe(false);
    expect(s['http-deny']!.result).toContain('builtin.credentials.ssh');
    expect(s['http-defer']!.marker).toBe(false);
    expect(s['http-defer']!.result).toMatch(/needs approval|requires approval|permission/i);

    // One deadline (issue #21, behaviour 4): the operator set the hook's timeout to 12 s by hand and
    // ran "write it for me" again, which kept it and derived the command's --timeout from it. The
    // call waited in the inbox, nobody answered, and Gatehouse answered deny before Claude Code gave
    // up on the hook (after a hook timeout its own flow decides, without Gatehouse): Claude Code
    // reports Gatehouse's reason, the tool did not run.
    const t = report.timeout;
    expect(t.rewritten.hooks.PreToolUse![0]!.hooks[0]).toMatchObject({ type: 'command', timeout: 12, command: expect.stringMatching(/gatehouse-hook\.sh .*--timeout 8 \|\| \{ .*exit 2; \}$/) });
    expect(s.timeout!.marker).toBe(false);
    expect(marker('timeout')).toBe(false);
    // Claude Code still waits for this answer: it is not told "agent gone".
    expect(s.timeout!.result).toContain("Gatehouse (error: wait ran out: the hook's own timeout ends at");
    expect(s.timeout!.result).not.toMatch(/agent gone/i);
    // Not Claude Code's own permission flow, which is what decides after a hook that timed out.
    expect(s.timeout!.result).not.toMatch(/needs approval|requires approval|timed out/i);
    // Claude Code finished before its hook timeout would even have ended: Gatehouse answered first.
    expect(s.timeout!.ms).toBeLessThan(t.hookTimeoutS * 1000);
    // The inbox counted down to the hook's deadline (less the margin), not the 10-minute approval expiry.
    expect(t.pending).toMatchObject({ state: 'pending', deadlineReason: "the hook's own timeout" });
    expect(t.pending!.deadline - t.pending!.requestedAt).toBeGreaterThan(0);
    expect(t.pending!.deadline - t.pending!.requestedAt).toBeLessThan(t.hookTimeoutS * 1000);
    // Closed as agent gone, saying whose deadline it was; approving it afterwards is refused.
    expect(t.closed).toMatchObject({ state: 'gone', outcome: { state: 'gone', reason: expect.stringContaining("the hook's own timeout ends at") } });
    expect(t.lateApprove).toMatch(/cannot be approved: its agent is gone .*did not run and never will/);

    // Contained (issue #24): at full autonomy the project script ran (its marker is in the temp
    // folder, writable in the box), but the key was hidden and ~/.bashrc stayed as it was.
    expect(s.contained!.marker, s.contained!.stderr).toBe(true);
    expect(s.contained!.result).toContain('script-ran');
    expect(s.contained!.result).not.toMatch(/PRIVATE KEY|dummy/);
    expect(report.bashrcAfter).toBe('export E2E=1\n');

    // The audit log, read after the host stopped.
    const db = new Database(join(report.home, 'audit.db'), { readonly: true });
    try {
      const rows = (type: string) => (db.prepare('SELECT payload FROM events WHERE type = ? ORDER BY seq').all(type) as { payload: string }[]).map((r) => JSON.parse(r.payload) as Record<string, unknown>);
      const decided = rows('call.decided');
      const outcomes = rows('call.outcome');
      // deny, defer (autonomy allow), allow, wait (asked, then the operator's allow), wrong token (refused before any call).
      expect(decided.map((d) => [d.decision, (d.decider as { kind: string }).kind])).toEqual([
        ['deny', 'rule'],
        ['allow', 'autonomy'],
        ['allow', 'autonomy'],
        ['allow', 'operator'],
        ['deny', 'rule'],
        ['allow', 'autonomy'],
        ['expired', 'error'],
        ['allow', 'autonomy'],
      ]);
      expect(rows('call.result').every((r) => r.ranBy === 'agent' && r.executed === false)).toBe(true);
      // Exactly the three calls that ran reported back, each matched to its PreToolUse call.
      expect(outcomes).toHaveLength(3);
      expect(outcomes.map((o) => o.call)).toEqual([decided[2]!.call, decided[3]!.call, decided[7]!.call]);
      // Only the last one was answered with the box, and the log says so: the boxed command line
      // it was told to run (the check around the box from its file in the data folder: Claude Code
      // asks the user about a longer inline `sh -c` script that runs rm), and the report that it
      // ran contained.
      const contained = rows('call.contained');
      expect(contained).toEqual([expect.objectContaining({ call: decided[7]!.call, contained: true, box: 'bwrap', command: expect.stringMatching(/^\/bin\/sh \S*\/box\/box-check-[0-9a-f]{16}\.sh \S+ 0 \S+ \S+ (\S*\/box\/scope-[0-9a-f]{16} )?\/\S*bwrap .* -- \/bin\/sh -c '.*' gatehouse-box - '.*' '.*' \d+ .* \/bin\/(ba)?sh -c '?sh \.\/steal\.sh/s) })]);
      expect(outcomes.map((o) => o.contained)).toEqual([false, false, true]);
      expect(outcomes[0]).toMatchObject({ outcome: 'executed', tool: 'Bash', decision: 'allow', summary: expect.stringContaining('made-it') });
      expect(outcomes.every((o) => typeof o.toolUseId === 'string' && String(o.session).startsWith('default/'))).toBe(true);
      const requested = rows('approval.requested');
      expect(requested).toHaveLength(2);
      // The unanswered item of the short-timeout run: withdrawn as gone, against its call, once.
      expect(rows('approval.withdrawn')).toEqual([expect.objectContaining({ state: 'gone', call: decided[6]!.call, reason: expect.stringContaining("the hook's own timeout") })]);
      expect(rows('approval.decided').some((r) => r.call === decided[6]!.call)).toBe(false);
    } finally {
      db.close();
    }
    // Whole run (ten Claude Code sessions) well under two minutes.
    expect(report.scenarios.reduce((t, x) => t + x.ms, 0)).toBeLessThan(120_000);
  }, 180_000);
});
