// End to end with the real opencode (opencode-ai, a devDependency): inside a network namespace
// with only loopback, a scripted mock of an OpenAI-compatible API asks for one tool call per step;
// a real Gatehouse host supervises opencode through the plugin and opencode.json its own "write
// it for me" wrote; opencode runs in `opencode run` mode. The work inside the namespace is
// test/support/opencode-e2e-runner.mjs; this file checks what reached the model (the tool results
// the mock received), the markers the commands made, and the host's audit log.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cliPath, repoRoot } from '../../support/cli.js';
import { namespaceCommand, packageFile, runInNamespace } from '../../support/netns.js';
import { tempDir } from '../../support/temp.js';

interface Scenario {
  name: string;
  ms: number;
  code: number | null;
  offered: string[];
  results: string[];
  parts: { tool: string; status: string; error: string | null }[];
  pending: { tool: string; client: string | null; session: string | null; deadlineReason: string }[];
  markers: Record<string, boolean>;
  stderr: string;
  raw: string | null;
}

describe('the real opencode, supervised through the plugin Gatehouse writes', () => {
  it("lists Gatehouse's tools; a read goes through; a protected read is denied with the reason reaching the model; an inbox call is approved and runs; with the host down nothing runs; a plugin that does not load fails open", async (ctx) => {
    const opencode = packageFile('opencode-ai', 'bin', 'opencode.exe');
    const ns = namespaceCommand();
    if (!opencode || 'why' in ns) {
      const why = !opencode ? 'opencode is not installed (npm install: opencode-ai, whose postinstall places the binary)' : (ns as { why: string }).why;
      console.log(`opencode-e2e skipped: ${why}`);
      ctx.skip(why);
      return;
    }
    const root = tempDir('gatehouse-opencode-e2e-');
    const config = join(root, 'config.json');
    writeFileSync(config, JSON.stringify({ root, cli: cliPath, opencode }));
    const run = await runInNamespace(ns.argv, join(repoRoot, 'test', 'support', 'opencode-e2e-runner.mjs'), config);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      home: string;
      gatehouseTools: string[];
      written: { config: Record<string, unknown> & { mcp: { gatehouse: { type: string; command: string[]; timeout: number } } }; plugin: string };
      verified: boolean;
      preview: { notes: string[] };
      scenarios: Scenario[];
    };
    const s = Object.fromEntries(report.scenarios.map((x) => [x.name, x])) as Record<string, Scenario>;
    for (const x of report.scenarios) expect(x.code, `${x.name}: ${x.stderr}${x.raw ?? ''}`).toBe(0);

    // What "write it for me" wrote: the user's own model kept, the stdio bridge with a timeout above
    // the approval expiry, the plugin naming the hook command by absolute path; verify agrees.
    expect(report.written.config.model).toBe('mock/mock-model');
    expect(report.written.config.mcp.gatehouse).toMatchObject({ type: 'local', command: expect.arrayContaining(['mcp', '--home']), timeout: expect.any(Number) });
    expect(report.written.config.mcp.gatehouse.timeout).toBeGreaterThan(600_000);
    expect(report.written.plugin).toMatch(/"hook","--agent","opencode","--home",".*","--timeout","590"/);
    expect(report.verified).toBe(true);
    // The console said, before writing, that opencode fails open when the plugin does not load.
    expect(report.preview.notes.join(' ')).toMatch(/runs every tool when the plugin file fails to load/);

    // opencode offered the model Gatehouse's tools (through the stdio bridge, as gatehouse_<tool>) beside its own.
    const sup = s.supervised!;
    expect(sup.offered).toEqual(expect.arrayContaining(['read', 'bash']));
    expect(report.gatehouseTools.length).toBeGreaterThan(0);
    expect(sup.offered.some((name) => report.gatehouseTools.some((t) => name === `gatehouse_${t}`))).toBe(true);

    // An ordinary read: no objection ("none"), opencode read it and the model got the content.
    expect(sup.results[0]).toContain('ordinary-notes-content');
    // A protected read: blocked before it ran; the model read Gatehouse's reason, not the key.
    expect(sup.results[1]).toContain('builtin.credentials.ssh');
    expect(sup.results[1]).not.toMatch(/PRIVATE KEY|dummy/);
    // A command that writes: it waited in the inbox (under opencode's name and session, with the
    // plugin's deadline), the operator approved it, and it ran.
    expect(sup.pending).toEqual([expect.objectContaining({ tool: 'Bash', client: 'opencode', session: expect.stringMatching(/^default\/ses_/) })]);
    expect(sup.markers.approved).toBe(true);
    expect(sup.parts.map((p) => [p.tool, p.status])).toEqual([
      ['read', 'completed'],
      ['read', 'error'],
      ['bash', 'completed'],
    ]);

    // The host stopped: the plugin's command denies (fails closed); the model is told why, nothing is read or run.
    expect(s.stopped!.results).toHaveLength(2);
    for (const r of s.stopped!.results) expect(r).toContain('Gatehouse is not running');
    expect(s.stopped!.results.join(' ')).not.toContain('ordinary-notes-content');
    expect(s.stopped!.markers.stopped).toBe(false);

    // The plugin file does not load: opencode runs the tool anyway (its fail-open, named in the limits).
    expect(s.broken!.parts.map((p) => [p.tool, p.status])).toEqual([['bash', 'completed']]);
    expect(s.broken!.markers.broken).toBe(true);

    // The audit log, read after the host stopped: every call filed under opencode's own client name
    // and session, judged as the tool it is; the reports of what ran matched to their calls.
    const db = new Database(join(report.home, 'audit.db'), { readonly: true });
    try {
      const rows = (type: string) => (db.prepare('SELECT payload FROM events WHERE type = ? ORDER BY seq').all(type) as { payload: string }[]).map((r) => JSON.parse(r.payload) as Record<string, unknown>);
      const received = rows('call.received').filter((r) => r.source === 'hook');
      const decided = new Map(rows('call.decided').map((d) => [d.call, d as { decision: string; decider: { kind: string } }]));
      expect(received.map((r) => [r.tool, decided.get(r.call)?.decision, decided.get(r.call)?.decider.kind])).toEqual([
        ['Read', 'allow', 'autonomy'],
        ['Read', 'deny', 'rule'],
        ['Bash', 'allow', 'operator'],
      ]);
      expect(received.map((r) => r.client)).toEqual(['opencode', 'opencode', 'opencode']);
      expect(new Set(received.map((r) => r.session)).size).toBe(1);
      expect(String(received[0]!.session)).toMatch(/^default\/ses_/);
      const outcomes = rows('call.outcome');
      expect(outcomes.map((o) => o.call)).toEqual(expect.arrayContaining([received[0]!.call, received[2]!.call]));
    } finally {
      db.close();
    }
  }, 400_000);
});
