// End to end with the real Codex CLI (@openai/codex, a devDependency): inside a network namespace
// with only loopback, so nothing can leave the machine, a scripted mock of the OpenAI Responses API
// makes one MCP tool call per scenario; a real Gatehouse host supervises it through the
// config.toml table its own "Write it for Codex" wrote (the stdio bridge); Codex runs as
// `codex exec`. The work inside the namespace is test/support/codex-e2e-runner.mjs; this file
// checks what the mock saw, the marker files the shell calls would make, the inbox and the audit log.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { cliPath, repoRoot } from '../../support/cli.js';
import { namespaceCommand, runInNamespace } from '../../support/netns.js';
import { tempDir } from '../../support/temp.js';

/** The native binary from the platform package (@openai/codex-<platform>-<arch>), as its own launcher finds it. */
function codexBinary(): string | null {
  const require = createRequire(import.meta.url);
  let vendor: string;
  try {
    vendor = join(dirname(require.resolve(`@openai/codex-${process.platform}-${process.arch}/package.json`)), 'vendor');
  } catch {
    return null;
  }
  for (const triple of existsSync(vendor) ? readdirSync(vendor) : []) {
    const meta = join(vendor, triple, 'codex-package.json');
    if (!existsSync(meta)) continue;
    const bin = join(vendor, triple, (JSON.parse(readFileSync(meta, 'utf8')) as { entrypoint: string }).entrypoint);
    if (existsSync(bin) && spawnSync(bin, ['--version'], { timeout: 20_000 }).status === 0) return bin;
  }
  return null;
}

interface Scenario {
  name: string;
  ms: number;
  marker: boolean;
  code: number | null;
  events: { type: string; item?: { type: string; status?: string; error?: { message: string } | null } }[];
  stderr: string;
  requests: number;
  firstTools: { type: string; name: string }[] | null;
  output: { output: string | { type: string; text: string }[] } | null;
  after: { item: { state: string; outcome: { reason: string } }; late: string } | null;
}
interface Item {
  state: string;
  outcome: { state: string; decider: { kind: string; message?: string }; reason: string } | null;
  deadlineReason?: string;
}

/** The tool's output as Codex sent it back to the model, as one string. */
const outputText = (s: Scenario) => {
  const o = s.output?.output;
  return o === undefined ? '' : typeof o === 'string' ? o : o.map((p) => p.text).join('\n');
};

