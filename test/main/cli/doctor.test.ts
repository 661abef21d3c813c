// `gatehouse doctor`, run as the real built CLI (a child process) against real data folders:
// one line per check, a "To do" for anything not ok, exit 1 when something needs attention.
import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { homePaths } from '../../../main/home.js';
import { installScope } from '../../../main/runner/box-scope.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import { runCli, startCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const sandboxOk = detectSandbox().kind === 'bwrap';

interface Report {
  ok: boolean;
  home: string;
  checks: { id: string; status: 'ok' | 'warn' | 'fail'; summary: string; fix: string | null }[];
}

function plugin(parent: string, name: string, manifest: string, script = '#!/bin/sh\necho "{}"\n'): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tool.toml'), manifest);
  writeFileSync(join(dir, 'run.sh'), script);
  chmodSync(join(dir, 'run.sh'), 0o755);
  return dir;
}

/** The line of one check, e.g. "ok    sandbox  …". */
function line(stdout: string, id: string): string {
  const l = stdout.split('\n').find((x) => new RegExp(`^(ok  |warn|FAIL)  ${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `).test(x));
  if (!l) throw new Error(`no "${id}" line in:\n${stdout}`);
  return l;
}

describe('gatehouse doctor', () => {
  it('checks everything in one line each and exits 0 when nothing needs attention', async () => {
    const home = tempDir();
    const plugins = tempDir();
    plugin(plugins, 'hello', 'name = "hello"\ndescription = "Says hello."\ncommand = "run.sh"\n');
    const r = await runCli(['doctor', '--home', home, '--plugins-dir', plugins]);
    expect(r.stderr).toBe('');
    expect(line(r.stdout, 'sandbox')).toMatch(sandboxOk ? /^ok {4}sandbox +bubblewrap \d+\.\d+\.\d+ works/ : /^FAIL {2}sandbox +plugins run unsandboxed/);
    // Whether this machine can build the box's Landlock scope (box-scope.ts), in a folder of the test's own.
    const scopable = (await installScope(tempDir())).ok;
    expect(line(r.stdout, 'containment')).toMatch(
      !sandboxOk
        ? /^FAIL {2}containment +Containment is off: /
        : scopable
          ? /^ok {4}containment +Containment is on for commands allowed by full autonomy, a grant or an allow rule: bubblewrap .* Landlock keeps it from sockets in the abstract namespace/
          : /^warn {2}containment +Containment is on .* Sockets in the abstract namespace .* stay reachable: .* To do: on Linux 6\.12 or later, install a C compiler/,
    );
    // Doctor only reads: no Landlock helper was left in the data folder.
    expect(existsSync(join(home, 'box'))).toBe(false);
    expect(line(r.stdout, 'process-limit')).toMatch(/^(ok {2}|warn) {2}process-limit/);
    expect(line(r.stdout, 'data-folder')).toMatch(/^ok {4}data-folder +data folder /);
    // The free space of the data folder's disk: when it runs out, every call is denied.
    expect(line(r.stdout, 'disk')).toMatch(/^(ok {2}|warn) {2}disk +\d+(\.\d)? MiB free in \//);
    expect(line(r.stdout, 'plugin-dirs')).toContain(`${plugins} (cli, exists)`);
    expect(line(r.stdout, 'plugins')).toMatch(/^ok {4}plugins +1 plugin: hello \(disabled\)\.$/);
    expect(line(r.stdout, 'checkers')).toMatch(/^ok {4}checkers +no host running; checkers not started/);
    // The tests hide Electron (GATEHOUSE_NO_ELECTRON=1): a warning, with what to do.
    expect(line(r.stdout, 'electron')).toMatch(/^warn {2}electron +no Electron binary \(GATEHOUSE_NO_ELECTRON=1 is set\).* To do: .*npm install electron/);
    expect(line(r.stdout, 'audit')).toMatch(/^ok {4}audit +no audit log yet/);
    expect(r.code).toBe(sandboxOk ? 0 : 1);
  });

  it('only reads: a data folder that does not exist is reported, not created', async () => {
    const home = join(tempDir(), 'not-yet');
    const r = await runCli(['doctor', '--home', home]);
    expect(line(r.stdout, 'data-folder')).toMatch(/^warn {2}data-folder +the data folder .*not-yet does not exist yet\. To do: /);
    expect(existsSync(home)).toBe(false);
  });

  it('fails, saying what to do, when bubblewrap is missing', async () => {
    const home = tempDir();
    const r = await runCli(['doctor', '--home', home], { GATEHOUSE_BWRAP: '/nonexistent/bwrap' });
    expect(line(r.stdout, 'sandbox')).toBe(
      'FAIL  sandbox        plugins run unsandboxed: GATEHOUSE_BWRAP points at /nonexistent/bwrap, which does not exist; a plugin can read and write whatever your account can. To do: install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), then run gatehouse doctor again; until then enable only plugins you trust, or turn on "require sandbox" to refuse unsandboxed runs.',
    );
    // Without a box, Bash commands let through at full autonomy or under a grant run uncontained (issue #24).
    expect(line(r.stdout, 'containment')).toBe(
      'FAIL  containment    Containment is off: GATEHOUSE_BWRAP points at /nonexistent/bwrap, which does not exist. Bash commands Gatehouse lets through run with everything your account can reach. To do: install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap) where user namespaces are enabled, then run gatehouse doctor again; until then keep autonomy at supervised.',
    );
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^2 problems need attention/);
    expect(r.code).toBe(1);
  });

  it('fails for a plugin that cannot run, naming it and the command that shows why', async () => {
    const home = tempDir();
    const plugins = tempDir();
    const broken = plugin(plugins, 'broken', 'name = "broken"\ncommand = "run.sh"\ntimeout_secs = "soon"\n');
    const r = await runCli(['doctor', '--home', home, '--plugins-dir', plugins]);
    expect(line(r.stdout, 'plugin:broken')).toMatch(new RegExp(`^FAIL  plugin:broken +broken is invalid \\(\\d+ errors?\\) and will not run\\. To do: see the errors with: gatehouse plugin validate ${broken}$`));
    expect(r.code).toBe(1);
  });

  it('fails for a --plugins-dir that does not exist', async () => {
    const home = tempDir();
    const r = await runCli(['doctor', '--home', home, '--plugins-dir', join(home, 'nope')]);
    expect(line(r.stdout, 'plugin-dirs')).toMatch(/^FAIL {2}plugin-dirs .*nope \(cli, missing\).* To do: .*nope passed with --plugins-dir does not exist/);
    expect(r.code).toBe(1);
  });

  it('verifies the audit chain, and fails naming the row when it was tampered with', async () => {
    const home = tempDir();
    const store = new AuditStore({ path: homePaths(home).auditDb });
    let last;
    for (let i = 1; i <= 5; i++) last = store.append({ type: 'tool.call', actor: 'agent:a', payload: { n: i } });
    await last!.durable;
    store.close();
    const intact = await runCli(['doctor', '--home', home, '--json']);
    const report = JSON.parse(intact.stdout) as Report;
    expect(report.checks.find((c) => c.id === 'audit')).toEqual({ id: 'audit', status: 'ok', summary: 'audit chain intact: 5 events, head row 5.', fix: null });

    const conn = new Database(homePaths(home).auditDb);
    conn.prepare('UPDATE events SET payload = ? WHERE seq = 3').run(JSON.stringify({ n: 333 }));
    conn.close();
    const r = await runCli(['doctor', '--home', home]);
    expect(line(r.stdout, 'audit')).toMatch(/^FAIL {2}audit +audit chain broken at row 3: .* To do: the log was changed outside Gatehouse: keep a copy of .*audit\.db for investigation/);
    expect(r.code).toBe(1);
  });

  it('a policy.yaml that cannot be loaded fails the check and says what Gatehouse does meanwhile', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'policy.yaml'), 'version: 1\nrules:\n  - name: x\n    decision: [deny\n');
    const r = await runCli(['doctor', '--home', home]);
    expect(line(r.stdout, 'policy')).toMatch(/^FAIL {2}policy +.*policy\.yaml cannot be loaded \(line \d+: .*\); no policy ever loaded whole here, so Gatehouse denies every call until it is fixed\. To do: run gatehouse policy check /);
    expect(r.code).toBe(1);
    writeFileSync(join(home, 'policy.yaml'), 'version: 1\nrules: []\n');
    expect(line((await runCli(['doctor', '--home', home])).stdout, 'policy')).toMatch(/^ok +policy +.*policy\.yaml: 0 rules, loads as written\./);
  });

  // Review of e3f2db0: with policy.yaml gone and its saved copy beside it, doctor said only the
  // built-in rules decided, while a host started then applied the saved copy's rules.
  it('policy.yaml gone but a saved copy beside it: the check says a host started now applies the saved policy', async () => {
    const home = tempDir();
    const policy = 'version: 1\nrules:\n  - name: open\n    actions: [read]\n    block_paths: ["/srv/**"]\n    decision: allow\n';
    writeFileSync(join(home, '.policy.yaml.last-good'), policy);
    const r = await runCli(['doctor', '--home', home]);
    expect(line(r.stdout, 'policy')).not.toMatch(/the built-in rules and the autonomy level decide/);
    expect(line(r.stdout, 'policy')).toMatch(/^warn +policy +no .*policy\.yaml, so a host started now applies the policy the last run saved beside it \(\.policy\.yaml\.last-good\) until the file is back\. To do: restore .*policy\.yaml, or write an empty one/);
    // A saved copy that does not load is not applied: then the built-in rules do decide.
    writeFileSync(join(home, '.policy.yaml.last-good'), 'rules: [\n');
    expect(line((await runCli(['doctor', '--home', home])).stdout, 'policy')).toMatch(/^ok +policy +no .*policy\.yaml \(and no saved copy beside it that loads\): the built-in rules and the autonomy level decide\./);
    // A broken file over a saved copy that loads (here the copy in force, with a rule rejected).
    writeFileSync(join(home, '.policy.yaml.last-loaded'), policy);
    writeFileSync(join(home, 'policy.yaml'), 'rules: [\n');
    expect(line((await runCli(['doctor', '--home', home])).stdout, 'policy')).toMatch(/^FAIL {2}policy +.*policy\.yaml cannot be loaded \(line \d+: .*\); a running host keeps the policy in force, and a host started now applies the one the last run saved \(\.policy\.yaml\.last-loaded\) until it is fixed\./);
  });

  it('--json gives every check with its status and fix, and ok matching the exit code', async () => {
    const home = tempDir();
    const r = await runCli(['doctor', '--home', home, '--json'], { GATEHOUSE_BWRAP: 'none' });
    const report = JSON.parse(r.stdout) as Report;
    expect(report.home).toBe(home);
    expect(report.checks.map((c) => c.id)).toEqual(['sandbox', 'containment', 'process-limit', 'data-folder', 'disk', 'plugin-dirs', 'plugins', 'checkers', 'electron', 'policy', 'audit']);
    const sandbox = report.checks[0]!;
    expect(sandbox.status).toBe('fail');
    expect(sandbox.summary).toMatch(/GATEHOUSE_BWRAP=none turns the sandbox off/);
    expect(sandbox.fix).toMatch(/install bubblewrap/);
    for (const c of report.checks) {
      if (c.status === 'ok') expect(c.fix, c.id).toBeNull();
      else expect(c.fix, c.id).toMatch(/\w/);
    }
    expect(report.ok).toBe(false);
    expect(r.code).toBe(1);
  });

  it('asks the running host for plugins and checker health', async () => {
    const home = tempDir();
    const plugins = tempDir();
    plugin(plugins, 'greeter', 'name = "greeter"\ndescription = "Says hello."\ncommand = "run.sh"\n');
    const serve = startCli(['serve', '--home', home, '--port', '0', '--plugins-dir', plugins]);
    await serve.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
    // The doctor searches the same folders the host was started with.
    const r = await runCli(['doctor', '--home', home, '--plugins-dir', plugins]);
    expect(line(r.stdout, 'checkers')).toBe(`ok    checkers       host pid ${serve.child.pid} is running; no checker is enabled.`);
    // A new home also holds its copies of the example plugins (first run).
    expect(line(r.stdout, 'plugins')).toMatch(/^ok {4}plugins +4 plugins: greeter \(disabled\), hello \(disabled\), path-guard \(disabled\), rate-limit \(disabled\)\.$/);
    expect(line(r.stdout, 'audit')).toMatch(/^ok {4}audit +audit chain intact: \d+ events/);
    expect(r.code).toBe(sandboxOk ? 0 : 1);
  });
});