describe('the real Codex CLI, supervised through the config Gatehouse writes', () => {
  it('lists the tools, runs an allowed call, waits for an approval, expires before its own timeout, and a call cancelled at its timeout is agent gone and never runs', async (ctx) => {
    const codex = codexBinary();
    const ns = namespaceCommand();
    if (!codex || 'why' in ns) {
      const why = !codex ? `the Codex CLI's native binary is not installed (npm install: @openai/codex and its @openai/codex-${process.platform}-${process.arch} package)` : (ns as { why: string }).why;
      console.log(`codex-e2e skipped: ${why}`);
      ctx.skip(why);
      return;
    }
    const root = tempDir('gatehouse-codex-e2e-');
    const config = join(root, 'config.json');
    writeFileSync(config, JSON.stringify({ root, cli: cliPath, codex, helloDir: join(repoRoot, 'examples', 'plugins', 'hello') }));
    const run = await runInNamespace(ns.argv, join(repoRoot, 'test', 'support', 'codex-e2e-runner.mjs'), config);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { written: string; writtenHttp: string; home: string; requests: number; others: string[]; scenarios: Scenario[]; items: Record<string, Item | null> };
    const s = Object.fromEntries(report.scenarios.map((x) => [x.name, x])) as Record<string, Scenario>;
    const marker = (name: string) => existsSync(join(root, 'project', `marker-${name}`));

    // What "Write it for Codex" wrote, into Codex's own file: the stdio bridge with absolute
    // paths, required, Gatehouse as the approver, a timeout above the approval deadline; the
    // provider and telemetry settings already there stayed.
    const written = parseToml(report.written) as { mcp_servers: Record<string, unknown> };
    expect(written.mcp_servers.gatehouse).toEqual({
      command: expect.stringMatching(/node/),
      args: [cliPath, 'mcp', '--home', report.home],
      required: true,
      default_tools_approval_mode: 'approve',
      tool_timeout_sec: 635,
    });
    expect(written).toMatchObject({ model_provider: 'mock', analytics: { enabled: false } });
    // Codex talked to the mock only, and only to the Responses endpoint.
    expect(report.others).toEqual([]);

    // Codex lists Gatehouse's tools over MCP: they are in the model's first request of every run
    // that started (required = true: Codex waits for the list before the first turn).
    for (const x of report.scenarios.filter((x) => x.name !== 'stopped')) {
      expect(x.firstTools?.map((t) => t.name), x.name).toEqual(expect.arrayContaining(['hello', 'shell']));
    }

    // A call Gatehouse allows (read-only hello, on the auto-approve list): no prompt from Codex,
    // and its result reaches the model's next request.
    expect(s.read!.code).toBe(0);
    expect(s.read!.requests).toBe(2);
    expect(outputText(s.read!)).toContain('Hello, Ada.');

    // A call that waits for approval: the operator approved it over the API, it ran, and Codex
    // received its output.
    expect(report.items.approve).toMatchObject({ state: 'approved', outcome: { decider: { kind: 'operator' } } });
    expect(s.approve!.marker).toBe(true);
    expect(marker('approve')).toBe(true);
    expect(outputText(s.approve!)).toContain('approved-ran');

    // Gatehouse knows Codex's timeout (8 s): the item closes as agent gone 5 s before it, and the
    // model reads Gatehouse's answer, not a timeout of Codex's.
    expect(report.items.expire).toMatchObject({ state: 'gone', deadlineReason: "codex-mcp-client's tool timeout (8 s)" });
    expect(outputText(s.expire!)).toContain('Gatehouse: expired.');
    expect(outputText(s.expire!)).not.toContain('timed out');
    expect(marker('expire')).toBe(false);

    // Codex's timeout (5 s) shorter than Gatehouse knows: Codex gives up and cancels; the item is
    // agent gone from the cancel, approving it afterwards is refused, and the command never ran.
    expect(outputText(s.gone!)).toContain('timed out awaiting tools/call after 5s');
    expect(s.gone!.after!.item).toMatchObject({ state: 'gone', outcome: { reason: expect.stringContaining('the MCP client cancelled the call') } });
    expect(s.gone!.after!.late).toMatch(/cannot be approved: its agent is gone/);
    expect(marker('gone')).toBe(false);

    // Without default_tools_approval_mode, Codex trusts readOnlyHint (hello runs) and refuses the
    // shell by itself before Gatehouse sees it.
    expect(outputText(s['hint-read']!)).toContain('Hello, Grace.');
    expect(outputText(s['hint-shell']!)).toContain('MCP tool call requires approval');
    expect(marker('hint-shell')).toBe(false);

    // The Streamable HTTP form as written (the token from GATEHOUSE_AGENT_TOKEN, never in the file) works too.
    expect((parseToml(report.writtenHttp) as { mcp_servers: Record<string, unknown> }).mcp_servers.gatehouse).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
      bearer_token_env_var: 'GATEHOUSE_AGENT_TOKEN',
      required: true,
      default_tools_approval_mode: 'approve',
      tool_timeout_sec: 635,
    });
    expect(outputText(s['http-read']!)).toContain('Hello, Linus.');

    // Gatehouse stopped: with required = true, codex exec does not start and asks the model nothing.
    expect(s.stopped!.code).not.toBe(0);
    expect(s.stopped!.requests).toBe(0);
    expect(s.stopped!.stderr).toMatch(/required MCP servers failed to initialize: gatehouse: .*Gatehouse is not running/);
    expect(marker('stopped')).toBe(false);

    // The audit log, read after the host stopped: what Gatehouse received and decided.
    const db = new Database(join(report.home, 'audit.db'), { readonly: true });
    try {
      const rows = (type: string) => (db.prepare('SELECT payload FROM events WHERE type = ? ORDER BY seq').all(type) as { payload: string }[]).map((r) => JSON.parse(r.payload) as Record<string, unknown>);
      const received = rows('call.received');
      // read, approve, expire, gone, hint-read, http-read; never hint-shell or stopped.
      expect(received.map((r) => [r.tool, r.client, r.source])).toEqual([
        ['hello', 'codex-mcp-client', 'mcp'],
        ['shell', 'codex-mcp-client', 'mcp'],
        ['shell', 'codex-mcp-client', 'mcp'],
        ['shell', 'codex-mcp-client', 'mcp'],
        ['hello', 'codex-mcp-client', 'mcp'],
        ['hello', 'codex-mcp-client', 'mcp'],
      ]);
      // Through the bridge, its folder (Codex's workspace) is the calls' working folder. Over HTTP
      // Codex names no folder (no MCP roots), so the host's own applies: why stdio is the default.
      expect(received.slice(0, 5).every((r) => r.cwd === join(root, 'project'))).toBe(true);
      expect(received[5]!.cwd).not.toBe(join(root, 'project'));
      const decided = rows('call.decided').map((d) => [d.decision, (d.decider as { kind: string }).kind]);
      expect(decided).toEqual([
        ['allow', 'autonomy'],
        ['allow', 'operator'],
        ['expired', 'error'],
        ['expired', 'error'],
        ['allow', 'autonomy'],
        ['allow', 'autonomy'],
      ]);
      const withdrawn = rows('approval.withdrawn');
      expect(withdrawn.map((w) => w.state)).toEqual(['gone', 'gone']);
      const ran = rows('call.result').filter((r) => r.executed === true);
      expect(ran).toHaveLength(4);
    } finally {
      db.close();
    }
    // Eight Codex runs, well under two minutes.
    expect(report.scenarios.reduce((t, x) => t + x.ms, 0)).toBeLessThan(120_000);
  }, 180_000);
});
